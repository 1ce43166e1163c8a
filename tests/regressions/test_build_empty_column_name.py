"""Issue 17: a column named ``""`` crashed ``build`` with a traceback (an empty IRI segment)."""

from __future__ import annotations

from fixtures.sources_support import sqlite_db

from evoonto.builder import build
from evoonto.iris import IriFactory


def test_build_handles_a_column_with_an_empty_name(tmp_path):
    db = sqlite_db(tmp_path / "odd.sqlite", """
        CREATE TABLE t (id INTEGER PRIMARY KEY, "" TEXT, amount REAL);
        INSERT INTO t VALUES (1, 'a', 1.5), (2, 'b', 2.5), (3, 'a', 4.0);
    """)
    result = build([str(db)])  # validates with the shapes
    assert result.counts["terms"] >= 3
    iris = IriFactory("https://example.org/x/")
    assert iris.column("odd", "t", "") != iris.column("odd", "t", "_")  # the empty name collides with no name
