"""The statement guard and the read-only layers behind it: hostile statements never change a source."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.sources_support import make_hostile_db, sha256, sqlite_tables_as_csv

from evoonto.errors import ReadOnlyViolation, SourceError
from evoonto.sources import open_source
from evoonto.sources.guard import MAX_SQL_CHARS, check_read_only
from evoonto.sources.sqlite import connect_read_only, execute_capped


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    return make_hostile_db(tmp_path)


HOSTILE = [
    # DML
    "INSERT INTO frpm (\"CDSCode\") VALUES ('x')",
    "UPDATE frpm SET \"School Name\" = 'pwned'",
    "DELETE FROM frpm",
    "REPLACE INTO frpm (\"CDSCode\") VALUES ('z')",
    "INSERT OR REPLACE INTO frpm (\"CDSCode\") VALUES ('z')",
    "INSERT INTO frpm (\"CDSCode\") VALUES ('a') ON CONFLICT DO NOTHING",
    "MERGE INTO frpm USING schools ON frpm.\"CDSCode\" = schools.\"CDSCode\" WHEN MATCHED THEN DELETE",
    # DDL
    "DROP TABLE frpm",
    "CREATE TABLE t (a INTEGER)",
    "CREATE TEMP TABLE t AS SELECT 1",
    "ALTER TABLE frpm ADD COLUMN z TEXT",
    "CREATE INDEX i ON frpm(\"School Name\")",
    "CREATE VIEW v AS SELECT 1",
    "CREATE TRIGGER t AFTER INSERT ON frpm BEGIN DELETE FROM frpm; END",
    "TRUNCATE TABLE frpm",
    # databases, pragmas, extensions, files
    "ATTACH DATABASE '/tmp/evoonto_evil.db' AS evil",
    "DETACH DATABASE main",
    "PRAGMA query_only = OFF",
    "PRAGMA writable_schema = ON",
    "PRAGMA journal_mode = WAL",
    "SELECT load_extension('/tmp/evil.so')",
    "select LOAD_EXTENSION('evil')",
    "SELECT writefile('/tmp/evoonto_evil.txt', 'data')",
    "VACUUM",
    "VACUUM INTO '/tmp/evoonto_copy.db'",
    "REINDEX",
    "ANALYZE",
    "COPY frpm TO '/tmp/evoonto_evil.csv'",
    # transactions and session
    "BEGIN EXCLUSIVE",
    "SAVEPOINT s1",
    "SET search_path = evil",
    "GRANT ALL ON frpm TO public",
    # several statements, comments hiding a second one
    "SELECT 1; DROP TABLE frpm",
    "SELECT 1; -- harmless\nDELETE FROM frpm",
    "SELECT 1 /* ; */ ; DELETE FROM frpm",
    "SELECT 1\n;\n\n UPDATE frpm SET \"select\" = 0",
    "DELETE FROM frpm WHERE 1 = 0; SELECT 1",
    "SELECT * FROM frpm UNION ALL SELECT * FROM frpm; ATTACH 'x' AS y",
    # CTEs wrapping DML, SELECT INTO, EXPLAIN of DML
    "WITH d AS (DELETE FROM frpm RETURNING *) SELECT * FROM d",
    "WITH x AS (SELECT 1) INSERT INTO frpm (\"CDSCode\") SELECT * FROM x",
    "WITH x AS (SELECT 1) UPDATE frpm SET \"select\" = 2",
    "SELECT * INTO stolen FROM frpm",
    "EXPLAIN DELETE FROM frpm",
    "SELECT * FROM frpm FOR UPDATE",
    # empty, huge, deeply nested
    "",
    "  ;  ",
    "-- only a comment\n",
    "SELECT 1 " + "UNION SELECT 1 " * (MAX_SQL_CHARS // 14),
    "SELECT " + "(" * 500 + "1" + ")" * 500,
]


EVIL_PATHS = [Path("/tmp/evoonto_evil.db"), Path("/tmp/evoonto_copy.db"), Path("/tmp/evoonto_evil.txt"),
              Path("/tmp/evoonto_evil.csv")]


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (relative name -> SHA-256), to show nothing changed or appeared."""
    return {str(p.relative_to(folder)): sha256(p) for p in sorted(folder.rglob("*")) if p.is_file()}


def _engine(kind: str, tmp_path: Path) -> tuple[str | Path, Path]:
    """(location to open, folder whose files must not change) of one engine over the hostile data."""
    data = tmp_path / "data"
    data.mkdir()
    db = make_hostile_db(data)
    if kind == "sqlite":
        return db, data
    if kind == "sqlalchemy":
        return f"sqlite:///{db}", data
    # DuckDB over a folder of CSV files with the same hostile table names
    folder = sqlite_tables_as_csv(db, tmp_path / "csv")
    return folder, folder


ENGINES = ["sqlite", "duckdb-folder", "sqlalchemy"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("sql", HOSTILE, ids=[f"h{i:02d}" for i in range(len(HOSTILE))])
def test_hostile_statement_is_refused_and_nothing_changes(tmp_path: Path, engine: str, sql: str):
    location, watched = _engine(engine, tmp_path)
    before = _snapshot(tmp_path)
    with open_source(location) as src:
        rows = src.run('SELECT COUNT(*) FROM "frpm"').scalar()
        with pytest.raises(ReadOnlyViolation) as info:
            src.run(sql)
        assert str(info.value).startswith("refused")
        assert "\n" not in str(info.value)
        # the source still works after a refusal, and sees the same data
        assert src.run('SELECT COUNT(*) FROM "frpm"').scalar() == rows == 4
    assert _snapshot(tmp_path) == before  # no file changed, none created (journals, copies, exports)
    assert not [p for p in EVIL_PATHS if p.exists()]


def test_non_string_statement_is_refused(hostile_db: Path):
    with open_source(hostile_db) as src:
        with pytest.raises(ReadOnlyViolation):
            src.run(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "sql",
    [
        'SELECT "Free Meal Count (K-12)", "Percent (%) Eligible Free (K-12)" FROM frpm',
        'SELECT "select", "quo""te", "naïve café" FROM "frpm" WHERE "select" > 1',
        'WITH s AS (SELECT "CDSCode" FROM schools) SELECT COUNT(*) FROM s',
        'SELECT "CDSCode" FROM frpm UNION SELECT "CDSCode" FROM schools EXCEPT SELECT \'x\'',
        'SELECT 1 /* ; DROP TABLE frpm */',
        "SELECT 'DELETE FROM frpm; DROP TABLE x' AS text_only",
        'SELECT 1;',
        'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT n FROM r',
        'SELECT * FROM "order" WHERE "when" >= \'2021-02-01\' ORDER BY "id" LIMIT 2',
        'SELECT name FROM pragma_table_info(\'frpm\')',
        # BIRD-style SQLite: backticks, brackets, CAST, strftime, IIF, GLOB
        'SELECT T1.`CDSCode` FROM frpm AS T1 INNER JOIN schools AS T2 ON T1.CDSCode = T2.CDSCode '
        'WHERE T2.County = \'Alameda\' ORDER BY T1.`Free Meal Count (K-12)` DESC LIMIT 1',
        'SELECT CAST(`Free Meal Count (K-12)` AS REAL) / 2, [School Name] FROM frpm',
        "SELECT strftime('%Y', OpenDate), IIF(County GLOB 'Al*', 1, 0) FROM schools",
    ],
)
def test_read_only_queries_are_allowed(hostile_db: Path, sql: str):
    check_read_only(sql, dialect="sqlite")
    with open_source(hostile_db) as src:
        result = src.run(sql)
    assert result.columns


def test_refusal_messages_name_the_reason():
    with pytest.raises(ReadOnlyViolation, match="exactly one statement"):
        check_read_only("SELECT 1; SELECT 2", dialect="sqlite")
    with pytest.raises(ReadOnlyViolation, match="load_extension"):
        check_read_only("SELECT load_extension('x')", dialect="sqlite")
    with pytest.raises(ReadOnlyViolation, match="DELETE"):
        check_read_only("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", dialect="sqlite")
    with pytest.raises(ReadOnlyViolation, match="characters long"):
        check_read_only("SELECT 1" + " " * MAX_SQL_CHARS, dialect="sqlite")
    with pytest.raises(ReadOnlyViolation, match="read_csv"):
        check_read_only("SELECT * FROM read_csv('/etc/passwd')", dialect="duckdb")


def test_sqlite_layers_refuse_writes_even_without_the_guard(hostile_db: Path):
    """Defense in depth: the hardened connection itself refuses writes, ATTACH and pragmas."""
    before = sha256(hostile_db)
    conn = connect_read_only(hostile_db)
    try:
        for sql in [
            "DELETE FROM frpm",
            "CREATE TABLE t (a)",
            "ATTACH DATABASE '/tmp/evoonto_evil.db' AS evil",
            "PRAGMA query_only = OFF",
            "SELECT load_extension('x')",
            "CREATE TEMP TABLE t AS SELECT 1",
        ]:
            with pytest.raises(SourceError):
                execute_capped(conn, sql, limit=10, timeout_ms=1000)
    finally:
        conn.close()
    assert sha256(hostile_db) == before
    assert not Path("/tmp/evoonto_evil.db").exists()


def test_huge_values_cannot_be_built(hostile_db: Path):
    with open_source(hostile_db) as src:
        with pytest.raises(SourceError):
            src.run("SELECT length(randomblob(1000000000))")
