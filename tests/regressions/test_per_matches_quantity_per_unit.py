"""Regression: the preposition "per" of a question matched columns named with "Per".

Northwind review: "revenue per customer" ranked ``Products.QuantityPerUnit`` among the hits, on the
word "per" alone. "per" is an English preposition ("for each", as "by" in "revenue by customer") and
is now a stop word like "by": it names no concept, in a question or in an identifier.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools


def test_per_matches_quantity_per_unit(tmp_path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT)")
        con.execute("CREATE TABLE product (id INTEGER PRIMARY KEY, QuantityPerUnit TEXT, UnitPrice REAL)")
        con.executemany("INSERT INTO customer VALUES (?, ?)", [(i, f"C{i}") for i in range(10)])
        con.executemany("INSERT INTO product VALUES (?, ?, ?)", [(i, f"{i} boxes", 1.0 + i) for i in range(10)])
    result = build([db], None, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    hits = tools.browse("spending per customer", n=20, format="verbose")
    assert hits and not [h["id"] for h in hits if "QuantityPerUnit" in h["id"]], hits
