"""Regression: check_sql said a TEXT column "holds numbers".

Northwind's ``Products.Discontinued`` is TEXT holding '0' and '1' (its Evidence: boolean stored as
text). ``WHERE Discontinued = 'Yes'`` got ``type_mismatch``: "Products.Discontinued holds numbers;
the text 'Yes' equals none of them", suggestion "compare a text column, or a number", a false
fact about the column's type, and only a Warning though a probe found no such row. A text column of
numerals is compared with text like any text column: the literal is an unseen value (a Violation
when a probe confirms no row has it), reported with the values the column does hold.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.tools.sqlcheck import check_sql


def test_text_flag_column_said_to_hold_numbers(tmp_path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT, discontinued TEXT)")
        con.executemany("INSERT INTO products VALUES (?, ?, ?)", [(i, f"p{i}", str(i % 2)) for i in range(20)])
    result = build([db], None, validate=False)
    onto = Ontology.from_graphs(result.graphs, base_iri=result.base_iri)
    with open_source(str(db)) as source:
        found = check_sql(onto, "SELECT name FROM products WHERE discontinued = 'Yes'", sources={source.id: source})
    assert not any("holds numbers" in f.message for f in found), found
    [finding] = found
    assert (finding.kind, finding.severity, finding.subject) == ("unseen_value", "Violation", "products.discontinued")
