"""Regression: a date filter past the last date observed passed when the year was observed.

CSV review: with incidents opened 2023-01-02 .. 2024-01-31, ``opened_at >= '2024-06-01'`` and
``opened_at < '2023-01-01'`` got no finding: out_of_range compared only years, and 2024 and 2023 are
observed years. A date column compared with ISO dates is now judged by its earliest and latest
dates as written (ISO text orders as the dates do); a year's LIKE pattern is still judged by years.
"""

from __future__ import annotations

import sqlite3

import pytest

from evoonto.builder.pipeline import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_sql


@pytest.fixture(scope="module")
def desk(tmp_path_factory):
    db = tmp_path_factory.mktemp("desk") / "desk.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE incidents (id INTEGER PRIMARY KEY, opened_at TEXT)")
        days = ["2023-01-02 01:07:00", "2023-06-15 12:00:00", "2023-11-30 08:00:00", "2024-01-31 10:00:00"]
        con.executemany("INSERT INTO incidents VALUES (?, ?)", [(i, days[i % 4]) for i in range(40)])
    result = build([db], None, validate=False)
    return Ontology.from_graphs(result.graphs, base_iri=result.base_iri)


@pytest.mark.parametrize("condition, verdict", [("opened_at >= '2024-06-01'", "no row"),
                                                ("opened_at < '2023-01-01'", "no row"),
                                                ("opened_at < '2024-06-01'", "every row")])
def test_date_filter_past_the_last_date_passes(desk, condition, verdict):
    [found] = check_sql(desk, f"SELECT COUNT(*) FROM incidents WHERE {condition}")
    assert found.kind == "out_of_range" and f"holds for {verdict}" in found.message, found.message
    assert "dates from 2023-01-02 01:07:00 to 2024-01-31 10:00:00" in found.message, found.message


@pytest.mark.parametrize("condition", ["opened_at >= '2024-01-31'", "opened_at < '2023-01-03'",
                                       "opened_at BETWEEN '2023-05-01' AND '2023-07-01'"])
def test_a_date_inside_the_dates_observed_is_not_judged(desk, condition):
    assert check_sql(desk, f"SELECT COUNT(*) FROM incidents WHERE {condition}") == []
