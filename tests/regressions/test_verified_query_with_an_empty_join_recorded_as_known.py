"""Regression: a verified query whose join matches no row made that join "known".

CSV review: ``verified add`` kept "Departments of callers" (``incidents i JOIN sys_user u ON
i.caller_id = u.name``: no caller is a user, the query returns no row) without a word, recorded the
join as used by a verified query, and from then on ``check-sql`` passed the same empty join that it
had called a Violation before. The check of a verified query now runs check_sql's point probes on
the source: the empty join is reported ("kept, but check_sql finds: …") and is not recorded as a join
the team uses; a literal no row holds is reported the same way.
"""

from __future__ import annotations

import sqlite3

import pytest

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.sources.base import SourceWarning
from evoonto.tools.sqlcheck import check_sql

EMPTY_JOIN = ("SELECT u.department, COUNT(*) FROM incidents i JOIN users u ON i.caller_id = u.name "
              "GROUP BY u.department")


def _desk(tmp_path):
    db = tmp_path / "desk.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE users (name TEXT PRIMARY KEY, department TEXT)")
        con.execute("CREATE TABLE incidents (id INTEGER PRIMARY KEY, caller_id TEXT, state TEXT, "
                    "assigned_to TEXT REFERENCES users(name))")
        con.executemany("INSERT INTO users VALUES (?, ?)", [(f"agent {i}", ("IT", "HR")[i % 2]) for i in range(5)])
        con.executemany("INSERT INTO incidents VALUES (?, ?, ?, ?)",
                        [(i, f"caller {i}", ("Closed", "New")[i % 2], f"agent {i % 5}") for i in range(40)])
    return db


def test_verified_query_with_an_empty_join_recorded_as_known(tmp_path):
    db = _desk(tmp_path)
    verified = [{"id": "b1", "question": "Departments of callers", "sql": EMPTY_JOIN}]
    with pytest.warns(SourceWarning, match="kept, but check_sql finds: .*no row of the two satisfies"):
        result = build([db], None, verified=verified, validate=False)
    onto = Ontology.from_graphs(result.graphs, base_iri=result.base_iri)
    with open_source(str(db)) as source:
        found = [f for f in check_sql(onto, EMPTY_JOIN, sources={source.id: source})
                 if f.kind == "mismatched_join_keys"]
    assert [f.severity for f in found] == ["Violation"], found


def test_verified_query_with_a_value_no_row_holds_kept_silently(tmp_path):
    db = _desk(tmp_path)
    verified = [{"id": "v6", "question": "closed incidents", "sql": "SELECT id FROM incidents WHERE state = 'closed'"}]
    with pytest.warns(SourceWarning, match="kept, but check_sql finds: .*'closed'"):
        build([db], None, verified=verified, validate=False)
