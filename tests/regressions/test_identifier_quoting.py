"""Regression (issue 13, defect 2, "one dialect-aware quoting"): every SQL string evoonto generates
quotes names and values for the source's dialect.

Before the fix the builder, construct and evolution's value probes each hand-rolled ANSI double
quotes (``'"' + name + '"'``), whatever the engine: wrong for MySQL (backticks) and T-SQL
(brackets), and a second and third copy of the rule that ``Source.quote`` owns.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

import pytest
import sqlglot
from rdflib import URIRef

from evoonto.builder.probe import Prober
from evoonto.evolution.probes import ValueProber
from evoonto.evolution.view import ColumnInfo
from evoonto.sources import open_source, quote_identifier, quote_literal

HOSTILE_NAMES = ["Free Meal Count (K-12)", 'say "hi"', "it's", "a]b[c", "back`tick", "select", "order",
                 "naïve café", "x y z"]
AT = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb", "postgres", "mysql", "tsql", None])
@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_identifier_round_trips_through_the_dialect_parser(name: str, dialect: str | None):
    quoted = quote_identifier(name, dialect)
    tree = sqlglot.parse_one(f"SELECT {quoted} FROM t", read=dialect)
    assert [c.name for c in tree.find_all(sqlglot.exp.Column)] == [name]


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb", "postgres", "mysql", None])
def test_literal_round_trips(dialect: str | None):
    for text in ["O'Brien", "it''s", "a\\b", "select * from x; --"]:
        tree = sqlglot.parse_one(f"SELECT {quote_literal(text, dialect)}", read=dialect)
        assert tree.find(sqlglot.exp.Literal).this == text


def test_mysql_and_tsql_do_not_get_ansi_quotes():
    assert quote_identifier("order", "mysql") == "`order`"
    assert quote_identifier("order", "tsql") == "[order]"


def _hostile_sqlite(path: Path) -> Path:
    con = sqlite3.connect(path)
    cols = ", ".join(quote_identifier(n, "sqlite") + " TEXT" for n in HOSTILE_NAMES)
    con.execute(f'CREATE TABLE "select from" ({cols})')
    con.execute(f'INSERT INTO "select from" VALUES ({", ".join("?" * len(HOSTILE_NAMES))})',
                [f"v'{i}\"" for i in range(len(HOSTILE_NAMES))])
    con.commit()
    con.close()
    return path


def _engines(tmp_path: Path) -> list[str | Path]:
    db = _hostile_sqlite(tmp_path / "hostile.sqlite")
    folder = tmp_path / "csv"
    folder.mkdir()
    header = ",".join('"' + n.replace('"', '""') + '"' for n in HOSTILE_NAMES)
    row = ",".join('"' + f"v'{i}\"".replace('"', '""') + '"' for i in range(len(HOSTILE_NAMES)))
    (folder / "select from.csv").write_text(header + "\n" + row + "\n", encoding="utf-8")
    return [db, folder, f"sqlite:///{db}"]


def test_builder_probes_run_on_hostile_names_in_every_engine(tmp_path: Path):
    for location in _engines(tmp_path):
        with open_source(location) as src:
            prober = Prober(src, at=AT)
            for i, name in enumerate(HOSTILE_NAMES):
                value = prober.literal("v'" + str(i) + '"')
                probe = prober.count_where("select from", f"{prober.quote(name)} = {value}")
                assert probe.ok, (location, name, probe.error)
                assert probe.scalar() == 1, (location, name)


def test_value_probes_find_values_in_hostile_columns(tmp_path: Path):
    for location in _engines(tmp_path):
        with open_source(location) as src:
            prober = ValueProber({src.id: src})
            columns = [ColumnInfo(name=n, iri=URIRef(f"urn:c{i}"), table="select from", table_iri=URIRef("urn:t"),
                                  source_id=src.id, source_iri=URIRef("urn:s"), declared_type="TEXT")
                       for i, n in enumerate(HOSTILE_NAMES)]
            hits = prober.find(src.id, "v'3\"", columns)
            assert [(h.column, h.value) for h in hits] == [(HOSTILE_NAMES[3], "v'3\"")], location
            assert prober.queries == len(HOSTILE_NAMES)


class _Recording:
    """A source double of a given dialect that records the SQL it is sent and returns no rows."""

    kind = "recording"

    def __init__(self, dialect: str):
        self.id, self.dialect, self.statements = "rec", dialect, []

    def run(self, sql: str, *, limit: int, timeout_ms: int):
        from evoonto.sources import QueryResult

        self.statements.append(sql)
        return QueryResult((), [], False, 0.0, sql)


@pytest.mark.parametrize("dialect", ["mysql", "tsql", "postgres"])
def test_generated_sql_names_columns_in_the_source_dialect(dialect: str):
    """In MySQL ``"order"`` is a string, not a column: names must be quoted the dialect's way."""
    src = _Recording(dialect)
    names = ["order", "Free Meal Count (K-12)"]
    columns = [ColumnInfo(name=n, iri=URIRef(f"urn:c{i}"), table="select from", table_iri=URIRef("urn:t"),
                          source_id="rec", source_iri=URIRef("urn:s"), declared_type="TEXT")
               for i, n in enumerate(names)]
    ValueProber({"rec": src}).find("rec", "O'Hara", columns)
    prober = Prober(src, at=AT)
    prober.count_where("select from", f"{prober.quote('order')} = {prober.literal('x')}")
    assert len(src.statements) == 3
    for sql in src.statements:
        tree = sqlglot.parse_one(sql, read=dialect)
        assert {t.name for t in tree.find_all(sqlglot.exp.Table)} == {"select from"}, sql
        assert {c.name for c in tree.find_all(sqlglot.exp.Column)} & set(names), sql
