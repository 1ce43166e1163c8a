"""Issue 17 item 9: the hostile battery on every SQL path.

Six paths reach an engine: a SQLite file, a DuckDB folder of CSV files, a SQLAlchemy URL, the MCP
``run_sql`` tool (:class:`evoonto.tools.data.DataTools`), a declared SQL tool
(:func:`evoonto.tools.declared.run_declared`) and a builder probe (:func:`evoonto.sources.run_probe`).
Every statement of :data:`BATTERY` (writes, DDL, PRAGMA writes, ATTACH, VACUUM INTO,
load_extension, DuckDB COPY/EXPORT/INSTALL/LOAD, file readers on arbitrary paths, recursive-CTE CPU
bombs, huge cross joins, huge results, unbounded scalar builders) must on every path be refused
(one-line error) or bounded (rows, characters, time); no file may change or appear.
Before issue 17, DuckDB's ``len(list(range(300000000)))`` grew without bound and ``run_sql`` had
no size cap, so the bounded-answer and scalar-builder cases failed.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from fixtures.sources_support import make_hostile_db, sha256, sqlite_tables_as_csv
from test_sources_guard import HOSTILE

from evoonto.errors import QueryTimeout, ReadOnlyViolation, SourceError, ToolArgumentError
from evoonto.sources import open_source, run_probe
from evoonto.tools.data import MAX_ANSWER_CHARS, DataTools
from evoonto.tools.declared import DeclaredTool, run_declared

EVIL = "/tmp/evoonto_battery_evil"

#: statements specific to DuckDB and files, and resource bombs (refused or bounded everywhere)
EXTRA = [
    f"COPY frpm TO '{EVIL}.csv'",
    f"COPY (SELECT 1) TO '{EVIL}.parquet' (FORMAT parquet)",
    f"EXPORT DATABASE '{EVIL}_dir'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_csv_auto('/etc/passwd')",
    "SELECT * FROM '/etc/passwd'",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM read_blob('/etc/hostname')",
    "SELECT * FROM glob('/etc/*')",
    "SELECT * FROM sqlite_scan('/etc/passwd', 'x')",
    "SELECT * FROM query('SELECT 1')",
    "SELECT getenv('HOME')",
    f"ATTACH '{EVIL}.duckdb' AS evil",
    f"SELECT * FROM frpm INTO OUTFILE '{EVIL}.txt'",
    "PRAGMA threads = 64",
    "SET memory_limit = '100GB'",
    "CALL pragma_version()",
    # CPU, memory and size bombs
    "SELECT len(list(range(300000000)))",
    "SELECT len(generate_series(1, 300000000))",
    "SELECT repeat('x', 2000000000)",
    "SELECT lpad('x', 2000000000, 'y')",
    "SELECT list_resize([1], 300000000)",
    "SELECT printf('%2000000000d', 1)",
    "SELECT format('{:>2000000000}', 'x')",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
    'SELECT COUNT(*) FROM frpm a, frpm b, frpm c, frpm d, frpm e, frpm f, frpm g, frpm h, frpm i, '
    'frpm j, frpm k, frpm l, frpm m, frpm n, frpm o, frpm p',
    'SELECT * FROM frpm a, frpm b, frpm c, frpm d, frpm e, frpm f, frpm g, frpm h',
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 100000) "
    "SELECT n, printf('%.9000d', n) AS wide FROM r",
]
BATTERY = HOSTILE + EXTRA
PATHS = ["sqlite", "duckdb", "sqlalchemy", "mcp_run_sql", "declared_sql_tool", "builder_probe"]

#: time limit of the direct source and probe paths, in milliseconds (the tools use their own 5 s)
TIMEOUT_MS = 1500


#: folders other processes write into while the test runs (git of other worktrees, caches, the venv)
_NOT_OURS = {".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}


def _snapshot(*folders: Path) -> dict[str, str]:
    """sha256 of every file under ``folders``, except in folders other processes write into."""
    return {str(p): sha256(p) for f in folders for p in sorted(f.rglob("*"))
            if p.is_file() and not _NOT_OURS & set(p.relative_to(f).parts)}


def _evil_files() -> list[str]:
    return [str(p) for p in Path("/tmp").glob("evoonto_battery_evil*")]


def _run(path: str, src, sql: str) -> tuple[int, int]:
    """Run ``sql`` on ``path``; (rows returned, characters of the answer). Raises on refusal."""
    if path in ("sqlite", "duckdb", "sqlalchemy"):
        result = src.run(sql, limit=1000, timeout_ms=TIMEOUT_MS, max_chars=1_000_000)
        size = sum(len(str(v)) for row in result.rows for v in row)
        assert size <= 1_000_000 + 1000
        assert len(result.rows) <= 1000
        return len(result.rows), size
    if path == "builder_probe":
        run = run_probe(src, sql, limit=100, timeout_ms=TIMEOUT_MS)
        return len(run.rows), sum(len(str(v)) for row in run.rows for v in row)
    if path == "mcp_run_sql":
        answer = DataTools({"d": src}).run_sql(sql, limit=200)
    else:
        tool = DeclaredTool("battery", "hostile", "sql", sql, ())
        answer = run_declared(tool, {}, ontology=None, open_source=lambda _iri: src)
    text = json.dumps(answer, default=str)
    assert len(text) <= MAX_ANSWER_CHARS
    return len(answer["rows"]), len(text)


@pytest.fixture(scope="module")
def battery_sources(tmp_path_factory):
    root = tmp_path_factory.mktemp("battery")
    data = root / "data"
    data.mkdir()
    db = make_hostile_db(data)
    folder = sqlite_tables_as_csv(db, root / "csv")
    sources = {
        "sqlite": open_source(db), "duckdb": open_source(folder), "sqlalchemy": open_source(f"sqlite:///{db}"),
    }
    yield root, sources
    for src in sources.values():
        src.close()


@pytest.mark.slow
@pytest.mark.parametrize("path", PATHS)
def test_every_hostile_statement_is_refused_or_bounded_on_every_path(battery_sources, path: str, capsys):
    root, sources = battery_sources
    # the three tool paths run on the DuckDB folder, the SQLite file and the SQLAlchemy URL in turn
    engine = {"mcp_run_sql": "duckdb", "declared_sql_tool": "sqlite", "builder_probe": "sqlalchemy"}.get(path, path)
    src = sources[engine]
    before = _snapshot(root, Path.cwd())
    refused = bounded = 0
    for sql in BATTERY:
        started = time.monotonic()
        try:
            _run(path, src, sql)
            bounded += 1
        except (ReadOnlyViolation, QueryTimeout, ToolArgumentError, SourceError) as err:
            assert "\n" not in str(err), sql
            refused += 1
        elapsed = time.monotonic() - started
        # 5 s is the tools' own time limit; nothing may run far past it
        assert elapsed < 5.0 + 3.0, (sql[:80], elapsed)
        # the source still answers, right after the statement (an interrupted one too). Its own time
        # limit is generous: it is wall-clock time, so a stall of this process longer than the limit
        # (a multi-second full garbage collection of a large test run, a loaded 2-core machine) made
        # this 4-row COUNT raise QueryTimeout once with the default 5 s although DuckDB had finished;
        # a broken, busy or hung connection still fails here (error, wrong count, or 60 s)
        assert src.run('SELECT COUNT(*) FROM "frpm"', timeout_ms=60_000).scalar() == 4
    assert refused + bounded == len(BATTERY)
    assert refused >= len(HOSTILE)  # every write/DDL/multi-statement is refused
    assert _snapshot(root, Path.cwd()) == before
    assert _evil_files() == []
    with capsys.disabled():
        print(f"\n[battery] {path}: {len(BATTERY)} statements, {refused} refused, {bounded} bounded")
