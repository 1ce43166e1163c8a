"""Regression: check_sql said nothing about a column read from a subquery or CTE that does not
return it (``SELECT t.nope FROM (SELECT name FROM cards) AS t``): every column of a derived table was
"checked where it is defined". Now the derived table's output names are compared (unless it selects
``*``), and the finding lists what it returns."""

from __future__ import annotations

from pathlib import Path

from evoonto.ontology import Ontology
from evoonto.store import OxigraphStore, parse_rdf_file
from evoonto.tools.sqlcheck import check_sql

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "sqlcheck_cards.trig"


def _onto() -> Ontology:
    store = OxigraphStore()
    store.load_quads(parse_rdf_file(FIXTURE))
    return Ontology(store, version=1, base_iri="https://example.org/evoonto/sqlcheck-test/")


def test_unknown_column_of_a_subquery_and_of_a_cte():
    onto = _onto()
    found = check_sql(onto, "SELECT t.nope FROM (SELECT name FROM cards) AS t")
    assert [(f.kind, f.severity, f.subject) for f in found] == [("unknown_column", "Violation", "t.nope")]
    assert "it returns name" in found[0].message
    found = check_sql(onto, "WITH t AS (SELECT name FROM cards) SELECT nope FROM t")
    assert [(f.kind, f.severity) for f in found] == [("unknown_column", "Violation")]


def test_known_columns_of_derived_tables_and_star_selects_pass():
    onto = _onto()
    assert check_sql(onto, "WITH t AS (SELECT name FROM cards) SELECT t.name FROM t") == []
    assert check_sql(onto, "SELECT t.n FROM (SELECT name AS n FROM cards) AS t") == []
    assert check_sql(onto, "SELECT t.name FROM (SELECT * FROM cards) AS t") == []
