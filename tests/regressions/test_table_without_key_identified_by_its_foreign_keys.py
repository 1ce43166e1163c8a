"""Regression: a table with no declared key was said to be "identified by" its foreign-key columns.

Northwind review: the builder wrote ``A row of table EmployeeTerritories (49 rows), identified by
EmployeeTerritories.EmployeeID, …`` for a table with no primary key, taking the columns that refer
to other tables as its key. A column that refers to another table does not identify a row (one
employee has many territories), so an agent reading it would count employees as rows. Such columns
are now named as what they are: ``linked by …``; "identified by" is kept for a declared key.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools


def test_table_without_key_identified_by_its_foreign_keys(tmp_path):
    db = tmp_path / "staff.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE employee (id INTEGER PRIMARY KEY, name TEXT)")
        con.execute("CREATE TABLE territory (id INTEGER PRIMARY KEY, region TEXT)")
        con.execute("CREATE TABLE employee_territory (employee_id INTEGER REFERENCES employee(id), "
                    "territory_id INTEGER REFERENCES territory(id))")
        con.executemany("INSERT INTO employee VALUES (?, ?)", [(i, f"E{i}") for i in range(5)])
        con.executemany("INSERT INTO territory VALUES (?, ?)", [(i, f"R{i % 2}") for i in range(8)])
        con.executemany("INSERT INTO employee_territory VALUES (?, ?)", [(i % 5, i) for i in range(8)])
    result = build([db], None, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    hits = tools.browse("employee territory", n=20, format="verbose")
    entity = next(h for h in hits if h["id"].endswith("/employee_territory"))
    definition = tools.resolve([entity["id"]])["records"][0]["definition"]
    assert "identified by" not in definition, definition
    assert "linked by employee_territory.employee_id, employee_territory.territory_id" in definition, definition
    keyed = next(h for h in tools.browse("employee", n=20, format="verbose") if h["id"].endswith("/employee"))
    assert "identified by employee.id" in tools.resolve([keyed["id"]])["records"][0]["definition"]
