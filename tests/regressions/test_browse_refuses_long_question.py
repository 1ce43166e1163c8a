"""Regression (issue 19, long queries refused): browse refused any query over 1,000 characters, so a
BIRD question with its evidence surfaced nothing. A long query is now searched by its terms; only a
query over 20,000 characters (a bound on input size) is refused."""

from __future__ import annotations

import pytest

from evoonto.errors import ToolArgumentError
from fixtures.retrieval_support import region_tools


def test_a_question_with_long_evidence_is_searched(tmp_path):
    tools = region_tools(tmp_path)
    question = ("How many districts have a population over 1000? "
                + "Evidence: the districts table lists each district with its population figure. " * 16)
    assert len(question) > 1000
    hits = tools.browse(question)
    assert any("population" in h["label"].lower() for h in hits)
    assert any("population" in h["label"] for h in tools.browse(question, format="compact"))
    assert tools.coverage(question)["phrases"]  # coverage searches it too
    with pytest.raises(ToolArgumentError, match="maximum is 20000"):
        tools.browse("population " * 2500)
