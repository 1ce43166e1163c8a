"""Regression (issue 19, wide-schema build): the derivation search looked every column's position up
with ``list.index`` and built a frozenset for each of the 1,320 ordered triples of a 12-column table,
before the cheap position filter (151 tables on the wide schema). Positions are now read once; the
triples are tried in the same order, so the same equations are found and rejected in the same order.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

from evoonto.builder.probe import Prober
from evoonto.builder.propose import DerivationCandidate
from evoonto.builder.verify import _verify_derivations
from evoonto.sources import open_source


def test_derivation_search_rescans_positions_same_equations(tmp_path: Path):
    path = tmp_path / "d.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE sale (price REAL, qty REAL, discount REAL, total REAL, net REAL, ratio REAL)")
    rows = []
    for i in range(1, 21):
        price, qty, discount = 2.0 + i, float(i % 4 + 1), float(i % 3)
        total = price * qty
        rows.append((price, qty, discount, total, total - discount, total / qty))
    con.executemany("INSERT INTO sale VALUES (?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    with open_source(path) as src:
        prober = Prober(src, at=datetime(2024, 1, 1))
        rejected: list = []
        found = _verify_derivations(
            DerivationCandidate("sale", ("price", "qty", "discount", "total", "net", "ratio")), prober, rejected)
    assert [d.formula for d in found] == [
        "ratio = total / qty", "net = total - discount", "total = price * qty"]
    assert all(d.probe.scalar() == 0 for d in found)
    assert "ABS(\"total\" - (\"price\" * \"qty\"))" in found[-1].probe.sql
