"""A join the data contradicts was still guessed from the names.

``transactions.CustomerID`` is named like ``customers.CustomerID``, the customers' key, but none of
its values is a customer's id (it counts another system's customers). The builder's inclusion probe
saw that and dropped the candidate, but kept no record of it, so the join graph guessed the join from
the names anyway (origin ``name``): join paths and compact browse offered a join that matches no row.
The probe's Evidence is now kept with ``evo:refutesJoin`` (the condition), and the join graph does not
guess a refuted join. A join whose values mostly occur is still guessed or probed as before.
"""

from __future__ import annotations

import sqlite3

from dataclasses import replace

from rdflib import Graph, Literal

from evoonto.builder import build
from evoonto.namespaces import EVO, PROV
from evoonto.ontology import Ontology
from evoonto.records import Evidence
from evoonto.iris import IriFactory
from evoonto.sources import open_source
from evoonto.sources.joins import REFUTED_BELOW, probe_joins
from evoonto.tools.joinpaths import JoinGraph
from evoonto.tools.sqlcheck import check_sql


def _shop(path):
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE customers (CustomerID INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE orders (OrderID INTEGER PRIMARY KEY, CustomerID INTEGER, total REAL);
            CREATE TABLE transactions (TransactionID INTEGER PRIMARY KEY, CustomerID INTEGER, amount REAL);
        """)
        con.executemany("INSERT INTO customers VALUES (?, ?)", [(i, f"c{i}") for i in range(1, 21)])
        con.executemany("INSERT INTO orders VALUES (?, ?, ?)", [(i, 1 + i % 20, 10.0) for i in range(1, 41)])
        con.executemany("INSERT INTO transactions VALUES (?, ?, ?)",
                        [(i, 5000 + i, 1.0) for i in range(1, 41)])  # no customer id among them
    return path


def _joined(graph: JoinGraph, a: str, b: str) -> list[str]:
    return [e.origin for e in graph.edges if {e.left, e.right} == {a, b}]


def test_join_refuted_by_its_probe_is_not_guessed_from_names(tmp_path):
    result = build([_shop(tmp_path / "shop.sqlite")], None)
    assert result.validation is None or result.validation.conforms
    content = result.graphs["content"]
    refutations = [str(o) for o in content.objects(None, EVO.refutesJoin)]
    assert len(refutations) == 1 and "transactions" in refutations[0] and "customers" in refutations[0]
    (evidence,) = content.subjects(EVO.refutesJoin, None)
    assert content.value(evidence, PROV.wasGeneratedBy) is not None  # the probe that saw it
    graph = JoinGraph.from_ontology(Ontology.from_graphs(result.graphs))
    assert _joined(graph, "transactions", "customers") == []
    assert _joined(graph, "orders", "customers")  # its values occur: still joined


def test_stale_refutation_no_longer_holds_the_guess_back(tmp_path):
    result = build([_shop(tmp_path / "shop.sqlite")], None, validate=False)
    content = result.graphs["content"]
    (evidence,) = content.subjects(EVO.refutesJoin, None)
    content.add((evidence, PROV.invalidatedAtTime, Literal("2026-12-04T00:00:00Z")))  # as drift marks it
    graph = JoinGraph.from_ontology(Ontology.from_graphs(result.graphs))
    assert _joined(graph, "transactions", "customers") == ["name"]


def test_probe_joins_returns_the_refuted_candidate_with_its_measurement(tmp_path):
    with open_source(str(_shop(tmp_path / "shop.sqlite"))) as src:
        found = probe_joins(src, IriFactory("https://example.org/shop/"))
    assert [(j.child, j.parent) for j in found.refuted] == [("transactions", "customers")]
    (refuted,) = found.refuted
    assert refuted.inclusion == 0.0 < REFUTED_BELOW and refuted.evidence is not None
    assert ("orders", "customers") in {(j.child, j.parent) for j in found.joins}
    record = replace(refuted.evidence, refutes_join=refuted.condition(quoted=True))
    back = Evidence.from_graph(record.to_graph(Graph()), record.iri)
    assert back.refutes_join == '"transactions"."CustomerID" = "customers"."CustomerID"'


def test_check_sql_says_the_probe_refuted_the_join(tmp_path):
    ontology = Ontology.from_graphs(build([_shop(tmp_path / "shop.sqlite")], None, validate=False).graphs)
    findings = check_sql(ontology, "SELECT c.name, SUM(t.amount) FROM transactions t "
                                   "JOIN customers c ON t.CustomerID = c.CustomerID GROUP BY c.name")
    unknown = [f for f in findings if f.kind == "unknown_join"]
    assert len(unknown) == 1 and unknown[0].severity == "Warning"
    assert "evo:refutesJoin" in unknown[0].message
    fine = check_sql(ontology, "SELECT c.name, COUNT(*) FROM orders o JOIN customers c ON o.CustomerID = c.CustomerID "
                               "GROUP BY c.name")
    assert not [f for f in fine if f.kind == "unknown_join"]
