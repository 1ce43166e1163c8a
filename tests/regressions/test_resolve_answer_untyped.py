"""Issue 34 item 5: browse/resolve answers were ``dict[str, Any]``, so the type checker could not
see their keys. ``resolve`` now returns a :class:`~evoonto.tools.results.ResolveAnswer`
(``TypedDict``): a plain JSON-ready dict at run time whose keys are exactly the declared ones."""

from __future__ import annotations

import json
import typing

from evoonto.tools.results import ResolveAnswer, ResolveError
from evoonto.tools.toolkit import OntologyTools
from fixtures.core_support import finance_workspace


def test_resolve_answers_have_the_declared_keys(tmp_path):
    tools = OntologyTools(finance_workspace(tmp_path / "ws").ontology)
    hit = tools.browse("cost", n=1)[0]
    answer = tools.resolve([hit["id"], "term/nope/none"])
    hints = typing.get_type_hints(ResolveAnswer)
    required = set(ResolveAnswer.__required_keys__)
    assert required == {"records", "errors", "truncated"} and set(hints) == required | {"omitted", "joins"}
    assert required <= set(answer) <= set(hints)
    assert answer["records"][0]["id"] == hit["id"] and answer["truncated"] is False
    (error,) = answer["errors"]
    assert set(error) == set(typing.get_type_hints(ResolveError)) and error["id"] == "term/nope/none"
    assert json.loads(json.dumps(answer)) == answer  # JSON as it is
