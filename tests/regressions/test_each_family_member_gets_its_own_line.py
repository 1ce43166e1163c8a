"""Defect (issue 33 item 2, "group families so a family is one line"): members of a table family that
kept Terms of their own (the builder keeps a member a workload value points at) were each named in a
line of their own, so a question matching a column every member has ("amount") got one line per
member with the same column names (13 NOAA ``ICOADS_CORE_20xx`` lines on wide BIRD), crowding out the
tables it asked about. Such members are now named in their family's line: the representative's, or
the members the question names by key."""

from __future__ import annotations

import functools
import json

from evoonto.tools.browse import browse
from evoonto.tools.index import SearchIndex
from evoonto.tools.settings import BrowseSettings
from fixtures.retrieval_support import column_doc, table_doc, value_doc

#: this schema's columns are all REAL
_real_column = functools.partial(column_doc, type_name="REAL")

YEARS = range(2005, 2018)
READING = ["station", "cloud_amount", "wind_speed", "reading_day"]


def _index() -> SearchIndex:
    docs = [table_doc("reading_2005", "reading (table family 2005-2017)", alt=("reading_{n}",),
                       hidden=tuple(f"reading_{y}" for y in YEARS))]
    for year in YEARS:  # every member kept Terms of its own
        table = f"reading_{year}"
        docs.append(table_doc(table, table.replace("_", " ")))
        docs += [_real_column(table, c, c.replace("_", " "), k) for k, c in enumerate(READING)]
    docs += [table_doc("payment", "payment"), _real_column("payment", "payment_id", "payment id", 0),
             _real_column("payment", "amount", "amount", 1), _real_column("payment", "paid_on", "paid on", 2)]
    docs.sort(key=lambda d: d.iri)
    return SearchIndex(docs)


def _lines(hits: list[dict]) -> list[str]:
    return [h["label"] for h in hits if h["label"].startswith('"reading_') and '"(' in h["label"][:20]]


def test_a_familys_members_share_one_line():
    index = _index()
    hits = browse(index, BrowseSettings(), "payments whose amount is below the average amount", format="compact",
                  budget=1200)
    assert len(json.dumps(hits, ensure_ascii=False, separators=(",", ":"))) <= 1200
    lines = _lines(hits)
    assert len(lines) <= 1, lines  # one line for the family, not one per member
    assert any(h["label"].startswith('"payment"') for h in hits)
    # a member the question names by its year is the one named
    hits = browse(index, BrowseSettings(), "cloud amount readings in 2011", format="compact", budget=1200)
    names = " ".join(h["label"] for h in hits)
    assert '"reading_2011"' in names
    assert len({line.split("(")[0] for line in _lines(hits)}) <= 1, _lines(hits)


def test_a_value_seen_in_members_is_named_once_and_never_moved_to_another_member():
    # the value 'hail' was seen in the weather column of five members (value Terms of each)
    docs = list(_index().documents)
    holders = [f"reading_{y}" for y in (2008, 2009, 2010, 2011, 2012)]
    docs += [_real_column(table, "weather", "weather", 4) for table in [f"reading_{y}" for y in YEARS]]
    docs += [value_doc(table, "weather", "hail") for table in holders]
    docs.sort(key=lambda d: d.iri)
    index = SearchIndex(docs)
    hits = browse(index, BrowseSettings(), "stations with hail", format="compact", budget=1500)
    with_value = [h["label"] for h in hits if "'hail'" in h["label"]]
    assert len(with_value) == 1, with_value  # once per family, not once per member
    line = with_value[0]
    assert any(line.startswith(f'"{table}"') for table in holders), line  # in a member that holds it


def test_a_members_other_values_and_its_own_value_are_kept():
    # found in review: the once-per-family check compared only the first value and skipped the
    # whole column ('sleet', held by one member only, was lost), and the representative's value
    # took the place of the value the asked member holds ('snow' was lost)
    index = _index()
    hits = browse(index, BrowseSettings(), "readings with hail or sleet", format="compact", budget=1500,
                  value_hits=[("reading_2009.cloud_amount", "hail", 0.9), ("reading_2011.cloud_amount", "hail", 0.5),
                               ("reading_2011.cloud_amount", "sleet", 0.5)])
    # reading_2011 holds 'sleet' too: its column is not skipped as a repeat of reading_2009's 'hail'
    assert any(h["label"].startswith('"reading_2011"') and '"cloud_amount"' in h["label"] for h in hits), hits
    docs = list(index.documents) + [value_doc("reading_2005", "station", "hail storm"),
                                    value_doc("reading_2011", "station", "snow")]
    docs.sort(key=lambda d: d.iri)
    hits = browse(SearchIndex(docs), BrowseSettings(), "hail storm or snow readings in 2011", format="compact",
                  budget=900)
    lines = [h["label"] for h in hits]
    assert any(line.startswith('"reading_2011"') and "'snow'" in line for line in lines), lines
    assert not any(line.startswith('"reading_2011"') and "'hail storm'" in line for line in lines), lines


def test_a_member_holding_a_value_keeps_one_line_with_the_right_id():
    # found in review: a member whose value put it in a line of its own had its other columns sent
    # to the representative's line (a second line's overhead ended the answer before the store's
    # value), and a line could carry the Term id of another table than the one it names
    docs = [table_doc("sales_1990", "sales (table family 1990-2024)", alt=("sales_{n}",),
                       hidden=tuple(f"sales_{y}" for y in range(1990, 2025)))]
    for table in ("sales_1990", "sales_2015"):
        docs.append(table_doc(table, table))
        for k, column in enumerate(["store_id", "channel", "units_sold", "unit_price"]):
            doc = _real_column(table, column, column.replace("_", " "), k)
            if column == "store_id" and table == "sales_2015":
                doc.keys.add(doc.locations[0])
            docs.append(doc)
    docs += [value_doc("sales_2015", "channel", "web shop"), table_doc("store", "store"),
             _real_column("store", "store_id", "store id", 0), _real_column("store", "region", "region", 1),
             value_doc("store", "region", "north")]
    docs.sort(key=lambda d: d.iri)
    index = SearchIndex(docs)
    for budget in (250, 300, 400):
        hits = browse(index, BrowseSettings(), "web shop sales in the north", format="compact", budget=budget,
                      n=1)
        for hit in hits:
            table = hit["label"].split('"')[1]
            assert hit["id"].startswith(f"urn:t/{table}/"), hit  # a line's id is its own table's Term
        sales_lines = [h["label"] for h in hits if h["label"].startswith('"sales_2015"(')]
        assert len(sales_lines) <= 1, sales_lines
    text = " ".join(h["label"] for h in hits)
    assert "'web shop'" in text and "'north'" in text, hits
