"""Defect (issue 33 item 2): when a question names a family member by its key (``sales_2015``) and
that member also has column Terms of its own (the builder kept them), the member's columns and the
family representative's columns were both written into the one line shown as ``"sales_2015"(…)``:
every column twice (measured on wide BIRD: a GSOD line of 32 columns took the room of 64). A line now
names each column once, with the value the question named in it when either copy carries one."""

from __future__ import annotations

import functools
import json
from collections import Counter

from evoonto.tools.browse import browse
from evoonto.tools.index import SearchIndex
from evoonto.tools.settings import BrowseSettings
from fixtures.retrieval_support import column_doc, table_doc

#: this schema's columns are all REAL
_real_column = functools.partial(column_doc, type_name="REAL")

COLUMNS = ["store_id", "units_sold", "unit_price", "discount_rate", "returned_units", "channel"]


def _index() -> SearchIndex:
    years = range(1990, 2025)
    docs = [table_doc("sales_1990", "sales (table family 1990-2024)", alt=("sales_{n}",),
                       hidden=tuple(f"sales_{y}" for y in years))]
    for table in ("sales_1990", "sales_2015"):  # the representative, and a member with Terms of its own
        docs.append(table_doc(table, table.replace("_", " ")))
        docs += [_real_column(table, c, f"{table} {c}".replace("_", " "), k) for k, c in enumerate(COLUMNS)]
    docs += [table_doc("store", "store"), _real_column("store", "store_id", "store id", 0),
             _real_column("store", "store_region", "store region", 1)]
    docs.sort(key=lambda d: d.iri)
    return SearchIndex(docs)


def _names(label: str) -> list[str]:
    inside = label[label.index("(") + 1:label.rindex(")")]
    return [part.split(" = ")[0] for part in inside.split(", ")]


def test_a_family_members_line_names_each_column_once():
    index = _index()
    for budget in (400, 600, 900, 1500):
        hits = browse(index, BrowseSettings(), "What were the sales per store region in 2015?", kind="term",
                      format="compact", budget=budget)
        assert len(json.dumps(hits, ensure_ascii=False, separators=(",", ":"))) <= budget
        lines = [h["label"] for h in hits if h["label"].startswith('"sales_2015"(')]
        assert lines, hits
        for line in lines:
            repeated = [name for name, count in Counter(_names(line)).items() if count > 1]
            assert not repeated, (budget, line)
    hits = browse(index, BrowseSettings(), "What were the sales per store region in 2015?", kind="term",
                  format="compact", budget=1500)
    named = {n for h in hits if h["label"].startswith('"sales_2015"(') for n in _names(h["label"])}
    full = {h["label"].split(" ")[0].split(".")[1] for h in hits if h["label"].startswith('"sales_2015".')}
    assert {f'"{c}"' for c in COLUMNS} <= named | full  # every column still named
