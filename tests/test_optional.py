"""Optional dependencies are imported in one place and a missing one names its pip extra."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from evoonto.errors import ConfigurationError
from evoonto.optional import OPTIONAL, require

PACKAGE = Path(__file__).resolve().parents[1] / "evoonto"


def test_missing_optional_package_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "anthropic", None)  # makes the import fail as if uninstalled
    with pytest.raises(ConfigurationError, match=r"pip install 'evoonto\[llm\]'"):
        require("anthropic")


def test_installed_optional_package_is_returned():
    assert require("owlready2").__name__ == "owlready2"


@pytest.mark.slow
def test_optional_packages_are_imported_only_through_require():
    direct = []
    for path in PACKAGE.rglob("*.py"):
        if path.name == "optional.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else [])
            direct += [f"{path.name}: {n}" for n in names if n.split(".")[0] in OPTIONAL]
    assert not direct, direct
