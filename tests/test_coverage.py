"""Coverage (issue 15, item 3): which phrases of a question the ontology covers; abstentions in the evaluation."""

from __future__ import annotations

from pathlib import Path

import anthropic
import httpx2 as httpx
import pytest
from fixtures.eval_support import make_db

from evoonto.builder.workload import Question
from evoonto.evaluation.agent import AgentConfig, InProcessToolbox, ReactAgent
from evoonto.evaluation.linking import LinkingPolicy, summarize_linking, surface_with_tools, score_linking
from evoonto.evaluation.runner import _summarize
from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.store import OxigraphStore, parse_rdf_file
from evoonto.tools.browse import question_phrases
from evoonto.tools.data import DataTools
from evoonto.tools.toolkit import OntologyTools
from evoonto.tools.trajectory import TrajectoryLog, read_events

FIXTURE = Path(__file__).parent / "fixtures" / "tools_concert.trig"
BASE = "https://example.org/evoonto/tools-test/"


@pytest.fixture(scope="module")
def tools() -> OntologyTools:
    store = OxigraphStore()
    store.load_quads(parse_rdf_file(FIXTURE))
    return OntologyTools(Ontology(store, version=3, base_iri=BASE))


def test_question_phrases_are_runs_of_concept_words():
    assert question_phrases("What is the average age of all singers from France?") == ["age", "singers", "France"]
    assert question_phrases("Show the legal status of singers, and their legal status") == [
        "legal status", "singers"]
    assert question_phrases("How many are there?") == []


def test_supported_partial_and_unavailable(tools):
    covered = tools.coverage("What is the average age of singers from France?")
    assert covered["status"] == "supported"
    by_phrase = {p["phrase"]: p for p in covered["phrases"]}
    assert by_phrase["age"]["ids"][0] == "term/cs/singer-age" and by_phrase["age"]["uncovered"] == []
    assert by_phrase["France"]["status"] == "supported"  # found through the Evidence values

    partial = tools.coverage("Which singers have a record label?")
    statuses = {p["phrase"]: p["status"] for p in partial["phrases"]}
    assert partial["status"] == "partial" and statuses["singers"] == "supported"
    assert statuses["record label"] == "unavailable"

    none = tools.coverage("What is the quarterly revenue?")
    assert none["status"] == "unavailable" and none["phrases"][0]["ids"] == []
    assert tools.coverage("How many are there?") == {"status": "unavailable", "phrases": []}


def test_coverage_is_a_registered_tool(tools):
    spec = tools.registry()["coverage"]
    assert spec.listed and spec.input_schema["required"] == ["q"]
    answer = tools.call("coverage", {"q": "banned singers"})
    assert answer["status"] == "supported"
    assert spec.structured(answer) == answer


def test_linking_policy_reports_coverage_per_question(tools):
    from evoonto.evaluation.gold import analyze_sql

    schema = {"singer": ["Singer_ID", "Age", "Status", "Country"]}
    covered = surface_with_tools(tools, "", "What is the quarterly revenue?", LinkingPolicy(coverage=True), schema)
    assert covered.coverage == "unavailable" and covered.events[-1]["tool"] == "coverage"
    plain = surface_with_tools(tools, "", "What is the quarterly revenue?", LinkingPolicy(), schema)
    assert plain.coverage is None and plain.text == covered.text  # coverage does not change what is surfaced
    result = score_linking("q1", covered, analyze_sql("SELECT Age FROM singer", schema))
    assert result.to_json()["coverage"] == "unavailable" and "coverage" not in score_linking(
        "q1", plain, analyze_sql("SELECT Age FROM singer", schema)).to_json()
    summary = summarize_linking([result])
    assert summary.coverage == {"unavailable": {"questions": 1, "strict_recall": float(result.strict)}}


def test_execution_summary_counts_abstentions_apart_from_wrong_answers():
    usage = {"turns": 2, "input_tokens": 1, "output_tokens": 1}
    rows = [{"ex": 1, "ves": 1.0, "error": None, "finish": "submitted", **usage},
            {"ex": 0, "ves": 0.0, "error": None, "finish": "submitted", **usage},
            {"ex": 0, "ves": 0.0, "error": "no SQL", "finish": "abstained", **usage}]
    summary = _summarize(rows, "ex")
    assert (summary["abstained"], summary["wrong"], summary["errors"]) == (1, 1, 0)


def _message(content: list[dict], n: int) -> dict:
    return {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-sonnet-5-5",
            "content": content, "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5}}


def test_agent_records_an_abstention(tmp_path):
    bodies = [_message([{"type": "tool_use", "id": "toolu_1", "name": "submit_sql", "input": {"abstain": True}}], 1)]
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=bodies[0]))
    client = anthropic.Anthropic(api_key="test-key", max_retries=0, http_client=httpx.Client(transport=transport))
    db = make_db(tmp_path / "cs.sqlite")
    log = TrajectoryLog(tmp_path / "traj.jsonl", session="s1")
    with open_source(str(db)) as src:
        result = ReactAgent(client, AgentConfig(model="claude-sonnet-5-5")).run(
            Question(id="cs/1", text="Quarterly revenue?", db_id="cs"), InProcessToolbox(DataTools({"cs": src})),
            trajectory=log)
    assert (result.finish, result.final_sql) == ("abstained", None)
    assert read_events(tmp_path / "traj.jsonl")[-1]["arguments"]["finish"] == "abstained"
