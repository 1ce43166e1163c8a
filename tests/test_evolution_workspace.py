"""The loop against the real Workspace: PROV history of every decision, rejected fingerprints kept
across runs, and interruption (KeyboardInterrupt at any step, SIGKILL of a running loop) leaving the
workspace at the last accepted version."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evoonto.evolution.candidates import Candidate
from evoonto.evolution.edits import AddSynonym, DeprecateTerm
from evoonto.evolution.gate import GateConfig
from evoonto.evolution.loop import LoopConfig, evolve, known_fingerprints
from evoonto.validation import validate
from evoonto.workspace import Workspace
from fixtures.evolution_toy import BASE, IRIS, ToyBackbone, ToyQuestion, toy_graphs

AGE = str(IRIS.term("toy", "singer-age"))
TRAIN = [ToyQuestion("t1", "Who is the youngest singer?"), ToyQuestion("t2", "Which singer is the youngest?")]
VALID = [ToyQuestion("v1", "Show the youngest singer."), ToyQuestion("v2", "Youngest singers first."),
         ToyQuestion("v3", "What is the singer age?"), ToyQuestion("v4", "Oldest performer in the list?")]
GOLD = {"t1": AGE, "t2": AGE, "v1": AGE, "v2": AGE, "v3": AGE, "v4": AGE}


def _workspace(path: Path) -> Workspace:
    ws = Workspace.init(path, base_iri=BASE)
    ws.replace_base(toy_graphs())
    return ws


class Scripted:
    name = "scripted"

    def __init__(self, candidates):
        self.candidates = candidates

    def propose(self, trajectories, view, ctx):
        return [[c] for c in self.candidates]


GOOD = [Candidate("s:young", "synonym youngest", "content", (AddSynonym(AGE, "youngest"),)),
        Candidate("s:harm", "deprecate age", "content", (DeprecateTerm(AGE),)),
        Candidate("s:old", "synonym oldest performer", "content", (AddSynonym(AGE, "oldest performer"),))]


def _config(**kw):
    return LoopConfig(gate=GateConfig(tau=0.01, alpha=0.5), batch_size=1, **kw)


@pytest.mark.slow
def test_decisions_are_kept_in_history_and_not_retried(tmp_path):
    ws = _workspace(tmp_path / "ws")
    result = evolve(ws, backbone=ToyBackbone(GOLD, k=1), trajectory_questions=TRAIN, validation_questions=VALID,
                    evolver=Scripted(GOOD), config=_config(rounds=5, patience=5))
    assert [r.decision for r in result.rounds] == ["accepted", "rejected", "accepted"]
    assert ws.version == 2
    reopened = Workspace.open(tmp_path / "ws")
    assert reopened.version == 2
    decisions = [(e.decision, e.level) for e in reopened.log()]
    assert decisions == [("accepted", "content"), ("rejected", "content"), ("accepted", "content")]
    fps = known_fingerprints(reopened.ontology)
    assert reopened.rejected_fingerprints() <= fps
    # a second run never re-proposes any of them
    again = evolve(reopened, backbone=ToyBackbone(GOLD, k=1), trajectory_questions=TRAIN,
                   validation_questions=VALID, evolver=Scripted(GOOD), config=_config(rounds=3, patience=3))
    assert again.rounds == [] and again.stop_reason == "no-candidates"


class Interrupting(ToyBackbone):
    """Raises KeyboardInterrupt on the n-th backbone call (trajectory runs and V scorings)."""

    def __init__(self, gold, at_call):
        super().__init__(gold, k=1)
        self.at_call = at_call

    def run(self, ontology, questions):
        if self.calls + 1 == self.at_call:
            raise KeyboardInterrupt
        return super().run(ontology, questions)


@pytest.mark.slow
@pytest.mark.parametrize("at_call", [1, 2, 3, 4, 5, 6])
def test_keyboard_interrupt_at_any_backbone_call_leaves_last_accepted(tmp_path, at_call):
    ws = _workspace(tmp_path / "ws")
    accepted = []
    with pytest.raises(KeyboardInterrupt):
        evolve(ws, backbone=Interrupting(GOLD, at_call), trajectory_questions=TRAIN, validation_questions=VALID,
               evolver=Scripted(GOOD), config=_config(rounds=6, patience=6),
               on_round=lambda r: accepted.append(r.version) if r.decision == "accepted" else None)
        raise KeyboardInterrupt  # the run finished before the interrupt: count it as interrupted at the end
    reopened = Workspace.open(tmp_path / "ws")
    assert reopened.version == (accepted[-1] if accepted else 0)


@pytest.mark.slow
@pytest.mark.parametrize("stage", ["validated", "written"])
def test_interrupt_inside_a_commit_keeps_the_parent(tmp_path, monkeypatch, stage):
    ws = _workspace(tmp_path / "ws")

    def hook(name):
        if name == stage or (stage == "written" and name != "validated"):
            raise KeyboardInterrupt

    monkeypatch.setattr(Workspace, "_fault_hook", staticmethod(hook))
    with pytest.raises(KeyboardInterrupt):
        evolve(ws, backbone=ToyBackbone(GOLD, k=1), trajectory_questions=TRAIN, validation_questions=VALID,
               evolver=Scripted(GOOD), config=_config(rounds=3, patience=3))
    monkeypatch.setattr(Workspace, "_fault_hook", None)
    assert ws.version == 0
    assert Workspace.open(tmp_path / "ws").version == 0


SCRIPT = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {tests!r})
    from evoonto.workspace import Workspace
    from evoonto.evolution.loop import LoopConfig, evolve
    from evoonto.evolution.gate import GateConfig
    from evoonto.evolution.offline import OfflineEvolver
    from fixtures.evolution_toy import ToyBackbone, ToyQuestion
    from test_evolution_workspace import GOLD, TRAIN, VALID, Scripted, GOOD

    class Slow(ToyBackbone):
        def run(self, ontology, questions):
            time.sleep(0.05)
            return super().run(ontology, questions)

    ws = Workspace.open({path!r})
    print("ready", flush=True)
    while True:  # evolve forever: each pass starts from the reopened workspace
        evolve(ws, backbone=Slow(GOLD, k=1), trajectory_questions=TRAIN, validation_questions=VALID,
               evolver=Scripted(GOOD), config=LoopConfig(rounds=3, patience=3, batch_size=1,
                                                          gate=GateConfig(tau=0.01, alpha=0.5, enabled=False)))
""")


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.3, 0.7, 1.2])
def test_sigkill_of_a_running_loop_leaves_a_valid_accepted_version(tmp_path, delay):
    path = tmp_path / "ws"
    _workspace(path)
    tests = str(Path(__file__).resolve().parent)
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT.format(tests=tests, path=str(path))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tests)
    assert proc.stdout.readline().strip() == b"ready"
    time.sleep(delay)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    ws = Workspace.open(path)  # opens cleanly at the parent or the child of the commit in flight
    accepted = [e for e in ws.log() if e.decision == "accepted"]
    assert ws.version == len(accepted)
    assert validate(ws.ontology).conforms


def test_part_of_a_rejected_bundle_is_not_marked_tried_in_the_history(tmp_path):
    """Issue 14, across runs: a patch rejected only as one workspace's part of a bundle (gate
    metadata ``bundle``) is remembered by the bundle's fingerprint, not its own, so the next run may
    still judge it alone; a patch rejected on its own stays known."""
    from evoonto.evolution.edits import EditContext
    from evoonto.evolution.loop import stable_fingerprint, to_patch
    from evoonto.evolution.view import OntologyView

    ws = _workspace(tmp_path / "ws")
    ctx = EditContext(OntologyView(ws.ontology), IRIS)
    part, alone = GOOD[0], GOOD[1]
    part_fp, alone_fp = stable_fingerprint(part, ctx), stable_fingerprint(alone, ctx)
    part_patch, alone_patch = to_patch(part, ctx), to_patch(alone, ctx)
    ws.record_rejected(part_patch, metadata={"fingerprint": part_fp, "bundle": "b0b0b0b0b0b0b0b0"})
    ws.record_rejected(alone_patch, metadata={"fingerprint": alone_fp})
    fps = known_fingerprints(Workspace.open(tmp_path / "ws").ontology)
    assert "b0b0b0b0b0b0b0b0" in fps and {alone_fp, alone_patch.fingerprint} <= fps
    assert part_fp not in fps and part_patch.fingerprint not in fps
