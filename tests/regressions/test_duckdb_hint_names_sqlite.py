"""Regression: on a CSV (DuckDB) source, an unknown double-quoted name got a hint about SQLite.

CSV review: ``WHERE priority = "1 - Critical"`` on a folder of CSV files said "(SQLite would read the
double-quoted name as a string)": the source is DuckDB, which reads it as a column name. The hint
now says what the dialect does: double quotes name a column, a text value takes single quotes.
"""

from __future__ import annotations

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_sql


def test_duckdb_hint_names_sqlite(tmp_path):
    data = tmp_path / "desk"
    data.mkdir()
    (data / "incidents.csv").write_text("id,priority\n" + "".join(
        f"{i},{('1 - Critical', '2 - High')[i % 2]}\n" for i in range(20)), encoding="utf-8")
    result = build([data], None, validate=False)
    onto = Ontology.from_graphs(result.graphs, base_iri=result.base_iri)
    found = [f for f in check_sql(onto, 'SELECT id FROM incidents WHERE priority = "1 - Critical"')
             if f.kind == "unknown_column"]
    assert found and "SQLite" not in found[0].message, found
    assert "a text value takes single quotes" in found[0].message, found[0].message
