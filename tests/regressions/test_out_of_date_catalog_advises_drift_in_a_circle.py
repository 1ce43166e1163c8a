"""After a column rename and ``evoonto drift``, check_sql said of the new column "the catalog is out of
date (run evoonto drift, or rebuild)": drift had just run (and reported the new column), and it adds no
column to the catalog, so the advice went in a circle (PostgreSQL review). It now says to rebuild."""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_sql
from evoonto.tools.toolkit import OntologyTools


def test_new_column_advice_is_a_rebuild(tmp_path):
    db = tmp_path / "notes.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, remark TEXT)")
        con.executemany("INSERT INTO note VALUES (?, ?)", [(i, f"remark {i}") for i in range(1, 6)])
    onto = Ontology.from_graphs(build([db], None, validate=False).graphs)
    with sqlite3.connect(db) as con:
        con.execute("ALTER TABLE note RENAME COLUMN remark TO comment")
    tools = OntologyTools(onto, sources={"notes": db})
    try:
        [found] = check_sql(tools, "SELECT comment FROM note")
    finally:
        tools.close()
    assert (found.kind, found.severity) == ("unknown_column", "Warning"), found
    assert "rebuild the workspace" in found.message and "run evoonto drift" not in found.message, found.message
