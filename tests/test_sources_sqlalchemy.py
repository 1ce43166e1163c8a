"""SQLAlchemy URLs (tested on SQLite through SQLAlchemy): catalog, queries, read-only, errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.sources_support import make_hostile_db, sha256

from evoonto.errors import QueryTimeout, ReadOnlyViolation, SourceError
from evoonto.sources import open_source, source_kind_of
from evoonto.sources.sqlalchemy import SQLAlchemySource


@pytest.fixture
def hostile_url(tmp_path: Path) -> tuple[str, Path]:
    path = make_hostile_db(tmp_path)
    return f"sqlite:///{path}", path


def test_url_opens_sqlalchemy_source(hostile_url):
    url, _ = hostile_url
    assert source_kind_of(url) == "sqlalchemy"
    with open_source(url) as src:
        assert isinstance(src, SQLAlchemySource)
        assert (src.id, src.kind, src.dialect, src.backend) == ("hostile", "sqlalchemy", "sqlite", "sqlite")


def test_catalog_through_inspector(hostile_url):
    url, _ = hostile_url
    with open_source(url) as src:
        tables = {t.name: t for t in src.tables()}
        assert {"schools", "frpm", "order", "empty table", "big schools"} <= set(tables)
        frpm = tables["frpm"]
        assert frpm.primary_key == ("CDSCode",)
        assert "Free Meal Count (K-12)" in [c.name for c in frpm.columns]
        assert frpm.foreign_keys[0].ref_table == "schools"
        assert frpm.row_count == 4 and tables["empty table"].row_count == 0
        assert tables["big schools"].kind == "view"


def test_queries_with_hostile_names_limits_and_timeout(hostile_url):
    url, _ = hostile_url
    with open_source(url) as src:
        quote_column = src.quote('quo"te')
        sql = (f'SELECT {quote_column}, "when" FROM "order" JOIN frpm '
               'ON frpm."CDSCode" = "order"."frpm_CDSCode" ORDER BY "id"')
        result = src.run(sql, limit=2)
        assert result.rows == [("it's", "2021-01-03"), ("it's", "2021-02-14")] and result.truncated
        # ':30' inside a literal is not a bind parameter
        assert src.run("SELECT '12:30' AS t").scalar() == "12:30"
        with pytest.raises(QueryTimeout):
            src.run("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r",
                    timeout_ms=100)


@pytest.mark.parametrize("sql", [
    "DELETE FROM frpm",
    "SELECT 1; DROP TABLE frpm",
    "ATTACH DATABASE '/tmp/evoonto_sa.db' AS x",
    "WITH d AS (DELETE FROM frpm RETURNING *) SELECT * FROM d",
    "PRAGMA query_only = OFF",
])
def test_hostile_statements_refused(hostile_url, sql):
    url, path = hostile_url
    before = sha256(path)
    with open_source(url) as src:
        with pytest.raises(ReadOnlyViolation):
            src.run(sql)
    assert sha256(path) == before


def test_bad_urls_are_clear_errors(tmp_path: Path):
    with pytest.raises(SourceError, match="not found"):
        open_source(f"sqlite:///{tmp_path / 'missing.db'}")
    with pytest.raises(SourceError, match="existing database file"):
        open_source("sqlite://")
    with pytest.raises(SourceError):
        open_source("nosuchdialect://host/db")
