"""The Tool-level coverage lever of evolution: attribution of named-but-unsurfaced words, the
coverage-diversity candidates, and fraction-valued tool settings."""

from __future__ import annotations

import pytest
from rdflib import Literal

from evoonto.evolution.attribute import attribute
from evoonto.evolution.candidates import DIVERSITY_STEPS, propose
from evoonto.evolution.diagnose import Signature
from evoonto.evolution.edits import EditContext, EditError, SetToolSetting
from evoonto.evolution.view import OntologyView
from evoonto.namespaces import EVO
from fixtures.evolution_toy import IRIS, toy_ontology


@pytest.fixture()
def view():
    return OntologyView(toy_ontology())


def test_a_word_a_term_already_names_is_a_tool_failure(view):
    named = attribute(Signature("unlinked_phrase", "singers", "toy", ("q1",)), view)
    assert named.level == "tool" and "names 'singers'" in named.reason
    unnamed = attribute(Signature("unlinked_phrase", "youngest", "toy", ("q1",)), view)
    assert unnamed.level == "content"


def test_tool_attributed_words_and_shallow_retrieval_get_coverage_candidates(view):
    for sig in (Signature("unlinked_phrase", "singers", "toy", ("q1",)),
                Signature("shallow_retrieval", "browse-depth", None, ("q1", "q2"))):
        cands = propose(attribute(sig, view), view)
        steps = [c.edits[0].value for c in cands if c.edits[0].op == "set_tool_setting"
                 and c.edits[0].setting == "browse.coverageDiversity"]
        assert steps == list(DIVERSITY_STEPS) and cands[0].level == "tool"
        assert all(c.level == "tool" for c in cands)
    # a content-attributed word gets no tool candidate
    cands = propose(attribute(Signature("unlinked_phrase", "youngest", "toy", ("q1",)), view), view)
    assert cands and all(c.level == "content" for c in cands)


def test_fraction_settings_compile_and_reject_bad_values(view):
    ctx = EditContext(view, IRIS)
    out = SetToolSetting("browse.coverageDiversity", 0.5).compile(ctx)
    assert any(p == EVO.coverageDiversity and o == Literal(0.5) for _, p, o in out.additions["tools"])
    assert SetToolSetting("browse.fuzzyWeight", 0.2).compile(ctx).additions["tools"]
    for setting, value in (("browse.coverageDiversity", 1.5), ("browse.fuzzyWeight", -0.1),
                           ("browse.defaultResults", 2.5), ("browse.defaultResults", 0),
                           ("browse.coverageDiversity", "much")):
        with pytest.raises(EditError):
            SetToolSetting(setting, value).compile(ctx)


def test_the_value_in_effect_is_not_proposed_again(view):
    node = IRIS.tools("browse")
    view.tools.add((node, EVO.coverageDiversity, Literal(0.5)))
    cands = propose(attribute(Signature("shallow_retrieval", "browse-depth", None, ("q1",)), view), view)
    steps = [c.edits[0].value for c in cands if getattr(c.edits[0], "setting", "") == "browse.coverageDiversity"]
    assert steps == [s for s in DIVERSITY_STEPS if s != 0.5]
