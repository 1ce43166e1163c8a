"""Issue 19: high-cardinality values were sampled, not indexed.

A value was findable only when a construction question named it or it was among the 10 sampled
values of its column (for a unique column, the alphabetically first ten), so browse for ``'Zygmunt'``
found nothing. The served tools now carry the workspace's value index
(:mod:`evoonto.tools.values`), and browse names the column that holds the value, with its spelling.
"""

from __future__ import annotations

import pytest

import sqlite3
from pathlib import Path

from evoonto.builder import build, write_workspace
from evoonto.server import create_server


@pytest.mark.slow
def test_browse_finds_a_value_outside_the_sample(tmp_path: Path):
    db = tmp_path / "staff.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE staff (staff_id INTEGER PRIMARY KEY, surname TEXT, grade INTEGER)")
    con.executemany("INSERT INTO staff VALUES (?, ?, ?)",
                    [(i, f"Aa{i:04d}", i % 5) for i in range(300)] + [(300, "Zygmunt", 1)])
    con.commit()
    con.close()
    ws = tmp_path / "ws"
    write_workspace(build([str(db)]), ws)  # records the source's path in the workspace settings
    tools = create_server(ws).evoonto_provider.tools
    hits = tools.browse("staff named Zygmunt", kind="term", n=5, format="verbose")
    assert any('value "Zygmunt" in staff.surname (exact)' in h["snippet"] for h in hits), hits
