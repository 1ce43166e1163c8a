"""Regression (issue 28, C1): check_sql reported a Violation (and offered another value as the fix)
for a confirmed-absent value in correct SQL whose comparison excludes rows or only pairs them:
``NOT (..)``, ``NOT EXISTS``, ``NOT IN (subquery)``, the right operand of ``EXCEPT``, the ``ON`` of
an outer join's null-supplying side, and a ``CASE`` branch. Each is now a Warning; a negated one
carries no suggestion (replacing the value would change the answer)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.store import OxigraphStore, parse_rdf_file
from evoonto.tools.sqlcheck import check_sql
from tests.test_sqlcheck import _cards_db

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "sqlcheck_cards.trig"
BASE = "https://example.org/evoonto/sqlcheck-test/"

NEGATED = [
    "SELECT uuid FROM legalities WHERE NOT (status = 'restricted')",
    "SELECT name FROM cards c WHERE NOT EXISTS "
    "(SELECT 1 FROM legalities l WHERE l.uuid = c.uuid AND l.status = 'restricted')",
    "SELECT name FROM cards WHERE uuid NOT IN (SELECT uuid FROM legalities WHERE status = 'restricted')",
    "SELECT uuid FROM cards EXCEPT SELECT uuid FROM legalities WHERE status = 'restricted'",
    "SELECT c.name FROM cards c LEFT JOIN legalities l ON l.uuid = c.uuid AND l.status = 'restricted' "
    "WHERE l.uuid IS NULL",
    "SELECT c.name FROM legalities l RIGHT JOIN cards c ON l.uuid = c.uuid AND l.status = 'restricted'",
]


@pytest.fixture()
def source(tmp_path):
    path = _cards_db(tmp_path / "cards.sqlite")  # the same two-table database as tests/test_sqlcheck.py
    store = OxigraphStore()
    store.load_quads(parse_rdf_file(FIXTURE))
    with open_source(path, source_id="cards") as src:
        yield Ontology(store, version=1, base_iri=BASE), {"cards": src}


def _unseen(onto, sources, sql):
    return [f for f in check_sql(onto, sql, sources=sources) if f.kind == "unseen_value"]


def test_plain_equality_with_a_confirmed_absent_value_stays_a_violation(source):
    onto, sources = source
    [finding] = _unseen(onto, sources, "SELECT uuid FROM legalities WHERE status = 'restricted'")
    assert finding.severity == "Violation" and finding.suggestion == "'Restricted'"


@pytest.mark.parametrize("sql", NEGATED)
def test_negated_or_outer_join_comparison_is_a_warning_without_a_replacement(source, sql):
    onto, sources = source
    [finding] = _unseen(onto, sources, sql)
    assert (finding.severity, finding.suggestion) == ("Warning", None)
    assert "'Restricted'" in finding.message and "would change the answer" in finding.message


def test_case_branch_with_a_confirmed_absent_value_is_an_alternative(source):
    onto, sources = source
    sql = ("SELECT uuid, CASE WHEN status = 'restricted' THEN 'r' WHEN status = 'Banned' THEN 'b' END "
           "FROM legalities")
    [finding] = _unseen(onto, sources, sql)
    assert finding.severity == "Warning" and "one alternative of several" in finding.message
