"""A join the data contradicts was still guessed from the names.

``transactions.CustomerID`` is named like ``customers.CustomerID``, the customers' key, but none of
its values is a customer's id (it counts another system's customers). The builder's inclusion probe
saw that and dropped the candidate, but kept no record of it, so the join graph guessed the join from
the names anyway (origin ``name``): join paths and compact browse offered a join that matches no row.
The probe's Evidence is now kept with ``evo:refutesJoin`` (the condition), and the join graph does not
guess a refuted join. Only "no value matched" refutes (a key with orphan rows is still a join), only
where the probe compared the columns as the database's join would (no cast to text), only in the
source probed, stamped with the build's clock, and a drift check that finds a match lifts it.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

from dataclasses import replace

from rdflib import Graph, Literal

from evoonto.builder import build, write_workspace
from evoonto.drift import run_drift
from evoonto.namespaces import EVO, PROV
from evoonto.ontology import Ontology
from evoonto.records import Evidence
from evoonto.iris import IriFactory
from evoonto.sources import open_source
from evoonto.sources.joins import probe_joins
from evoonto.tools.joinpaths import JoinGraph
from evoonto.tools.sqlcheck import check_sql
from evoonto.workspace import Workspace


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
    assert result.validation is not None and result.validation.conforms
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
    assert refuted.inclusion == 0.0 and refuted.matched == 0 and refuted.evidence is not None
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


def _orders_with_orphans(path):
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE customers (CustomerID INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE orders (OrderID INTEGER PRIMARY KEY, CustomerID INTEGER, total REAL);
        """)
        con.executemany("INSERT INTO customers VALUES (?, ?)", [(i, f"c{i}") for i in range(1, 21)])
        rows = [(i, 1 + i % 20, 1.0) for i in range(1, 951)]  # 950 rows join
        rows += [(951 + i, 9000 + i, 1.0) for i in range(50)]  # 50 orphans, each its own id
        con.executemany("INSERT INTO orders VALUES (?, ?, ?)", rows)
    return path


def test_key_with_orphan_rows_is_not_refuted(tmp_path):
    with open_source(str(_orders_with_orphans(tmp_path / "orphans.sqlite"))) as src:
        found = probe_joins(src, IriFactory("https://example.org/orphans/"))
    assert found.refuted == []  # 20 of 70 distinct ids occur: a key with orphans, not a refuted join


def test_columns_compared_as_text_are_not_refuted(tmp_path):
    folder = tmp_path / "csv"
    folder.mkdir()
    (folder / "customers.csv").write_text("customer_id,name\n" + "".join(f"{i},c{i}\n" for i in range(1, 6)))
    (folder / "orders.csv").write_text("order_id,customer_id,total\n"
                                       + "".join(f"{i},000{1 + i % 5},10\n" for i in range(1, 11)))
    with open_source(str(folder)) as src:
        found = probe_joins(src, IriFactory("https://example.org/csv/"))
    # the probe compares '0002' and 2 as text and finds no match; the database's join finds 10 rows
    assert found.refuted == []


def test_refutation_holds_only_in_the_source_probed(tmp_path):
    legacy = _shop(tmp_path / "legacy.sqlite")
    store = tmp_path / "store.sqlite"
    store.write_bytes(legacy.read_bytes())
    with sqlite3.connect(store) as con:
        con.execute("UPDATE transactions SET CustomerID = 1 + TransactionID % 20 WHERE TransactionID <= 28")
    result = build([legacy, store], None, validate=False)
    graph = JoinGraph.from_ontology(Ontology.from_graphs(result.graphs))
    assert {source for source, _pairs in graph.refuted} == {"legacy"}
    assert [e.origin for e in graph.edges if e.source == "store" and {e.left, e.right} == {"transactions", "customers"}]


def test_probes_are_stamped_with_the_build_clock(tmp_path):
    at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    content = build([_shop(tmp_path / "shop.sqlite")], None, validate=False, at=at).graphs["content"]
    (evidence,) = content.subjects(EVO.refutesJoin, None)
    assert content.value(evidence, PROV.generatedAtTime).toPython() == at


def test_drift_lifts_a_refutation_the_data_no_longer_holds(tmp_path):
    db = _shop(tmp_path / "shop.sqlite")
    write_workspace(build([db], None, validate=False), tmp_path / "ws")
    with sqlite3.connect(db) as con:
        con.execute("UPDATE transactions SET CustomerID = 1 + TransactionID % 20")  # every one a customer now
    report = run_drift(tmp_path / "ws", sources=[f"shop={db}"])
    assert any("refuted join matches now" in f.detail for f in report.findings)
    graph = JoinGraph.from_ontology(Workspace.open(tmp_path / "ws").ontology)
    assert graph.refuted == set()
    assert _joined(graph, "transactions", "customers") == ["name"]
