"""Regression: pyproject allowed ``pyshacl>=0.30`` while validation.py imports pyshacl modules that
first exist in 0.40 (``pyshacl.graph_abstraction``), so an allowed install died with
ModuleNotFoundError in ``build``. Every declared dependency must admit only versions that provide
what evoonto imports, and every third-party import must be declared."""

from __future__ import annotations

import pytest

import ast
import importlib
import importlib.metadata as md
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "evoonto"


def _requirements() -> dict[str, Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        reqs += [Requirement(r) for r in extra]
    return {r.name.lower(): r for r in reqs if r.name != "evoonto"}


def _imports() -> set[tuple[str, str | None]]:
    """(module, imported name or None) for every ``import``/``from`` in the package, lazy ones too."""
    found: set[tuple[str, str | None]] = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {(a.name, None) for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found |= {(node.module, a.name) for a in node.names}
    return found


@pytest.mark.slow
def test_pyshacl_floor_excludes_versions_without_the_modules_evoonto_imports():
    spec = _requirements()["pyshacl"].specifier
    assert "0.31.0" not in spec and "0.39.0" not in spec, f"pyshacl{spec} admits a version without graph_abstraction"
    installed = md.version("pyshacl")
    assert installed in spec
    for module, name in sorted(i for i in _imports() if i[0].split(".")[0] == "pyshacl"):
        mod = importlib.import_module(module)
        assert name is None or hasattr(mod, name), f"pyshacl {installed} lacks {module}.{name}"


@pytest.mark.slow
def test_every_third_party_import_is_a_declared_dependency():
    dists = md.packages_distributions()
    declared = _requirements()
    stdlib = set(sys.stdlib_module_names)
    missing = set()
    for module, _ in _imports():
        top = module.split(".")[0]
        if top in stdlib or top in {"evoonto", "__future__"}:
            continue
        owners = {d.lower() for d in dists.get(top, [top])}
        if not owners & set(declared):
            missing.add(f"{top} ({', '.join(sorted(owners))})")
    assert not missing, f"imported but not declared in pyproject.toml: {sorted(missing)}"


def test_installed_versions_satisfy_every_declared_range():
    for name, req in _requirements().items():
        try:
            version = md.version(name)
        except md.PackageNotFoundError:
            continue  # an extra that this environment did not install
        assert version in req.specifier, f"{name} {version} is outside {req.specifier}"
