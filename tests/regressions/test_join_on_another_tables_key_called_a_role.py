"""Regression: a join on a foreign key to a third table was called "another role of the key".

Northwind review: ``Products p JOIN Categories c ON p.SupplierID = c.CategoryID`` got a Warning that
"the columns share values in the data, so this may be another role of the key". SupplierID is a
declared foreign key to Suppliers: its values are supplier ids, and equal numbers pair a supplier id
with a category id. The finding now names the declared key, and says the pairs the probe found are
ids of different tables. It stays a Warning (ids are numbered alike by chance; no drop-in fix).
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.tools.sqlcheck import check_sql


def test_join_on_another_tables_key_called_a_role(tmp_path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT)")
        con.execute("CREATE TABLE suppliers (id INTEGER PRIMARY KEY, name TEXT)")
        con.execute("CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, "
                    "supplier_id INTEGER REFERENCES suppliers(id), category_id INTEGER REFERENCES categories(id))")
        con.executemany("INSERT INTO categories VALUES (?, ?)", [(i, f"cat{i}") for i in range(1, 9)])
        con.executemany("INSERT INTO suppliers VALUES (?, ?)", [(i, f"sup{i}") for i in range(1, 30)])
        con.executemany("INSERT INTO products VALUES (?, ?, ?, ?)",
                        [(i, f"p{i}", 1 + i % 29, 1 + i % 8) for i in range(77)])
    result = build([db], None, validate=False)
    onto = Ontology.from_graphs(result.graphs, base_iri=result.base_iri)
    sql = "SELECT c.name, COUNT(*) FROM products p JOIN categories c ON p.supplier_id = c.id GROUP BY c.name"
    with open_source(str(db)) as source:
        found = [f for f in check_sql(onto, sql, sources={source.id: source}) if f.kind == "mismatched_join_keys"]
    assert len(found) == 1 and found[0].severity == "Warning", found
    message = found[0].message
    assert "products.supplier_id references suppliers.id, not categories (a declared foreign key)" in message, message
    assert "another role" not in message, message
    assert found[0].suggestion is None


def test_a_second_role_of_a_key_said_to_pair_ids_of_different_tables(tmp_path):
    """Review: ``invoice.account_id = project.billing_account_id`` (both hold account ids; the second
    has no declared key) was said to "pair ids of different tables" because account_id references
    account. Nothing is claimed about a column that is no key and declares no reference."""
    db = tmp_path / "bill.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE account (id INTEGER PRIMARY KEY, name TEXT)")
        con.execute("CREATE TABLE project (id INTEGER PRIMARY KEY, account_id INTEGER REFERENCES account(id), "
                    "billing_account_id INTEGER)")
        con.execute("CREATE TABLE invoice (id INTEGER PRIMARY KEY, account_id INTEGER REFERENCES account(id), "
                    "project_id INTEGER REFERENCES project(id), amount REAL)")
        con.executemany("INSERT INTO account VALUES (?, ?)", [(i, f"acc{i}") for i in range(1, 6)])
        con.executemany("INSERT INTO project VALUES (?, ?, ?)", [(i, 1 + i % 5, 1 + (i + 1) % 5) for i in range(1, 9)])
        con.executemany("INSERT INTO invoice VALUES (?, ?, ?, ?)",
                        [(i, 1 + i % 5, 1 + i % 8, 10.0 * i) for i in range(1, 40)])
    result = build([db], None, validate=False)
    onto = Ontology.from_graphs(result.graphs, base_iri=result.base_iri)
    sql = "SELECT SUM(i.amount) FROM invoice i JOIN project pr ON i.account_id = pr.billing_account_id"
    with open_source(str(db)) as source:
        found = [f for f in check_sql(onto, sql, sources={source.id: source}) if f.kind == "mismatched_join_keys"]
    assert found and all("ids of different tables" not in f.message for f in found), found
