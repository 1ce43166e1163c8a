"""``returned_on = '2012-10-32'`` on a DATE column got only a Warning, "not among the 51 values seen …
(not checked against the data)": the point probe failed, since PostgreSQL refuses the literal before
reading a row (PostgreSQL review). A date no calendar has, compared with a DATE or TIMESTAMP column, is
now a ``type_mismatch`` Violation (not on SQLite, whose dates are text)."""

from __future__ import annotations

import sqlite3

import pytest

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_sql
from evoonto.tools.sqlcheck.values import _impossible_date


def test_impossible_dates():
    assert _impossible_date("2012-10-32") and _impossible_date("2023-02-29") and _impossible_date("2020-13-01 10:00")
    assert not _impossible_date("2024-02-29") and not _impossible_date("2012-10-31") and not _impossible_date("north")


@pytest.fixture(scope="module")
def daily(tmp_path_factory):
    """A CSV folder (DuckDB) whose ``day`` column is typed DATE."""
    data = tmp_path_factory.mktemp("kpis") / "kpis"
    data.mkdir()
    (data / "daily.csv").write_text("day,value\n" + "".join(f"2020-01-{d:02d},{d}\n" for d in range(1, 29)),
                                    encoding="utf-8")
    result = build([data], None, validate=False)
    return Ontology.from_graphs(result.graphs, base_iri=result.base_iri)


def test_impossible_date_on_a_date_column_is_a_violation(daily):
    onto = daily
    found = [f for f in check_sql(onto, "SELECT value FROM daily WHERE day = '2020-01-32'")
             if f.severity == "Violation"]
    assert [f.kind for f in found] == ["type_mismatch"], found
    assert "no calendar date" in found[0].message
    assert check_sql(onto, "SELECT value FROM daily WHERE day = '2020-01-05'") == []


def test_sqlite_text_dates_are_not_judged_as_dates(tmp_path):
    path = tmp_path / "kpi.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE daily (day DATE, value INTEGER)")
        con.executemany("INSERT INTO daily VALUES (?, ?)", [(f"2020-01-{d:02d}", d) for d in range(1, 29)])
    onto = Ontology.from_graphs(build([path], None, validate=False).graphs)
    assert not [f for f in check_sql(onto, "SELECT value FROM daily WHERE day = '2020-01-32'")
                if f.kind == "type_mismatch"]


def test_impossible_date_in_a_range_is_a_violation(daily):
    """Review of the first fix: BETWEEN '2020-02-01' AND '2020-02-30' and < '2020-02-30' passed."""
    onto = daily
    for sql in ("SELECT value FROM daily WHERE day BETWEEN '2020-02-01' AND '2020-02-30'",
                "SELECT value FROM daily WHERE day < '2020-02-30'",
                "SELECT value FROM daily WHERE '2020-02-30' > day"):
        found = [f.kind for f in check_sql(onto, sql) if f.severity == "Violation"]
        assert found == ["type_mismatch"], (sql, found)
