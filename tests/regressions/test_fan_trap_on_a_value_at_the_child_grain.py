"""Regression: check_sql warned of a fan trap on a value computed per row of the joined child.

``SUM(s.shipped_qty * l.price)`` over ``shipment_line JOIN order_line`` (each order line shipped in
one or more parts) multiplies each shipment's quantity by its line's price: the line's price is
meant to appear once per shipment. check_sql reported "aggregates order_line rows that the join to
shipment_line repeats" because one column of the value belongs to the repeated table; the value
also reads the shipment row, so it is at the shipment's grain. Found on the generated
composite-key database of ``benchmarks/sql_check_bench.py``. A value of the repeated table alone is
still reported.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder.pipeline import build
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools


def _tools(tmp_path):
    db = tmp_path / "ship.sqlite"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE order_line (order_id INTEGER, line_no INTEGER, product TEXT, price REAL,
                                 PRIMARY KEY (order_id, line_no));
        CREATE TABLE shipment_line (shipment_id INTEGER PRIMARY KEY, order_id INTEGER, line_no INTEGER,
                                    shipped_qty INTEGER,
                                    FOREIGN KEY (order_id, line_no) REFERENCES order_line(order_id, line_no));
    """)
    con.executemany("INSERT INTO order_line VALUES (?, ?, ?, ?)",
                    [(o, n, f"p{(o + n) % 4}", 1.5 * n) for o in range(1, 31) for n in (1, 2)])
    con.executemany("INSERT INTO shipment_line VALUES (?, ?, ?, ?)",
                    [(k, 1 + k % 30, 1 + k % 2, 1 + k % 5) for k in range(1, 121)])
    con.commit()
    con.close()
    result = build([str(db)], base_iri="https://example.org/ship/")
    return OntologyTools(Ontology.from_graphs(dict(result.graphs), base_iri=result.base_iri), sources={"ship": str(db)})


JOIN = "FROM shipment_line AS s JOIN order_line AS l ON s.order_id = l.order_id AND s.line_no = l.line_no"


def test_fan_trap_on_a_value_at_the_child_grain(tmp_path):
    tools = _tools(tmp_path)
    value = tools.check_sql(f"SELECT SUM(s.shipped_qty * l.price) {JOIN}")
    assert not [f for f in value if f.kind == "fan_trap"], value
    # the repeated table's own value is still a trap: each line's price is summed once per shipment
    price = tools.check_sql(f"SELECT SUM(l.price) {JOIN}")
    assert [f for f in price if f.kind == "fan_trap" and f.subject == "order_line"], price
