"""Regression: a value the question named was dropped when its column was only named tersely.

The compact answer gives full lines (``"t"."c" TYPE = 'value' -- meaning``) to the best matches and
names the other candidates in one line per table, ``"t"("a", "b")``. A column whose value the
question named ("research" → ``department = 'Research'``) but which ranked after the full lines
lost its value there, so at small budgets the value never reached the agent (issue 33: "carry
matched values inside the compact lines, so values survive small budgets"). The table's line now
writes it as ``"department" = 'Research'``, and the linking scorer still reads every listed column.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from evoonto.builder.pipeline import build
from evoonto.evaluation.linking import recognise, value_surfaced
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools

QUESTION = "average salary of employees hired after 2000 in research"


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    db = tmp_path_factory.mktemp("hr") / "hr.sqlite"
    con = sqlite3.connect(db)
    notes = ", ".join(f"note_{i} TEXT" for i in range(12))
    con.execute("CREATE TABLE employee (employee_id INTEGER PRIMARY KEY, name TEXT, salary REAL, "
                f"hire_year INTEGER, department TEXT, {notes})")
    con.executemany(f"INSERT INTO employee VALUES (?, ?, ?, ?, ?{', ?' * 12})",
                    [(i, f"n{i}", 1000.0 + i, 1990 + i % 30, ["Sales", "Research", "Legal"][i % 3], *["x"] * 12)
                     for i in range(1, 90)])
    con.commit()
    con.close()
    result = build([str(db)], base_iri="https://example.org/hr/", documentation=False)
    return OntologyTools(Ontology.from_graphs(dict(result.graphs), base_iri=result.base_iri))


def test_terse_line_drops_the_named_value(tools):
    hits = tools.browse(QUESTION, format="compact", budget=300)
    terse = [h["label"] for h in hits if h["label"].startswith('"employee"(')]
    assert terse, hits
    assert "\"department\" = 'Research'" in terse[0]
    assert value_surfaced("Research", str(hits))
    # columns no query word named a value of stay bare names
    assert '"salary",' in terse[0] or '"salary")' in terse[0]
    # every listed column is still read off the line
    schema = {"employee": ["employee_id", "name", "salary", "hire_year", "department"]}
    _tables, columns = recognise(terse, schema)
    assert {("employee", "department"), ("employee", "salary"), ("employee", "employee_id")} <= columns


def test_listing_with_a_literal_holding_quotes_and_commas():
    line = "\"t\"(\"a\", \"b\" = 'x, \"c\"''y', \"d\")"
    _tables, columns = recognise([line], {"t": ["a", "b", "c", "d"]})
    assert columns == {("t", "a"), ("t", "b"), ("t", "d")}  # "c" inside the literal is no column


def test_long_terse_value_pushed_its_column_out(tmp_path):
    """A value too long to fit beside its column in the table's line ended the answer (review of
    this change): the column is named bare when only that fits, and a value's line break folds."""
    db = tmp_path / "hr.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE employee (employee_id INTEGER PRIMARY KEY, name TEXT, salary REAL, "
                "hire_year INTEGER, department TEXT)")
    long_name = "Research\nand " + "x" * 60
    con.executemany("INSERT INTO employee VALUES (?, ?, ?, ?, ?)",
                    [(i, f"n{i}", 1000.0 + i, 1990 + i % 30, [long_name, "Sales"][i % 2]) for i in range(1, 60)])
    con.commit()
    con.close()
    result = build([str(db)], base_iri="https://example.org/hr/", documentation=False)
    tools = OntologyTools(Ontology.from_graphs(dict(result.graphs), base_iri=result.base_iri))
    schema = {"employee": ["employee_id", "name", "salary", "hire_year", "department"]}
    for budget in range(200, 420, 7):
        hits = tools.browse("average salary of employees hired after 2000 in research", format="compact",
                            budget=budget)
        assert len(json.dumps(hits, ensure_ascii=False, separators=(",", ":"))) <= budget or len(hits) == 1
        assert all("\n" not in h["label"] for h in hits)
        _tables, columns = recognise([h["label"] for h in hits], schema)
        if budget >= 300:
            assert ("employee", "department") in columns, (budget, hits)
