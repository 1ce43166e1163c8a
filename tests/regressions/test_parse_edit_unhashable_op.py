"""Regression: ``evoonto.evolution.llm.parse_edit`` looked the ``op`` of a model-written edit up with
``EDIT_TYPES.get(op)`` without checking it is a string. A JSON list or object as ``op`` is unhashable,
so the lookup raised TypeError, which ``parse_response`` does not catch: one malformed edit in Claude's
answer crashed the whole evolver step instead of dropping that candidate with a problem line.
(Found by mypy: ``Argument 1 to "get" of "dict" has incompatible type "Any | None"``.)"""

from __future__ import annotations

import json

import pytest

from evoonto.evolution.llm import parse_edit, parse_response


@pytest.mark.parametrize("op", [["add_label"], {"name": "add_label"}])
def test_unhashable_op_is_a_value_error(op):
    with pytest.raises(ValueError, match="unknown edit op"):
        parse_edit({"op": op})


def test_unhashable_op_drops_only_its_candidate():
    answer = json.dumps({"candidates": [
        {"signature": "bad", "level": "content", "reason": "r", "edits": [{"op": ["add_label"]}]},
        {"signature": "good", "level": "content", "reason": "r",
         "edits": [{"op": "add_synonym", "term": "https://example.org/term/singer.age", "label": "youngest"}]},
    ]})
    candidates, problems = parse_response(answer)
    assert [c.signature for c in candidates] == ["good"]
    assert len(problems) == 1 and problems[0].startswith("candidate 0:") and "unknown edit op" in problems[0]
