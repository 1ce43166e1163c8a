"""Issue 17: opening a WAL-mode SQLite database left ``-shm``/``-wal`` files beside it.

A WAL database with no ``-wal`` file (no writer active) is now opened ``mode=ro&immutable=1``:
no file appears, the database's hash is unchanged, and a read-only folder works too.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from evoonto.sources import open_source


def _wal_db(folder: Path) -> Path:
    path = folder / "w.sqlite"
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("CREATE TABLE t (a INTEGER, b TEXT)")
    con.executemany("INSERT INTO t VALUES (?, ?)", [(i, f"v{i}") for i in range(10)])
    con.commit()
    con.close()  # the last connection checkpoints and removes -wal/-shm
    assert sorted(p.name for p in folder.iterdir()) == ["w.sqlite"]
    return path


@pytest.mark.parametrize("location", ["file", "url"])
def test_opening_a_wal_database_creates_no_file(tmp_path: Path, location: str):
    db = _wal_db(tmp_path)
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    with open_source(db if location == "file" else f"sqlite:///{db}") as src:
        assert src.run("SELECT COUNT(*) FROM t").scalar() == 10
        assert [t.name for t in src.tables()] == ["t"]
        assert sorted(p.name for p in tmp_path.iterdir()) == ["w.sqlite"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.sqlite"]
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_wal_database_in_a_read_only_folder(tmp_path: Path):
    db = _wal_db(tmp_path)
    tmp_path.chmod(0o555)
    try:
        with open_source(db) as src:
            assert src.run("SELECT COUNT(*) FROM t").scalar() == 10
    finally:
        tmp_path.chmod(0o755)


def test_a_live_writer_is_still_read(tmp_path: Path):
    db = _wal_db(tmp_path)
    writer = sqlite3.connect(db)
    try:
        writer.execute("INSERT INTO t VALUES (99, 'new')")
        writer.commit()  # committed into the -wal file, not yet checkpointed
        assert (tmp_path / "w.sqlite-wal").exists()
        with open_source(db) as src:
            assert src.run("SELECT COUNT(*) FROM t").scalar() == 11
    finally:
        writer.close()


def test_benchmark_schema_reader_creates_no_file(tmp_path: Path):
    from evoonto.evaluation.benchmarks import schema_ddl

    db = _wal_db(tmp_path)
    assert "CREATE TABLE t" in schema_ddl(db)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.sqlite"]
