"""Issue 14, the gate that lost to no gate: a candidate that changes no question of V (V is silent)
was always rejected, even when it fixed the diagnosed failures it was written for and broke nothing.
The Bayesian gate now decides such a candidate on its screen evidence: accepted on a net fix of the
diagnosed tasks it was written for (V shows no regression)."""

from __future__ import annotations

import pytest

from evoonto.evolution.candidates import Candidate
from evoonto.evolution.edits import AddSynonym
from evoonto.evolution.gate import GateConfig, compare, neutral_decision
from evoonto.evolution.loop import LoopConfig, evolve
from fixtures.evolution_toy import IRIS, FakeWorkspace, ToyBackbone, ToyQuestion, toy_ontology

AGE = str(IRIS.term("toy", "singer-age"))
CONCERT = str(IRIS.term("toy", "concert"))
TRAIN = [ToyQuestion("t1", "Who is the youngest singer?"), ToyQuestion("t2", "Which singer is the youngest?")]
# V without the phrase the candidate fixes: it cannot see the fix (0 up / 0 down)
SILENT_V = [ToyQuestion("v3", "What is the singer age?"), ToyQuestion("v4", "List every concert.")]
GOLD = {"t1": AGE, "t2": AGE, "v3": AGE, "v4": CONCERT}
PARENT = {"a": 1.0, "b": 0.0, "c": 0.5}


def test_gate_rejects_v_neutral_fix_decided_on_the_screen_evidence():
    same = dict(PARENT)
    bayes = GateConfig(test="bayes")
    accepted = compare(PARENT, same, bayes, screen=(2, 0, 1.5))
    assert accepted.accepted and (accepted.wins, accepted.losses) == (0, 0)
    assert "V-neutral; the screen fixed 2 / broke 0 diagnosed task(s), net +1.500" in accepted.reason
    # a net fix with one task worse is still a net fix (V saw no regression)
    assert compare(PARENT, same, bayes, screen=(1, 1, 0.25)).accepted
    # no net fix, or no screen: no evidence of benefit
    assert "no net fix" in compare(PARENT, same, bayes, screen=(1, 1, -0.25)).reason
    assert compare(PARENT, same, bayes, screen=(1, 1, 0.0)).decision == "rejected"
    assert compare(PARENT, same, bayes).decision == "rejected"
    # the rule can be switched off, needs τ ≤ 0, and the sign test keeps its own rule
    off = GateConfig(test="bayes", accept_neutral=False)
    assert compare(PARENT, same, off, screen=(2, 0, 1.0)).decision == "rejected"
    assert compare(PARENT, same, GateConfig(test="bayes", tau=0.01), screen=(2, 0, 1.0)).decision == "rejected"
    assert compare(PARENT, same, GateConfig(test="sign"), screen=(2, 0, 1.0)).decision == "rejected"


def test_gate_rejects_v_neutral_fix_never_overrides_evidence_on_v():
    # once V sees a change, V decides: a loss with no win is rejected whatever the screen says
    worse = dict(PARENT, a=0.0)
    decision = compare(PARENT, worse, GateConfig(test="bayes"), screen=(5, 0, 5.0))
    assert decision.decision == "rejected" and decision.losses == 1


@pytest.mark.parametrize("screen, expected", [(None, False), ((0, 0, 0.0), False), ((1, 1, -0.5), False),
                                              ((1, 0, 1.0), True), ((0, 2, -1.0), False), ((5, 2, 2.0), True)])
def test_neutral_decision_table(screen, expected):
    assert neutral_decision(screen)[0] is expected


def test_gate_rejects_v_neutral_fix_in_the_loop():
    fix = Candidate("manual:youngest", "'youngest' on the age Term", "content",
                    (AddSynonym(AGE, "youngest"),), tasks=("t1", "t2"))

    class Scripted:
        name = "scripted"

        def propose(self, trajectories, view, ctx):
            return [[fix]]

    def run(test):
        ws = FakeWorkspace(toy_ontology())
        result = evolve(ws, backbone=ToyBackbone(GOLD, k=1), trajectory_questions=TRAIN,
                        validation_questions=SILENT_V, evolver=Scripted(),
                        config=LoopConfig(rounds=2, patience=2, batch_size=1, gate=GateConfig(test=test)))
        return ws, result

    ws, result = run("bayes")
    first = result.rounds[0]
    assert first.decision == "accepted" and (first.wins, first.losses) == (0, 0) and ws.version == 1
    assert "screen fixed 2 / broke 0 diagnosed task(s), net +2.000" in first.reason
    ws_sign, result_sign = run("sign")  # the sign test cannot accept what V does not see
    assert result_sign.rounds[0].decision == "rejected" and ws_sign.version == 0
