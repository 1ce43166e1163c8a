"""Regression: an unqualified column that two joined tables both have (``SELECT uuid FROM cards JOIN
legalities ON …``) passed check_sql, although SQLite refuses it ("ambiguous column name"). It is now
an ``ambiguous_column`` Violation naming the qualified choices; a column of an outer query's table
read in a subquery, and USING joins, stay fine."""

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


def test_ambiguous_unqualified_column_is_a_violation():
    found = check_sql(_onto(), "SELECT uuid FROM cards JOIN legalities ON cards.uuid = legalities.uuid")
    assert [(f.kind, f.severity) for f in found] == [("ambiguous_column", "Violation")]
    assert found[0].suggestion == "cards.uuid, legalities.uuid"


def test_subquery_over_the_same_table_and_using_joins_are_not_ambiguous():
    onto = _onto()
    assert check_sql(onto, "SELECT name FROM cards WHERE uuid IN (SELECT uuid FROM legalities)") == []
    assert check_sql(onto, "SELECT uuid FROM cards JOIN legalities USING (uuid)") == []
