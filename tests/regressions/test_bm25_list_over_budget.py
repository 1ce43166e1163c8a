"""Defect (issue 33 item 4): the BM25 baseline counted each name as ``len(name) + 3`` while the
answer is printed as compact JSON, where every ``"`` of a quoted identifier is escaped (``\\"``), so
the list printed ~15% more than its budget and was compared with evoonto at unequal characters.
It now counts exactly what it prints."""

from __future__ import annotations

from evoonto.evaluation.conditions import BM25ColumnList
from evoonto.evaluation.linking import compact_json, surface_list

SCHEMA = {"singer": ["Singer_ID", "Name", "Country", "Age"], "concert": ["concert_ID", "Theme", "Year"],
          "weird \"table\"": ["a\\b", "ünïcode col"]}


def test_bm25_list_fits_its_budget_as_printed():
    lister = BM25ColumnList({t: list(c) for t, c in SCHEMA.items()})
    everything = compact_json(lister.names)
    for budget in range(10, len(everything) + 20):
        shown = lister("age of singers", budget)
        printed = compact_json(shown)
        assert len(printed) <= budget or len(shown) == 1
    # exactly all when the budget is the printed size, and the surfaced count is what was printed
    assert lister("age", len(everything)) and len(lister("age", len(everything))) == len(lister.names)
    assert len(lister("age", len(everything) - 1)) == len(lister.names) - 1
    surfaced = surface_list("", lister("age", 60), SCHEMA)
    assert surfaced.chars == len(compact_json(lister("age", 60))) <= 60
