"""The SQL -> semantic query translator (issue 32 item 4), moved from the benchmark into the package:
evoonto/tools/semantic_from_sql.py is its one home (benchmarks/semantic_query_bench.py imports it)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from evoonto.errors import EvoontoError
from evoonto.tools.resolve import IdCodec
from evoonto.tools.semantic import compile_semantic
from evoonto.tools.semantic_from_sql import NotExpressible, metric_specs, translate_sql
from fixtures.evolution_toy import toy_ontology

ROOT = Path(__file__).resolve().parents[1]


def test_a_grouped_count_with_a_filter_translates_and_compiles_back():
    onto = toy_ontology()
    query = translate_sql(onto, "SELECT Country, count(*) FROM singer WHERE Age > 30 GROUP BY Country")
    assert query == {"metrics": [{"aggregate": "count", "of": "source/toy/table/singer"}],
                     "dimensions": ["term/toy/singer-country"],
                     "filters": [{"term": "term/toy/singer-age", "op": ">", "value": 30}]}
    answer = compile_semantic(onto, query, codec=IdCodec(onto.base_iri))
    assert answer["status"] == "ok" and "GROUP BY" in answer["sql"] and '"Age" > 30' in answer["sql"]


@pytest.mark.parametrize("sql, piece", [
    ("SELECT sum(Age * 2) FROM singer", "an expression (Mul) where a column is needed"),
    ("SELECT Name FROM singer LIMIT 2 OFFSET 1", "OFFSET"),
    ("SELECT Name FROM nowhere", "unknown table nowhere"),
])
def test_what_a_semantic_query_cannot_say_is_one_line_naming_the_piece(sql, piece):
    with pytest.raises(NotExpressible) as caught:
        translate_sql(toy_ontology(), sql)
    assert isinstance(caught.value, EvoontoError) and str(caught.value) == piece


def test_metric_specs_walks_having_order_formulas_and_sub_queries():
    query = {"metrics": ["term/x/revenue", {"formula": "a / b", "inputs": {"a": {"term": "t", "aggregate": "sum"},
                                                                         "b": {"aggregate": "count", "of": "u"}}}],
             "filters": [{"metric": {"term": "t", "aggregate": "avg"}, "op": ">", "value": 1},
                         {"term": "k", "op": "in", "value": {"query": {"metrics": ["term/x/cost"]}}}],
             "order": [{"metric": "term/x/revenue", "desc": True}]}
    specs = metric_specs(query)
    assert "term/x/revenue" in specs and "term/x/cost" in specs
    assert {"term": "t", "aggregate": "avg"} in specs and {"aggregate": "count", "of": "u"} in specs


def test_the_benchmark_uses_the_packaged_translator():
    path = ROOT / "benchmarks" / "semantic_query_bench.py"
    spec = importlib.util.spec_from_file_location("semantic_query_bench", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    from evoonto.tools import semantic_from_sql

    assert bench.Translator is semantic_from_sql.Translator and bench.Lookup is semantic_from_sql.Lookup
    assert bench.NotExpressible is semantic_from_sql.NotExpressible


def test_auto_joins_keep_a_join_that_only_restricts_rows(tmp_path):
    """Regression (Spider pets_1, dog_kennels, poker_player ...): with ``auto_joins`` the translator
    dropped every join of the SQL and left routes to the compiler, so a table joined only to keep the
    rows that have a match (``singer JOIN singer_in_concert``, nothing selected from it) vanished and
    the compiled query answered "every singer" instead of "singers in a concert". Such joins are now
    kept; a join whose both tables the query uses is still left to the compiler."""
    from evoonto.builder import build
    from evoonto.ontology import Ontology

    db = ROOT / "evoonto" / "data" / "concert_singer" / "concert_singer.sqlite"
    result = build([db], None, validate=False)
    onto, codec = Ontology.from_graphs(result.graphs), IdCodec(result.base_iri)
    restricting = translate_sql(onto, "SELECT DISTINCT T1.Name FROM singer AS T1 JOIN singer_in_concert AS T2 "
                                      "ON T1.Singer_ID = T2.Singer_ID", codec=codec, auto_joins=True)
    assert restricting.get("joins"), restricting
    answer = compile_semantic(onto, restricting, codec=codec)
    assert answer["status"] == "ok" and "singer_in_concert" in answer["sql"], answer
    both_used = translate_sql(onto, "SELECT T1.Name, T2.concert_ID FROM singer AS T1 JOIN singer_in_concert AS T2 "
                                    "ON T1.Singer_ID = T2.Singer_ID", codec=codec, auto_joins=True)
    assert "joins" not in both_used, both_used
