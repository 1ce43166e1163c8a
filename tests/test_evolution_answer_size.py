"""Issue 29, item 1: the gate weighs what the agent gets and what it costs. Answer size (tokens =
characters / 4) is part of the decision: equal score and more tokens is a rejection, equal score and
fewer tokens can be an acceptance, and a gain that makes the answers larger must pay for them. Tool
candidates act on the settings the served answer uses (the compact budget), and the backbone scores
each version's served policy."""

from __future__ import annotations

import pytest

from evoonto.errors import ConfigurationError
from evoonto.evolution.gate import GateConfig, compare

V = [f"q{i}" for i in range(10)]


def _scores(ups=()):
    return {q: (1.0 if q in ups else 0.0) for q in V}


def _tokens(size):
    return {q: size for q in V}


def test_equal_score_and_more_tokens_is_rejected_even_with_a_screen_fix():
    d = compare(_scores(), _scores(), GateConfig(), screen=(3, 0, 3.0),
                parent_tokens=_tokens(500), candidate_tokens=_tokens(600))
    assert d.decision == "rejected" and "equal score, more tokens" in d.reason
    assert d.metadata()["parent_tokens"] == 500 and d.metadata()["candidate_tokens"] == 600


def test_equal_score_and_fewer_tokens_is_accepted():
    d = compare(_scores(), _scores(), GateConfig(), parent_tokens=_tokens(500), candidate_tokens=_tokens(400))
    assert d.accepted and "fewer tokens" in d.reason and d.token_change == pytest.approx(-0.2)
    # a saving below the configured share is no reason by itself (no screen evidence: rejected)
    d = compare(_scores(), _scores(), GateConfig(), parent_tokens=_tokens(500), candidate_tokens=_tokens(495))
    assert d.decision == "rejected"


def test_a_gain_must_pay_for_larger_answers():
    # +1 question of 10 (gain 0.1) at +300% tokens: price 0.05 × 3.0 = 0.15 > 0.1
    d = compare(_scores(), _scores({"q1"}), GateConfig(alpha=0.5), parent_tokens=_tokens(100),
                candidate_tokens=_tokens(400))
    assert d.decision == "rejected" and "does not pay" in d.reason
    # the same gain at +20% tokens pays (needs 0.01)
    d = compare(_scores(), _scores({"q1"}), GateConfig(alpha=0.5), parent_tokens=_tokens(100),
                candidate_tokens=_tokens(120))
    assert d.accepted


def test_without_measured_sizes_the_size_rules_do_not_apply():
    d = compare(_scores(), _scores(), GateConfig(), screen=(1, 0, 1.0))
    assert d.accepted and d.parent_tokens is None and "tokens" not in d.reason


def test_token_settings_are_checked():
    with pytest.raises(ConfigurationError):
        GateConfig(token_price=-1.0)


def test_compact_served_answer_gets_budget_candidates_not_result_counts():
    from evoonto.evolution.attribute import attribute
    from evoonto.evolution.candidates import propose
    from evoonto.evolution.diagnose import Signature
    from evoonto.evolution.edits import EditContext, SetToolSetting
    from evoonto.evolution.view import OntologyView
    from fixtures.evolution_toy import IRIS, toy_ontology

    onto = toy_ontology(answer_format="verbose")
    view = OntologyView(onto)
    deeper = propose(attribute(Signature("shallow_retrieval", "browse-depth", None, ("q1",)), view), view)
    assert any(e.setting == "browse.defaultResults" for c in deeper for e in c.edits if isinstance(e, SetToolSetting))
    # serve compact answers within 1,000 characters: the depth candidates now change the budget
    from rdflib import RDF, Literal

    from evoonto.namespaces import EVO
    from evoonto.ontology import Ontology
    from evoonto.resources import vocab_graph
    from fixtures.evolution_toy import BASE, toy_graphs

    graphs = toy_graphs()
    node = IRIS.tools("browse")
    graphs.setdefault("tools", __import__("rdflib").Graph())
    graphs["tools"].add((node, RDF.type, EVO.BrowseSettings))
    graphs["tools"].add((node, EVO._NS["answerFormat"], Literal("compact")))
    graphs["tools"].add((node, EVO._NS["answerBudget"], Literal(1000)))
    onto = Ontology.from_graphs({**graphs, "vocab": vocab_graph()}, base_iri=BASE)
    view = OntologyView(onto)
    assert view.answer_settings == ("compact", 1000)
    deeper = propose(attribute(Signature("shallow_retrieval", "browse-depth", None, ("q1",)), view), view)
    settings = [(e.setting, e.value) for c in deeper for e in c.edits if isinstance(e, SetToolSetting)]
    assert ("browse.answerBudget", 1500) in settings and ("browse.answerBudget", 2000) in settings
    assert not any(name == "browse.defaultResults" for name, _ in settings)
    savings = propose(attribute(Signature("answer_size", "answer-size", None, ("q2",)), view), view)
    # first the saving that follows each question (full lines for its matches only), then budgets
    assert [(c.aim, c.edits[0].setting, c.edits[0].value) for c in savings] == [
        ("cost", "browse.fullLinesMatchedOnly", 1), ("cost", "browse.answerBudget", 500),
        ("cost", "browse.answerBudget", 750), ("cost", "browse.answerBudget", 900)]
    ctx = EditContext(view, IRIS)
    added = savings[1].compile(ctx).additions["tools"]
    assert any(p == EVO._NS["answerBudget"] and int(o) == 500 for _, p, o in added)


def test_the_backbone_scores_each_versions_served_answer():
    from rdflib import RDF, Literal

    from evoonto.evaluation.backbones import LinkingBackbone, linking_outcome, served_policy
    from evoonto.evaluation.linking import LinkingResult
    from evoonto.namespaces import EVO
    from evoonto.tools.settings import DEFAULT_ANSWER_POLICY
    from evoonto.ontology import Ontology
    from evoonto.resources import vocab_graph
    from fixtures.evolution_toy import BASE, IRIS, toy_graphs, toy_ontology

    default = served_policy(toy_ontology())  # no settings: the tool layer's default answer
    assert (default.format, default.budget_chars) == (DEFAULT_ANSWER_POLICY.format, DEFAULT_ANSWER_POLICY.budget)
    assert served_policy(toy_ontology(answer_format="verbose")).format == "verbose"
    graphs = toy_graphs()
    import rdflib
    graphs["tools"] = rdflib.Graph()
    node = IRIS.tools("browse")
    graphs["tools"].add((node, RDF.type, EVO.BrowseSettings))
    graphs["tools"].add((node, EVO._NS["answerFormat"], Literal("compact")))
    graphs["tools"].add((node, EVO._NS["answerBudget"], Literal(1500)))
    policy = served_policy(Ontology.from_graphs({**graphs, "vocab": vocab_graph()}, base_iri=BASE))
    assert (policy.format, policy.budget_chars) == ("compact", 1500)
    assert LinkingBackbone(benchmark=None).key == ("linking", "strict", "served")
    # the answer metric: a smaller answer that drops the value the SQL compares scores lower
    kept = LinkingResult("q", 1.0, 1.0, 1.0, True, 100, 25)
    dropped = LinkingResult("q", 1.0, 1.0, 0.0, True, 60, 15)
    assert linking_outcome(kept, "answer") == 1.0 and linking_outcome(dropped, "answer") == 0.5
    assert linking_outcome(dropped, "column") == 1.0


def test_a_saving_is_screened_on_every_measured_task_passed_or_failed():
    from evoonto.evolution.diagnose import diagnose
    from evoonto.evolution.trajectories import Event, TaskTrajectory
    from evoonto.evolution.view import OntologyView
    from fixtures.evolution_toy import toy_ontology

    def traj(task, passed, tokens):
        return TaskTrajectory(task, "How old is the singer?", "toy", [Event("browse", {"q": "x"}, result=[])],
                              passed=passed, score=float(passed), tokens=tokens)

    sigs = diagnose([traj("a", True, 100), traj("b", False, 90), traj("c", True, None)],
                    OntologyView(toy_ontology()), kinds=("answer_size",))
    assert [(s.kind, s.tasks) for s in sigs] == [("answer_size", ("a", "b"))]  # unmeasured "c" cannot be kept


def test_savings_do_not_crowd_out_fixes_in_a_short_round_budget():
    """A saving's signature is shown by every task, a fix's by the failed ones only: ranked by
    frequency alone, savings filled the demo's three rounds and no failure-driven fix was tried."""
    from evoonto.evolution.candidates import Candidate
    from evoonto.evolution.edits import SetToolSetting
    from evoonto.evolution.loop import proposal_order

    saving = [Candidate("answer_size:*", "smaller", "tool", (SetToolSetting("browse.answerBudget", 4000),),
                        "r", aim="cost")]
    fix = [Candidate("shallow_retrieval:*", "larger", "tool", (SetToolSetting("browse.answerBudget", 9000),), "r")]
    ranked = sorted([(proposal_order(saving, 17, 0, "db"), "saving"), (proposal_order(fix, 2, 1, "db"), "fix")])
    assert [name for _, name in ranked] == ["fix", "saving"]
    # among fixes, the one more failed tasks show comes first
    ranked = sorted([proposal_order(fix, 2, 0, "db"), proposal_order(fix, 5, 1, "db")])
    assert ranked[0][1] == -5
