"""Defect 7c (issue 13): a candidate was compiled five times per round.

The batch's "untried" check, the screen's fingerprint and patch, the round's fingerprint and patch
each compiled the candidate's edits against the same parent again. The round's
:class:`~evoonto.evolution.edits.EditContext` now memoises compilation: each edit compiles once per
round, however many steps look at it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from evoonto.evolution.candidates import Candidate
from evoonto.evolution.edits import AddSynonym
from evoonto.evolution.gate import GateConfig
from evoonto.evolution.loop import LoopConfig, evolve
from fixtures.evolution_toy import IRIS, FakeWorkspace, ToyBackbone, ToyQuestion, toy_ontology

COUNTS: dict[str, int] = {}
TARGET = str(IRIS.term("toy", "singer-country"))


@dataclass(frozen=True)
class CountingSynonym(AddSynonym):
    """AddSynonym that counts how often it is compiled."""

    op: ClassVar[str] = "counting_synonym"

    def compile(self, ctx):
        COUNTS[self.label] = COUNTS.get(self.label, 0) + 1
        return super().compile(ctx)


class _Evolver:
    name = "counting"

    def propose(self, trajectories, view, ctx):
        failed = tuple(t.task_id for t in trajectories if t.passed is False)
        assert failed == ("q1",)  # the screen has a failed task to replay
        return [[Candidate("unlinked_phrase:toy:nationality", "add synonym nationality", "content",
                           (CountingSynonym(TARGET, "nationality"),), tasks=failed, frequency=len(failed))]]


def test_each_edit_compiles_once_per_round():
    COUNTS.clear()
    ws = FakeWorkspace(toy_ontology())
    backbone = ToyBackbone({"q1": TARGET, "v1": TARGET}, k=1)
    result = evolve(ws, backbone=backbone,
                    trajectory_questions=[ToyQuestion("q1", "nationality of each singer")],
                    validation_questions=[ToyQuestion("v1", "singer nationality")], evolver=_Evolver(),
                    config=LoopConfig(rounds=1, patience=1, screen=True, gate=GateConfig(enabled=False)))
    (record,) = result.rounds
    # the round went through batch, screen, fingerprint, patch, SHACL and the gate
    assert record.decision == "accepted" and result.screened_out == 0
    assert COUNTS == {"nationality": 1}
