"""Gold isolation (issue 13): evolution and builder never import the evaluation package.

Evaluation owns everything that touches gold; evolution knows only protocols (Backbone, Evolver,
Member). The concrete backbones used to live in ``evoonto/evolution/backbone.py`` and imported
``evoonto.evaluation`` lazily inside their methods; they now live in ``evoonto.evaluation.backbones``.
The check reads every module's syntax tree, so imports inside functions, relative imports and
module names passed as strings (``importlib.import_module("evoonto.evaluation…")``) count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import evoonto

PACKAGE = Path(evoonto.__file__).resolve().parent
GUARDED = ("evolution", "builder")
FORBIDDEN = "evoonto.evaluation"


def _absolute(module: str | None, level: int, path: Path) -> str:
    """The absolute module name of a (possibly relative) ``from … import`` in file ``path``."""
    if level == 0:
        return module or ""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    base = parts[:-level] if path.name != "__init__.py" else parts[: len(parts) - level + 1]
    return ".".join(base + ([module] if module else []))


def _violations(path: Path, source: str | None = None) -> list[str]:
    """``file:line: module`` for every import of the evaluation package in ``path`` (or in
    ``source``, read as if it were the text of ``path``)."""
    text = path.read_text(encoding="utf-8") if source is None else source
    tree = ast.parse(text, filename=str(path))
    out = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node.module, node.level, path)
            names = [module] + [f"{module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [node.value] if node.value.startswith(FORBIDDEN) else []
        for name in names:
            if name == FORBIDDEN or name.startswith(FORBIDDEN + "."):
                out.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {name}")
                break
    return out


def _modules() -> list[Path]:
    return sorted(p for sub in GUARDED for p in (PACKAGE / sub).rglob("*.py"))


def test_the_check_sees_the_guarded_modules_and_catches_every_import_form():
    assert len(_modules()) > 10  # evolution/ and builder/ are really scanned
    probe = PACKAGE / "evolution" / "loop.py"  # the file the samples pretend to be
    samples = {
        "import evoonto.evaluation.gold\n": True,
        "def f():\n    from evoonto.evaluation.linking import score_linking\n": True,
        "from evoonto import evaluation\n": True,
        "from ..evaluation.gold import GoldStore\n": True,
        "import importlib\nimportlib.import_module('evoonto.evaluation.gold')\n": True,
        "from evoonto.evolution.gate import compare\n": False,
        "from . import gate\n": False,
        "import evoonto.evaluations_elsewhere\n": False,
    }
    for source, forbidden in samples.items():
        assert bool(_violations(probe, source)) is forbidden, source
    assert _absolute("evaluation", 2, probe) == "evoonto.evaluation"
    assert _absolute(None, 1, probe) == "evoonto.evolution"


def test_evolution_and_builder_never_import_evaluation():
    found = [v for path in _modules() for v in _violations(path)]
    assert found == [], "modules under evoonto/evolution or evoonto/builder import gold:\n" + "\n".join(found)
