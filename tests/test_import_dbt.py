"""``evoonto import dbt``: MetricFlow semantic models and metrics of a small jaffle-shop project."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from rdflib import URIRef
from rdflib.namespace import SKOS

from evoonto.cli import main
from evoonto.workspace import Workspace

PROJECT = Path(__file__).parent / "fixtures" / "dbt_jaffle"


@pytest.fixture
def shop(tmp_path) -> Workspace:
    db = tmp_path / "jaffle.sqlite"
    with sqlite3.connect(db) as con:
        con.executescript(
            "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, channel TEXT);"
            "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id),"
            " ordered_at DATE, status TEXT, amount NUMERIC(10,2));"
            "INSERT INTO customers VALUES (1,'Ann','web'),(2,'Bob','store'),(3,'Cy','web');"
            "INSERT INTO orders VALUES (1,1,'2024-01-02','completed',20.5),(2,1,'2024-01-05','returned',12),"
            "(3,2,'2024-02-01','completed',150),(4,3,'2024-02-03','placed',8),(5,2,'2024-03-09','shipped',42);")
    assert main(["build", "--source", str(db), "--workspace", str(tmp_path / "ws"), "--no-progress"]) == 0
    return Workspace.open(tmp_path / "ws")


def q(ws: Workspace, sparql: str) -> list[dict]:
    return ws.ontology.query(sparql)


@pytest.mark.slow
def test_import_dbt_semantic_models_and_metrics(shop, capsys):
    assert main(["import", "dbt", str(PROJECT), "-w", str(shop.path)]) == 0
    out = capsys.readouterr().out
    assert "-> version 1" in out
    ws = Workspace.open(shop.path)
    term = ws.iris.term
    content = ws.ontology.graph("content")
    # primary entity: the builder's entity Term for table orders gains the dbt names and description
    entity = URIRef(q(ws, "SELECT ?t WHERE { ?t a evo:Entity ; evo:hasMapping/evo:table ?tb . "
                          "?tb dcterms:title|csvw:name 'orders' }")[0]["t"])
    assert str(content.value(entity, SKOS.definition)) == "One row per order placed in a shop."
    # measure -> Metric Term with a Mapping (column amount, SUM)
    total = term("dbt", "orders.order_total")
    rows = q(ws, f"SELECT ?agg ?c WHERE {{ <{total}> a evo:Metric ; evo:hasMapping ?m . ?m evo:aggregation ?agg ; "
                 "evo:column/csvw:name ?c }")
    assert [(str(r["agg"]), str(r["c"])) for r in rows] == [("SUM", "amount")]
    # a SQL-expression measure keeps its expression as a scope note and maps to the table only
    large = term("dbt", "orders.large_order_amount")
    assert "case when amount > 100" in str(content.value(large, SKOS.scopeNote))
    # simple metric with a filter: Mapping with the translated filter, Derivation to the measure, Constraint
    revenue = term("dbt", "metric.revenue")
    rows = q(ws, f"SELECT ?f WHERE {{ <{revenue}> evo:hasMapping ?m . ?m evo:filter ?f }}")
    assert [str(r["f"]) for r in rows] == ["status = 'completed'"]
    assert q(ws, f"ASK {{ <{revenue}> evo:derivedFrom <{total}> }}") is True
    assert q(ws, f"ASK {{ ?c a evo:Constraint ; evo:constrains <{revenue}> ; evo:condition \"status = 'completed'\" }}")
    # ratio and derived metrics: Derivation relations with formulas
    aov = term("dbt", "metric.average_order_value")
    rows = q(ws, f"SELECT ?b ?f WHERE {{ ?r a evo:Relation ; evo:relationType evo:Derivation ; "
                 f"owl:annotatedSource <{aov}> ; owl:annotatedTarget ?b ; evo:formula ?f }}")
    assert {str(r["b"]) for r in rows} == {str(revenue), str(term("dbt", "metric.orders_placed"))}
    assert {str(r["f"]) for r in rows} == {"revenue / orders_placed"}
    per_customer = term("dbt", "metric.revenue_per_customer")
    assert q(ws, f"ASK {{ <{per_customer}> evo:derivedFrom <{term('dbt', 'metric.customers')}> }}")
    # foreign entity -> Association between the orders and customers entity Terms with a join condition
    rows = q(ws, "SELECT ?j WHERE { ?r evo:relationType evo:Association ; evo:joinCondition ?j }")
    assert "orders.customer_id = customers.customer_id" in {str(r["j"]) for r in rows}
    # dimensions on columns that already have a Term: enriched (labels, description), not duplicated
    status_terms = q(ws, "SELECT DISTINCT ?t WHERE { ?t evo:hasMapping ?m . ?m evo:column/csvw:name 'status' "
                         "FILTER NOT EXISTS { ?m evo:filter ?f } FILTER NOT EXISTS { ?t a evo:Metric } }")
    assert len(status_terms) == 1
    status = URIRef(status_terms[0]["t"])
    assert str(content.value(status, SKOS.definition)).startswith("Where the order is in its life")
    channel = q(ws, "SELECT ?t WHERE { ?t evo:hasMapping/evo:column/csvw:name 'channel' }")
    assert "signup channel" in {str(o) for o in content.objects(URIRef(channel[0]["t"]), SKOS.altLabel)}
    # the whole import is one patch that validates and can be rolled back
    assert main(["rollback", "0", "-w", str(ws.path)]) == 0
    assert not Workspace.open(ws.path).ontology.query(f"ASK {{ <{revenue}> ?p ?o }}")


def test_import_dbt_errors_are_one_line(shop, tmp_path, capsys):
    assert main(["import", "dbt", str(tmp_path / "missing"), "-w", str(shop.path)]) == 2
    assert "no such dbt project folder" in capsys.readouterr().err
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "x.yml").write_text("semantic_models: [\n", encoding="utf-8")
    assert main(["import", "dbt", str(bad), "-w", str(shop.path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evoonto: error: cannot parse") and err.count("\n") == 1
    assert Workspace.open(shop.path).version == 0
