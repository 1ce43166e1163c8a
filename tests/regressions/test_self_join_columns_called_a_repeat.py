"""Regression: a self-join's two columns were called one column shown twice.

``SELECT m.LastName AS manager, e.LastName AS employee FROM Employees e JOIN Employees m ON
e.ReportsTo = m.EmployeeID`` (Northwind) got ``repeated_column``: "the select list shows
Employees.LastName twice", suggestion "drop the repeat", which destroys a correct answer. Columns of
two references to one table are different rows' values; a repeat within one reference is still one.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_sql


def test_self_join_columns_called_a_repeat(tmp_path):
    db = tmp_path / "staff.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE employees (id INTEGER PRIMARY KEY, last_name TEXT, reports_to INTEGER "
                    "REFERENCES employees(id))")
        con.executemany("INSERT INTO employees VALUES (?, ?, ?)",
                        [(i, f"n{i}", None if i == 0 else 0) for i in range(6)])
    result = build([db], None, validate=False)
    onto = Ontology.from_graphs(result.graphs, base_iri=result.base_iri)
    pair = ("SELECT m.last_name AS manager, e.last_name AS employee FROM employees e "
            "JOIN employees m ON e.reports_to = m.id")
    assert [f for f in check_sql(onto, pair) if f.kind == "repeated_column"] == []
    twice = [f.kind for f in check_sql(onto, "SELECT last_name, employees.last_name FROM employees")]
    assert twice == ["repeated_column"], twice
    same_ref = [f.kind for f in check_sql(onto, "SELECT e.last_name, e.last_name FROM employees e "
                                                "JOIN employees m ON e.reports_to = m.id")]
    assert "repeated_column" in same_ref, same_ref
