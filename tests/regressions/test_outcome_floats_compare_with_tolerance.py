"""Issue 28 item 7: verified-query outcomes compared floats exactly.

37.620000000000005 and 37.61999999999999 (one sum in two orders) made a correct answer a failure
that fed the evolver. Outcomes now compare numbers to 10 significant digits and rows in order only
when the verified SQL orders them; benchmark EX keeps the official exact rules.
"""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from pathlib import Path

from evoonto.evaluation.benchmarks import Gold
from evoonto.evaluation.execution import OUTCOME_RULES, results_match, rules_for, score_ex


def test_numbers_compare_to_ten_significant_digits_only_under_the_outcome_rules():
    gold, pred = [(37.620000000000005, "a")], [(37.61999999999999, "a")]
    assert results_match(gold, pred, order_matters=False, significant_digits=10)
    assert not results_match(gold, pred, order_matters=False)  # the official rule: exact values
    assert results_match([(Decimal("37.62"),)], [(37.62,)], order_matters=False, significant_digits=10)
    assert results_match([(2.0,)], [(2,)], order_matters=False, significant_digits=10)
    assert not results_match([(37.62,)], [(37.63,)], order_matters=False, significant_digits=10)
    assert not results_match([(None,)], [(0.0,)], order_matters=False, significant_digits=10)


def test_outcome_rules_on_a_database(tmp_path: Path):
    db = tmp_path / "t.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE t (k TEXT, v REAL)")
        con.executemany("INSERT INTO t VALUES (?, ?)", [("a", 0.1), ("b", 0.2), ("c", 0.3)])
    rules = rules_for(OUTCOME_RULES)
    assert rules.name == OUTCOME_RULES
    summed = Gold("q1", "t", "SELECT 0.1 + 0.2")
    assert score_ex(summed, db, "SELECT 0.3", rules=rules).correct
    assert not score_ex(summed, db, "SELECT 0.3", rules=rules_for("bird")).correct
    # row order counts only when the verified SQL orders its rows
    unordered = Gold("q2", "t", "SELECT k FROM t")
    ordered = Gold("q3", "t", "SELECT k FROM t ORDER BY v DESC")
    assert score_ex(unordered, db, "SELECT k FROM t ORDER BY k DESC", rules=rules).correct
    assert not score_ex(ordered, db, "SELECT k FROM t ORDER BY k", rules=rules).correct
    assert score_ex(ordered, db, "SELECT k FROM t ORDER BY k DESC", rules=rules).correct
