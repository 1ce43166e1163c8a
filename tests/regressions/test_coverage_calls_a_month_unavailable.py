"""Regression: the coverage tool called a month's name "unavailable".

CSV review: on incidents with an ``opened_at`` timestamp, coverage("incidents opened in March")
answered ``March unavailable``, and "June 2023" left "June" uncovered: an agent told so would
abstain, though any date column answers a month. A month's name is now covered when the ontology
maps a date or time column (which joins the phrase's ids); without one it stays uncovered.
"""

from __future__ import annotations

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools


def _tools(tmp_path, header, rows):
    data = tmp_path / "desk"
    data.mkdir()
    (data / "incidents.csv").write_text(header + "".join(rows), encoding="utf-8")
    result = build([data], None, validate=False)
    return OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))


def test_coverage_calls_a_month_unavailable(tmp_path):
    tools = _tools(tmp_path, "id,category,opened_at\n",
                   [f"{i},{('network', 'software')[i % 2]},2023-0{1 + i % 9}-1{i % 10} 10:00:00\n" for i in range(40)])
    answer = tools.coverage("incidents opened in March")
    march = next(p for p in answer["phrases"] if p["phrase"].lower() == "march")
    assert march["status"] == "supported" and any("opened_at" in i for i in march["ids"]), answer
    assert answer["status"] == "supported", answer


def test_a_month_without_a_date_column_stays_uncovered(tmp_path):
    tools = _tools(tmp_path, "id,category\n", [f"{i},{('network', 'software')[i % 2]}\n" for i in range(40)])
    answer = tools.coverage("incidents in March")
    march = next(p for p in answer["phrases"] if "march" in p["phrase"].lower())
    assert march["status"] != "supported", answer
