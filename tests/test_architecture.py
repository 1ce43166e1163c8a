"""The package's import graph: no cycles, no upward imports, gold stays with evaluation.

Layers, lowest first (docs/architecture.md §1 says what each may import). A module may import its
own layer or lower ones, never a higher one; function-level (lazy) imports count too, so a cycle
cannot hide behind an import inside a function, and string imports of evoonto modules
(``importlib.import_module("evoonto....")``) are read as imports.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "evoonto"

#: module prefix -> layer number; the longest matching prefix wins.
LAYERS: dict[str, int] = {
    # 0: foundations with no evoonto dependencies beyond each other
    "evoonto.version": 0, "evoonto.errors": 0, "evoonto.namespaces": 0, "evoonto.iris": 0,
    "evoonto.resources": 0, "evoonto.fileio": 0, "evoonto.optional": 0, "evoonto.text": 0,
    "evoonto.lexicon": 0, "evoonto.codegen": 0, "evoonto.progress": 0, "evoonto.memory": 0,
    # 1: the RDF core (records, store, shapes, patches, versions, exports)
    "evoonto.records": 1, "evoonto.catalog": 1, "evoonto.store": 1, "evoonto.validation": 1,
    "evoonto.patch": 1, "evoonto.ontology": 1, "evoonto.history": 1, "evoonto.workspace": 1,
    "evoonto.export": 1, "evoonto.remote": 1, "evoonto.reasoning": 1, "evoonto.r2rml": 1, "evoonto.storecache": 1,
    # 2: read-only data access
    "evoonto.sources": 2,
    # 3: the Tool layer
    "evoonto.tools": 3,
    # 4: cold start
    "evoonto.builder": 4, "evoonto.imports": 4,
    # 5: the evolution loop (protocols only; no gold)
    "evoonto.evolution": 5,
    # 6: evaluation (owns gold and the scorers)
    "evoonto.evaluation": 6,
    # 7: applications of the library
    "evoonto.experiment": 7, "evoonto.server": 7, "evoonto.viz": 7, "evoonto.sparql_magic": 7,
    "evoonto.demo": 7, "evoonto.drift": 7,
    # 8: the command line
    "evoonto.cli": 8, "evoonto.__main__": 8,
}


def _modules() -> dict[str, Path]:
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = path
    return mods


#: the package face (``from evoonto import Workspace, build, OntologyTools``) sits above everything:
#: it may import any module and no module may import it.
FACADE = "evoonto"
FACADE_LAYER = 99


def _layer(module: str) -> int:
    if module == FACADE:
        return FACADE_LAYER
    matches = [p for p in LAYERS if module == p or module.startswith(p + ".")]
    assert matches, f"{module} has no layer in tests/test_architecture.py LAYERS (add it there and in docs)"
    return LAYERS[max(matches, key=len)]


@functools.lru_cache(maxsize=1)
def _package_edges() -> dict[str, set[str]]:
    """:func:`_edges` of the package as it is on disk, parsed once per test session (callers read it)."""
    return _edges(_modules())


def _edges(mods: dict[str, Path]) -> dict[str, set[str]]:
    def known(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(up + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            elif (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) ==
                  "import_module" and node.args and isinstance(node.args[0], ast.Constant)
                  and isinstance(node.args[0].value, str)):
                targets = [node.args[0].value]
            for target in targets:
                if target.startswith("evoonto"):
                    found = known(target)
                    if found and found != mod:
                        edges[mod].add(found)
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_every_module_has_a_layer():
    assert all(isinstance(_layer(m), int) for m in _modules())


def test_import_graph_has_no_cycles():
    assert _cycles(_package_edges()) == []


def test_no_upward_imports():
    edges = _package_edges()
    upward = sorted(f"{a} (layer {_layer(a)}) -> {b} (layer {_layer(b)})"
                    for a, targets in edges.items() for b in targets
                    if _layer(b) > _layer(a))
    assert upward == []


def test_evolution_and_builder_never_import_evaluation():
    edges = _package_edges()
    leaks = sorted(f"{a} -> {b}" for a, targets in edges.items() for b in targets
                   if a.startswith(("evoonto.evolution", "evoonto.builder")) and b.startswith("evoonto.evaluation"))
    assert leaks == []
