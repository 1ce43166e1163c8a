"""Regression: a named filter cited a verified query whose condition was another.

Review: "How many orders were late?" (``ShippedDate > RequiredDate``) and "How many products are
late?" (``UnitsOnOrder > UnitsInStock``) made one filter 'late' with the orders' condition, citing
both queries (``prov:wasDerivedFrom``): the second query's own condition was dropped and its
provenance pointed at a condition it never used. A phrase mined with a second condition now gets a
filter (Constraint and Term) of its own, and each cites only its queries.
"""

from __future__ import annotations

import sqlite3

from rdflib import URIRef
from rdflib.namespace import PROV

from evoonto.builder import build
from evoonto.namespaces import EVO


def test_named_filter_cites_a_query_with_another_condition(tmp_path):
    db = tmp_path / "trade.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE Orders (OrderID INTEGER PRIMARY KEY, ShippedDate TEXT, RequiredDate TEXT)")
        con.execute("CREATE TABLE Products (ProductID INTEGER PRIMARY KEY, UnitsOnOrder INTEGER, UnitsInStock INTEGER)")
        con.executemany("INSERT INTO Orders VALUES (?, ?, ?)",
                        [(i, f"2020-01-{1 + i % 20:02d}", f"2020-01-{1 + i % 9:02d}") for i in range(30)])
        con.executemany("INSERT INTO Products VALUES (?, ?, ?)", [(i, i % 7, i % 5) for i in range(30)])
    verified = [{"id": "a", "question": "How many orders were late?",
                 "sql": "SELECT COUNT(*) FROM Orders WHERE ShippedDate > RequiredDate"},
                {"id": "b", "question": "How many products are late?",
                 "sql": "SELECT COUNT(*) FROM Products WHERE UnitsOnOrder > UnitsInStock"}]
    result = build([db], None, verified=verified, validate=False)
    graph = result.graphs["content"]
    conditions = {}
    for record in set(graph.subjects(EVO.condition, None)) | {
            t for m in graph.subjects(EVO.filter, None) for t in graph.subjects(EVO.hasMapping, m)}:
        condition = graph.value(record, EVO.condition) or graph.value(graph.value(record, EVO.hasMapping), EVO.filter)
        cited = {str(q).rsplit("/", 1)[-1] for q in graph.objects(record, PROV.wasDerivedFrom)
                 if (q, None, None) in graph and (URIRef(str(q)), EVO.sql, None) in graph}
        conditions[str(record)] = (str(condition), cited)
    for _record, (condition, cited) in conditions.items():
        if "ShippedDate" in condition:
            assert cited == {"a"}, conditions
        if "UnitsOnOrder" in condition:
            assert cited == {"b"}, conditions
    assert any("UnitsOnOrder" in c for c, _ in conditions.values()), conditions
