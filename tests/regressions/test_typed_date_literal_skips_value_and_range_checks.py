"""A date compared as a typed literal (``DATE '2019-06-01'``, ``'2019-06-01'::date``, ``CAST('…' AS
DATE)``, ``TIMESTAMP '…'``) got no value or range check: only a plain string literal was read, so
``WHERE day = DATE '2019-06-01'`` passed where ``WHERE day = '2019-06-01'`` was reported as a value no
row holds, and ``day < DATE '2012-09-11'`` (before every date) passed where the plain string was
flagged (PostgreSQL review). The text of a date or time literal is now read like a string literal,
except on SQLite, where ``CAST('2019-06-01' AS DATE)`` is the number 2019."""

from __future__ import annotations

import sqlite3

import pytest

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_sql
from evoonto.tools.toolkit import OntologyTools


@pytest.fixture(scope="module")
def kpis(tmp_path_factory):
    data = tmp_path_factory.mktemp("kpis") / "kpis"
    data.mkdir()
    (data / "daily.csv").write_text("day,region,value\n" + "".join(
        f"2020-01-{d:02d},{('north', 'south')[d % 2]},{d}\n" for d in range(1, 29)), encoding="utf-8")
    result = build([data], None, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri), sources={"kpis": data})
    yield tools
    tools.close()


@pytest.mark.parametrize("literal", ["DATE '2019-06-01'", "'2019-06-01'::date", "CAST('2019-06-01' AS DATE)",
                                     "TIMESTAMP '2019-06-01 00:00:00'"])
def test_absent_typed_date_is_reported_like_a_string(kpis, literal):
    plain = {f.kind for f in check_sql(kpis, "SELECT value FROM daily WHERE day = '2019-06-01'")}
    typed = {f.kind for f in check_sql(kpis, f"SELECT value FROM daily WHERE day = {literal}")}
    assert plain and typed == plain, (plain, typed)


@pytest.mark.parametrize("sql", ["SELECT value FROM daily WHERE day < DATE '2012-09-11'",
                                 "SELECT value FROM daily WHERE day BETWEEN DATE '2012-01-01' AND DATE '2012-12-31'"])
def test_typed_date_outside_every_date_is_out_of_range(kpis, sql):
    assert "out_of_range" in {f.kind for f in check_sql(kpis, sql)}


def test_present_typed_date_passes(kpis):
    assert check_sql(kpis, "SELECT value FROM daily WHERE day = DATE '2020-01-05'") == []
    assert check_sql(kpis, "SELECT value FROM daily WHERE day >= DATE '2020-01-05'") == []


def test_sqlite_date_cast_is_not_read_as_a_date(tmp_path):
    """On SQLite ``CAST('2019-06-01' AS DATE)`` is 2019 (numeric affinity): no claim is made about it
    as a date."""
    path = tmp_path / "kpi.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE daily (day TEXT, value INTEGER)")
        con.executemany("INSERT INTO daily VALUES (?, ?)", [(f"2020-01-{d:02d}", d) for d in range(1, 29)])
    result = build([path], None, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri), sources={"kpi": path})
    try:
        assert "unseen_value" in {f.kind for f in check_sql(tools, "SELECT value FROM daily WHERE day = '2019-06-01'")}
        assert check_sql(tools, "SELECT value FROM daily WHERE day = CAST('2019-06-01' AS DATE)") == []
    finally:
        tools.close()
