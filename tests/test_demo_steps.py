"""The demo's steps in-process: an accepted patch shows up in the scores and the version log.

The offline evolver finds nothing to fix on the bundled database (the construction questions all
pass), so the accepted-patch path is exercised with a stand-in loop that commits one real patch
through the real Workspace; everything else (build, validation, tools, scorers, log) is real.
"""

from __future__ import annotations

import pytest


@pytest.fixture()
def one_accepting_round(monkeypatch):
    from rdflib import Graph, Literal, URIRef
    from rdflib.namespace import SKOS

    import evoonto.evolution.loop as loop
    from evoonto.patch import Patch

    calls = {}

    def evolve(workspace, *, backbone, trajectory_questions, validation_questions, evolver, config, on_round):
        calls.update(trajectory=[q.id for q in trajectory_questions], validation=[q.id for q in validation_questions],
                     rounds=config.rounds)
        term = URIRef(workspace.base_iri + "term/concert_singer/singer")
        added = Graph()
        added.add((term, SKOS.altLabel, Literal("vocalist", lang="en")))
        patch = Patch.from_graphs("content", additions={"content": added},
                                  signature="unlinked_phrase:concert_singer:vocalist",
                                  intervention="add synonym 'vocalist' to Singer")
        version = workspace.commit(patch, metadata={"parent_score": 0.9, "candidate_score": 1.0})
        record = loop.RoundRecord(1, patch.signature, patch.intervention, "content", patch.fingerprint,
                                  "accepted", 0.9, 1.0, version, "stand-in")
        on_round(record)
        return loop.EvolutionResult([record], "rounds", version, "stand-in")

    monkeypatch.setattr(loop, "evolve", evolve)
    return calls


def test_an_accepted_patch_is_scored_and_logged(tmp_path, one_accepting_round):
    from evoonto.demo import load_demo_benchmark, run_demo
    from evoonto.evaluation.splits import make_splits
    from evoonto.workspace import Workspace

    lines: list[str] = []
    report = run_demo(tmp_path / "ws", rounds=2, echo=lines.append)
    out = "\n".join(lines)
    assert report.complete, out
    assert one_accepting_round["rounds"] == 2
    used = set(one_accepting_round["trajectory"]) | set(one_accepting_round["validation"])
    held_out = set(make_splits(load_demo_benchmark().questions, seed=0).rounds()[0].test)
    assert not set(one_accepting_round["trajectory"]) & set(one_accepting_round["validation"])
    assert held_out and not held_out & used  # the held-out fold never reaches evolution
    assert "round 1: accepted" in out and "1 accepted, 0 rejected" in out
    assert "evoonto v1 (evolved)" in report.scores and "evoonto v0" in report.scores
    assert report.versions == [0, 1]
    assert "-> version 1: unlinked_phrase:concert_singer:vocalist" in out
    assert Workspace.open(tmp_path / "ws").version == 1
