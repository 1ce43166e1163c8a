"""EX/VES scoring against hand-made predictions (evoonto.evaluation.execution)."""

from __future__ import annotations

import hashlib

import pytest
from fixtures.eval_support import make_db

from evoonto.evaluation.benchmarks import Gold
from evoonto.evaluation.execution import results_match, score_ex


# --- the comparison rules, as the official evaluators apply them --------------------------------

def bird_official(pred, gold):
    """BIRD's calculate_ex, verbatim rule: set(predicted_res) == set(ground_truth_res)."""
    return set(pred) == set(gold)


ROWS = [("France", 2), ("Netherlands", 1)]


@pytest.mark.parametrize("pred,ordered,bird,spider", [
    (ROWS, False, True, True),                                     # equal
    (ROWS[::-1], False, True, True),                               # reordered, no ORDER BY
    (ROWS[::-1], True, False, False),                              # reordered, gold has ORDER BY
    ([(2, "France"), (1, "Netherlands")], False, False, True),     # columns swapped: Spider allows it
    (ROWS + [ROWS[0]], False, True, False),                        # duplicate row: BIRD sets ignore it
    ([("France", 3), ("Netherlands", 1)], False, False, False),    # different value
    ([("France",)], False, False, False),                          # different shape
])
def test_results_match_follows_official_rules(pred, ordered, bird, spider):
    assert results_match(ROWS, pred, order_matters=ordered, mode="bird") is bird
    assert results_match(ROWS, pred, order_matters=ordered, mode="spider") is spider
    if not ordered:
        assert results_match(ROWS, pred, order_matters=False, mode="bird") is bird_official(pred, ROWS)


def test_empty_results_are_equal():
    assert results_match([], [], order_matters=True, mode="spider")
    assert results_match([], [], order_matters=False, mode="bird")
    assert not results_match([], [(1,)], order_matters=False, mode="spider")


# --- end to end through the read-only source layer ----------------------------------------------

@pytest.fixture()
def db(tmp_path):
    return make_db(tmp_path / "cs.sqlite")


GOLD = Gold("q1", "cs", "SELECT Country, count(*) FROM singer GROUP BY Country")
GOLD_ORDERED = Gold("q2", "cs", "SELECT Name FROM singer ORDER BY Age DESC")


@pytest.mark.parametrize("gold,pred,ex", [
    (GOLD, "SELECT Country, count(*) FROM singer GROUP BY Country", 1),                          # equal
    (GOLD, "SELECT Country, count(*) AS n FROM singer GROUP BY Country ORDER BY n", 1),          # reordered
    (GOLD, "SELECT Country, count(*) FROM singer WHERE Age > 26 GROUP BY Country", 0),           # different
    (GOLD_ORDERED, "SELECT Name FROM singer ORDER BY Age DESC", 1),
    (GOLD_ORDERED, "SELECT Name FROM singer ORDER BY Age ASC", 0),                               # order counts
    (GOLD_ORDERED, "SELECT Name FROM singer", 0),
])
def test_ex_on_hand_made_predictions(db, gold, pred, ex):
    # Spider rules: row order counts when the gold has ORDER BY (BIRD's official rule ignores it:
    # tests/test_ex_agreement.py and test_bird_official_order_rule)
    result = score_ex(gold, db, pred, mode="spider")
    assert int(result.correct) == ex and result.error is None
    assert (result.ves > 0) == bool(ex)


def test_bird_official_order_rule(db):
    pred = "SELECT Name FROM singer ORDER BY Age ASC"
    assert score_ex(GOLD_ORDERED, db, pred).correct  # BIRD's default: sets only
    assert not score_ex(GOLD_ORDERED, db, pred, order_by_sensitive=True).correct  # the non-official option
    assert not score_ex(GOLD_ORDERED, db, pred, mode="spider").correct


@pytest.mark.parametrize("pred,error", [
    ("SELECT nope FROM singer", "nope"),
    ("SELECT * FROM", ""),
    ("DELETE FROM singer", "refused"),
    ("", "no prediction"),
    (None, "no prediction"),
])
def test_erroring_predictions_score_zero_and_change_nothing(db, pred, error):
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    result = score_ex(GOLD, db, pred)
    assert not result.correct and result.ves == 0.0
    assert result.error and error in result.error
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_timeout_scores_zero(db):
    slow = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
    result = score_ex(GOLD, db, slow, timeout_ms=200)
    assert not result.correct and result.error


def test_broken_gold_is_reported(db):
    result = score_ex(Gold("q3", "cs", "SELECT missing FROM singer"), db, "SELECT 1")
    assert not result.correct and "missing" in result.gold_error


def test_ves_with_iterations(db):
    result = score_ex(GOLD, db, GOLD.sql, ves_iterations=3)
    assert result.correct and result.ves > 0 and result.gold_ms is not None
    assert set(result.to_json()) == {"ex", "ves", "r_ves", "time_ratio", "error", "gold_error", "gold_ms",
                                     "pred_ms"}
    # BIRD's scale: sqrt(t_gold / t_pred) x 100 (the same query: around 100), R-VES from its rewards
    assert result.ves == pytest.approx(100 * result.time_ratio ** 0.5)
    assert result.r_ves in (100 * r ** 0.5 for r in (0.25, 0.5, 0.75, 1.0, 1.25))


def test_every_gold_query_matches_itself_on_spider(spider_dir):
    """Sanity check on real data: a prediction equal to the gold SQL scores EX = 1 in both modes."""
    from evoonto.evaluation.benchmarks import load_spider

    bench = load_spider(spider_dir)
    questions = bench.questions_for("concert_singer")
    for q in questions:
        gold = bench.gold[q.id]
        for mode in ("bird", "spider"):
            result = score_ex(gold, bench.databases[q.db_id], gold.sql, mode=mode)
            assert result.correct and result.gold_error is None, (q.id, mode, result)
