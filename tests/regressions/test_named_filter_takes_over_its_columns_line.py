"""Regression: a named filter (or metric) over one column took over that column's compact line.

Review: after the verified query "How many bulky shipments?" (``WHERE weight > 40``) the line of
``shipment.weight`` read ``"shipment"."weight" REAL -- Rows of table shipment where shipment.weight >
40 (named filter …)`` with the filter's id: the filter's Term, mapping the one column it reads and
sorting first, stood for the column. Likewise a one-column metric (``Shipping cost =
SUM(shipment.freight)``). A Term whose Mapping carries an expression or a filter never stands for
its column (nor its table); it gets a line of its own.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools


def test_named_filter_takes_over_its_columns_line(tmp_path):
    db = tmp_path / "ship.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE shipment (id INTEGER PRIMARY KEY, freight REAL, weight REAL, carrier TEXT)")
        con.executemany("INSERT INTO shipment VALUES (?, ?, ?, ?)",
                        [(i, 2.5 * i, 1.5 * i, ("DHL", "UPS")[i % 2]) for i in range(60)])
    verified = [{"id": "cost", "question": "Total shipping cost", "sql": "SELECT SUM(freight) FROM shipment"},
                {"id": "heavy", "question": "How many bulky shipments?",
                 "sql": "SELECT COUNT(*) FROM shipment WHERE weight > 40"}]
    result = build([db], None, verified=verified, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    for query, column, computed in (("shipment weight", "weight", "filter.bulky"),
                                    ("shipment freight", "freight", "metric.shipping-cost")):
        hits = tools.browse(query, format="compact", budget=2000)
        line = next(h for h in hits if h["label"].startswith(f'"shipment"."{column}"'))
        assert line["id"].endswith(f"shipment.{column}"), hits
        assert "named filter" not in line["label"] and " = SUM(" not in line["label"], line
        assert any(h["id"].endswith(computed) for h in hits), hits
