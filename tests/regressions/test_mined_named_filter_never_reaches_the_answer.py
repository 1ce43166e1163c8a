"""Regression: a named filter mined from a verified query never reached the agent's answer.

Northwind review: the verified query "How many orders were shipped late?" →
``… WHERE ShippedDate > RequiredDate`` was mined into a Constraint ('late' means …), but a browse of
the same question (a term answer, the default) never showed it, nor ``RequiredDate`` near the top:
Constraints are found only by a search of constraints. The filter is now a Category Term too
(``filter.late``, its condition on the Mapping's ``evo:filter``), and its compact line shows the
condition whole.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools


def test_mined_named_filter_never_reaches_the_answer(tmp_path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, placed DATE, required DATE, shipped DATE)")
        con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?)",
                        [(i, f"2020-01-{1 + i % 9:02d}", f"2020-02-{1 + i % 9:02d}", f"2020-02-{1 + i % 20:02d}")
                         for i in range(30)])
    verified = [{"id": "late", "question": "How many orders were shipped late?",
                 "sql": "SELECT COUNT(*) FROM orders WHERE shipped > required"}]
    result = build([db], None, verified=verified, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    lines = [hit["label"] for hit in tools.browse("which orders were late?", format="compact")]
    found = [line for line in lines[:5] if "orders.shipped > orders.required" in line]
    assert found, lines
    assert " -- Rows of table orders where orders.shipped > orders.required (" in found[0], found
