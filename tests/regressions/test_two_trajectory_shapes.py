"""Defect (issue 13 item 4a): offline runs recorded browse/resolve result bodies while the MCP log
recorded only ids, so the same calls gave different diagnoses (45 vs 60 ``unlinked_phrase``
signatures on 40 world_1 calls). One event type is written by both: the same session in both
shapes gives the same diagnosis."""

from __future__ import annotations

import anyio
import pytest
from fixtures.mcp_support import concert_workspace

from evoonto.evaluation.linking import LinkingPolicy, run_policy
from evoonto.evolution.diagnose import diagnose
from evoonto.evolution.trajectories import group_events, read_log
from evoonto.evolution.view import OntologyView
from evoonto.tools.toolkit import OntologyTools
from evoonto.tools.trajectory import TrajectoryLog
from evoonto.workspace import Workspace

QUESTIONS = {
    "q1": "Which singers are banned?",
    "q2": "How old is the youngest singer from France?",
    "q3": "What is the average age of performers per nation?",
}


@pytest.mark.slow
def test_offline_and_mcp_trajectories_give_the_same_diagnosis(tmp_path):
    pytest.importorskip("mcp")
    from mcp import Client

    from evoonto.server import create_server

    path = concert_workspace(tmp_path / "ws")
    ws = Workspace.open(path)
    tools = OntologyTools(ws.ontology, version=ws.version)
    # browse + resolve, nothing trimmed: the agent read every answer
    policy = LinkingPolicy(budget_chars=1_000_000, format="verbose")

    offline: list[dict] = []
    for task, question in QUESTIONS.items():
        _, _, events = run_policy(tools, question, policy)
        offline += [{**event, "task": task} for event in events]
    assert {e["tool"] for e in offline} == {"browse", "resolve"}

    # the same calls, made by an agent over MCP
    log = TrajectoryLog(tmp_path / "mcp.jsonl", session="agent")
    server = create_server(path, trajectory=log)

    async def replay():
        async with Client(server) as client:
            for event in offline:
                log.task = event["task"]
                result = await client.call_tool(event["tool"], event["arguments"])
                assert not result.is_error

    anyio.run(replay)
    served = read_log(log.path)
    assert len(served) == len(offline)

    outcomes = {task: False for task in QUESTIONS}
    view = OntologyView(ws.ontology)
    signatures = []
    for records in (offline, served):
        trajectories = group_events(records, outcomes, questions=QUESTIONS)
        signatures.append(sorted((s.id, s.tasks) for s in diagnose(trajectories, view)))
    assert signatures[0], "the failed questions should show some signature"
    assert signatures[0] == signatures[1]
