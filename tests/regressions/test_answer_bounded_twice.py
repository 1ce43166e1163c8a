"""Regression (issue 19, wide-schema build): ``BaseSource.run`` measured every cell of every answer
twice: once while the engine's rows were streamed by ``fetch_bounded`` and again in a "second pass"
meant for sources that fetch eagerly (16,015 probes of the wide build, up to 5,001 rows each). An
answer that ``fetch_bounded`` returned whole under the same bounds is now taken as it is; an answer it
cut, or rows an ``_execute`` fetched some other way, still get the second pass. The size of a row is
the same sum of ``value_chars`` as before, computed without its isinstance chain for the common types.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from decimal import Decimal
from pathlib import Path

from evoonto.sources import base, open_source
from evoonto.sources.base import BaseSource, TableInfo, fetch_bounded, value_chars


def _db(path: Path, rows: int) -> Path:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (a INTEGER, b TEXT, c REAL, d BLOB)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)",
                    [(i, f"text {i}", i / 3, bytes(i % 7)) for i in range(rows)])
    con.commit()
    con.close()
    return path


def test_answer_bounded_twice_rows_measured_once(tmp_path: Path, monkeypatch):
    measured: list[tuple] = []
    real = base._row_chars

    def counting(row):
        measured.append(row)
        return real(row)

    monkeypatch.setattr(base, "_row_chars", counting)
    with open_source(_db(tmp_path / "a.sqlite", 300)) as src:
        result = src.run("SELECT a, b, c, d FROM t", limit=1000)
        assert len(result.rows) == 300 and not result.truncated and result.note == ""
        assert type(result.rows) is list
        assert len(measured) == 300  # once per row, not twice
        measured.clear()
        cut = src.run("SELECT a, b, c, d FROM t", limit=100)  # cut by the row limit: bounded again
        assert len(cut.rows) == 100 and cut.truncated and "row limit" in cut.note
        small = src.run("SELECT b FROM t", limit=1000, max_chars=1000)  # cut by size
        assert small.truncated and sum(len(r[0]) for r in small.rows) <= 1000


class _Eager(BaseSource):
    """A source whose _execute returns all rows at once (no streaming): the second pass bounds them."""

    kind = "eager"

    def _load_tables(self) -> list[TableInfo]:
        return []

    def _execute(self, sql, limit, timeout_ms):
        return ["x"], [(i,) for i in range(50)], False

    def _close(self) -> None:
        pass


def test_answer_bounded_twice_eager_source_still_bounded():
    result = _Eager("eager", "memory").run("SELECT 1", limit=10)
    assert len(result.rows) == 10 and result.truncated


def test_answer_bounded_twice_row_size_unchanged():
    class Text(str):
        pass

    row = ("abc", b"\x00\x01", None, True, 3, 2.5, Decimal("1.25"), dt.date(2024, 1, 2), Text("four"),
           bytearray(b"xyz"), memoryview(b"ab"), 10**30)
    assert base._row_chars(row) == sum(value_chars(v) for v in row)
    rows, cut, note = fetch_bounded([[row, row]], 5, 10_000)
    assert rows == [row, row] and not cut and note == ""
    # bounds other than the ones asked for are bounded again
    assert isinstance(rows, base._BoundedRows) and rows.within == (5, 10_000)
