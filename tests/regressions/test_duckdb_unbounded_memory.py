"""Issue 17: DuckDB sources had no memory limit; ``SELECT len(list(range(300000000)))`` reached 15 GB
and ran 80 s past the 5 s timeout.

A files source now runs DuckDB with ``memory_limit``, a fixed thread count and no temporary
directory; the guard refuses scalar builders that neither ``interrupt()`` nor ``memory_limit`` can
stop, and a runaway query in ``FROM`` is interrupted at its deadline.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from evoonto.errors import QueryTimeout, ReadOnlyViolation
from evoonto.sources import open_source


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    data = tmp_path / "csvs"
    data.mkdir()
    (data / "t.csv").write_text("a,b\n1,x\n2,y\n", encoding="utf-8")
    return data


def test_duckdb_memory_and_threads_are_bounded(folder: Path):
    with open_source(folder) as src:
        limit = src.run("SELECT current_setting('memory_limit')").scalar()
        threads = src.run("SELECT current_setting('threads')").scalar()
        temp = src.run("SELECT current_setting('temp_directory')").scalar()
    number, unit = limit.split()
    assert unit in ("MiB", "GiB", "KiB") and float(number) * {"KiB": 1 / 1024, "MiB": 1, "GiB": 1024}[unit] <= 1024
    assert 1 <= int(threads) <= 4  # not one per core of the host
    assert temp == ""  # nothing spills to disk


@pytest.mark.parametrize("sql", [
    "SELECT len(list(range(300000000)))", "SELECT len(repeat('x', 2000000000))",
    "SELECT printf('%2000000000d', 1)", "SELECT format('{:>2000000000}', 'x')",
    "SELECT list_resize([1], 300000000)",
])
def test_unbounded_scalar_builders_are_refused_at_once(folder: Path, sql: str):
    with open_source(folder) as src:
        started = time.monotonic()
        with pytest.raises(ReadOnlyViolation):
            src.run(sql, timeout_ms=5000)
        assert time.monotonic() - started < 1.0


def test_runaway_query_stops_at_its_deadline(folder: Path):
    with open_source(folder) as src:
        started = time.monotonic()
        with pytest.raises(QueryTimeout):
            src.run("SELECT COUNT(*) FROM range(1000000000000) a", timeout_ms=500)
        assert time.monotonic() - started < 3.0
        assert src.run('SELECT COUNT(*) FROM "t"').scalar() == 2  # still usable


def test_memory_limit_grows_with_the_loaded_files_and_is_validated(tmp_path: Path):
    from evoonto.errors import SourceError
    from evoonto.sources.files import FilesSource

    data = tmp_path / "big"
    data.mkdir()
    (data / "t.csv").write_text("a,b\n" + "123456789,abcdefghij\n" * 200_000, encoding="utf-8")  # ~4 MB
    with FilesSource(data, memory_limit="64MB") as src:
        number, unit = src.run("SELECT current_setting('memory_limit')").scalar().split()
        assert unit == "MiB" and 64 + 8 <= float(number) < 64 + 16
        assert src.run('SELECT COUNT(*) FROM "t"').scalar() == 200_000
    with pytest.raises(SourceError, match="memory_limit"):
        FilesSource(data, memory_limit="lots")
