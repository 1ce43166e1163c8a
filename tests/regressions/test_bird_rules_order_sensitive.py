"""Regression (issue 14.5): the BIRD mode compared ordered lists when the gold had ORDER BY.

BIRD's official ``calculate_ex`` is ``set(predicted) == set(gold)`` whatever the SQL says; evoonto's
default ``order_by_sensitive=True`` scored a correct answer in another row order as wrong. The BIRD
mode is now order-insensitive by default (the old behaviour stays as ``order_by_sensitive=True``).
"""

from __future__ import annotations

import sqlite3

from evoonto.evaluation.benchmarks import Gold
from evoonto.evaluation.execution import score_ex


def test_bird_default_ignores_row_order(tmp_path):
    db = tmp_path / "t.sqlite"
    with sqlite3.connect(db) as con:
        con.executescript("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2), (3);")
    con.close()
    gold = Gold("q", "t", "SELECT n FROM t ORDER BY n")
    assert score_ex(gold, db, "SELECT n FROM t ORDER BY n DESC", mode="bird").correct
