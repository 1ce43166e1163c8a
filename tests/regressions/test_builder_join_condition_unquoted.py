"""Regression: the builder wrote ``evo:joinCondition`` / ``evo:joinPath`` as readable, unquoted text
(``Order Details.OrderID = Orders.OrderID``), which an agent copying it into SQL cannot run. They are
now executable SQL with identifiers quoted for the source's dialect; the join graph reads both forms."""

from __future__ import annotations

import sqlite3

from evoonto.builder.pipeline import build
from evoonto.namespaces import EVO
from evoonto.ontology import Ontology


def _db(path):
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE Orders (OrderID INTEGER PRIMARY KEY, Customer TEXT);
        CREATE TABLE "Order Details" (OrderID INTEGER REFERENCES Orders(OrderID), Product TEXT, Quantity INTEGER);
        INSERT INTO Orders VALUES (1, 'a'), (2, 'b');
        INSERT INTO "Order Details" VALUES (1, 'x', 3), (1, 'y', 1), (2, 'x', 5);
    """)
    con.commit()
    con.close()
    return path


def test_join_conditions_are_quoted_and_run(tmp_path):
    db = _db(tmp_path / "shop.sqlite")
    result = build([db])
    content = result.graphs["content"]
    conditions = {str(o) for o in content.objects(None, EVO.joinCondition)}
    assert '"Order Details"."OrderID" = "Orders"."OrderID"' in conditions
    con = sqlite3.connect(db)
    for condition in conditions | {str(o) for o in content.objects(None, EVO.joinPath)}:
        for part in condition.split("; "):
            con.execute(f'SELECT count(*) FROM "Order Details" JOIN Orders ON {part}').fetchone()
    con.close()
    from evoonto.tools.joinpaths import join_graph_of

    graph = join_graph_of(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    # the quoted condition was read back: the edge carries the Relation and its probe Evidence
    assert any({e.left, e.right} == {"Order Details", "Orders"} and e.relation and e.evidence for e in graph.edges)
