"""Regression: check_sql's fix for a join that matches no row swapped in another role of a key.

CSV review: ``incidents i JOIN sys_user u ON i.caller_id = u.name`` (no caller is a user: the join
is empty) got a Violation with the suggestion ``"i"."assigned_to" = "u"."name"``, which counts
assignees instead of callers, and picks one of two known roles. The Violation stays (the join is
provably empty); it now names the known joins and offers none as a drop-in fix.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.tools.sqlcheck import check_sql


def test_empty_join_fix_swaps_callers_for_assignees(tmp_path):
    db = tmp_path / "desk.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE users (name TEXT PRIMARY KEY, department TEXT)")
        con.execute("CREATE TABLE incidents (id INTEGER PRIMARY KEY, caller_id TEXT, "
                    "assigned_to TEXT REFERENCES users(name), closed_by TEXT REFERENCES users(name))")
        con.executemany("INSERT INTO users VALUES (?, ?)", [(f"agent {i}", ("IT", "HR")[i % 2]) for i in range(5)])
        con.executemany("INSERT INTO incidents VALUES (?, ?, ?, ?)",
                        [(i, f"caller {i}", f"agent {i % 5}", f"agent {(i + 1) % 5}") for i in range(40)])
    result = build([db], None, validate=False)
    onto = Ontology.from_graphs(result.graphs, base_iri=result.base_iri)
    sql = ("SELECT u.department, COUNT(*) FROM incidents i JOIN users u ON i.caller_id = u.name "
           "GROUP BY u.department")
    with open_source(str(db)) as source:
        found = [f for f in check_sql(onto, sql, sources={source.id: source}) if f.kind == "mismatched_join_keys"]
    assert [(f.severity, f.suggestion) for f in found] == [("Violation", None)], found
    assert '"i"."assigned_to" = "u"."name"' in found[0].message, found[0].message
