"""benchmarks/semantic_query_bench.py's ``tie_at_limit``: a differing result is reported as a tie at
the gold's LIMIT only when the gold's ORDER BY keys really tie at the cut-off and the prediction is
another valid cut (defect: a tie at ``ORDER BY ... LIMIT`` was listed as a compiler defect)."""

from __future__ import annotations

import importlib.util
import sqlite3
from pathlib import Path

import pytest

from evoonto.evaluation.execution import rules_for

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("semantic_query_bench_ties",
                                                  ROOT / "benchmarks" / "semantic_query_bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("ties") / "t.sqlite"
    con = sqlite3.connect(path)
    # scores: a 5, b 3, c 3, d 2  (b and c tie); e has no score rows
    con.executescript("""
        CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE goal (id INTEGER PRIMARY KEY, player_id INTEGER REFERENCES player(id));
        INSERT INTO player VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e');
        INSERT INTO goal (player_id) VALUES (1),(1),(1),(1),(1),(2),(2),(2),(3),(3),(3),(4),(4);
    """)
    con.commit()
    con.close()
    return path


GOLD = ("SELECT p.name, count(*) AS n FROM goal AS g JOIN player AS p ON g.player_id = p.id "
        "GROUP BY p.id ORDER BY n DESC LIMIT {limit}")


def _pred(names: list[str]) -> str:
    counts = {"a": 5, "b": 3, "c": 3, "d": 2}
    return " UNION ALL ".join(f"SELECT * FROM (SELECT '{x}', {counts[x]})" for x in names)


@pytest.mark.parametrize("rules", ["spider", "bird"])
def test_the_other_row_of_a_tie_at_the_cut_off_is_a_tie(bench, db, rules):
    # gold's first 2 rows are a and one of b / c; the prediction takes the other one
    assert bench.tie_at_limit(GOLD.format(limit=2), db, _pred(["a", "c"]), rules_for(rules))
    assert bench.tie_at_limit(GOLD.format(limit=2), db, _pred(["a", "b"]), rules_for(rules))


@pytest.mark.parametrize("rules", ["spider", "bird"])
def test_no_tie_at_the_cut_off_is_no_tie(bench, db, rules):
    # LIMIT 1 and LIMIT 3 cut between different keys (5 | 3 and 3 | 2): only one answer is right
    assert not bench.tie_at_limit(GOLD.format(limit=1), db, _pred(["b"]), rules_for(rules))
    assert not bench.tie_at_limit(GOLD.format(limit=3), db, _pred(["a", "b", "d"]), rules_for(rules))


def test_a_row_after_the_tie_or_a_missing_row_before_it_is_no_tie(bench, db):
    rules = rules_for("bird")
    assert not bench.tie_at_limit(GOLD.format(limit=2), db, _pred(["a", "d"]), rules)   # d sorts after
    assert not bench.tie_at_limit(GOLD.format(limit=2), db, _pred(["b", "c"]), rules)   # a is missing
    assert not bench.tie_at_limit(GOLD.format(limit=2), db, _pred(["a"]), rules)        # too few rows
    assert not bench.tie_at_limit(GOLD.format(limit=2), db, "SELECT 'a', 5 UNION ALL SELECT 'c', 4", rules)


def test_spider_order_counts_and_bird_order_does_not(bench, db):
    # c before a: the right rows in the wrong order (Spider compares order when the gold has ORDER BY)
    assert not bench.tie_at_limit(GOLD.format(limit=2), db, _pred(["c", "a"]), rules_for("spider"))
    assert bench.tie_at_limit(GOLD.format(limit=2), db, _pred(["c", "a"]), rules_for("bird"))


def test_gold_without_limit_or_with_a_positional_order_is_no_tie(bench, db):
    rules = rules_for("bird")
    no_limit = GOLD.format(limit=2).replace(" LIMIT 2", "")
    assert not bench.tie_at_limit(no_limit, db, _pred(["a", "c"]), rules)
    positional = GOLD.format(limit=2).replace("ORDER BY n DESC", "ORDER BY 2 DESC")
    assert not bench.tie_at_limit(positional, db, _pred(["a", "c"]), rules)
    offset = GOLD.format(limit=2) + " OFFSET 1"
    assert not bench.tie_at_limit(offset, db, _pred(["b", "c"]), rules)


def test_distinct_gold_ordered_by_a_column_it_does_not_select_is_no_tie(bench, db):
    # an extra key column would change which rows are distinct: not checked, so not a tie
    gold = ("SELECT DISTINCT p.name FROM goal AS g JOIN player AS p ON g.player_id = p.id "
            "ORDER BY p.id LIMIT 1")
    assert not bench.tie_at_limit(gold, db, "SELECT 'b'", rules_for("bird"))
    selected = ("SELECT DISTINCT p.name, p.id % 2 AS parity FROM player AS p ORDER BY parity LIMIT 1")
    # parity 0: b and d tie at the cut-off of LIMIT 1 (the key is selected, so DISTINCT is unchanged)
    assert bench.tie_at_limit(selected, db, "SELECT 'b', 0", rules_for("bird")) and \
        bench.tie_at_limit(selected, db, "SELECT 'd', 0", rules_for("bird"))
    assert not bench.tie_at_limit(selected, db, "SELECT 'a', 1", rules_for("bird"))
