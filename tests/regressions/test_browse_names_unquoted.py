"""Regression (issue 19, snippets quote nothing): browse showed ``frpm.Free Meal Count (K-12)``
unquoted, so an agent copying it wrote invalid SQL. The compact answer names every column as a
dialect-quoted ``"table"."column"`` that parses as SQL."""

from __future__ import annotations

import sqlglot

from fixtures.retrieval_support import region_tools


def test_compact_lines_name_columns_ready_to_paste(tmp_path):
    tools = region_tools(tmp_path)
    lines = [h["label"] for h in tools.browse("free meal count", format="compact", budget=3000)]
    assert lines[0].startswith('"frpm"."Free Meal Count (K-12)" REAL')
    name = lines[0].split(" REAL")[0]
    select = sqlglot.parse_one(f"SELECT {name} FROM frpm", read="sqlite")
    assert [c.name for c in select.find_all(sqlglot.exp.Column)] == ["Free Meal Count (K-12)"]
    # the terse tail lists further columns by table, quoted the same way
    tight = [h["label"] for h in tools.browse("free meal count", format="compact", budget=700)]
    assert any(line.startswith('"account"("') for line in tight), tight
