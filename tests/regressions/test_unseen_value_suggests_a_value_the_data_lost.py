"""Regression: check_sql suggested a recorded value the data no longer holds.

After ``UPDATE Customers SET Country = 'United Kingdom' WHERE Country = 'UK'`` (and no ``evoonto
drift``), ``WHERE Country = 'UK '`` got a Violation (a probe found no such row) with the suggestion
``'UK'``, a value from the build's Evidence that the data had lost: taking it returns nothing too.
With a source reachable, a recorded value is suggested only when a probe finds it in the data.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.tools.sqlcheck import check_sql


def test_unseen_value_suggests_a_value_the_data_lost(tmp_path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, country TEXT)")
        con.executemany("INSERT INTO customers VALUES (?, ?)",
                        [(i, ["UK", "France", "USA"][i % 3]) for i in range(30)])
    result = build([db], None, validate=False)
    onto = Ontology.from_graphs(result.graphs, base_iri=result.base_iri)
    sql = "SELECT COUNT(*) FROM customers WHERE country = 'UK '"
    with open_source(str(db)) as source:
        [before] = check_sql(onto, sql, sources={source.id: source})
    assert before.kind == "unseen_value" and before.suggestion == "'UK'", before
    with sqlite3.connect(db) as con:
        con.execute("UPDATE customers SET country = 'United Kingdom' WHERE country = 'UK'")
    with open_source(str(db)) as source:
        [after] = check_sql(onto, sql, sources={source.id: source})
    assert after.kind == "unseen_value" and after.severity == "Violation", after
    assert "'UK'" not in (after.suggestion or ""), after
