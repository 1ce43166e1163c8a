"""Regression: a table's line in the compact answer carried the id of a metric mined over that table.

Northwind review: ``"Order Details"("UnitPrice", "Quantity", "Discount")  [term/northwind/metric.revenue]``.
The browse index took the first Term mapping only the table as the table's Term, and the metric
mined from a verified query (``Revenue = SUM(…)``, its Mapping on the table with an expression) sorted
first, so resolving the table's line gave the metric. A Term whose Mapping carries an expression or
a filter is now never the Term that stands for its table.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools


def test_table_line_carries_a_metrics_id(tmp_path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute('CREATE TABLE "Order Details" (OrderID INTEGER, ProductID INTEGER, UnitPrice REAL, '
                    "Quantity INTEGER, Discount REAL, Note1 TEXT, Note2 TEXT, Note3 TEXT, Note4 TEXT, "
                    "PRIMARY KEY (OrderID, ProductID))")
        con.executemany('INSERT INTO "Order Details" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
                        [(i // 3, i % 3, 1.5 * i, i, 0.1, "a", "b", "c", "d") for i in range(30)])
    verified = [{"id": "rev", "question": "Total revenue per product",
                 "sql": 'SELECT ProductID, SUM(UnitPrice * Quantity * (1 - Discount)) FROM "Order Details" '
                        "GROUP BY ProductID"}]
    result = build([db], None, verified=verified, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    hits = tools.browse("revenue", format="compact", budget=600)
    lines = [h for h in hits if h["label"].startswith('"Order Details"(')]
    assert lines, hits
    assert all(not h["id"].endswith("metric.revenue") for h in lines), lines
    table_term = next(h["id"] for h in tools.browse("order details", n=20, format="verbose")
                      if tools.resolve([h["id"]])["records"][0]["definition"].startswith("A row of table"))
    assert {h["id"] for h in lines} == {table_term}, (lines, table_term)
