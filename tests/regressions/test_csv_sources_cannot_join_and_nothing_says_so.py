"""Regression: CSV files given as separate sources could not be joined, and nothing said why.

CSV review: ``build --source incidents.csv --source sys_user.csv`` then a join of the two got
"source 'incidents' has no table 'sys_user'", though the workspace holds that table in another
source. The finding now says where the table is and that a statement reads one source (files to
join belong in one folder, built as one source).
"""

from __future__ import annotations

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_sql


def test_csv_sources_cannot_join_and_nothing_says_so(tmp_path):
    incidents, users = tmp_path / "incidents.csv", tmp_path / "sys_user.csv"
    incidents.write_text("id,assigned_to\n" + "".join(f"{i},agent {i % 3}\n" for i in range(20)), encoding="utf-8")
    users.write_text("name,department\n" + "".join(f"agent {i},IT\n" for i in range(3)), encoding="utf-8")
    result = build([incidents, users], None, validate=False)
    onto = Ontology.from_graphs(result.graphs, base_iri=result.base_iri)
    found = [f for f in check_sql(onto, "SELECT u.department, COUNT(*) FROM incidents i JOIN sys_user u "
                                        "ON i.assigned_to = u.name GROUP BY 1", source="incidents")
             if f.kind == "unknown_table"]
    assert found and "it is a table of source 'sys_user'" in found[0].message, found
