"""Regression: each database's answer budget walked down on its own until one of its few seen
questions broke, so held-out questions lost (issue 29).

On Spider (12 databases, about 27 seen questions each per fold) the gated run ended with every
question the loop saw at strict recall 1.000 and the held-out questions at 0.974: a threshold set at
the largest need of n seen questions is exceeded by an unseen one with probability about 1 / (n + 1).
Savings now move in step: a smaller answer is taken by every member that proposes one, at the same
step, or by none (:func:`evoonto.evolution.loop.savings_in_step`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import evoonto.evolution.loop as loop
from evoonto.evolution.candidates import Candidate
from evoonto.evolution.edits import SetToolSetting


@dataclass
class _Member:
    key: str
    seen: set = field(default_factory=set)


def _saving(budget: int) -> Candidate:
    return Candidate("answer_size:*:answer-size", f"browse answers within {budget} characters", "tool",
                     (SetToolSetting("browse.answerBudget", budget),), aim="cost")


def _fix() -> Candidate:
    return Candidate("unlinked_phrase:x:y", "a fix", "tool", (SetToolSetting("browse.defaultResults", 12),))


def test_savings_walk_to_each_members_seen_max(monkeypatch):
    monkeypatch.setattr(loop, "_untried", lambda candidate, ctx, seen: True)
    a, b, c = _Member("a"), _Member("b"), _Member("c")
    fix = (False, -1, 0, "a", a, [_fix()])
    proposals = [fix] + [(True, 0, 0, m.key, m, [_saving(4500), _saving(3000)]) for m in (a, b, c)]
    contexts = {m.key: None for m in (a, b, c)}

    # every member admits the mildest step: all three take it, the fix stays
    out = loop.savings_in_step(proposals, contexts, lambda m, cand: True)
    assert out[0] is fix
    assert [(p[-2].key, [x.intervention for x in p[-1]]) for p in out[1:]] == [
        (k, ["browse answers within 4500 characters"]) for k in "abc"]

    # one member's seen question breaks at 4500 (its screen refuses): nobody takes 4500; 3000 is
    # tried for all and refused by b as well, so no member takes a saving this round
    refused = {("b", 4500), ("b", 3000)}
    out = loop.savings_in_step(proposals, contexts,
                               lambda m, cand: (m.key, cand.edits[0].value) not in refused)
    assert out == [fix]

    # b refuses only the milder step: the deeper one is not taken alone by the others either,
    # unless b admits it too
    refused = {("b", 4500)}
    out = loop.savings_in_step(proposals, contexts,
                               lambda m, cand: (m.key, cand.edits[0].value) not in refused)
    assert [p[-1][0].edits[0].value for p in out[1:]] == [3000, 3000, 3000]


def test_a_single_member_walks_as_before(monkeypatch):
    monkeypatch.setattr(loop, "_untried", lambda candidate, ctx, seen: True)
    a = _Member("a")
    proposals = [(True, 0, 0, "a", a, [_saving(4500), _saving(3000)])]
    assert loop.savings_in_step(proposals, {"a": None}, lambda m, cand: False) == proposals
