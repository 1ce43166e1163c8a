"""``evoonto import dbt`` keeps what metrics mean (issue 31 item 1).

The project (tests/data/dbt_shop, written for these tests with the MetricFlow constructs of the public
jaffle-sl-template) is parsed by dbt-semantic-interfaces; every metric of its semantic manifest is
either imported or refused with a one-line reason, and every imported metric, compiled back to SQL by
evoonto's semantic query compiler, gives the value MetricFlow's query gives on the same DuckDB data
(the reference SQL below is written by hand the way MetricFlow renders each metric: the filter as a
WHERE, ``fill_nulls_with`` as COALESCE, a ratio as ``CAST(n AS DOUBLE) / CAST(NULLIF(d, 0) AS DOUBLE)``,
percentiles as its DuckDB renderer writes them).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from rdflib import URIRef

from evoonto.cli import main
from evoonto.imports.dbt import DbtImportError, dbt_patch, read_dbt_files, read_semantic_manifest
from evoonto.sources import open_source
from evoonto.tools.semantic import compile_semantic
from evoonto.workspace import Workspace

PROJECT = Path(__file__).parent / "data" / "dbt_shop"
SEEDS = PROJECT / "seeds"

#: metric -> the SQL MetricFlow's query for the metric alone computes (DuckDB), written by hand
REFERENCE = {
    "order_total": "SELECT SUM(order_total) FROM orders",
    "orders": "SELECT SUM(1) FROM orders",
    "large_order": "SELECT SUM(1) FROM orders WHERE order_total >= 20",
    "food_orders": "SELECT SUM(1) FROM orders WHERE is_food_order = true",
    "orders_since_february": "SELECT SUM(1) FROM orders WHERE CAST(ordered_at AS DATE) >= '2024-02-01'",
    "tax_paid": "SELECT SUM(tax_paid) FROM orders",
    "largest_order": "SELECT MAX(order_total) FROM orders",
    "median_order_total": "SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY (order_total)) FROM orders",
    "customers_with_orders": "SELECT COUNT(DISTINCT customer_id) FROM orders",
    "new_customer": "SELECT COUNT(DISTINCT o.customer_id) FROM orders o LEFT JOIN customers c "
                    "ON o.customer_id = c.customer_id WHERE c.customer_type = 'new'",
    "order_cost": "SELECT SUM(order_cost) FROM orders",
    "revenue": "SELECT COALESCE(SUM(product_price), 0) FROM order_items",
    "food_revenue": "SELECT SUM(CASE WHEN is_food_item = 1 THEN product_price ELSE 0 END) FROM order_items",
    "drink_revenue": "SELECT SUM(CASE WHEN is_drink_item THEN product_price ELSE 0 END) FROM order_items",
    "median_revenue": "SELECT approx_quantile(product_price, 0.5) FROM order_items",
    "p90_revenue": "SELECT PERCENTILE_DISC(0.9) WITHIN GROUP (ORDER BY (product_price)) FROM order_items",
    "p90_non_food_item_price": "SELECT PERCENTILE_DISC(0.9) WITHIN GROUP (ORDER BY (product_price)) "
                               "FROM order_items WHERE is_food_item = 0",
    "items": "SELECT COUNT(order_item_id) FROM order_items",
    "drink_items": "SELECT SUM(CASE WHEN is_drink_item THEN 1 ELSE 0 END) FROM order_items",
    "average_revenue": "SELECT AVG(product_price) FROM order_items",
    "refunds": "SELECT SUM(refund_amount) FROM item_returns",
    "tax_rate": "SELECT CAST(SUM(tax_paid) AS DOUBLE) / CAST(NULLIF(SUM(order_total), 0) AS DOUBLE) FROM orders",
    "tax_rate_large_orders": "SELECT CAST(SUM(tax_paid) AS DOUBLE) / CAST(NULLIF(SUM(order_total), 0) AS DOUBLE) "
                             "FROM orders WHERE order_total >= 20",
    "food_revenue_pct": "SELECT CAST(f AS DOUBLE) / CAST(NULLIF(r, 0) AS DOUBLE) FROM "
                        "(SELECT SUM(CASE WHEN is_food_item = 1 THEN product_price ELSE 0 END) AS f FROM order_items), "
                        "(SELECT COALESCE(SUM(product_price), 0) AS r FROM order_items)",
    "food_item_share": "SELECT CAST(n AS DOUBLE) / CAST(NULLIF(d, 0) AS DOUBLE) FROM "
                       "(SELECT COUNT(order_item_id) AS n FROM order_items WHERE is_food_item = 1), "
                       "(SELECT COUNT(order_item_id) AS d FROM order_items)",
    "food_minus_drink": "SELECT food - drink FROM "
                        "(SELECT SUM(CASE WHEN is_food_item = 1 THEN product_price ELSE 0 END) AS food "
                        "FROM order_items), "
                        "(SELECT SUM(CASE WHEN is_drink_item THEN product_price ELSE 0 END) AS drink FROM order_items)",
}

#: metric -> words its refusal must name (what MetricFlow does that evoonto cannot carry)
REFUSED = {
    "orders_last_7_days": "cumulative window of 7 day",
    "orders_month_to_date": "month-to-date",
    "cumulative_revenue": "all-time",
    "revenue_growth_mom": "offset by 1 month",
    "order_gross_profit": "inputs on two tables",
    "orders_fill_nulls_with_zero": "join_to_timespine",
    "twice_orders_fill_nulls_with_0": "input orders_fill_nulls_with_zero: join_to_timespine",
    "orders_by_day_filter": "TimeDimension('order_id__ordered_at', 'day')",
    "items_returned_within_a_week": "conversion metric",
}


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> tuple[Workspace, object]:
    """The dbt_shop seeds built into a workspace (a DuckDB files source) and the project imported."""
    path = tmp_path_factory.mktemp("dbt_shop") / "ws"
    assert main(["build", "--source", str(SEEDS), "--workspace", str(path), "--no-progress"]) == 0
    ws = Workspace.open(path)
    patch, summary = dbt_patch(ws.ontology, PROJECT)
    ws.commit(patch, metadata={"import": "dbt"})
    return Workspace.open(path), summary


def test_manifest_is_parsed_by_dbt_semantic_interfaces():
    manifest = read_semantic_manifest(read_dbt_files(PROJECT))
    metrics = {m.name: m for m in manifest.metrics}
    # dsi's transformations ran: create_metric made a metric; count and median were rewritten
    assert "average_revenue" in metrics
    items = metrics["items"].type_params.metric_aggregation_params
    assert str(items.agg.value) == "sum" and "is not null" in metrics["items"].type_params.expr.lower()
    median = metrics["median_order_total"].type_params.metric_aggregation_params
    assert str(median.agg.value) == "percentile" and median.agg_params.percentile == 0.5
    # dbt-core's shorthand for metric inputs is read as dbt-core reads it
    assert metrics["tax_rate"].type_params.numerator.name == "tax_paid"


def test_a_project_dbt_semantic_interfaces_refuses_is_one_line(tmp_path):
    (tmp_path / "m.yml").write_text("metrics:\n  - name: sideways\n    type: sideways\n    type_params: {}\n",
                                    encoding="utf-8")
    with pytest.raises(DbtImportError) as err:
        read_semantic_manifest(read_dbt_files(tmp_path))
    assert "m.yml" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.slow
def test_every_metric_is_imported_or_refused_none_silently(shop):
    ws, summary = shop
    manifest = read_semantic_manifest(read_dbt_files(PROJECT))
    public = {m.name for m in manifest.metrics if not m.type_params.is_private}
    imported, refused = set(summary.imported), set(summary.refused)
    assert not imported & refused
    assert imported | refused == public  # 0 silent changes: each metric is one or the other
    assert refused == set(REFUSED) and imported == set(REFERENCE)
    for name, words in REFUSED.items():
        assert words in summary.refused[name], (name, summary.refused[name])
        assert f"metric {name}: {summary.refused[name]}" in summary.skipped
    assert all("\n" not in line for line in summary.skipped)
    # a refused metric leaves nothing behind
    for name in REFUSED:
        assert not ws.ontology.query(f"ASK {{ <{ws.iris.term('dbt', f'metric.{name}')}> ?p ?o }}")


def _value(rows: list) -> float:
    assert len(rows) == 1 and len(rows[0]) == 1, rows
    return float(rows[0][0])


@pytest.mark.slow
def test_imported_metrics_compile_to_metricflow_values(shop):
    ws, summary = shop
    with open_source(SEEDS) as src:
        for name in summary.imported:
            term = str(ws.iris.term("dbt", f"metric.{name}"))
            answer = compile_semantic(ws.ontology, {"metrics": [term]})
            assert answer["status"] == "ok", (name, answer)
            got, want = _value(src.run(answer["sql"]).rows), _value(src.run(REFERENCE[name]).rows)
            assert math.isclose(got, want, rel_tol=1e-9), (name, got, want, answer["sql"])


@pytest.mark.slow
def test_time_dimension_written_as_expression_groups_as_metricflow(shop):
    ws, _summary = shop
    day = str(ws.iris.term("dbt", "order_item.ordered_at"))
    rows = ws.ontology.query(f"SELECT ?e WHERE {{ <{day}> a evo:TimeDimension ; evo:hasMapping/evo:expression ?e }}")
    assert [str(r["e"]) for r in rows] == ["CAST(ordered_at AS DATE)"]
    metric = str(ws.iris.term("dbt", "metric.food_revenue_pct"))
    answer = compile_semantic(ws.ontology, {"metrics": [metric], "dimensions": [day]})
    assert answer["status"] == "ok", answer
    reference = ("SELECT CAST(ordered_at AS DATE), CAST(SUM(CASE WHEN is_food_item = 1 THEN product_price ELSE 0 END) "
                 "AS DOUBLE) / CAST(NULLIF(COALESCE(SUM(product_price), 0), 0) AS DOUBLE) FROM order_items GROUP BY 1")
    with open_source(SEEDS) as src:
        got = {str(d): v for d, v in src.run(answer["sql"]).rows}
        want = {str(d): v for d, v in src.run(reference).rows}
    assert got.keys() == want.keys() and len(got) > 20
    assert all(math.isclose(got[d], want[d], rel_tol=1e-9) for d in want)


@pytest.mark.slow
def test_composite_entity_key_becomes_the_join_condition(shop):
    ws, summary = shop
    rows = ws.ontology.query("SELECT ?j WHERE { ?r evo:relationType evo:Association ; evo:joinCondition ?j }")
    joins = {str(r["j"]) for r in rows}
    assert ("CONCAT(item_returns.order_id, '-', item_returns.line_number) = "
            "CONCAT(order_items.order_id, '-', order_items.line_number)") in joins
    assert "orders.customer_id = customers.customer_id" in joins
    # a foreign entity no semantic model owns is said, not dropped silently
    assert "entity orders.location: no semantic model has it as its primary entity; no join imported" in summary.skipped
    refunds = URIRef(ws.iris.term("dbt", "metric.refunds"))  # the returns' own metric is imported
    assert ws.ontology.query(f"ASK {{ <{refunds}> a evo:Metric }}")


def _metricflow_engine(con):
    """MetricFlow's engine over the dbt_shop manifest (MetricFlow's own copy of the semantic interfaces,
    fed the YAML documents evoonto's import parses), rendering SQL for DuckDB; a time spine table is
    added to ``con`` (MetricFlow needs one)."""
    import yaml
    from metricflow.engine.metricflow_engine import MetricFlowEngine
    from metricflow.protocols.sql_client import SqlEngine
    from metricflow.sql.render.duckdb_renderer import DuckDbSqlPlanRenderer
    from metricflow_semantic_interfaces.parsing.dir_to_model import (
        parse_yaml_files_to_validation_ready_semantic_manifest,
    )
    from metricflow_semantic_interfaces.parsing.objects import YamlConfigFile
    from metricflow_semantics.model.semantic_manifest_lookup import SemanticManifestLookup

    from evoonto.imports.dbt import semantic_yaml_documents

    spine = {"node_relation": {"alias": "time_spine", "schema_name": "main"},
             "primary_column": {"name": "date_day", "time_granularity": "day"}}
    files = [YamlConfigFile(filepath=path, contents=text)
             for path, text in semantic_yaml_documents(read_dbt_files(PROJECT), schema_name="main")]
    files.append(YamlConfigFile(filepath="project_configuration.yml",
                                contents=yaml.safe_dump({"project_configuration": {"time_spines": [spine]}})))
    manifest = parse_yaml_files_to_validation_ready_semantic_manifest(files).semantic_manifest
    con.execute("CREATE TABLE time_spine AS SELECT CAST(d AS DATE) AS date_day FROM "
                "range(DATE '2023-12-01', DATE '2024-06-01', INTERVAL 1 DAY) t(d)")

    class DuckDbExplainClient:  # explain() only renders SQL; it is run on ``con`` below
        sql_engine_type = SqlEngine.DUCKDB
        sql_plan_renderer = DuckDbSqlPlanRenderer()

        def render_bind_parameter_key(self, key: str) -> str:
            return "$" + key

        def close(self) -> None:
            pass

    return MetricFlowEngine(SemanticManifestLookup(manifest), DuckDbExplainClient())


@pytest.mark.slow
def test_imported_metrics_equal_metricflow_on_duckdb(shop):
    """The round trip: each imported metric compiled by evoonto gives MetricFlow's own number (its
    engine renders the SQL for DuckDB, both run on the same seeds), alone and by the day of a time
    dimension written as an expression."""
    pytest.importorskip("metricflow")
    import duckdb
    from metricflow.engine.metricflow_engine import MetricFlowQueryRequest

    ws, summary = shop
    con = duckdb.connect()
    for csv in sorted(SEEDS.glob("*.csv")):
        con.execute(f"CREATE TABLE {csv.stem} AS SELECT * FROM read_csv('{csv}', header = true)")
    engine = _metricflow_engine(con)

    def metricflow(metric: str, group_by: list[str] | None = None) -> list[tuple]:
        request = MetricFlowQueryRequest.create(metric_names=[metric], group_by_names=group_by)
        return con.execute(engine.explain(request).sql_statement.sql).fetchall()

    with open_source(SEEDS) as src:
        for name in summary.imported:
            answer = compile_semantic(ws.ontology, {"metrics": [str(ws.iris.term("dbt", f"metric.{name}"))]})
            got, want = _value(src.run(answer["sql"]).rows), _value(metricflow(name))
            assert math.isclose(got, want, rel_tol=1e-9), (name, got, want)
        day = str(ws.iris.term("dbt", "order_item.ordered_at"))
        for name in ("food_revenue_pct", "revenue", "food_item_share"):
            answer = compile_semantic(ws.ontology, {"metrics": [str(ws.iris.term("dbt", f"metric.{name}"))],
                                                    "dimensions": [day]})
            got = {str(d)[:10]: v for d, v in src.run(answer["sql"]).rows}
            want = {str(d)[:10]: v for d, v in metricflow(name, ["order_item__ordered_at__day"])}
            assert got.keys() == want.keys() and len(want) > 20, name
            assert all(_same(got[d], want[d]) for d in want), (name, {d: (got[d], want[d]) for d in want})


def _same(got, want) -> bool:
    """Equal numbers (to 1e-9 relative) or both NULL."""
    return got is None and want is None or None not in (got, want) and math.isclose(got, want, rel_tol=1e-9)


@pytest.mark.slow
def test_metric_input_loops_chains_and_doublings_are_refused_quickly(shop, tmp_path):
    """Hostile nesting: a loop, a chain 60 deep and an input read twice at each of 30 levels (a billion
    paths) are refused before dbt-semantic-interfaces follows them; what is within bounds is imported."""
    import time

    ws, _summary = shop
    lines = ["semantic_models:", "  - name: order_rows", "    model: ref('orders')",
             "    measures: [{name: amount, agg: sum, expr: order_total}]",
             "metrics:", "  - {name: c0, type: simple, type_params: {measure: amount}}",
             "  - {name: loop_a, type: derived, type_params: {expr: loop_b, metrics: [loop_b]}}",
             "  - {name: loop_b, type: derived, type_params: {expr: loop_a, metrics: [loop_a]}}"]
    lines += [f"  - {{name: c{n}, type: derived, type_params: {{expr: 'x + 1', "
              f"metrics: [{{name: c{n - 1}, alias: x}}]}}}}" for n in range(1, 61)]
    lines += ["  - {name: d0, type: simple, type_params: {measure: amount}}"]
    lines += [f"  - {{name: d{n}, type: derived, type_params: {{expr: 'x + y', metrics: "
              f"[{{name: d{n - 1}, alias: x}}, {{name: d{n - 1}, alias: y}}]}}}}" for n in range(1, 31)]
    (tmp_path / "m.yml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    started = time.monotonic()
    _patch, summary = dbt_patch(ws.ontology, tmp_path)
    assert time.monotonic() - started < 60
    assert "loop" in summary.refused["loop_a"] and "loop" in summary.refused["loop_b"]
    assert "c50" in summary.imported and "50 metrics deep" in summary.refused["c51"]
    assert "d5" in summary.imported and "d30" in summary.refused
    assert set(summary.imported) | set(summary.refused) == {"c0", "d0", "loop_a", "loop_b"} | \
        {f"c{n}" for n in range(1, 61)} | {f"d{n}" for n in range(1, 31)}
