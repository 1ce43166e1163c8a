"""Defect: the independent generator of benchmarks/sql_check_bench.py counted as errors mutants that
are none: a mutant returning gold's answer (checked with a repr-based comparison of its own, not the
project's EX comparison), and "fan-out" mutants whose added join repeats no row in the data (the answer
changed only because the inner join dropped the rows without a match: e.g. museum_visit's
``AVG(num_of_staff) … JOIN visit`` where each museum has at most one visit). It now keeps a mutant only
when ``results_match`` says its answer differs, and a fan-out kind only when the data repeats a row of the
query's table through the join (``fans_out``), and reports how many it dropped."""

from __future__ import annotations

import importlib.util
import sqlite3
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "sql_check_bench.py"
DDL = """
CREATE TABLE "Parent" ("id" INTEGER PRIMARY KEY, "city" TEXT, "staff" INTEGER);
CREATE TABLE "Child" ("id" INTEGER PRIMARY KEY, "parent_id" INTEGER REFERENCES "Parent"("id"));
"""


def _bench():
    spec = importlib.util.spec_from_file_location("sql_check_bench", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def _db(tmp_path, children):
    db = tmp_path / "family.sqlite"
    con = sqlite3.connect(db)
    con.executescript(DDL)
    con.executemany('INSERT INTO "Parent" VALUES (?, ?, ?)', [(i, "ab"[i % 2], i) for i in range(1, 7)])
    con.executemany('INSERT INTO "Child" VALUES (?, ?)', children)
    con.commit()
    con.close()
    from evoonto.sources.sqlite import connect_read_only

    return connect_read_only(db)


def test_a_join_that_repeats_no_row_is_no_fan_out(tmp_path):
    bench = _bench()
    conn = _db(tmp_path, [(1, 1), (2, 2)])  # parents 1 and 2 have one child each, the others none
    gold = 'SELECT AVG("p"."staff") FROM "Parent" AS "p"'
    mutant = 'SELECT AVG("p"."staff") FROM "Parent" AS "p" JOIN "Child" AS "c" ON "c"."parent_id" = "p"."id"'
    g, m = bench._raw_rows(conn, gold, 2000.0), bench._raw_rows(conn, mutant, 2000.0)
    assert not bench.same_answer("spider", gold, g, m)  # 3.5 vs 1.5: the join dropped rows ...
    assert bench.fans_out(conn, mutant, "p", 2000.0) is False  # ... but repeated none
    conn.close()


def test_a_join_that_repeats_a_row_is_a_fan_out(tmp_path):
    bench = _bench()
    conn = _db(tmp_path, [(1, 1), (2, 1), (3, 2)])
    mutant = 'SELECT COUNT(*) FROM "Parent" AS "p" JOIN "Child" AS "c" ON "c"."parent_id" = "p"."id"'
    assert bench.fans_out(conn, mutant, "p", 2000.0) is True
    conn.close()


def test_same_answer_uses_the_projects_ex_comparison(tmp_path):
    bench = _bench()
    # spider's official comparison: bags of rows, columns in any order; order only when gold sorts
    assert bench.same_answer("spider", "SELECT a, b FROM t", [(1, "x"), (2, "y")], [("y", 2), ("x", 1)])
    assert not bench.same_answer("spider", "SELECT a FROM t ORDER BY a", [(1,), (2,)], [(2,), (1,)])
    assert not bench.same_answer("spider", "SELECT a FROM t", [(1,), (1,)], [(1,)])  # a bag, not a set
    assert bench.same_answer("bird", "SELECT a FROM t", [(1,), (1,)], [(1,)])  # BIRD compares sets
    assert not bench.same_answer("bird", "SELECT a FROM t", [(1,)], None)  # a failing mutant differs
