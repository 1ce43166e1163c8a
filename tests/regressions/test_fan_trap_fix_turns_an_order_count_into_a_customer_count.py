"""Regression: check_sql's fix for a correct count of orders made it a count of customers.

``SELECT COUNT(*) FROM Customers c JOIN Orders o ON o.CustomerID = c.CustomerID WHERE c.Country =
'Germany'`` counts the orders of German customers, the right SQL for "how many orders came from
German customers". The ``fan_trap`` Warning offered ``COUNT(DISTINCT <a key of Customers>)`` as its
suggestion, which answers another question (how many German customers ordered). The Warning now names
both readings in its message and offers no suggestion.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_sql


def test_fan_trap_fix_turns_an_order_count_into_a_customer_count(tmp_path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, country TEXT)")
        con.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id))")
        con.executemany("INSERT INTO customers VALUES (?, ?)", [(i, ["Germany", "France"][i % 2]) for i in range(10)])
        con.executemany("INSERT INTO orders VALUES (?, ?)", [(i, i % 10) for i in range(40)])
    result = build([db], None, validate=False)
    onto = Ontology.from_graphs(result.graphs, base_iri=result.base_iri)
    found = [f for f in check_sql(onto, "SELECT COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.id "
                                        "WHERE c.country = 'Germany'") if f.kind == "fan_trap"]
    assert len(found) == 1 and found[0].suggestion is None, found
    assert "right if the question counts orders rows" in found[0].message, found[0].message
