"""The loop on toy data with a transparent backbone: accepted improvements, harmful patches never
accepted, SHACL-invalid candidates never scored, rejected fingerprints never retried, stop rules."""

from __future__ import annotations

import pytest

from dataclasses import dataclass

from rdflib import RDF, URIRef

from evoonto.evolution.candidates import Candidate
from evoonto.evolution.edits import AddSynonym, Compiled, DeprecateTerm, Edit
from evoonto.evolution.gate import GateConfig
from evoonto.evolution.loop import LoopConfig, evolve
from evoonto.evolution.offline import OfflineEvolver
from evoonto.namespaces import EVO
from fixtures.evolution_toy import IRIS, FakeWorkspace, ToyBackbone, ToyQuestion, toy_ontology

AGE = str(IRIS.term("toy", "singer-age"))
YEAR = str(IRIS.term("toy", "concert-year"))
CONCERT = str(IRIS.term("toy", "concert"))

TRAIN = [ToyQuestion("t1", "Who is the youngest singer?"), ToyQuestion("t2", "Which singer is the youngest?")]
VALID = [ToyQuestion("v1", "Show the youngest singer."), ToyQuestion("v2", "Youngest singers first."),
         ToyQuestion("v3", "What is the singer age?"), ToyQuestion("v4", "List every concert.")]
GOLD = {"t1": AGE, "t2": AGE, "v1": AGE, "v2": AGE, "v3": AGE, "v4": CONCERT}


@dataclass
class ScriptedEvolver:
    """Proposes the same fixed candidates every round (as the LLM or a buggy heuristic might)."""

    candidates: list
    name: str = "scripted"

    def propose(self, trajectories, view, ctx):
        return [[c] for c in self.candidates]


@dataclass(frozen=True)
class RawEdit(Edit):
    """Adds arbitrary content triples (to build deliberately invalid candidates)."""

    triples: tuple

    def compile(self, ctx):
        out = Compiled()
        out.add("content", *self.triples)
        return out

    def describe(self):
        return f"raw edit of {len(self.triples)} triples"


def _run(ws, evolver, backbone=None, **config):
    backbone = backbone or ToyBackbone(GOLD, k=1)
    gate = GateConfig(**{"tau": 0.01, "alpha": 0.25, **config.pop("gate", {})})
    result = evolve(ws, backbone=backbone, trajectory_questions=TRAIN, validation_questions=VALID,
                    evolver=evolver, config=LoopConfig(gate=gate, **config))
    return result, backbone


@pytest.mark.slow
def test_offline_loop_accepts_the_synonym_that_fixes_recurrent_failures():
    ws = FakeWorkspace(toy_ontology())
    backbone = ToyBackbone(GOLD, k=1)
    before = backbone.run(ws.ontology, VALID)[0]
    result, _ = _run(ws, OfflineEvolver(), backbone=backbone, rounds=5, patience=2)
    assert result.accepted >= 1 and ws.version == result.final_version >= 1
    patch, meta = ws.accepted[0]
    assert meta["decision"] == "accepted" and meta["level"] == "content"
    assert meta["signature"].startswith("unlinked_phrase:toy:youngest")
    assert meta["candidate_score"] > meta["parent_score"] and meta["fingerprint"]
    assert any(str(o) == "youngest" and str(s) == AGE for s, _, o in patch.additions["content"])
    after = backbone.run(ws.ontology, VALID)[0]
    assert sum(after.values()) > sum(before.values())
    assert result.stop_reason in ("patience", "no-candidates", "rounds")


@pytest.mark.slow
def test_harmful_patches_are_never_accepted_but_are_without_the_gate():
    harmful = [Candidate("manual:wrong-synonym", "steal 'singer age' for the concert year", "content",
                         (AddSynonym(YEAR, "singer age"),)),
               Candidate("manual:deprecate", "deprecate the age term", "content", (DeprecateTerm(AGE),))]
    ws = FakeWorkspace(toy_ontology())
    result, _ = _run(ws, ScriptedEvolver(harmful), rounds=6, patience=5, batch_size=1)
    assert result.accepted == 0 and ws.version == 0 and not ws.accepted
    decisions = [m["decision"] for _, m in ws.rejected]
    assert decisions == ["rejected", "rejected"]
    assert all(m["candidate_score"] < m["parent_score"] for _, m in ws.rejected)
    assert result.stop_reason == "no-candidates"  # rejected fingerprints are never proposed again
    # the same candidates with the gate disabled (ablation) are accepted: the gate is what protects
    ws2 = FakeWorkspace(toy_ontology())
    result2, _ = _run(ws2, ScriptedEvolver(harmful), rounds=6, patience=5, batch_size=1,
                      gate={"enabled": False})
    assert result2.accepted == 2


def test_shacl_invalid_candidate_is_logged_and_never_scored():
    bad_term = URIRef(IRIS.term("toy", "no-label"))
    invalid = Candidate("manual:invalid", "a Term without prefLabel", "content",
                        (RawEdit(((bad_term, RDF.type, EVO.Term),)),))
    ws = FakeWorkspace(toy_ontology())
    backbone = ToyBackbone(GOLD, k=1)
    result, _ = _run(ws, ScriptedEvolver([invalid]), backbone=backbone, rounds=3, patience=3)
    assert [r.decision for r in result.rounds] == ["invalid"]
    assert result.rounds[0].parent_score is None and result.rounds[0].candidate_score is None
    assert "SHACL" in result.rounds[0].reason
    (patch, meta), = ws.rejected
    assert meta["decision"] == "invalid" and "parent_score" not in meta
    assert backbone.calls == 1  # only the trajectory run; V was never scored
    assert ws.version == 0


@pytest.mark.slow
def test_patience_stops_after_k_consecutive_rejections():
    neutral = [Candidate(f"manual:n{i}", f"neutral {i}", "content", (AddSynonym(CONCERT, f"gig{i}"),))
               for i in range(6)]
    ws = FakeWorkspace(toy_ontology())
    result, _ = _run(ws, ScriptedEvolver(neutral), rounds=10, patience=3, batch_size=1)
    assert result.stop_reason == "patience" and result.rejected == 3 and len(result.rounds) == 3


@pytest.mark.slow
def test_rejected_batches_are_bisected():
    good = Candidate("manual:good", "good", "content", (AddSynonym(AGE, "youngest"),))
    bad = Candidate("manual:bad", "bad", "content", (DeprecateTerm(AGE),))
    ws = FakeWorkspace(toy_ontology())
    result, _ = _run(ws, ScriptedEvolver([bad, good]), rounds=4, patience=4, batch_size=2)
    decisions = [(r.edits, r.decision) for r in result.rounds]
    assert decisions[0] == (2, "rejected")
    assert (1, "accepted") in decisions[1:]
    (patch, _), = ws.accepted
    added = {str(p) for _, p, _ in patch.additions["content"]}
    assert not any(p.endswith("deprecated") for p in added) and any(p.endswith("altLabel") for p in added)


def test_a_patch_that_changes_nothing_is_invalid_and_never_scored():
    existing = Candidate("manual:noop", "re-add an existing hidden label", "content",
                         (AddSynonym(AGE, "Age", hidden=True),))
    ws = FakeWorkspace(toy_ontology())
    backbone = ToyBackbone(GOLD, k=1)
    result, _ = _run(ws, ScriptedEvolver([existing]), backbone=backbone, rounds=2, patience=2)
    assert [r.decision for r in result.rounds] == ["invalid"] and "changes nothing" in result.rounds[0].reason
    assert backbone.calls == 1


@pytest.mark.slow
def test_screen_drops_alternatives_that_do_not_fix_their_own_failed_tasks():
    # t1/t2 fail on the parent (k=1: "youngest" links to nothing); both candidates name them as the
    # tasks they address, but only the synonym on the age Term fixes them
    useless = Candidate("manual:useless", "'youngest' on the concert Term", "content",
                        (AddSynonym(CONCERT, "youngest"),), tasks=("t1", "t2"))
    useful = Candidate("manual:useful", "'youngest' on the age Term", "content",
                       (AddSynonym(AGE, "youngest"),), tasks=("t1", "t2"))
    ws = FakeWorkspace(toy_ontology())
    result, backbone = _run(ws, ScriptedEvolver([useless, useful]), rounds=3, patience=3, batch_size=2)
    assert result.screened_out == 1
    assert result.accepted == 1 and ws.version == 1
    (patch, meta), = ws.accepted
    assert meta["signature"] == "manual:useful"
    assert not any(m["signature"] == "manual:useless" for _, m in ws.rejected)  # never gated
    # without screening both go to the gate, bundled: the useless edit rides along
    ws2 = FakeWorkspace(toy_ontology())
    result2, _ = _run(ws2, ScriptedEvolver([useless, useful]), rounds=3, patience=3, batch_size=2, screen=False)
    assert result2.screened_out == 0
    assert result2.rounds[0].edits == 2


def test_screen_keeps_candidates_without_tasks_and_refuses_ones_that_worsen_a_task():
    from evoonto.evolution.edits import EditContext
    from evoonto.evolution.loop import Member, screen
    from evoonto.evolution.view import OntologyView

    ws = FakeWorkspace(toy_ontology())
    backbone = ToyBackbone(GOLD, k=1)
    member = Member("toy", ws, TRAIN + [ToyQuestion("v3", "What is the singer age?")], VALID)
    ctx = EditContext(OntologyView(ws.ontology), IRIS)
    untargeted = Candidate("manual:x", "no tasks", "content", (AddSynonym(CONCERT, "gig"),))
    assert screen(member, untargeted, ctx, backbone)
    # v3 passes on the parent; stealing its phrase for the concert Term makes it fail
    harmful = Candidate("manual:steal", "steal", "content", (AddSynonym(YEAR, "singer age"),), tasks=("v3",))
    assert not screen(member, harmful, ctx, backbone)
    from evoonto.evolution.loop import stable_fingerprint
    assert stable_fingerprint(harmful, ctx) in member.seen  # not proposed again in this run


def test_recorded_trajectories_replace_the_trajectory_run_at_the_starting_version():
    from evoonto.evolution.trajectories import Event, TaskTrajectory

    recorded = [TaskTrajectory("agent-7", "Who is the youngest singer?", "toy",
                               [Event("browse", {"q": "Who is the youngest singer?"}, result=[])], passed=False)]
    seen = []

    @dataclass
    class Spy:
        name: str = "spy"

        def propose(self, trajectories, view, ctx):
            seen.append([t.task_id for t in trajectories])
            return []

    ws = FakeWorkspace(toy_ontology())
    backbone = ToyBackbone(GOLD, k=1)
    result = evolve(ws, backbone=backbone, trajectory_questions=TRAIN, validation_questions=VALID,
                    evolver=Spy(), config=LoopConfig(rounds=2), recorded_trajectories=recorded)
    assert seen == [["agent-7"]] and backbone.calls == 0  # the log was diagnosed; nothing was re-run
    assert result.stop_reason == "no-candidates"


def test_screen_lets_recorded_trajectories_through_and_remembers_unappliable_candidates():
    from evoonto.evolution.edits import EditContext
    from evoonto.evolution.loop import Member, screen, stable_fingerprint
    from evoonto.evolution.trajectories import TaskTrajectory
    from evoonto.evolution.view import OntologyView

    backbone = ToyBackbone(GOLD, k=1)
    ws = FakeWorkspace(toy_ontology())
    ctx = EditContext(OntologyView(ws.ontology), IRIS)
    harmful = Candidate("manual:steal", "steal", "content", (AddSynonym(YEAR, "singer age"),), tasks=("v3",))
    questions = TRAIN + [ToyQuestion("v3", "What is the singer age?")]
    # an agent's recorded run cannot be replayed by the backbone: the candidate goes to the gate
    recorded = Member("toy", ws, questions, VALID, recorded=[TaskTrajectory("v3", "x", passed=False)])
    assert screen(recorded, harmful, ctx, backbone) and backbone.calls == 0
    # a candidate that compiles but cannot be applied is remembered by the fingerprint _untried checks

    class NoPatch:  # an ontology whose store refuses every patch
        def __init__(self, onto):
            self.onto = onto

        def __getattr__(self, name):
            return getattr(self.onto, name)

        def with_patch(self, patch):
            raise RuntimeError("store refuses the patch")

    broken = Member("toy", FakeWorkspace(NoPatch(toy_ontology())), questions, VALID)
    assert not screen(broken, harmful, ctx, backbone)
    assert stable_fingerprint(harmful, ctx) in broken.seen


@dataclass
class PerMemberEvolver:
    """Proposes, to each member, the candidates scripted for it (members are told apart by the
    prefix of their trajectory task ids)."""

    by_member: dict
    name: str = "per-member"

    def propose(self, trajectories, view, ctx):
        prefix = trajectories[0].task_id.split("-")[0] if trajectories else ""
        return [[c] for c in self.by_member.get(prefix, [])]


@pytest.mark.slow
def test_part_of_a_rejected_bundle_is_not_marked_tried_and_is_still_judged_alone():
    """Issue 14: member "a" gave one helpful candidate and member "b" one harmful candidate to a
    batch that the gate rejected. Each member's part was put in ``seen`` as if the gate had judged
    it alone, so the bisection halves (one part each) were filtered out and the helpful synonym was
    thrown away with the harmful deprecation."""
    from evoonto.evolution.loop import Member, evolve_group

    good = Candidate("manual:good", "good", "content", (AddSynonym(AGE, "youngest"),))
    bad = Candidate("manual:bad", "bad", "content", (DeprecateTerm(AGE),))
    gold = {"a-t1": AGE, "a-v1": AGE, "b-t1": AGE, "b-v1": AGE, "b-v2": AGE, "b-v3": AGE}
    ws_a, ws_b = FakeWorkspace(toy_ontology()), FakeWorkspace(toy_ontology())
    members = [
        Member("a", ws_a, [ToyQuestion("a-t1", "Who is the youngest singer?")],
               [ToyQuestion("a-v1", "Show the youngest singer.")]),
        Member("b", ws_b, [ToyQuestion("b-t1", "What is the singer age?")],
               [ToyQuestion("b-v1", "What is the singer age?"), ToyQuestion("b-v2", "Singer age, please."),
                ToyQuestion("b-v3", "Ages of every singer.")]),
    ]
    backbone = ToyBackbone(gold, k=1)
    result = evolve_group(members, backbone=backbone, evolver=PerMemberEvolver({"a": [good], "b": [bad]}),
                          config=LoopConfig(gate=GateConfig(tau=0.01, alpha=0.25), rounds=5, patience=5,
                                            batch_size=2, screen=False))
    rounds = [(r.edits, r.decision, r.wins, r.losses) for r in result.rounds]
    assert rounds[0] == (2, "rejected", 1, 3)  # the bundle: a's question fixed, b's three broken
    assert result.rounds[0].changes == (f"a: {good.edits[0].describe()}", f"b: {bad.edits[0].describe()}")
    # the bisection judges each part alone: the synonym is accepted, the deprecation rejected
    assert rounds[1:3] == [(1, "accepted", 1, 0), (1, "rejected", 0, 3)]
    assert ws_a.version == 1 and ws_b.version == 0
    (patch, meta), = ws_a.accepted
    assert meta["signature"] == "manual:good" and "bundle" not in meta
    bundled = [m for _, m in ws_a.rejected + ws_b.rejected if m["round"] == 1]
    assert len(bundled) == 2 and len({m["bundle"] for m in bundled}) == 1
    assert [m.get("bundle") for _, m in ws_b.rejected if m["round"] == 3] == [None]  # judged alone
    assert result.stop_reason == "no-candidates"  # nothing judged is proposed again
