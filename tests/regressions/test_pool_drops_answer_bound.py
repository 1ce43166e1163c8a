"""Regression: the connection pool the server opens sources with (tools.pool.SourcePool) did not take
``max_chars``, so after the answer-size bound was added to ``Source.run`` every declared SQL tool and
``run_sql`` served through the pool failed with a TypeError. The pool forwards every bound."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from evoonto.tools.pool import SourcePool


def test_pool_forwards_the_answer_size_bound(tmp_path: Path):
    db = tmp_path / "t.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t (v TEXT)")
    con.executemany("INSERT INTO t VALUES (?)", [("x" * 100,) for _ in range(50)])
    con.commit()
    con.close()
    with SourcePool.open(db) as pool:
        full = pool.run("SELECT v FROM t", limit=1000)
        cut = pool.run("SELECT v FROM t", limit=1000, max_chars=1_000)
    assert len(full.rows) == 50
    assert 0 < len(cut.rows) < 50 and cut.note
