"""Regression: a date filter that holds for every row was "confirmed" with "found no such row".

CSV review: ``opened_at >= '2022-01-01'`` over incidents opened 2023..2024 got "… holds for every
row; a point probe of the data found no such row": the probe had looked for a row the condition
leaves out and found none, but the sentence reads as if no row matched. It now says "found no row
it leaves out".
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.tools.sqlcheck import check_sql


def test_every_row_date_filter_said_to_match_no_row(tmp_path):
    db = tmp_path / "desk.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE incidents (id INTEGER PRIMARY KEY, opened_at TEXT)")
        con.executemany("INSERT INTO incidents VALUES (?, ?)",
                        [(i, f"{2023 + i % 2}-0{1 + i % 9}-1{i % 10} 10:00:00") for i in range(50)])
    result = build([db], None, validate=False)
    onto = Ontology.from_graphs(result.graphs, base_iri=result.base_iri)
    with open_source(str(db)) as source:
        [found] = check_sql(onto, "SELECT COUNT(*) FROM incidents WHERE opened_at >= '2022-01-01'",
                            sources={source.id: source})
    assert found.kind == "out_of_range" and "holds for every row" in found.message, found
    assert "found no row it leaves out" in found.message and "found no such row" not in found.message, found
