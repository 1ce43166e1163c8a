"""Regression (issue 14): on a small V the gate could not accept a real gain. The exact sign test at
α = 0.25 needs at least 2 improved questions and none worse, so a patch that fixed one question of
20 and broke none was always rejected (on Spider the no-gate ablation beat the gated loop).

``--test bayes`` decides on the Beta-binomial posterior that a changed question improves, with an
explicit regression budget: one clean win is accepted, a patch that V shows breaking more than the
budget allows is not (since the regression veto became a test, 2 losses of 20 are within a 5% budget;
3 are not: P(Binomial(20, 0.05) ≥ 3) = 0.075 ≤ α).
"""

from __future__ import annotations

from evoonto.evolution.gate import GateConfig, compare


def test_one_clean_win_on_small_v_is_accepted_and_regressions_are_budgeted():
    parent = {f"q{i}": 0.0 for i in range(20)}
    assert compare(parent, dict(parent, q0=1.0), GateConfig(test="bayes")).accepted
    eight_up = dict(parent, **{f"q{i}": 1.0 for i in range(8)})
    parent_high = dict(parent, q10=1.0, q11=1.0, q12=1.0)
    decision = compare(parent_high, dict(eight_up, q10=0.0, q11=0.0, q12=0.0), GateConfig(test="bayes"))
    assert (decision.wins, decision.losses) == (8, 3)
    assert not decision.accepted and "regressions of 20" in decision.reason and "exceed the budget" in decision.reason
