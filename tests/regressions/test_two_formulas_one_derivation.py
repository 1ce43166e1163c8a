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


def test_any_two_candidates_on_one_iri_keep_the_first_and_record_the_other(tmp_path, monkeypatch):
    """The same rule for Terms and Constraints: a proposer (an LLM, say) offering a second Term
    under an existing slug with another kind and label does not give one node two of each."""
    import dataclasses

    from evoonto.builder import pipeline
    from evoonto.builder.labels import LabelSet

    real_verify = pipeline.verify

    def doubled(*args, **kwargs):
        verified = real_verify(*args, **kwargs)
        first = next(vt for vt in verified.terms if vt.candidate.column == "total")
        other = dataclasses.replace(first.candidate, kind="Dimension", labels=LabelSet.make("Grand total"))
        verified.terms.append(dataclasses.replace(first, candidate=other))
        if verified.constraints:
            vc = verified.constraints[0]
            verified.constraints.append(dataclasses.replace(
                vc, candidate=dataclasses.replace(vc.candidate, condition="1 = 1", comment="another rule")))
        return verified

    monkeypatch.setattr(pipeline, "verify", doubled)
    db = sqlite_db(tmp_path / "calc.sqlite", """
        CREATE TABLE line (line_id INTEGER PRIMARY KEY, total INTEGER, status TEXT);
        INSERT INTO line VALUES (1, 5, 'open'), (2, 7, 'closed'), (3, 9, 'open'), (4, 2, 'open');
    """)
    result = build([str(db)])  # validates
    assert result.validation is not None and result.validation.conforms
    (term_rejection,) = [r for r in result.rejected if r.family == "term" and "already minted" in r.reason]
    assert term_rejection.subject == "line.total"
    assert "Grand total" not in {str(o) for o in result.graphs["content"].objects()}
    assert [r.subject for r in result.rejected if r.family == "constraint" and "already minted" in r.reason] == [
        "line.status.domain"]
