"""Drift reported a join's Evidence as "STALE changed chinook: count: 2,250 -> 2,254": no table, no
join, and not that 2 of the new rows reference nothing (PostgreSQL review, after a foreign key was
dropped and orphan rows inserted). A count's finding now quotes what was counted (the Evidence's
summary) and the probe's whole row now (rows, and rows that join)."""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.drift import check_drift
from evoonto.ontology import Ontology
from evoonto.sources import open_source


def test_join_count_change_names_the_join_and_its_inclusion(tmp_path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE store (store_id INTEGER PRIMARY KEY, city TEXT);
            CREATE TABLE sale (sale_id INTEGER PRIMARY KEY, store_id INTEGER REFERENCES store(store_id));
            INSERT INTO store VALUES (1, 'north'), (2, 'south'), (3, 'east');
            INSERT INTO sale VALUES (1, 1), (2, 2), (3, 2);
        """)
    onto = Ontology.from_graphs(build([path], None, validate=False).graphs)
    with sqlite3.connect(path) as con:
        con.execute("INSERT INTO sale VALUES (4, 3), (5, 9)")  # a new store referenced, and an orphan
    source = open_source(path)
    try:
        report = check_drift(onto, {source.id: source})
    finally:
        source.close()
    joins = [f.detail for f in report.findings if "rows join store" in f.detail]
    assert joins == ["count: 3 -> 5 (3 of 3 sale rows join store (declared key)); the probe's row now: 5, 4"], \
        [f.detail for f in report.findings]
