"""Regression: a compact line cut a mined metric's formula in the middle.

Northwind review: the metric mined from a verified query read ``"Order Details" -- Revenue =
SUM("Order Details".UnitPrice * "Order Details".Quantity * (1 - "Orde…``: the 80-character cut fell
inside the expression, so the line offered broken SQL. A computed Term's formula (its hidden label)
is now shown whole, up to three times the usual length, or left out.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools


def test_compact_line_cuts_a_metric_formula(tmp_path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute('CREATE TABLE "Order Details" (OrderID INTEGER, ProductID INTEGER, UnitPrice REAL, '
                    "Quantity INTEGER, Discount REAL, PRIMARY KEY (OrderID, ProductID))")
        con.executemany('INSERT INTO "Order Details" VALUES (?, ?, ?, ?, ?)',
                        [(i // 3, i % 3, 1.5 * i, i, 0.1) for i in range(30)])
    verified = [{"id": "rev", "question": "Total revenue per product",
                 "sql": 'SELECT ProductID, SUM(UnitPrice * Quantity * (1 - Discount)) FROM "Order Details" '
                        "GROUP BY ProductID"}]
    result = build([db], None, verified=verified, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    lines = [hit["label"] for hit in tools.browse("revenue", format="compact")]
    metric = next(line for line in lines if "Revenue = " in line)
    assert ('SUM("Order Details".UnitPrice * "Order Details".Quantity * (1 - "Order Details".Discount))'
            in metric), metric
