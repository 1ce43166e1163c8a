"""Regression (issue 14.5): the Spider mode kept DISTINCT, unlike the official evaluator's default.

test-suite-sql-eval removes every DISTINCT keyword from the gold and the predicted query unless
``--keep_distinct`` is given; evoonto's Spider mode behaved like ``--keep_distinct`` only. Both are
offered now (``Rules.keep_distinct``), the official default by default.
"""

from __future__ import annotations

import sqlite3

from evoonto.evaluation.benchmarks import Gold
from evoonto.evaluation.execution import score_ex


def test_spider_mode_removes_distinct_by_default(tmp_path):
    db = tmp_path / "t.sqlite"
    with sqlite3.connect(db) as con:
        con.executescript("CREATE TABLE t (c TEXT); INSERT INTO t VALUES ('a'), ('a'), ('b');")
    con.close()
    gold = Gold("q", "t", "SELECT c FROM t")
    pred = "SELECT DISTINCT c FROM t"  # a bag of 2 rows vs 3 unless DISTINCT is removed
    assert score_ex(gold, db, pred, mode="spider").correct
    assert not score_ex(gold, db, pred, mode="spider", keep_distinct=True).correct


def test_remove_distinct_keeps_identifiers_and_strings():
    from evoonto.evaluation.execution import remove_distinct

    sql = 'SELECT DISTINCT a, COUNT(distinct b) FROM t WHERE "distinct" = \'distinct\''
    assert remove_distinct(sql) == 'SELECT  a, COUNT( b) FROM t WHERE "distinct" = \'distinct\''
