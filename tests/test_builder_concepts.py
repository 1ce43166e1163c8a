"""Workload phrases that name nothing (issue 18.3): the offline proposer's concepts (a price ×
quantity amount, an actual-after-due date comparison, a date grain) and Claude's (a recorded reply
through the real ``anthropic`` SDK client), each kept only when its probe holds."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import anthropic
import httpx2 as httpx
import pytest
from rdflib import RDF
from rdflib.namespace import SKOS

from evoonto.builder import build
from evoonto.builder.llm import ClaudeProposer
from evoonto.namespaces import EVO

RECORDED = json.loads((Path(__file__).parent / "fixtures" / "builder_claude_concepts_response.json")
                      .read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def shipments_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("ship") / "logistics.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE shipments (shipment_id INTEGER PRIMARY KEY, unit_price REAL, qty INTEGER, "
                "weight_kg REAL, promised_by DATE, delivered_on DATE)")
    rows = [(i, 2.5 + i % 3, 1 + i % 4, 10.0 + i, f"2024-{1 + i % 12:02d}-10", f"2024-{1 + i % 12:02d}-{5 + i % 9:02d}")
            for i in range(1, 41)]
    con.executemany("INSERT INTO shipments VALUES (?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    return path


def _concepts(result) -> dict[str, tuple[str, str | None, str | None]]:
    g = result.graphs["content"]
    out = {}
    for term in g.subjects(RDF.type, EVO.Term):
        mapping = g.value(term, EVO.hasMapping)
        expression, condition = g.value(mapping, EVO.expression), g.value(mapping, EVO.filter)
        if "metric." in str(term) or "filter." in str(term) or ".grain-" in str(term):
            out[str(g.value(term, SKOS.prefLabel))] = (str(term), expression and str(expression),
                                                       condition and str(condition))
    return out


def test_offline_concepts_for_phrases_that_name_nothing(shipments_db: Path):
    questions = ["What is the monthly revenue?", "How many shipments were late?"]
    result = build([shipments_db], questions)
    concepts = _concepts(result)
    assert concepts["Revenue"][1] == "SUM(shipments.unit_price * shipments.qty)"
    assert concepts["Late"][2] == "shipments.delivered_on > shipments.promised_by"
    grains = {label for label in concepts if label.endswith("by month")}
    assert grains == {"shipment delivered on by month", "shipment promised by by month"}
    assert result.counts["concepts"] == 4 and result.validation.conforms


def test_no_concept_without_a_phrase_that_names_nothing(shipments_db: Path):
    result = build([shipments_db], ["What is the unit price of shipment 3?"])
    assert _concepts(result) == {} and result.counts.get("concepts", 0) == 0


def test_claude_concepts_are_probed_and_bad_ones_rejected(shipments_db: Path):
    def handler(request: httpx.Request) -> httpx.Response:
        assert "concepts" in json.loads(request.content)["system"]
        return httpx.Response(200, json=RECORDED)

    client = anthropic.Anthropic(api_key="sk-ant-test", max_retries=0,
                                 http_client=httpx.Client(transport=httpx.MockTransport(handler)))
    result = build([shipments_db], ["Which lanes are tardy?"], proposer=ClaudeProposer(client, "claude-sonnet-5-5"))
    concepts = _concepts(result)
    assert concepts["Turnover"][1] == "SUM(shipments.unit_price * shipments.qty)"
    assert concepts["Tardy"][2] == "shipments.delivered_on > shipments.promised_by"
    assert "shipment delivered on by week" in concepts
    assert "Heft" in concepts  # SUM(weight_kg) runs: kept
    assert not any("bogus" in label.lower() for label in concepts)  # unreadable expression: never proposed
    reasons = {r.subject: r.reason for r in result.rejected if r.family == "concept"}
    assert "no column shipments.cost" in reasons["metric pricey"]  # a column that does not exist
    assert "holds for 0 of 40 rows" in reasons["filter early"]     # a condition no row satisfies
