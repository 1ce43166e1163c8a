"""Regression (issue 29, item 4): an evolution run on six small databases peaked at 7.5 GB. The loop's
per-workspace caches kept the trajectories (every tool answer) and scores of every version the run
passed through, so memory grew with each accepted round. Now each round keeps only the current
version's entries and those of the run's first version (which a later run from the same version 0
shares, e.g. the no-gate ablation)."""

from __future__ import annotations

from evoonto.evolution.loop import Member, prune
from fixtures.evolution_toy import FakeWorkspace, toy_ontology


def test_a_round_keeps_the_current_and_the_first_versions_caches_only():
    member = Member("m", FakeWorkspace(toy_ontology()), [], [])
    first, old, current = (0, ()), (1, ("a",)), (2, ("a", "b"))
    for state in (first, old, current):
        member.cache[("trajectories", state, "bb")] = ["…"]
        member.cache[("validation", state, "bb")] = ({}, None)
        member.screened[(state, ("content", ("edit",)))] = (1, 0, 1.0)
        member.fixed[(state, ("content", ("edit",)))] = ("t1",)
    assert prune(member, keep=(current, first)) == 4
    assert {k[1] for k in member.cache} == {first, current}
    assert {k[0] for k in member.screened} == {k[0] for k in member.fixed} == {first, current}
