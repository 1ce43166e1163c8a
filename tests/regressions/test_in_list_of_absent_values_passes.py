"""``channel IN ('telex', 'pigeon')`` where no row holds either value got two Warnings, each saying
"one alternative of several; the others may match", and the check passed, although the others had been
probed too and the condition matched no row (the same SQL with ``= 'telex'`` was a Violation;
PostgreSQL review). An IN list of which a probe finds no value is now a Violation for each value; a
list with one value present keeps its Warning for the absent one."""

from __future__ import annotations

import sqlite3

import pytest

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_sql
from evoonto.tools.toolkit import OntologyTools


@pytest.fixture(scope="module")
def sales(tmp_path_factory):
    path = tmp_path_factory.mktemp("sales") / "sales.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE sale (id INTEGER PRIMARY KEY, channel TEXT, amount REAL)")
        con.executemany("INSERT INTO sale VALUES (?, ?, ?)",
                        [(i, ("retail", "online", "phone")[i % 3], float(i)) for i in range(1, 31)])
    tools = OntologyTools(Ontology.from_graphs(build([path], None, validate=False).graphs), sources={"sales": path})
    yield tools
    tools.close()


def test_in_list_of_absent_values_is_a_violation(sales):
    findings = [f for f in check_sql(sales, "SELECT COUNT(*) FROM sale WHERE channel IN ('telex', 'pigeon')")
                if f.kind == "unseen_value"]
    assert [f.severity for f in findings] == ["Violation", "Violation"], findings
    assert all("matches no row" in f.message and "may match" not in f.message for f in findings)


def test_in_list_with_a_present_value_warns_of_the_absent_one(sales):
    findings = [f for f in check_sql(sales, "SELECT COUNT(*) FROM sale WHERE channel IN ('telex', 'retail')")
                if f.kind == "unseen_value"]
    assert [f.severity for f in findings] == ["Warning"], findings
    assert "the others may match" in findings[0].message


def test_negated_in_list_of_absent_values_stays_a_warning(sales):
    findings = [f for f in check_sql(sales, "SELECT COUNT(*) FROM sale WHERE channel NOT IN ('telex', 'pigeon')")
                if f.kind == "unseen_value"]
    assert findings and all(f.severity == "Warning" for f in findings), findings


@pytest.mark.parametrize("sql", [
    "SELECT COUNT(*) FROM sale WHERE channel IN ('telex', 'pigeon') OR amount > 3",
    "SELECT SUM(CASE WHEN channel IN ('telex', 'pigeon') THEN amount ELSE 0 END) FROM sale",
    "SELECT channel IN ('telex', 'pigeon') AS odd, COUNT(*) FROM sale GROUP BY 1",
    "SELECT COUNT(*) FROM sale WHERE channel IN ('telex') OR amount > 3",
])
def test_in_list_that_is_itself_an_alternative_stays_a_warning(sales, sql):
    """Review of the first fix: an IN list under OR, in a CASE branch or computed in the SELECT list
    filters nothing by itself; a value no row holds there is a Warning, as before."""
    findings = [f for f in check_sql(sales, sql) if f.kind == "unseen_value"]
    assert findings and all(f.severity == "Warning" for f in findings), findings
