"""Regression: a round's Tool batch bundled a saving with a fix, so a larger budget rode on it.

On Chinook with manual approval, the loop proposed "2 edits: set browse.answerBudget = 9000; set
browse.fullLinesMatchedOnly = 1". The budget raise alone had been rejected for its tokens (+40%);
bundled with the full-lines saving, the bundle's answers were smaller than the parent's and passed.
A batch is now all fixes or all savings (one ``aim``).
"""

from __future__ import annotations

from evoonto.evolution.attribute import attribute
from evoonto.evolution.candidates import propose
from evoonto.evolution.diagnose import Signature
from evoonto.evolution.edits import EditContext
from evoonto.evolution.loop import Member, _batch
from evoonto.evolution.view import OntologyView
from fixtures.evolution_toy import IRIS, toy_ontology


def test_saving_bundled_with_a_budget_raise():
    view = OntologyView(toy_ontology())  # the compact answer: budgets up (a fix) and down (a saving)
    ctx = EditContext(view, IRIS)
    a, b = Member("a", None, [], []), Member("b", None, [], [])
    deeper = propose(attribute(Signature("shallow_retrieval", "browse-depth", None, ("q1",)), view), view)
    smaller = propose(attribute(Signature("answer_size", "answer-size", None, ("q1", "q2")), view), view)
    assert deeper[0].aim == "score" and smaller[0].aim == "cost" and deeper[0].level == smaller[0].level == "tool"
    # member a's fix ranks first; member b has only the saving
    proposals = [(-1, 0, "a", a, deeper), (0, 0, "b", b, smaller)]
    chosen = _batch(proposals, {"a": ctx, "b": ctx}, batch_size=8)
    assert [(m.key, c.aim) for m, c in chosen] == [("a", "score")]
    # the savings alone make a batch of their own
    chosen = _batch([(0, 0, "a", a, smaller), (0, 1, "b", b, smaller)], {"a": ctx, "b": ctx}, batch_size=8)
    assert [(m.key, c.aim) for m, c in chosen] == [("a", "cost"), ("b", "cost")]
