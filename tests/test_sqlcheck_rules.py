"""check_sql's rule registry (issue 28 item 8): one function per rule over one shared context, each
run alone here on a statement that only it can flag."""

from __future__ import annotations

from pathlib import Path

import pytest

from evoonto.ontology import Ontology
from evoonto.store import OxigraphStore, parse_rdf_file
from evoonto.tools.sqlcheck import RULES, check_sql
from evoonto.tools.sqlcheck.grouping import check_grouping
from evoonto.tools.sqlcheck.statement import (check_constraints, check_repeated_conditions, check_self_comparisons,
                                               check_views)
from evoonto.tools.sqlcheck.values import check_ranges, check_types, check_values

FIXTURE = Path(__file__).parent / "fixtures" / "sqlcheck_cards.trig"


@pytest.fixture(scope="module")
def onto() -> Ontology:
    store = OxigraphStore()
    store.load_quads(parse_rdf_file(FIXTURE))
    return Ontology(store, version=1, base_iri="https://example.org/evoonto/sqlcheck-test/")


def test_registry_order_and_names():
    names = [r.__name__ for r in RULES]
    assert names == ["check_catalog_currency",
                     "check_values", "check_ranges", "check_types", "check_grouping", "check_self_comparisons",
                     "check_repeated_conditions", "check_constraints", "check_views", "check_question_rule",
                     "check_join_rules"]


@pytest.mark.parametrize("rule, sql, kind", [
    (check_values, "SELECT uuid FROM legalities WHERE status = 'Suspended'", "unseen_value"),
    (check_types, "SELECT avg(artist) FROM cards", "type_mismatch"),
    (check_grouping, "SELECT name, name FROM cards", "repeated_column"),
    (check_self_comparisons, "SELECT name FROM cards WHERE artist <> artist", "self_comparison"),
    (check_repeated_conditions, "SELECT name FROM cards WHERE artist = 'x' AND artist = 'x'", "repeated_condition"),
    (check_constraints, "SELECT uuid FROM legalities WHERE status = 'Banned'", "missing_constraint"),
    (check_views, "SELECT v.name FROM banned_cards AS v", "view_for_base"),
])
def test_each_rule_alone_flags_its_case_and_only_its_kinds(onto, rule, sql, kind):
    alone = check_sql(onto, sql, rules=[rule])
    assert [f.kind for f in alone] == [kind]
    # every other rule, run alone, says nothing of this kind
    for other in RULES:
        if other is not rule:
            assert kind not in {f.kind for f in check_sql(onto, sql, rules=[other])}, other.__name__


def test_ranges_rule_alone_offline_and_confirmed_by_a_probe(tmp_path):
    import sqlite3

    from evoonto.builder.pipeline import build
    from evoonto.sources import open_source

    db = tmp_path / "people.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE person (id INTEGER PRIMARY KEY, age INTEGER)")
    con.executemany("INSERT INTO person VALUES (?, ?)", [(i, 20 + i) for i in range(1, 30)])
    con.commit()
    con.close()
    people = Ontology.from_graphs(build([db], None, validate=False).graphs)
    sql = "SELECT id FROM person WHERE age = 1980"
    [offline] = check_sql(people, sql, rules=[check_ranges])
    assert (offline.kind, offline.severity) == ("out_of_range", "Warning")
    assert "not checked against the data" in offline.message
    with open_source(db, source_id="people") as src:
        [confirmed] = check_sql(people, sql, rules=[check_ranges], sources={"people": src})
        assert "point probe" in confirmed.message
        assert check_sql(people, "SELECT id FROM person WHERE age = 30", rules=[check_ranges],
                         sources={"people": src}) == []


def test_no_rules_leaves_only_the_name_walk(onto):
    assert [f.kind for f in check_sql(onto, "SELECT nme FROM cards WHERE status = 'x'", rules=[])] == [
        "unknown_column", "unknown_column"]
