"""SQLite sources: catalog metadata, queries with caps and timeouts, bad files, hostile names."""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path

import pytest
from fixtures.sources_support import make_hostile_db, sqlite_db

from evoonto.errors import QueryTimeout, SourceError
from evoonto.sources import QueryResult, Source, SourceWarning, open_source, open_sources, source_kind_of
from evoonto.sources.sqlite import SQLiteSource


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    return make_hostile_db(tmp_path)


def test_opens_as_sqlite_with_file_stem_id(hostile_db: Path):
    assert source_kind_of(hostile_db) == "sqlite"
    with open_source(hostile_db) as src:
        assert isinstance(src, SQLiteSource)
        assert isinstance(src, Source)
        assert (src.id, src.kind, src.dialect) == ("hostile", "sqlite", "sqlite")
    with open_source(hostile_db, source_id="my db") as src:
        assert src.id == "my db"


def test_tables_columns_keys_and_counts(hostile_db: Path):
    with open_source(hostile_db) as src:
        tables = {t.name: t for t in src.tables()}
        assert list(tables) == ["schools", "frpm", "order", "empty table", "big schools"]
        frpm = tables["frpm"]
        assert [c.name for c in frpm.columns] == [
            "CDSCode", "School Name", "Free Meal Count (K-12)", "Percent (%) Eligible Free (K-12)",
            "select", 'quo"te', "naïve café", "Charter School (Y/N)",
        ]
        assert frpm.primary_key == ("CDSCode",)
        assert frpm.column("Free Meal Count (K-12)").declared_type == "REAL"
        assert frpm.column("cdscode").primary_key  # case-insensitive lookup
        assert frpm.row_count == 4
        fk = frpm.foreign_keys[0]
        assert (fk.columns, fk.ref_table, fk.ref_columns) == (("CDSCode",), "schools", ("CDSCode",))
        assert tables["empty table"].row_count == 0
        assert tables["big schools"].kind == "view" and tables["big schools"].row_count == 3
        assert tables["order"].has_rowid
        assert src.table("ORDER").name == "order"
        with pytest.raises(SourceError, match="no table"):
            src.table("missing")


def test_run_quotes_hostile_names_and_caps_rows(hostile_db: Path):
    with open_source(hostile_db) as src:
        cols = ", ".join(src.quote(c) for c in ["Free Meal Count (K-12)", 'quo"te', "naïve café", "select"])
        result = src.run(f"SELECT {cols} FROM {src.quote('frpm')} ORDER BY 1 DESC", limit=2)
        assert isinstance(result, QueryResult)
        assert result.columns == ("Free Meal Count (K-12)", 'quo"te', "naïve café", "select")
        assert result.rows == [(1208.0, "x", "naïve", 4), (251.0, "it's", "été", 1)]
        assert result.truncated and result.elapsed_ms >= 0
        assert result.records()[0]["select"] == 4
        full = src.run('SELECT * FROM "order"', limit=5)
        assert len(full.rows) == 5 and not full.truncated


def test_timeout_interrupts_runaway_query(hostile_db: Path):
    with open_source(hostile_db) as src:
        with pytest.raises(QueryTimeout, match="ms"):
            src.run(
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r",
                timeout_ms=100,
            )
        assert src.run("SELECT 1").scalar() == 1  # usable afterwards


@pytest.mark.parametrize("limit", [0, -1, 10**9, 1.5, True])
def test_bad_limit_is_a_clear_error(hostile_db: Path, limit):
    with open_source(hostile_db) as src:
        with pytest.raises(SourceError, match="limit"):
            src.run("SELECT 1", limit=limit)


def test_engine_errors_are_one_line_source_errors(hostile_db: Path):
    with open_source(hostile_db) as src:
        with pytest.raises(SourceError, match="no such column") as info:
            src.run("SELECT nope FROM frpm")
        assert "\n" not in str(info.value)


def test_closed_source_refuses_work(hostile_db: Path):
    src = open_source(hostile_db)
    src.close()
    src.close()  # idempotent
    with pytest.raises(SourceError, match="closed"):
        src.run("SELECT 1")


def test_missing_file_is_a_clear_error(tmp_path: Path):
    with pytest.raises(SourceError, match="not found"):
        open_source(tmp_path / "nope.sqlite")


def test_non_sqlite_file_is_a_clear_error(tmp_path: Path):
    path = tmp_path / "notes.db"
    path.write_text("hello, I am not a database\n")
    with pytest.raises(SourceError, match="not a SQLite database"):
        open_source(path)


def test_corrupt_database_is_a_clear_error(tmp_path: Path, hostile_db: Path):
    data = bytearray(hostile_db.read_bytes())
    data[16:100] = b"\xff" * 84  # header intact, page size and the rest garbage
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(bytes(data))
    with pytest.raises(SourceError, match="corrupt|malformed|not a database"):
        with open_source(corrupt) as src:
            src.tables()


def test_locked_database_is_a_clear_error(hostile_db: Path):
    writer = sqlite3.connect(hostile_db, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(SourceError, match="locked"):
            open_source(hostile_db, busy_timeout_ms=50)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    with open_source(hostile_db) as src:  # fine once the lock is gone
        assert src.run("SELECT COUNT(*) FROM schools").scalar() == 6


def test_broken_view_is_skipped_with_warning(tmp_path: Path):
    path = sqlite_db(
        tmp_path / "broken.sqlite",
        "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1);"
        "CREATE TABLE gone (b INTEGER); CREATE VIEW v AS SELECT b FROM gone; DROP TABLE gone;",
    )
    with open_source(path) as src:
        with pytest.warns(SourceWarning, match="'v'"):
            tables = src.tables()
    assert [t.name for t in tables] == ["t"]


def test_open_sources_reports_failures_without_raising(tmp_path: Path, hostile_db: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SourceWarning)
        opened, errors = open_sources([hostile_db, tmp_path / "missing.sqlite"])
    try:
        assert [s.id for s in opened] == ["hostile"]
        assert len(errors) == 1 and "not found" in errors[0]
    finally:
        for src in opened:
            src.close()


def test_spider_databases_open_and_describe(spider_dir: Path):
    files = sorted(spider_dir.glob("database/*/*.sqlite"))
    assert len(files) == 12
    for file in files:
        with open_source(file) as src:
            tables = src.tables()
            assert tables and all(t.columns and t.row_count is not None for t in tables)
    with open_source(spider_dir / "database/world_1/world_1.sqlite") as src:
        city = src.table("city")
        assert city.row_count == 4079
        assert city.foreign_keys[0].ref_table == "country"


def test_zero_column_tables_are_skipped_with_warning():
    """Any implementation that reports a table without columns gets it skipped, not crashed on."""
    from evoonto.sources.base import BaseSource, ColumnInfo, TableInfo

    class TwoTables(BaseSource):
        kind = "sqlite"

        def _load_tables(self):
            return [TableInfo("nothing", ()), TableInfo("something", (ColumnInfo("a"),), row_count=1)]

        def _execute(self, sql, limit, timeout_ms):
            return ["a"], [(1,)], False

        def _close(self):
            pass

    with TwoTables("fake", "memory") as src:
        with pytest.warns(SourceWarning, match="'nothing' has no columns"):
            assert [t.name for t in src.tables()] == ["something"]
