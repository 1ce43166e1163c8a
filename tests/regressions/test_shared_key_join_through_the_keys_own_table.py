"""Regression: check_sql passed ``Customer.SupportRepId = Employee.ReportsTo`` and called it a known join.

Both columns reference ``Employee.EmployeeId``, so the join graph added a shared-key edge between
them (meant for ``city.country = language.country``, two tables referencing a third). With the key's
own table on one side, that "join" pairs a customer with the employees reporting to their rep, and
it sat next to the declared ``SupportRepId = EmployeeId`` between the same two tables: a wrong join
passed with no finding, and the message of a wrong one listed it as a known join. A shared-key edge
now needs two tables other than the key's.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.joinpaths import JoinGraph


def _org(path):
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE employee (employee_id INTEGER PRIMARY KEY, last_name TEXT,
                                   reports_to INTEGER REFERENCES employee(employee_id));
            CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, first_name TEXT,
                                   support_rep_id INTEGER REFERENCES employee(employee_id));
            CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT, rep INTEGER REFERENCES employee(employee_id));
            INSERT INTO employee VALUES (1, 'Adams', NULL), (2, 'Edwards', 1), (3, 'Peacock', 2), (4, 'Park', 2);
            INSERT INTO customer VALUES (1, 'Luis', 2), (2, 'Leonie', 3), (3, 'Eduardo', 2);
            INSERT INTO city VALUES (1, 'Oslo', 2), (2, 'Rome', 3);
        """)
    return path


def _ontology(tmp_path):
    return Ontology.from_graphs(build([_org(tmp_path / "org.sqlite")], None, validate=False).graphs)


def test_shared_key_join_through_the_keys_own_table(tmp_path):
    from evoonto.tools.sqlcheck import check_sql

    ontology = _ontology(tmp_path)
    sql = ("SELECT c.first_name, e.last_name FROM customer c "
           "JOIN employee e ON c.support_rep_id = e.reports_to")
    findings = check_sql(ontology, sql)
    joins = [f for f in findings if f.kind == "mismatched_join_keys"]
    assert joins, findings  # not passed as a known join
    assert '"c"."support_rep_id" = "e"."employee_id"' in joins[0].message
    assert '"e"."reports_to"' not in joins[0].message  # not listed as a known join
    # the declared join passes
    ok = check_sql(ontology, "SELECT c.first_name FROM customer c JOIN employee e ON c.support_rep_id = e.employee_id")
    assert not [f for f in ok if f.kind in ("mismatched_join_keys", "unknown_join")]


def test_shared_key_between_two_other_tables_is_kept(tmp_path):
    graph = JoinGraph.from_ontology(_ontology(tmp_path))
    shared = {frozenset((e.left, e.right)) for e in graph.edges if e.origin == "shared_key"}
    assert frozenset(("customer", "city")) in shared  # both reference employee: a third table
    assert not any("employee" in pair for pair in shared)
