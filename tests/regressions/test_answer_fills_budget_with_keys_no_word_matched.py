"""Regression (issue 29): a compact answer gave a full line (type, values, meaning, "references …")
to every candidate while the rest still fit, so on a schema that fits the budget each answer was as
long as the budget allowed, whatever the question matched: on bird_synth_dev the default answer
averaged 1,618 tokens, and the only saving the evolution loop could propose was a smaller budget,
which cuts every answer alike, a long question's matched lines included (one fold took no saving).

``evo:fullLinesMatchedOnly`` (a Tool setting, ``browse.fullLinesMatchedOnly``, false by default)
gives full lines only to the candidates a query word or value matched; keys and columns their table
brought in are named in their table's line. The loop proposes it as a saving (answer_size), and the
gate keeps it only where no outcome it sees changes.
"""

from __future__ import annotations

import json

import pytest

from evoonto.evolution.attribute import attribute
from evoonto.evolution.candidates import propose
from evoonto.evolution.diagnose import Signature
from evoonto.evolution.edits import EditContext, EditError, SetToolSetting
from evoonto.evolution.loop import to_patch, validate_candidate
from evoonto.evolution.view import OntologyView
from evoonto.iris import IriFactory
from evoonto.tools.settings import load_settings
from evoonto.tools.toolkit import OntologyTools
from evoonto.workspace import Workspace

QUESTION = "What is the average age of singers from France?"


def _answer(onto) -> list[dict]:
    return OntologyTools(onto).browse(QUESTION)


def _size(answer: list[dict]) -> int:
    return len(json.dumps(answer, ensure_ascii=False, separators=(",", ":")))


def test_answer_fills_budget_with_keys_no_word_matched(concert_workspace):
    onto = Workspace.open(concert_workspace).ontology
    view = OntologyView(onto)
    assert load_settings(onto).browse.full_lines_matched_only is False
    before = _answer(onto)
    # the saving the loop proposes first for a compact answer
    (flag, *budgets) = propose(attribute(Signature("answer_size", "answer-size", None, ("q1",)), view), view)
    assert flag.aim == "cost" and flag.edits == (SetToolSetting("browse.fullLinesMatchedOnly", 1),)
    assert all(c.edits[0].setting == "browse.answerBudget" for c in budgets)
    ctx = EditContext(view, IriFactory(onto.base_iri))
    patched, why = validate_candidate(onto, to_patch(flag, ctx))  # the shapes accept the xsd:boolean
    assert why is None and patched is not None
    assert load_settings(patched).browse.full_lines_matched_only is True
    after = _answer(patched)

    def full(answer):  # "table"."column" lines (a table's line is "table"("a", "b"))
        return [e["label"].split(" ", 1)[0] for e in answer if '"."' in e["label"].split(" ", 1)[0]]

    # the matched columns keep their full lines, in the same order
    matched = [c for c in full(before) if c in {'"singer"."Age"', '"singer"."Country"'}]
    assert matched and [c for c in full(after) if c in matched] == matched
    # no unmatched candidate has a full line any more: the concert tables' keys are named in their
    # tables' lines, and every column the answer named before is still named
    assert len(full(after)) < len(full(before)) and _size(after) < _size(before)
    named = " ".join(e["label"] for e in after)
    for line in full(before):
        table, column = (part.strip('"') for part in line.split("."))
        assert f'"{column}"' in named, column
    # the loop does not propose it again once taken; budgets only
    again = propose(attribute(Signature("answer_size", "answer-size", None, ("q1",)), OntologyView(patched)),
                    OntologyView(patched))
    assert again and all(c.edits[0].setting == "browse.answerBudget" for c in again)


def test_the_flag_takes_zero_or_one_only(concert_workspace):
    onto = Workspace.open(concert_workspace).ontology
    ctx = EditContext(OntologyView(onto), IriFactory(onto.base_iri))
    with pytest.raises(EditError, match=r"0 \(false\) or 1 \(true\)"):
        SetToolSetting("browse.fullLinesMatchedOnly", 2).compile(ctx)
