"""Regression (issue 19, wide-schema build): value-based join discovery counted the distinct values of
every text column with its own query (4,977 queries on the 7,450-column wide schema, whose tables
hold about 100 rows each: per-query work, not scanning, was the cost). A small table's text columns are
now counted by one query; the counts are the same (they only select candidates and are not recorded),
so discovery finds the same joins. Large tables keep one query per column (each within its time limit),
and a failing batched count falls back to the per-column queries.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from evoonto.sources import joins, open_source
from evoonto.sources.joins import discover_joins

from fixtures.sources_support import IRIS

REAL_RUN_PROBE = joins.run_probe


def _db(path: Path) -> Path:
    con = sqlite3.connect(path)  # no declared keys: discovery by names and values
    con.execute("CREATE TABLE sysuser (name TEXT, email TEXT, team TEXT)")
    con.execute("CREATE TABLE incident (number TEXT, assigned_to TEXT, caller TEXT, state TEXT)")
    con.execute("CREATE TABLE note (body TEXT)")
    users = [(f"user {i}", f"u{i}@x.org", "ab"[i % 2]) for i in range(12)]
    con.executemany("INSERT INTO sysuser VALUES (?, ?, ?)", users)
    con.executemany("INSERT INTO incident VALUES (?, ?, ?, ?)",
                    [(f"INC{i:04d}", f"user {i % 5}", f"user {i % 3 + 6}", "open" if i % 2 else "closed")
                     for i in range(40)])
    con.executemany("INSERT INTO note VALUES (?)", [("x",), ("y",)])
    con.commit()
    con.close()
    return path


def _discover(path: Path, monkeypatch, *, cells: int) -> tuple[list, list[str]]:
    queries: list[str] = []
    real = REAL_RUN_PROBE

    def recording(source, sql, **kw):
        queries.append(str(sql))
        return real(source, sql, **kw)

    monkeypatch.setattr(joins, "BATCHED_COUNT_CELLS", cells)
    monkeypatch.setattr(joins, "run_probe", recording)
    with open_source(path) as src:
        found = discover_joins(src, IRIS)
    return found, queries


def test_value_join_counts_one_query_per_column_same_joins(tmp_path: Path, monkeypatch):
    path = _db(tmp_path / "v.sqlite")
    per_column, per_column_queries = _discover(path, monkeypatch, cells=0)
    batched, batched_queries = _discover(path, monkeypatch, cells=1_000_000)
    def measured(found):
        return [(j.condition(), j.inclusion, j.evidence.iri, j.evidence.summary) for j in found]

    assert measured(batched) == measured(per_column)
    assert "incident.assigned_to = sysuser.name" in [j.condition() for j in batched]
    def is_count(q: str) -> bool:  # not the uniqueness filter "COUNT(DISTINCT c) = COUNT(c)"
        return q.startswith("SELECT COUNT(DISTINCT") and " = COUNT(" not in q

    counts = [q for q in per_column_queries if is_count(q)]
    assert len(counts) == 8  # one per text column
    batched_counts = [q for q in batched_queries if is_count(q)]
    # one per table with two or more text columns, one for the single-column table
    assert len(batched_counts) == 3
    assert len(batched_queries) == len(per_column_queries) - 5


def test_value_join_counts_one_query_per_column_failure_falls_back(tmp_path: Path, monkeypatch):
    path = _db(tmp_path / "f.sqlite")
    expected, _ = _discover(path, monkeypatch, cells=0)
    real = REAL_RUN_PROBE

    def failing_batches(source, sql, **kw):
        if str(sql).count("COUNT(DISTINCT") > 1:
            raise joins.SourceError("interrupted")
        return real(source, sql, **kw)

    monkeypatch.setattr(joins, "BATCHED_COUNT_CELLS", 1_000_000)
    monkeypatch.setattr(joins, "run_probe", failing_batches)
    with open_source(path) as src:
        found = discover_joins(src, IRIS)
    assert [j.condition() for j in found] == [j.condition() for j in expected]
