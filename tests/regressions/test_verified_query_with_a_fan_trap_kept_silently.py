"""Regression: a verified query whose SUM a join repeats was kept as team knowledge without a word.

``SELECT SUM(o.total) FROM orders o JOIN lines l ON l.order_id = o.id`` adds each order's total once
per line: check_sql reports it as a ``fan_trap`` Warning (confirmed by a probe: the data repeats the
orders), but ``verified add`` / ``build --verified`` reported only Violations and unseen values, so
the double-counting query became verified knowledge silently (and its SUM a mined metric). A fan
trap is now among the doubts reported as ``… kept, but check_sql finds: …``; the query is still kept.
"""

from __future__ import annotations

import json
import sqlite3
import warnings

from evoonto.builder import build
from evoonto.sources.base import SourceWarning


def test_verified_query_with_a_fan_trap_kept_silently(tmp_path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL)")
        con.execute("CREATE TABLE lines (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders(id), qty INTEGER)")
        con.executemany("INSERT INTO orders VALUES (?, ?)", [(i, 10.0 * i) for i in range(1, 11)])
        con.executemany("INSERT INTO lines VALUES (?, ?, ?)", [(i, 1 + i % 10, i) for i in range(30)])
    file = tmp_path / "verified.jsonl"
    file.write_text(json.dumps({"question": "What is the total of all orders?",
                                "sql": "SELECT SUM(o.total) FROM orders o JOIN lines l ON l.order_id = o.id"}) + "\n"
                    + json.dumps({"question": "How many units were ordered?",
                                  "sql": "SELECT SUM(qty) FROM lines"}) + "\n", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build([db], verified=file, validate=False)
    said = [str(w.message) for w in caught if issubclass(w.category, SourceWarning)]
    doubts = [m for m in said if "kept, but check_sql finds" in m]
    assert len(doubts) == 1 and f"{file}:1:" in doubts[0] and "repeats" in doubts[0], said
