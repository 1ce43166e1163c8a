"""Structure item of issue 13: no import cycle ontology ⇄ validation.

``evoonto.validation`` needs the Ontology (it validates one); ``evoonto.ontology`` used to import
``evoonto.validation`` back (lazily, for ``Ontology.validate``). Validation now depends on ontology
only: call ``evoonto.validation.validate(ontology)``. The check reads the syntax tree, so imports
inside functions count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import evoonto

PACKAGE = Path(evoonto.__file__).resolve().parent


def _imports(module: str) -> set[str]:
    """Every module ``evoonto/<module>.py`` imports, at any depth of its syntax tree."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            prefix = "evoonto." if node.level else ""
            out.add(prefix + node.module)
            out.update(f"{prefix}{node.module}.{alias.name}" for alias in node.names)
    return out


def test_validation_depends_on_ontology_and_not_the_reverse():
    assert "evoonto.ontology" in _imports("validation")
    assert not any(name.startswith("evoonto.validation") for name in _imports("ontology"))


def test_validate_takes_an_ontology():
    from evoonto.ontology import Ontology
    from evoonto.resources import vocab_graph
    from evoonto.validation import validate

    assert not hasattr(Ontology, "validate")
    assert validate(Ontology.from_graphs({"vocab": vocab_graph()})).conforms
