"""Regression (issue 19, wide-schema build): the profiler inferred each column's value type twice and
turned every fetched value into its stored text twice (``value_pattern`` called ``infer_type`` and
``_stored_text`` again on up to 5,001 values per column). It now reuses what it computed; the public
``value_pattern`` gives the same answers.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from decimal import Decimal
from pathlib import Path

import pytest

from evoonto.sources import open_source, profile, profiling
from evoonto.sources.profiling import infer_type, value_pattern

from fixtures.sources_support import IRIS

SAMPLES = [
    [1, 2, 3], ["1", "2", "10"], [1990, 2001], ["1990", "2020"], [0, 1], ["yes", "no"], [1.5, 2.25],
    [Decimal("1.5"), 2], ["2024-01-02", "2023-12-31"], [dt.date(2024, 1, 2)], [b"\x00"],
    ["a@b.org", "c@d.com"], ["https://x.org/a"], ["USA", "FRA"], ["INC0001", "INC0002"],
    ["a long sentence with many words in it, more than five"], ["north", "south"], [None, "x"], [],
    [float("nan"), 1.0], ["x" * 300],
]


@pytest.mark.parametrize("values", SAMPLES)
def test_profile_infers_type_twice_value_pattern_unchanged(values):
    present = [v for v in values if v is not None]
    texts = [profiling._stored_text(v) for v in present]
    assert profiling._value_pattern(present, infer_type(present), texts) == value_pattern(values)


def test_profile_infers_type_twice_once_per_column(tmp_path: Path, monkeypatch):
    path = tmp_path / "p.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (a INTEGER, b TEXT, c TEXT)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?)", [(i, f"v{i % 3}", "2024-01-0" + str(1 + i % 9))
                                                       for i in range(20)])
    con.commit()
    con.close()
    calls: list[int] = []
    real = profiling.infer_type

    def counting(values):
        calls.append(len(values))
        return real(values)

    monkeypatch.setattr(profiling, "infer_type", counting)
    with open_source(path) as src:
        profiles = profile(src, IRIS)
    assert [p.pattern for p in profiles] == ["integer", "text", "date"]
    assert len(calls) == len(profiles)
