"""Regression (issue 19, crowding by value Terms): every value Term of one column was its own hit,
so a query naming a word shared by many values ("bohemia": north, south, east, west and central
Bohemia) filled the answer with one column's values and pushed other columns out. Values now rank
under their column: in the verbose answer one value Term per column, the others listed in its
snippet; in the compact answer one line per column with the matched values inline."""

from __future__ import annotations

from fixtures.retrieval_support import REGIONS, region_tools


def test_one_columns_values_take_one_slot(tmp_path):
    tools = region_tools(tmp_path)
    by_id = {tools.id_of(doc.iri): doc for doc in tools.built.index.documents}
    hits = tools.browse("bohemia districts", n=8, format="verbose")
    value_hits = [h for h in hits if h["label"] in REGIONS]  # the builder's value Terms of district.region
    assert len(value_hits) == 1, [h["label"] for h in hits]
    assert value_hits[0]["snippet"].count("also") >= 3  # the other Bohemian regions, under the first
    assert any(by_id[h["id"]].locations == ["account.district_id"] for h in hits)  # room for other columns

    compact = tools.browse("bohemia districts", format="compact", budget=2000)
    region_lines = [h["label"] for h in compact if h["label"].startswith('"district"."region"')]
    assert len(region_lines) == 1 and "'north Bohemia'" in region_lines[0]
