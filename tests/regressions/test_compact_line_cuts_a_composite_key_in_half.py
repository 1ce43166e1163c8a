"""Regression: a compact line cut a table's composite key in half.

Northwind's default answer read ``"Order Details" -- A row of table Order Details (2155 rows),
identified by Order Details.OrderID, …``: the meaning was cut at 80 characters in the middle of the
key, so the line named one column of a two-column key (OrderID, ProductID), which reads as a key of
its own. The key clause is now kept whole (past the cut, up to twice its length; a longer key is
left out rather than shown in part).
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools


def test_compact_line_cuts_a_composite_key_in_half(tmp_path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute('CREATE TABLE "Order Details" (OrderID INTEGER, ProductID INTEGER, UnitPrice REAL, '
                    "Quantity INTEGER, Discount REAL, PRIMARY KEY (OrderID, ProductID))")
        con.executemany('INSERT INTO "Order Details" VALUES (?, ?, ?, ?, ?)',
                        [(i // 3, i % 3, 1.5 * i, i, 0.0) for i in range(30)])
    result = build([db], None, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    line = next(hit["label"] for hit in tools.browse("order details quantity discount", format="compact")
                if hit["label"].startswith('"Order Details" -- '))
    assert "identified by Order Details.OrderID, Order Details.ProductID" in line, line
