"""Regression: ``check_sql`` passed a filter on a year that no row of the column has.

``out_of_range`` compared only numeric columns with numbers, so ``WHERE strftime('%Y', placed) =
'2031'`` on orders placed from 2019 to 2021 got "ok: no finding", though it holds for no row and
the answer would be empty. The year of a date column (``strftime('%Y', d)``, ``YEAR(d)``,
``EXTRACT(YEAR FROM d)``) is now compared with the years of its earliest and latest date: a Warning
that says how the dates were observed, confirmed by a point probe when the source is reachable and
dropped when the data has such a row; no replacement is suggested (the question's year is not the
check's to change).
"""

from __future__ import annotations

import sqlite3

import pytest

from evoonto.builder.pipeline import build
from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.tools.sqlcheck import check_sql
from evoonto.tools.sqlcheck.values import year_of


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    path = tmp_path_factory.mktemp("shop") / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, placed DATE, total REAL)")
        con.executemany("INSERT INTO orders VALUES (?, ?, ?)",
                        [(i, f"{2019 + i % 3}-0{1 + i % 9}-1{i % 10}", 10.0 + i) for i in range(60)])
    result = build([path], None, validate=False)
    return Ontology.from_graphs(result.graphs, base_iri=result.base_iri), path


def test_check_sql_passes_a_year_no_row_has(shop):
    onto, _path = shop
    [found] = check_sql(onto, "SELECT COUNT(*) FROM orders WHERE strftime('%Y', placed) = '2031'")
    assert (found.kind, found.severity, found.subject) == ("out_of_range", "Warning", "orders.placed")
    assert "2019..2021" in found.message and "no row" in found.message, found.message
    assert found.suggestion is None
    assert check_sql(onto, "SELECT COUNT(*) FROM orders WHERE strftime('%Y', placed) = '2020'") == []
    [every] = check_sql(onto, "SELECT COUNT(*) FROM orders WHERE strftime('%Y', placed) >= '2000'")
    assert "every row" in every.message, every.message


def test_year_functions_of_other_dialects(shop):
    onto, _path = shop
    for sql, dialect in [("SELECT id FROM orders WHERE EXTRACT(YEAR FROM placed) = 2031", "postgres"),
                         ("SELECT id FROM orders WHERE YEAR(placed) IN (2030, 2031)", "mysql"),
                         ("SELECT id FROM orders WHERE '2031' = strftime('%Y', placed)", "sqlite")]:
        kinds = [(f.kind, f.subject) for f in check_sql(onto, sql, dialect=dialect)]
        assert ("out_of_range", "orders.placed") in kinds, (sql, kinds)


def test_a_probe_confirms_the_missing_year(shop):
    onto, path = shop
    with open_source(str(path)) as source:
        sources = {source.id: source}
        [found] = check_sql(onto, "SELECT id FROM orders WHERE strftime('%Y', placed) = '2031'", sources=sources)
        assert "a point probe of the data found no such row" in found.message, found.message
        assert check_sql(onto, "SELECT id FROM orders WHERE strftime('%Y', placed) BETWEEN '2020' AND '2021'",
                         sources=sources) == []


def test_year_of_reads_only_a_year():
    import sqlglot

    where = sqlglot.parse_one("SELECT 1 FROM t WHERE strftime('%m', d) = '12'", read="sqlite").args["where"]
    assert year_of(where.this.this) is None  # a month is not a year
