"""Regression (issue 15): join conditions came back unquoted (``Order Details.OrderID = Orders.OrderID``
from Northwind), which is not executable SQL, and resolving several ids together gave no join at all.

Resolving two Terms on different tables now adds a ``joins`` section whose conditions are quoted for
the source's dialect and run as they are."""

from __future__ import annotations

import sqlite3

import sqlglot


def test_resolve_gives_quoted_executable_join(tmp_path):
    from evoonto.builder import build
    from evoonto.ontology import Ontology
    from evoonto.tools.toolkit import OntologyTools

    db = tmp_path / "orders.sqlite"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE "Orders" ("OrderID" INTEGER PRIMARY KEY, "Freight" REAL);
        CREATE TABLE "Order Details" ("OrderID" INTEGER REFERENCES "Orders"("OrderID"), "ProductID" INTEGER,
                                      "Quantity" INTEGER, PRIMARY KEY ("OrderID", "ProductID"));
    """)
    con.executemany('INSERT INTO "Orders" VALUES (?, ?)', [(i, i * 1.5) for i in range(1, 51)])
    con.executemany('INSERT INTO "Order Details" VALUES (?, ?, ?)', [(i % 50 + 1, i, i % 7) for i in range(120)])
    con.commit()
    result = build([db], None, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs), base_iri=result.base_iri)
    quantity = next(h["id"] for h in tools.browse("quantity", n=5) if h["id"].endswith(".Quantity"))
    freight = next(h["id"] for h in tools.browse("freight", n=5) if h["id"].endswith("Orders.Freight"))

    joins = tools.resolve([quantity, freight])["joins"]

    assert [j["condition"] for j in joins] == ['"Order Details"."OrderID" = "Orders"."OrderID"']
    sql = f'SELECT SUM("Quantity") FROM "Order Details" JOIN "Orders" ON {joins[0]["condition"]}'
    sqlglot.parse_one(sql, read="sqlite")
    assert con.execute(sql).fetchone()[0] == sum(i % 7 for i in range(120))
    con.close()
