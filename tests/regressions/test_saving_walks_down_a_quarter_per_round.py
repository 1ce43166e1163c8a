"""Regression (issue 29): savings of the answer budget were proposed mildest first and in quarters
(0.75, then 0.5 of the budget). The loop takes the first step its screen admits (every outcome the
loop has seen kept), so a budget came down a quarter per round and stopped where a quarter less
changed one seen outcome, even when a tenth less changed none: on one fold of bird_synth_dev no
saving was taken at all, and the answers stayed 13% larger than the seen questions need. Savings are
now proposed largest first (0.5, 0.75, 0.9 of the budget)."""

from __future__ import annotations

from dataclasses import dataclass, field

import evoonto.evolution.loop as loop
from evoonto.evolution.attribute import attribute
from evoonto.evolution.candidates import propose
from evoonto.evolution.diagnose import Signature
from evoonto.evolution.view import OntologyView
from fixtures.evolution_toy import toy_ontology


@dataclass
class _Member:
    key: str
    seen: set = field(default_factory=set)


def _budget(candidate) -> int:
    return int(candidate.edits[0].value)


def test_saving_walks_down_a_quarter_per_round(monkeypatch):
    view = OntologyView(toy_ontology(answer_format="compact"))
    _, budget = view.answer_settings
    savings = [c for c in propose(attribute(Signature("answer_size", "answer-size", None, ("q1",)), view), view)
               if c.edits[0].setting == "browse.answerBudget"]
    assert [_budget(c) for c in savings] == [int(budget * 0.5), int(budget * 0.75), int(budget * 0.9)]

    monkeypatch.setattr(loop, "_untried", lambda candidate, ctx, seen: True)
    a, b = _Member("a"), _Member("b")
    proposals = [(True, 0, 0, m.key, m, list(savings)) for m in (a, b)]
    contexts = {"a": None, "b": None}
    # a seen question of b needs all but a tenth of the budget: both take the 0.9 step (there was none)
    out = loop.savings_in_step(proposals, contexts, lambda m, c: m.key == "a" or _budget(c) >= int(budget * 0.9))
    assert [_budget(p[-1][0]) for p in out] == [int(budget * 0.9)] * 2
    # every seen outcome survives half the budget: both take it in one round, not a quarter per round
    out = loop.savings_in_step(proposals, contexts, lambda m, c: True)
    assert [_budget(p[-1][0]) for p in out] == [int(budget * 0.5)] * 2
