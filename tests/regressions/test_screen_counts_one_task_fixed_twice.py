"""Regression: a round's screen evidence counted a failed task once per alternative that fixed it.

Two alternatives of one round can fix the same task (the demo's "french" and "French" both name
the value 'France' for one question); the round then reported "+3 failed source task(s) fixed" for
two tasks. ``screen_evidence`` now counts distinct tasks; broken tasks and the score change stay
summed per alternative.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from evoonto.evolution.candidates import Candidate
from evoonto.evolution.edits import AddSynonym
from evoonto.evolution.loop import screen_evidence, screen_key


@dataclass
class _Member:
    key: str
    screened: dict = field(default_factory=dict)
    fixed: dict = field(default_factory=dict)

    def state(self) -> tuple:
        return (self.key, 1)


def _cand(label: str) -> Candidate:
    return Candidate("sig", f"add {label}", "content", (AddSynonym("urn:term", label, hidden=True),), "why")


def test_screen_counts_one_task_fixed_twice():
    member, other = _Member("a"), _Member("b")
    first, second, third = _cand("french"), _cand("French"), _cand("Dutch")
    for m, c, fixed, evidence in ((member, first, ("t5",), (1, 0, 0.5)), (member, second, ("t5",), (1, 0, 0.5)),
                                  (other, third, ("t5", "t7"), (2, 1, 0.25))):
        m.screened[(m.state(), screen_key(c))] = evidence
        m.fixed[(m.state(), screen_key(c))] = fixed
    assert screen_evidence([(member, first), (member, second)]) == (1, 0, 1.0)
    # the same task id in another member is another task
    assert screen_evidence([(member, first), (member, second), (other, third)]) == (3, 1, 1.25)
    # an alternative not screened at this version: no evidence for the whole candidate
    assert screen_evidence([(member, first), (member, _cand("German"))]) is None
