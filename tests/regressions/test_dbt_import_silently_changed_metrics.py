"""Regression (issue 31 item 1): ``evoonto import dbt`` silently changed what metrics mean. A measure's
``expr: 1`` or ``CASE`` expression was dropped (a SUM of nothing, kept only as a note), a cumulative
window became the plain total, a percentile (median) measure lost its aggregation, a time dimension
written as an expression was skipped, and a filter on another semantic model's dimension was applied
to a same-named column of the measure's table; the patch validated clean. Each is now imported as
MetricFlow computes it (checked by compiling the metric back to SQL on a SQLite warehouse) or refused
with a one-line reason.
"""

from __future__ import annotations

import sqlite3

import pytest

from evoonto.cli import main
from evoonto.imports.dbt import dbt_patch
from evoonto.tools.semantic import compile_semantic
from evoonto.workspace import Workspace

PROJECT = """
semantic_models:
  - name: orders
    model: ref('orders')
    defaults: {agg_time_dimension: ordered_on}
    entities:
      - {name: order, type: primary, expr: order_id}
      - {name: customer, type: foreign, expr: customer_id}
    dimensions:
      - {name: ordered_on, type: time, expr: "date(ordered_at)", type_params: {time_granularity: day}}
    measures:
      - {name: order_count, agg: sum, expr: 1}
      - {name: large_amount, agg: sum, expr: "case when amount > 100 then amount else 0 end"}
      - {name: median_amount, agg: median, expr: amount}
      - {name: amount, agg: sum}
  - name: customers
    model: ref('customers')
    entities:
      - {name: customer, type: primary, expr: customer_id}
    dimensions:
      - {name: channel, type: categorical}
metrics:
  - {name: orders, type: simple, type_params: {measure: order_count}}
  - {name: large_amount, type: simple, type_params: {measure: large_amount}}
  - {name: median_amount, type: simple, type_params: {measure: median_amount}}
  - {name: orders_last_7_days, type: cumulative, type_params: {measure: order_count, window: 7 days}}
  - name: web_orders
    type: simple
    type_params: {measure: order_count}
    filter: "{{ Dimension('customer__channel') }} = 'web'"
  - name: web_amount
    type: simple
    type_params: {measure: amount}
    filter: "{{ Dimension('customer__channel') }} = 'web'"
"""


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dbt_regression")
    db = tmp / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.executescript(
            "CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, channel TEXT);"
            "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id),"
            " ordered_at TEXT, amount NUMERIC(10,2));"
            "INSERT INTO customers VALUES (1,'Ann','web'),(2,'Bob','store'),(3,'Cy','web');"
            "INSERT INTO orders VALUES (1,1,'2024-01-02 09:10:00',20.5),(2,1,'2024-01-02 17:00:00',120),"
            "(3,2,'2024-02-01 08:00:00',150),(4,3,'2024-02-03 12:30:00',8),(5,2,'2024-03-09 10:00:00',42);")
    assert main(["build", "--source", str(db), "--workspace", str(tmp / "ws"), "--no-progress"]) == 0
    project = tmp / "project"
    project.mkdir()
    (project / "models.yml").write_text(PROJECT, encoding="utf-8")
    ws = Workspace.open(tmp / "ws")
    patch, summary = dbt_patch(ws.ontology, project)
    ws.commit(patch, metadata={"import": "dbt"})
    return Workspace.open(tmp / "ws"), summary, db


def _run(db, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as con:
        return con.execute(sql).fetchall()


def _metric(ws: Workspace, db, name: str, **query) -> list[tuple]:
    answer = compile_semantic(ws.ontology, {"metrics": [str(ws.iris.term("dbt", f"metric.{name}"))], **query})
    assert answer["status"] == "ok", answer
    return _run(db, answer["sql"])


@pytest.mark.slow
def test_dbt_measure_expr_1_counts_rows(imported):
    ws, summary, db = imported
    assert "orders" in summary.imported
    assert _metric(ws, db, "orders") == [(5,)]


@pytest.mark.slow
def test_dbt_case_measure_keeps_its_expression(imported):
    ws, summary, db = imported
    assert _metric(ws, db, "large_amount") == [(270,)]  # 120 + 150; the CASE is the measure, not a note


@pytest.mark.slow
def test_dbt_cumulative_window_is_refused_not_made_a_total(imported):
    ws, summary, _db = imported
    assert "cumulative window of 7 day" in summary.refused["orders_last_7_days"]
    assert not ws.ontology.query(f"ASK {{ <{ws.iris.term('dbt', 'metric.orders_last_7_days')}> ?p ?o }}")


@pytest.mark.slow
def test_dbt_percentile_is_not_left_without_aggregation(imported):
    ws, summary, _db = imported
    # SQLite has no percentile aggregate: refused with the reason, never a Metric Term with no aggregation
    assert "percentile on sqlite" in summary.refused["median_amount"]
    assert any(line.startswith("measure orders.median_amount: a percentile on sqlite") for line in summary.skipped)
    assert not ws.ontology.query("ASK { ?t a evo:Metric ; evo:hasMapping ?m . "
                                 "FILTER NOT EXISTS { ?m evo:aggregation ?a } "
                                 "FILTER NOT EXISTS { ?m evo:expression ?e } FILTER(CONTAINS(STR(?t), 'dbt')) }")


@pytest.mark.slow
def test_dbt_time_dimension_written_as_expression_is_imported(imported):
    ws, _summary, db = imported
    day = str(ws.iris.term("dbt", "orders.ordered_on"))
    assert ws.ontology.query(f"ASK {{ <{day}> a evo:TimeDimension ; "
                             "evo:hasMapping/evo:expression 'DATE(ordered_at)' }")
    answer = compile_semantic(ws.ontology, {"metrics": [str(ws.iris.term("dbt", "metric.orders"))],
                                            "dimensions": [day]})
    assert sorted(_run(db, answer["sql"])) == [("2024-01-02", 2), ("2024-02-01", 1), ("2024-02-03", 1),
                                               ("2024-03-09", 1)]


@pytest.mark.slow
def test_dbt_filter_on_another_models_dimension_reads_that_table(imported):
    ws, summary, db = imported
    web_amount = ws.iris.term("dbt", "metric.web_amount")
    rows = ws.ontology.query(f"SELECT ?f WHERE {{ <{web_amount}> evo:hasMapping/evo:filter ?f }}")
    assert [str(r["f"]) for r in rows] == ["customers.channel = 'web'"]  # not orders' own column
    assert _metric(ws, db, "web_amount") == [(148.5,)]  # orders 1, 2 (Ann) and 4 (Cy) are web customers'
    # SUM(1) over rows kept by another table's filter: no one-table expression carries it, so refused
    assert "another table" in summary.refused["web_orders"]
