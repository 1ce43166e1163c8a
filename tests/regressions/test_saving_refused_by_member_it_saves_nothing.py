"""Regression (issue 29): a saving moved in step across the databases (every member takes it or
none), and a member whose whole answer already fit nine tenths of the budget refused the 0.9 step,
because the step saved it nothing. With the 0.5 and 0.75 steps refused by members a smaller answer
changes, no saving was taken at all on one fold of bird_synth_dev (tokens 1,620 -> 1,620).

A member the step saves nothing (its screen kept every outcome but its answers did not shrink) now
neither takes nor blocks it (:func:`evoonto.evolution.loop.savings_in_step`), and a step is one kind of saving at one
rank, so a member that took the full-lines saving in an earlier round walks its budgets in step with
members that took it too, not one rank behind them.
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


def _saving(setting: str, value: int) -> Candidate:
    return Candidate("answer_size:*:answer-size", f"set {setting} {value}", "tool",
                     (SetToolSetting(setting, value),), aim="cost")


def _budgets(*values: int) -> list[Candidate]:
    return [_saving("browse.answerBudget", v) for v in values]


def _taken(out) -> list[tuple[str, str, float]]:
    return [(p[-2].key, p[-1][0].edits[0].setting, p[-1][0].edits[0].value) for p in out]


def test_saving_refused_by_member_it_saves_nothing(monkeypatch):
    monkeypatch.setattr(loop, "_untried", lambda candidate, ctx, seen: True)
    a, b, c = _Member("a"), _Member("b"), _Member("c")
    proposals = [(True, 0, 0, m.key, m, _budgets(3000, 4500, 5400)) for m in (a, b, c)]
    contexts = {m.key: None for m in (a, b, c)}
    # a's seen questions break at 3000 and 4500; c's whole answers fit 5400 already: the screen
    # refuses c's 5400 (it saves nothing) and records that it kept every outcome
    refused = {("a", 3000), ("a", 4500), ("c", 5400)}
    nothing = {("c", 5400)}

    def admit(m, cand):
        return (m.key, cand.edits[0].value) not in refused

    def same(m, cand):
        return (m.key, cand.edits[0].value) in nothing

    # before: c's refusal of a step that changes nothing for it blocked the others too
    assert loop.savings_in_step(proposals, contexts, admit) == []
    # now a and b take 5400, c neither takes nor blocks it
    out = loop.savings_in_step(proposals, contexts, admit, same)
    assert _taken(out) == [("a", "browse.answerBudget", 5400), ("b", "browse.answerBudget", 5400)]
    # a member whose refusal changed an outcome still blocks the step for everyone
    assert loop.savings_in_step(proposals, contexts, lambda m, cand: admit(m, cand) and m.key != "b", same) == []
    # a step that saves no member anything is no saving: nothing is taken
    assert loop.savings_in_step(proposals, contexts, lambda m, cand: False, lambda m, cand: True) == []


def test_members_walk_budgets_in_step_after_one_took_the_full_lines_saving(monkeypatch):
    monkeypatch.setattr(loop, "_untried", lambda candidate, ctx, seen: True)
    a, b = _Member("a"), _Member("b")
    flag = _saving("browse.fullLinesMatchedOnly", 1)
    # a took the full-lines saving last round; b did not: its first alternative is that saving
    proposals = [(True, 0, 0, "a", a, _budgets(3000, 4500)), (True, 0, 0, "b", b, [flag, *_budgets(3000, 4500)])]
    contexts = {"a": None, "b": None}
    # b's seen questions keep their outcomes only without the full-lines saving; both admit 3000:
    # the same rank of the same saving for both (the ranks used to be counted across kinds)
    out = loop.savings_in_step(proposals, contexts, lambda m, cand: cand is not flag)
    assert _taken(out) == [("a", "browse.answerBudget", 3000), ("b", "browse.answerBudget", 3000)]
    # b admits the full-lines saving: it takes it alone (a has no such alternative and is not part of it)
    out = loop.savings_in_step(proposals, contexts, lambda m, cand: True)
    assert _taken(out) == [("b", "browse.fullLinesMatchedOnly", 1)]


class _SizedBackbone:
    """Each answer is ``need`` characters, or the served budget when smaller (tokens = characters /
    4), as a compact answer that fills its budget; a question passes while its budget is at least
    ``critical`` characters (where its gold column sits)."""

    key = ("sized",)

    def __init__(self, need: int, critical: int):
        self.need, self.critical = need, critical

    def run(self, ontology, questions):
        from evoonto.evolution.trajectories import Event, TaskTrajectory
        from evoonto.evolution.view import OntologyView

        _, budget = OntologyView(ontology).answer_settings
        chars, passed = min(self.need, budget), budget >= self.critical
        return ({q.id: float(passed) for q in questions},
                [TaskTrajectory(q.id, q.text, "toy", [Event("browse", {"q": q.text}, [])], passed=passed,
                                score=float(passed), tokens=chars // 4) for q in questions])


def test_the_screen_records_a_saving_that_changes_nothing():
    """loop.screen marks a saving that keeps every outcome but saves nothing in
    ``Member.saves_nothing`` (evolve_group passes that to savings_in_step), and not one that shrinks
    the answers or one that changes an outcome."""
    from evoonto.evolution.edits import EditContext
    from evoonto.evolution.view import OntologyView
    from fixtures.evolution_toy import IRIS, FakeWorkspace, ToyQuestion, toy_ontology

    questions = [ToyQuestion("q1", "How many singers are there?"), ToyQuestion("q2", "Name the concerts.")]
    tasks = tuple(q.id for q in questions)
    # (answer size, budget the outcome needs) -> (admitted, saves nothing); 6,000 -> 3,000 characters
    cases = {(2000, 2000): (False, True),   # the answers fit 3,000 already: kept, nothing saved
             (5000, 2000): (True, False),   # smaller answers, every outcome kept: a saving
             (5000, 4000): (False, False)}  # an outcome lost: refused, and it blocks the step
    for (need, critical), (admit, nothing) in cases.items():
        ws = FakeWorkspace(toy_ontology(answer_format="compact"))  # served budget: the default, 6,000
        member = loop.Member("toy", ws, questions, [])
        ctx = EditContext(OntologyView(ws.ontology), IRIS)
        saving = Candidate("answer_size:*:answer-size", "budget 3000", "tool",
                           (SetToolSetting("browse.answerBudget", 3000),), tasks=tasks, aim="cost")
        assert loop.screen(member, saving, ctx, _SizedBackbone(need, critical)) is admit
        assert ((member.state(), loop.screen_key(saving)) in member.saves_nothing) is nothing


def test_a_member_that_saved_nothing_is_screened_again_at_its_next_version():
    """A saving that saved one member nothing was marked as tried (``Member.seen``, a fingerprint of
    the compiled triples, the same at every version) while the record that it saved nothing is per
    version: once the member accepted any other patch, the record was pruned, the alternative was
    never screened again, and the member blocked the step for every member for the rest of the run."""
    from evoonto.evolution.edits import EditContext
    from evoonto.evolution.view import OntologyView
    from fixtures.evolution_toy import IRIS, FakeWorkspace, ToyQuestion, toy_ontology

    questions = [ToyQuestion("q1", "How many singers are there?")]
    members = {k: loop.Member(k, FakeWorkspace(toy_ontology(answer_format="compact")), questions, []) for k in "abc"}
    backbones = {"a": _SizedBackbone(5000, 1000), "b": _SizedBackbone(5000, 1000),
                 "c": _SizedBackbone(2000, 1000)}  # c's answers fit 3,000 characters already

    def one_round():
        contexts = {k: EditContext(OntologyView(m.workspace.ontology), IRIS) for k, m in members.items()}
        for m in members.values():
            loop.prune(m, keep=(m.state(),))
        proposals = [(True, 0, 0, k, m, [Candidate("answer_size:*:answer-size", "budget 3000", "tool",
                                                   (SetToolSetting("browse.answerBudget", 3000),), tasks=("q1",),
                                                   aim="cost")])
                     for k, m in members.items()]
        out = loop.savings_in_step(proposals, contexts,
                                   lambda m, c: loop.screen(m, c, contexts[m.key], backbones[m.key]),
                                   lambda m, c: (m.state(), loop.screen_key(c)) in m.saves_nothing)
        return [(p[-2].key, p[-1][0].edits[0].value) for p in out]

    assert one_round() == [("a", 3000), ("b", 3000)]
    # the round went to another candidate; c accepts an unrelated Tool patch, so its version changes
    c = members["c"]
    more = Candidate("shallow_retrieval:*:browse-depth", "more results", "tool",
                     (SetToolSetting("browse.defaultResults", 9),))
    c.workspace.commit(loop.to_patch(more, EditContext(OntologyView(c.workspace.ontology), IRIS)), metadata={})
    assert one_round() == [("a", 3000), ("b", 3000)]
    assert list(c.saves_nothing) == [(c.state(), loop.screen_key(
        Candidate("answer_size:*:answer-size", "budget 3000", "tool", (SetToolSetting("browse.answerBudget", 3000),))))]
