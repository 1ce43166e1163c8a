"""Regression (issue 19, fixed depth): browse returned n = 8 hits whatever the schema and however
much room the caller had. A compact answer is now sized by a character budget: a larger budget
holds more distinct columns, every answer stays within its budget, and a question that matches no
indexed word still gets the best partial candidates (the schema's tables and columns), not "no match"."""

from __future__ import annotations

import json

from evoonto.evaluation.linking import recognise
from fixtures.retrieval_support import region_tools

SCHEMA = {"district": ["district_id", "region", "population"], "account": ["account_id", "district_id", "opened"],
          "frpm": ["School Code", "Free Meal Count (K-12)"]}


def columns(hits: list[dict]) -> set[tuple[str, str]]:
    return set(recognise([h["label"] for h in hits], SCHEMA)[1])


def test_the_budget_decides_how_many_columns_fit(tmp_path):
    tools = region_tools(tmp_path)
    small = tools.browse("accounts opened", format="compact", budget=300)
    large = tools.browse("accounts opened", format="compact", budget=3000)
    for hits, budget in ((small, 300), (large, 3000)):
        assert len(json.dumps(hits, ensure_ascii=False, separators=(",", ":"))) <= budget
    assert columns(small) < columns(large) and len(columns(large)) == 8  # every column of the schema
    assert columns(small) and small[0]["label"].startswith('"account".')

    unmatched = tools.browse("zzqxv wwkrp qqqtt", format="compact", budget=3000)
    assert len(columns(unmatched)) == 8
