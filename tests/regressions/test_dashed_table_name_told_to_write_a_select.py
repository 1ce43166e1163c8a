"""Regression: a bare table name with a dash got "write one SELECT statement" as its fix.

CSV review: with CSV files named ``flag-1.csv`` (table ``flag-1``), ``SELECT COUNT(*) FROM flag-1``
failed to parse and check_sql suggested "write one SELECT statement", which it was. A catalog name
that needs quoting, written bare in SQL that does not parse, is now named, with its quoted form as
the suggestion.
"""

from __future__ import annotations

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_sql


def test_dashed_table_name_told_to_write_a_select(tmp_path):
    data = tmp_path / "flags"
    data.mkdir()
    (data / "flag-1.csv").write_text("id,state\n1,New\n2,Closed\n", encoding="utf-8")
    result = build([data], None, validate=False)
    onto = Ontology.from_graphs(result.graphs, base_iri=result.base_iri)
    [found] = check_sql(onto, "SELECT COUNT(*) FROM flag-1")
    assert found.kind == "parse_error" and found.suggestion == '"flag-1"', found
    assert "'flag-1' must be quoted" in found.message, found.message
    assert check_sql(onto, 'SELECT COUNT(*) FROM "flag-1"') == []
