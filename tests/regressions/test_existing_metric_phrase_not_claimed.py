"""Defect: when the metric Term a verified query's aggregate names already existed, the miner only cited
the query and did not claim the metric's phrase, so the phrase stayed "unexplained" beside the filter's
phrase and the query's named filter was never named ("revenue of long lines": ``long`` →
``lines.minutes > 300`` was lost once ``Revenue`` existed). Evolution hits it whenever it mines a task's
verified query again after accepting that query's metric."""

from __future__ import annotations

import datetime as dt
import sqlite3

from rdflib import RDF

from evoonto.builder import build
from evoonto.builder.verified import as_verified, mine_verified
from evoonto.namespaces import EVO
from evoonto.ontology import Ontology
from evoonto.resources import vocab_graph
from evoonto.sources import open_source

SQL = ("SELECT o.customer, SUM(l.price * l.quantity) FROM lines AS l JOIN orders AS o "
       "ON l.order_id = o.order_id WHERE l.minutes > 300 GROUP BY o.customer")


def test_a_named_filter_is_mined_beside_a_metric_term_that_already_exists(tmp_path):
    db = tmp_path / "shop.sqlite"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer TEXT);
        CREATE TABLE lines (line_id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders(order_id),
                            price REAL, quantity INTEGER, minutes INTEGER);
        INSERT INTO orders VALUES (1, 'Ann'), (2, 'Bob');
        INSERT INTO lines VALUES (1, 1, 2.5, 2, 100), (2, 1, 1.0, 5, 400), (3, 2, 3.0, 1, 500);
    """)
    con.commit()
    con.close()
    result = build([db], None, validate=False)
    onto = Ontology.from_graphs({**result.graphs, "vocab": vocab_graph()}, base_iri=result.base_iri)
    source = open_source(str(db))
    at = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)
    try:
        first = mine_verified(as_verified([{"question": "What is the revenue per customer?", "sql": SQL.replace(
            " WHERE l.minutes > 300", "")}]), source=source, catalog=onto.graph("catalog"),
            content=onto.graph("content"), iris=onto.iris, at=at)
        assert first.counts["metrics"] == 1
        content = onto.graph("content") + first.graph  # the Revenue metric exists now
        second = mine_verified(as_verified([{"question": "What is the revenue of long lines per customer?",
                                             "sql": SQL}]), source=source, catalog=onto.graph("catalog"),
                               content=content, iris=onto.iris, at=at)
    finally:
        source.close()
    assert second.counts["metrics"] == 0  # the existing metric is cited, not minted again
    assert second.counts["filters"] == 1
    (constraint,) = second.graph.subjects(RDF.type, EVO.Constraint)
    assert str(second.graph.value(constraint, EVO.condition)) == "lines.minutes > 300"
    assert str(second.graph.value(constraint, EVO.triggerKeyword)) == "long"
