"""Defects (issue 33 item 2, the Spider 2.0 failure modes): (1) a table family (``sales_1990`` …
``sales_2024``, folded into one family Term by the builder) was listed under its representative
(``sales_1990``) only, so the member a question names by its year (``sales_2015``) was never named
and its columns never surfaced; (2) one wide table's line of unmatched columns in schema order ate
the whole budget. Now a member named by its key stands in the family's lines, and a table's line
of unmatched columns stops at :data:`evoonto.tools.browse.LINE_SHARE` of the budget."""

from __future__ import annotations

import functools

from evoonto.evaluation.linking import recognise
from evoonto.tools.browse import LINE_SHARE, browse
from evoonto.tools.index import Document, SearchIndex, family_members
from evoonto.tools.settings import BrowseSettings
from fixtures.retrieval_support import column_doc, table_doc

#: this schema's columns are all REAL
_real_column = functools.partial(column_doc, type_name="REAL")


def _schema() -> list[Document]:
    years = range(1990, 2025)
    docs = [table_doc("sales_1990", "sales (table family 1990-2024)", alt=["sales_{n}"],
                       hidden=[f"sales_{y}" for y in years]),
            table_doc("sales_1990", "sales 1990")]
    docs += [_real_column("sales_1990", c, c.replace("_", " "), k) for k, c in enumerate(
        ["store_id", "units_sold", "unit_price", "discount_rate"])]
    docs += [table_doc("store", "store"), _real_column("store", "store_id", "store id", 0),
             _real_column("store", "store_region", "store region", 1)]
    # a wide table whose name matches the question: 300 unmatched columns
    docs += [table_doc("sales_forecast", "sales forecast")]
    docs += [_real_column("sales_forecast", f"feature_{k:03d}", f"feature {k}", k) for k in range(300)]
    docs.sort(key=lambda d: d.iri)
    return docs


def test_family_members_are_read_from_the_family_term():
    family = _schema()[[d.label for d in _schema()].index("sales (table family 1990-2024)")]
    members = family_members(family)
    assert members["2015"] == "sales_2015" and len(members) == 35
    assert family_members(table_doc("store", "store")) == {}


def test_a_member_named_by_its_year_is_named_in_the_answer():
    index = SearchIndex(_schema())
    question = "What were the units sold per store region in 2015?"
    hits = browse(index, BrowseSettings(), question, kind="term", format="compact", budget=1500)
    schema = {f"sales_{y}": ["store_id", "units_sold", "unit_price", "discount_rate"] for y in range(1990, 2025)}
    schema["store"] = ["store_id", "store_region"]
    _tables, columns = recognise(hits, schema)
    assert {("sales_2015", "units_sold"), ("sales_2015", "store_id"), ("store", "store_region")} <= columns
    assert not any(t == "sales_1990" for t, _c in columns)  # the representative is not what was asked
    both = browse(index, BrowseSettings(), "units sold in 1999 and in 2020", kind="term", format="compact",
                  budget=1500)
    _tables, columns = recognise(both, schema)
    assert {("sales_1999", "units_sold"), ("sales_2020", "units_sold")} <= columns


def test_one_wide_tables_unmatched_columns_take_at_most_their_share():
    index = SearchIndex(_schema())
    budget = 2000
    hits = browse(index, BrowseSettings(), "sales forecast by store region", kind="term", format="compact",
                  budget=budget)
    wide = [h["label"] for h in hits if h["label"].startswith('"sales_forecast"(')]
    assert wide and len(wide[0]) <= LINE_SHARE * budget + 20
    assert any('"store_region"' in h["label"] for h in hits)
