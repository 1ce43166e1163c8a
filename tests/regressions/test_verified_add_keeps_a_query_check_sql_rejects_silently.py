"""Regression: ``evoonto verified add`` (and ``build --verified``) kept, without a word, a query that
``check_sql`` rejects.

``WHERE Country = 'US'`` on a column whose whole-table values hold 'USA' but no 'US' was added as
verified knowledge, silently. A verified query is the team's knowledge and stays (only SQL that does
not parse, names unknown tables or columns, or does not run is left out), but each doubt check_sql
has about it (a Violation, or a literal the recorded values do not hold) is now reported as
``FILE:LINE: verified query ID kept, but check_sql finds: …``.
"""

from __future__ import annotations

import json
import sqlite3
import warnings

from evoonto.builder import build
from evoonto.builder.verified import recorded_verified
from evoonto.ontology import Ontology
from evoonto.sources.base import SourceWarning


def test_verified_add_keeps_a_query_check_sql_rejects_silently(tmp_path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT, country TEXT)")
        con.executemany("INSERT INTO customer VALUES (?, ?, ?)",
                        [(i, f"n{i}", ["USA", "Canada", "France"][i % 3]) for i in range(30)])
    file = tmp_path / "verified.jsonl"
    file.write_text(json.dumps({"question": "How many customers in the US?",
                                "sql": "SELECT COUNT(*) FROM customer WHERE country = 'US'"}) + "\n"
                    + json.dumps({"question": "How many customers in Canada?",
                                  "sql": "SELECT COUNT(*) FROM customer WHERE country = 'Canada'"}) + "\n",
                    encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = build([db], verified=file, validate=False)
    said = [str(w.message) for w in caught if issubclass(w.category, SourceWarning)]
    doubts = [m for m in said if "kept, but check_sql finds" in m]
    assert len(doubts) == 1 and f"{file}:1:" in doubts[0] and "'US'" in doubts[0], said
    held = recorded_verified(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    assert len(held) == 2  # both kept: the warning changes nothing
