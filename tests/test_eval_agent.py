"""The Claude ReAct agent, replaying recorded Messages API responses through the real SDK (no network)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import anthropic
import httpx2 as httpx  # the anthropic SDK 2.x HTTP client package
import pytest
from fixtures.eval_support import make_db

from evoonto.builder.workload import Question
from evoonto.errors import ConfigurationError
from evoonto.evaluation.agent import AgentConfig, InProcessToolbox, ReactAgent, make_client, parse_agent_spec
from evoonto.sources import open_source
from evoonto.tools.data import DataTools
from evoonto.tools.trajectory import TrajectoryLog, read_events

RESPONSES = json.loads((Path(__file__).parent / "fixtures" / "eval_agent_responses.json").read_text())
QUESTION = Question(id="cs/0001", text="Names of singers from France", db_id="cs")


class Replay:
    """An httpx transport answering each POST /v1/messages with the next recorded body."""

    def __init__(self, bodies, status=200):
        self.bodies = list(bodies)
        self.status = status
        self.requests: list[dict] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/messages"
        self.requests.append(json.loads(request.content))
        if self.status != 200:
            return httpx.Response(self.status, json={"type": "error", "error": {"type": "api_error",
                                                                                 "message": "overloaded"}})
        body = self.bodies.pop(0) if len(self.bodies) > 1 else self.bodies[0]
        return httpx.Response(200, json=body)


def client_for(replay: Replay) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="test-key", max_retries=0,
                               http_client=httpx.Client(transport=httpx.MockTransport(replay)))


class FakeOntologyTools:
    """Ontology tools with a registry of two tools (browse, resolve) plus the declared ones."""

    def __init__(self):
        self.calls = []

    def registry(self):
        from evoonto.tools.registry import ToolSpec, object_schema

        specs = [
            ToolSpec("browse", "Ranked ontology records.", object_schema(
                {"q": {"type": "string", "description": "query"},
                 "kind": {"type": "string", "description": "record kind"},
                 "n": {"type": "integer", "description": "hits"}}, ("q",)),
                lambda q, kind="term", n=5: self.browse(q, kind, n)),
            ToolSpec("resolve", "Records by id.", object_schema(
                {"ids": {"type": "array", "description": "ids"},
                 "depth": {"type": "integer", "description": "depth"}}, ("ids",)),
                lambda ids, depth=1: self.resolve(ids, depth)),
        ]
        specs += [ToolSpec(d.name, d.description or d.name, d.input_schema(),
                           lambda _name=d.name, **args: self.run_declared(_name, args))
                  for d in self.declared_tools()]
        return {spec.name: spec for spec in specs}

    def browse(self, q, kind="term", n=5):
        self.calls.append(("browse", q))
        return [{"id": "term/cs/country", "kind": "term", "label": "Country", "snippet": "France", "score": 1.0}]

    def resolve(self, ids, depth=1):
        return {"records": [{"id": i} for i in ids], "errors": [], "truncated": False}

    def declared_tools(self):
        return []


@pytest.fixture()
def db(tmp_path):
    return make_db(tmp_path / "cs.sqlite")


def test_agent_submits_sql_and_records_its_trajectory(db, tmp_path):
    replay = Replay(RESPONSES["submit"])
    ontology = FakeOntologyTools()
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    with open_source(str(db)) as src:
        box = InProcessToolbox(DataTools({"cs": src}), ontology, version=3)
        log = TrajectoryLog(tmp_path / "traj.jsonl", session="s1")
        result = ReactAgent(client_for(replay), AgentConfig(model="claude-sonnet-5-5")).run(
            QUESTION, box, context="MANIFEST TEXT", trajectory=log)
    assert result.final_sql == "SELECT Name FROM singer WHERE Country = 'France'"
    assert result.finish == "submitted" and result.turns == 4 and result.tool_calls == 4
    assert result.input_tokens == 812 + 990 + 1050 + 1101 and result.output_tokens == 41 + 38 + 20 + 30
    assert ontology.calls == [("browse", "singers from France")]
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before  # DROP was refused
    # what the model was sent
    first = replay.requests[0]
    assert "MANIFEST TEXT" in first["system"]
    assert {t["name"] for t in first["tools"]} == {"list_tables", "describe_table", "run_sql", "browse",
                                                   "resolve", "submit_sql"}
    results = [b for b in replay.requests[2]["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert "Joe" in results[0]["content"] and "Bo" in results[0]["content"]
    refused = replay.requests[3]["messages"][-1]["content"][0]
    assert refused["is_error"] is True and "refused" in refused["content"]
    # trajectory in the Tool layer's event schema
    events = read_events(tmp_path / "traj.jsonl")
    assert [e["tool"] for e in events] == ["browse", "run_sql", "run_sql", "final_answer"]
    assert all(e["task"] == "cs/0001" and e["version"] == 3 and e["session"] == "s1" for e in events)
    assert events[2]["error"] and events[3]["arguments"]["sql"] == result.final_sql


def test_agent_without_ontology_tools_and_text_answer(db):
    replay = Replay(RESPONSES["text_answer"])
    with open_source(str(db)) as src:
        result = ReactAgent(client_for(replay), AgentConfig()).run(
            QUESTION, InProcessToolbox(DataTools({"cs": src})), hint="France is a country")
    assert result.final_sql == "SELECT count(*) FROM singer" and result.finish == "text"
    sent = replay.requests[0]
    assert {t["name"] for t in sent["tools"]} == {"list_tables", "describe_table", "run_sql", "submit_sql"}
    assert "Evidence: France is a country" in sent["messages"][0]["content"]
    assert "browse" not in sent["system"]


def test_budgets_end_the_run_with_the_last_sql(db):
    with open_source(str(db)) as src:
        box = InProcessToolbox(DataTools({"cs": src}))
        turns = ReactAgent(client_for(Replay(RESPONSES["loop"])), AgentConfig(max_turns=3)).run(QUESTION, box)
        tokens = ReactAgent(client_for(Replay(RESPONSES["loop"])), AgentConfig(max_tokens=1000)).run(QUESTION, box)
    assert turns.finish == "max_turns" and turns.turns == 3 and turns.final_sql == "SELECT count(*) FROM singer"
    assert tokens.finish == "max_tokens" and tokens.turns == 2


def test_api_errors_do_not_crash(db):
    with open_source(str(db)) as src:
        result = ReactAgent(client_for(Replay([], status=529)), AgentConfig()).run(
            QUESTION, InProcessToolbox(DataTools({"cs": src})))
    assert result.finish == "error" and result.final_sql is None and result.error


def test_configuration_errors(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY"):
        make_client()
    assert parse_agent_spec("anthropic:claude-x").model == "claude-x"
    with pytest.raises(ConfigurationError, match="anthropic:MODEL"):
        parse_agent_spec("openai:gpt")
    with pytest.raises(ConfigurationError):
        AgentConfig(max_turns=0)


@pytest.mark.slow
def test_agent_through_an_mcp_client(db, tmp_path):
    """The same recorded run, with the tools served by the evoonto MCP server in-process."""
    from evoonto.evaluation.agent import McpToolbox
    from evoonto.evaluation.conditions import build_baseline_ontology
    from evoonto.server import create_server
    from evoonto.tools.toolkit import OntologyTools

    tools = OntologyTools(build_baseline_ontology(db), sources={"cs": str(db)}, data_tools=True)
    replay = Replay(RESPONSES["submit"])
    with McpToolbox(create_server(tools, data_tools=True)) as box:
        assert {d["name"] for d in box.definitions()} >= {"browse", "resolve", "run_sql", "list_tables"}
        assert "ontology layer" in box.instructions
        result = ReactAgent(client_for(replay), AgentConfig()).run(
            QUESTION, box, context=box.instructions, trajectory=TrajectoryLog(tmp_path / "t.jsonl"))
    assert result.finish == "submitted" and result.final_sql.endswith("'France'")
    browse_result = replay.requests[1]["messages"][-1]["content"][0]
    assert "term/cs/singer" in browse_result["content"]
    refused = replay.requests[3]["messages"][-1]["content"][0]
    assert refused["is_error"] is True and refused["content"].startswith("error: run_sql: refused")


def test_declared_tools_are_offered_and_dispatched():
    from evoonto.errors import ToolArgumentError
    from evoonto.tools.declared import DeclaredTool, Parameter

    tool = DeclaredTool("singers_from", "Singers of a country.", "sql",
                        "SELECT Name FROM singer WHERE Country = :country", (Parameter("country"),))

    class WithDeclared(FakeOntologyTools):
        def declared_tools(self):
            return [tool]

        def run_declared(self, name, arguments):
            return {"columns": ["Name"], "rows": [["Joe"]], "called": [name, arguments]}

    box = InProcessToolbox(data_tools=None, ontology_tools=WithDeclared())
    definition = next(d for d in box.definitions() if d["name"] == "singers_from")
    assert definition["input_schema"]["required"] == ["country"]
    assert box.call("singers_from", {"country": "France"})["called"] == ["singers_from", {"country": "France"}]
    with pytest.raises(ToolArgumentError, match="unknown tool"):
        box.call("drop_all", {})


@pytest.mark.slow
def test_mcp_toolbox_starts_a_stdio_server_when_stderr_has_no_file_descriptor(db, tmp_path, monkeypatch):
    """Regression: the SDK's ``stdio_client`` binds its default ``errlog`` to ``sys.stderr`` when
    ``mcp.client.stdio`` is first imported; imported in a notebook (ipykernel's stream) or under a
    test's ``capsys``, that object has no file descriptor and ``McpToolbox(StdioServerParameters(...))``
    failed to start the server with ``UnsupportedOperation: fileno``."""
    import io
    import sys

    from mcp.client.stdio import StdioServerParameters, stdio_client

    from evoonto import create_workspace
    from evoonto.evaluation.agent import McpToolbox

    ws = tmp_path / "ws"
    create_workspace(ws, [str(db)])
    no_descriptor = io.StringIO()
    monkeypatch.setattr(stdio_client.__wrapped__, "__defaults__", (no_descriptor,))  # as if imported there
    monkeypatch.setattr(sys, "stderr", no_descriptor)
    exe = Path(sys.executable).with_name("evoonto")
    params = StdioServerParameters(command=str(exe), args=["serve", "--workspace", str(ws)])
    with McpToolbox(params) as box:
        assert {"browse", "resolve"} <= {d["name"] for d in box.definitions()}
        assert "ontology layer" in box.instructions
