"""Regression (issue 19, wide-schema build): the queries the verify step and join discovery generate
were plain strings, so the read-only guard tokenised and parsed each one with sqlglot when it ran
(2,898 parses on the 7,450-column wide schema: value filters, NOT NULL counts of constraints,
derivation samples and checks, join inclusion ratios). They are now rendered from
:class:`~evoonto.sources.guard.SqlTemplate` shapes that the guard checks once per dialect; a value
Term's filter value fills a *literal slot* (a string value quoted by sqlglot, allowed only where it is
compared with a column). The text of every query is unchanged (so are the Evidence and probe IRIs keyed
on it), and text a proposer wrote (a domain constraint's condition) is still parsed on every run.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

import pytest
from sqlglot import exp

from evoonto.builder import build
from evoonto.builder.probe import Prober
from evoonto.errors import ReadOnlyViolation
from evoonto.namespaces import EVO
from evoonto.sources import open_source
from evoonto.sources.guard import CheckedSql, SqlTemplate, check_read_only
from evoonto.sources.joins import inclusion_sql
from evoonto.sources.quoting import quote_identifier, quote_literal
from fixtures.sources_support import count_guard_parses

HOSTILE_VALUES = ["O'Brien", "back\\slash", "semi;colon", "x' OR '1'='1", "{value}", "naïve café", "a\nb",
                  "--", "%s"]
DIALECTS = ["sqlite", "duckdb", "postgres", "mysql", "tsql", None]


def _db(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.execute('CREATE TABLE "team list" ("team id" INTEGER PRIMARY KEY, "Name" TEXT)')
    con.execute('CREATE TABLE "order items" ("item id" INTEGER, "team id" INTEGER, "kind" TEXT, '
                '"price" REAL, "qty" REAL, "total" REAL, "code" TEXT)')
    con.executemany('INSERT INTO "team list" VALUES (?, ?)', [(i, f"team {i}") for i in range(1, 5)])
    kinds = ["O'Brien", "back\\slash", "semi;colon"]
    con.executemany('INSERT INTO "order items" VALUES (?, ?, ?, ?, ?, ?, ?)',
                    [(i, 1 + i % 4, kinds[i % 3], 1.5 * i, float(i % 5 + 1), 1.5 * i * (i % 5 + 1), str(10 * i))
                     for i in range(1, 31)])
    con.commit()
    con.close()
    return path


def test_guard_reparses_verify_and_join_probes_once_per_shape(tmp_path: Path, monkeypatch):
    parsed = count_guard_parses(monkeypatch)
    result = build([_db(tmp_path / "shop.sqlite")], validate=False)
    queries = {str(q) for q in result.graphs["content"].objects(None, EVO.query)}
    # the value Terms' filters ran, with the same text as before (the literal quoted by sqlglot)
    for value in ("O'Brien", "back\\slash", "semi;colon"):
        expected = (f'SELECT COUNT(*) FROM "order items" WHERE "kind" = {quote_literal(value, "sqlite")}')
        assert expected in queries
    assert any("ABS(" in q for q in queries)  # a derivation (total = price * qty) was checked
    # every text the guard parsed is a template's stand-in shape or a proposer's condition (domain
    # constraints), not one parse per generated probe
    for sql in parsed:
        assert "evoonto_slot_" in sql or " NOT (" in sql, sql
    shapes = [sql for sql in parsed if "evoonto_slot_" in sql]
    assert len(shapes) == len(set(shapes))  # each shape once per dialect
    assert len([q for q in queries if "COUNT(*) FROM" in q]) > len(shapes) - 5


def test_guard_reparses_verify_and_join_probes_same_text_as_plain_strings(tmp_path: Path):
    with open_source(_db(tmp_path / "shop.sqlite")) as src:
        prober = Prober(src, at=datetime(2024, 1, 1))
        q = src.quote
        equal = prober.count_equal("order items", "kind", "O'Brien")
        assert isinstance(equal.sql, CheckedSql) and equal.scalar() == 10
        assert equal.sql == f'SELECT COUNT(*) FROM {q("order items")} WHERE {q("kind")} = \'O\'\'Brien\''
        number = prober.count_equal("order items", "item id", 3)  # not text: parsed by the guard
        assert type(number.sql) is str and number.scalar() == 1
        assert prober.count_not_null("order items", "code").sql == (
            'SELECT COUNT(*) FROM "order items" WHERE "code" IS NOT NULL')
        sample = prober.table_sample("order items", ["price", "qty"], n=5)
        assert sample.sql == 'SELECT "price", "qty" FROM "order items" LIMIT 5' and len(sample.rows) == 5
        templated = prober.count_where("order items", "{a} > {b}", a="total", b="price")
        assert templated.sql == prober.count_where("order items", f'{q("total")} > {q("price")}').sql
        with pytest.raises(ValueError):
            prober.count_where("order items", "{table} IS NULL", table="x")
        left, right = src.table("order items"), src.table("team list")
        sql = inclusion_sql(src, left, left.column("team id"), right, right.column("team id"))
        assert isinstance(sql, CheckedSql) and check_read_only(sql, dialect="sqlite") is not None
        assert sql.startswith('WITH l AS (SELECT DISTINCT "team id" AS v FROM "order items" WHERE "team id" '
                              'IS NOT NULL LIMIT 10000), r AS (SELECT DISTINCT "team id" AS v FROM "team list"')
        assert src.run(sql).rows == [(4, 4, 4, 4)]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_guard_reparses_verify_and_join_probes_literal_slot_round_trips(dialect):
    template = SqlTemplate("SELECT COUNT(*) FROM {table} WHERE {col} = {value}", frozenset({"value"}))
    for value in HOSTILE_VALUES:
        sql = template.render(dialect, table="t", col="c", value=value)
        assert sql == f"SELECT COUNT(*) FROM {quote_identifier('t', dialect)} WHERE " \
                      f"{quote_identifier('c', dialect)} = {quote_literal(value, dialect)}"
        tree = check_read_only(sql, dialect=dialect)  # the full guard agrees, and reads one value back
        assert [lit.this for lit in tree.find_all(exp.Literal) if lit.is_string] == [value]
    in_list = SqlTemplate("SELECT 1 FROM {t} WHERE {c} IN ({a}, {b})", frozenset({"a", "b"}))
    assert check_read_only(in_list.render(dialect, t="t", c="c", a="x'y", b="z"), dialect=dialect) is not None


@pytest.mark.parametrize("text", [
    "SELECT {value} AS x FROM t",                          # a selected value, not compared
    "SELECT printf({value}, 1) FROM t",                    # a function argument (a format string)
    "SELECT 1 FROM t WHERE c LIKE {value}",                # a pattern
    "SELECT 1 FROM {value}",                               # a table position
    "SELECT 1 FROM t WHERE c = {value}; DROP TABLE t",     # two statements
])
def test_guard_reparses_verify_and_join_probes_literal_slot_only_compared(text):
    with pytest.raises(ReadOnlyViolation):
        SqlTemplate(text, frozenset({"value"})).render("duckdb", value="x")


def test_guard_reparses_verify_and_join_probes_literal_slot_errors():
    template = SqlTemplate("SELECT 1 FROM t WHERE c = {value}", frozenset({"value"}))
    with pytest.raises(TypeError):
        template.render("sqlite", value=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        SqlTemplate("SELECT 1 FROM {t}", frozenset({"value"})).render("sqlite", t="t")
    with pytest.raises(Exception, match="NUL"):
        template.render("sqlite", value="a\x00b")
    # a slot not declared literal takes an identifier: the same text compares two columns
    assert SqlTemplate("SELECT 1 FROM t WHERE c = {value}").render("sqlite", value="x") == (
        'SELECT 1 FROM t WHERE c = "x"')
