"""Issue 17, item 0: a column satisfying two formulas with a shared operand (``total = a + b`` and
``total = a * c``) made two candidates mint one Derivation IRI (``total`` → ``a``), which then held
two ``evo:formula`` values and the build stopped with a shape violation. The builder must never
produce what its shapes refuse: the first candidate keeps the IRI, the other is a recorded rejection."""

from __future__ import annotations

from fixtures.sources_support import sqlite_db
from rdflib import Literal

from evoonto.builder import build
from evoonto.namespaces import EVO


def test_two_formulas_on_one_target_and_operand_build_and_validate(tmp_path):
    rows = [(a, a * (c - 1), c, a * c) for a, c in ((2, 3), (5, 2), (3, 4), (7, 5), (4, 6), (6, 3))]
    values = ", ".join(f"({i}, {a}, {b}, {c}, {t})" for i, (a, b, c, t) in enumerate(rows, 1))
    db = sqlite_db(tmp_path / "calc.sqlite", f"""
        CREATE TABLE line (line_id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c INTEGER, total INTEGER);
        INSERT INTO line VALUES {values};
    """)
    result = build([str(db)])  # raises ShapeViolationError on the old builder
    assert result.validation is not None and result.validation.conforms
    content = result.graphs["content"]
    formulas = {str(f) for f in content.objects(None, EVO.formula)}
    assert formulas == {"total = a + b"} or formulas == {"total = a * c"}, formulas
    for node in content.subjects(EVO.formula, None):
        assert len(list(content.objects(node, EVO.formula))) == 1
    (rejection,) = [r for r in result.rejected if r.family == "derivation" and "already minted" in r.reason]
    assert "total = a" in rejection.subject and Literal(rejection.subject.split(".", 1)[1]) not in set(
        content.objects(None, EVO.formula))
