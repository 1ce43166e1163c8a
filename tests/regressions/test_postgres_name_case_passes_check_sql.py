"""check_sql approved SQL that PostgreSQL refuses for the case of a name: ``FROM DailyKpi`` (PostgreSQL
reads ``dailykpi``; the table is ``"DailyKpi"``), ``"SALE_LINE"`` for ``sale_line``, ``Region`` for
``"Region"`` all gave "ok: no finding" (PostgreSQL review). The name walk matched names ignoring case,
and a PostgreSQL source, reached through SQLAlchemy, was read in sqlglot's generic dialect. Such a name
is now a ``name_case`` Violation in the PostgreSQL dialect, which check_sql takes from the open source
when its catalog records none."""

from __future__ import annotations

import sqlite3
from types import SimpleNamespace

import pytest
from rdflib import URIRef

from evoonto.builder import build
from evoonto.catalog import SourceSchema
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import _source_dialect, check_sql


@pytest.fixture(scope="module")
def kpi(tmp_path_factory):
    path = tmp_path_factory.mktemp("kpi") / "kpi.sqlite"
    with sqlite3.connect(path) as con:
        con.execute('CREATE TABLE "DailyKpi" ("KpiDay" TEXT, "Region" TEXT, value REAL)')
        con.execute("CREATE TABLE sale_line (id INTEGER PRIMARY KEY, channel TEXT)")
        con.executemany('INSERT INTO "DailyKpi" VALUES (?, ?, ?)',
                        [(f"2020-01-{d:02d}", "North", d) for d in range(1, 9)])
        con.executemany("INSERT INTO sale_line VALUES (?, ?)", [(i, "retail") for i in range(1, 9)])
    return Ontology.from_graphs(build([path], None, validate=False).graphs)


@pytest.mark.parametrize("sql, name", [
    ("SELECT COUNT(*) FROM DailyKpi", "DailyKpi"),
    ('SELECT COUNT(*) FROM "SALE_LINE"', "sale_line"),
    ('SELECT "Channel" FROM sale_line', "channel"),
    ('SELECT kpiday FROM "DailyKpi"', "KpiDay"),
    ('SELECT COUNT(*) FROM "DailyKpi" WHERE Region = \'North\'', "Region"),
])
def test_postgres_name_case_is_a_violation(kpi, sql, name):
    found = [f for f in check_sql(kpi, sql, dialect="postgres") if f.kind == "name_case"]
    assert [(f.severity, f.subject) for f in found] == [("Violation", name)], found
    assert found[0].suggestion == f'"{name}"'


@pytest.mark.parametrize("sql", ['SELECT "KpiDay", value FROM "DailyKpi"', "SELECT channel FROM sale_line",
                                 'SELECT "channel" FROM "sale_line"', "SELECT CHANNEL FROM SALE_LINE"])
def test_names_postgres_reads_as_the_catalog_has_them_pass(kpi, sql):
    assert [f for f in check_sql(kpi, sql, dialect="postgres") if f.kind == "name_case"] == []


def test_case_insensitive_dialects_are_not_checked(kpi):
    assert [f for f in check_sql(kpi, "SELECT kpiday FROM dailykpi") if f.kind == "name_case"] == []  # SQLite


def test_sqlalchemy_source_is_read_in_its_backend_dialect():
    schema = SourceSchema(id="db", iri=URIRef("http://example.org/db"), kind="sqlalchemy", tables=())
    assert _source_dialect(schema, {"db": SimpleNamespace(dialect="postgres")}, None) == "postgres"
    assert _source_dialect(schema, None, None) is None  # offline: sqlglot's generic SQL
    assert _source_dialect(schema, {"db": SimpleNamespace(dialect="postgres")}, "mysql") == "mysql"


@pytest.mark.parametrize("sql", [
    'SELECT "Region" AS region FROM "DailyKpi" ORDER BY region',
    'SELECT "Region" AS region, COUNT(*) FROM "DailyKpi" GROUP BY region',
    'SELECT "KpiDay" kpiday FROM "DailyKpi" ORDER BY KPIDAY',
    'SELECT "Region" AS "REGION" FROM "DailyKpi" ORDER BY "REGION"',
])
def test_output_alias_is_not_the_column(kpi, sql):
    """Review of the first fix: ORDER BY / GROUP BY name the select's alias, which PostgreSQL reads
    before the column; they were flagged as the column written in the wrong case."""
    assert [f for f in check_sql(kpi, sql, dialect="postgres") if f.kind == "name_case"] == []


def test_postgres_name_case_in_join_using_is_a_violation(kpi):
    """``USING (KpiDay)`` is a list of bare identifiers to sqlglot, not columns: the name walk never saw
    it, and check_sql passed SQL that PostgreSQL refuses (column "kpiday" does not exist)."""
    sql = 'SELECT a.value FROM "DailyKpi" a JOIN "DailyKpi" b USING (KpiDay)'
    found = [f for f in check_sql(kpi, sql, dialect="postgres") if f.kind == "name_case"]
    assert [(f.severity, f.subject, f.suggestion) for f in found] == [("Violation", "KpiDay", '"KpiDay"')], found
    quoted = 'SELECT a.value FROM "DailyKpi" a JOIN "DailyKpi" b USING ("KpiDay")'
    assert [f for f in check_sql(kpi, quoted, dialect="postgres") if f.kind == "name_case"] == []
    assert [f for f in check_sql(kpi, sql) if f.kind == "name_case"] == []  # SQLite: case-insensitive
