"""Regression: ``check_sql`` passed a date range or a year pattern that no row of the column has.

Northwind review: ``WHERE OrderDate LIKE '1999%'`` and ``WHERE OrderDate BETWEEN '1999-01-01' AND
'1999-12-31'`` on orders of 1996..1998 got "ok: no finding", while ``strftime('%Y', OrderDate) =
'1999'`` got the ``out_of_range`` Warning. A date column compared with ISO dates, or matched with one
year's pattern, is now judged by the years it names, only when every one of them lies outside the
years observed (a date inside them cannot be judged from the years); a probe confirms it when the
source is reachable.
"""

from __future__ import annotations

import sqlite3

import pytest

from evoonto.builder.pipeline import build
from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.tools.sqlcheck import check_sql


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    path = tmp_path_factory.mktemp("shop") / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, placed DATE, total REAL)")
        con.executemany("INSERT INTO orders VALUES (?, ?, ?)",
                        [(i, f"{1996 + i % 3}-0{1 + i % 9}-1{i % 10}", 10.0 + i) for i in range(60)])
    result = build([path], None, validate=False)
    return Ontology.from_graphs(result.graphs, base_iri=result.base_iri), path


@pytest.mark.parametrize("condition", ["placed LIKE '1999%'", "placed LIKE '1999-07%'",
                                       "placed BETWEEN '1999-01-01' AND '1999-12-31'",
                                       "placed >= '1999-01-01'", "placed < '1995-05-05'"])
def test_check_sql_passes_a_date_range_of_a_year_no_row_has(shop, condition):
    onto, path = shop
    [found] = check_sql(onto, f"SELECT COUNT(*) FROM orders WHERE {condition}")
    assert (found.kind, found.severity, found.subject) == ("out_of_range", "Warning", "orders.placed")
    # by the years for a year's pattern, by the dates observed for a date compared
    assert ("1996..1998" in found.message or "dates from 1996-01-10 to 1998-09-18" in found.message) \
        and "no row" in found.message, found.message
    assert found.suggestion is None
    with open_source(str(path)) as source:
        [probed] = check_sql(onto, f"SELECT COUNT(*) FROM orders WHERE {condition}", sources={source.id: source})
    assert "found no such row" in probed.message, probed.message


@pytest.mark.parametrize("condition", ["placed LIKE '1997%'", "placed BETWEEN '1997-01-01' AND '1999-12-31'",
                                       "placed > '1998-06-01'", "placed LIKE '%1999%'", "placed < '1997-06-01'",
                                       # sqlglot reads NOT LIKE as Like(negate=True): it holds for every row
                                       "placed NOT LIKE '1999%'",
                                       # a leading space sorts before every digit: no year to judge by
                                       "placed >= ' 1999-01-01'"])
def test_a_date_inside_the_years_observed_is_not_judged(shop, condition):
    onto, _path = shop
    assert [f for f in check_sql(onto, f"SELECT COUNT(*) FROM orders WHERE {condition}")
            if f.kind == "out_of_range"] == []


def test_a_date_range_around_every_year_holds_for_every_row(shop):
    onto, _path = shop
    [found] = check_sql(onto, "SELECT COUNT(*) FROM orders WHERE placed < '2030-01-01'")
    assert "every row" in found.message, found.message
