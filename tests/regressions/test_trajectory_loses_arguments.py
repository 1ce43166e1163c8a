"""Defect (issue 17, "Trajectories lose their arguments"): the dispatcher popped ``q`` and ``ids``
from the dict it then logged, so three different browse queries were read by ``evolve
--trajectories`` as repeated calls. The log must hold what the agent asked."""

from __future__ import annotations

import anyio
import pytest
from fixtures.mcp_support import concert_workspace

from evoonto.evolution.trajectories import group_events, read_log
from evoonto.tools.toolkit import OntologyTools
from evoonto.tools.trajectory import TrajectoryLog, read_events
from evoonto.workspace import Workspace


def test_in_process_calls_log_their_arguments(tmp_path):
    ws = Workspace.open(concert_workspace(tmp_path / "ws"))
    log = TrajectoryLog(tmp_path / "t.jsonl", session="s1")
    tools = OntologyTools(ws.ontology, version=ws.version, trajectory=log)
    asked = [("browse", {"q": "singer age"}), ("browse", {"q": "banned", "kind": "any"}),
             ("browse", {"q": "country", "n": 2}), ("resolve", {"ids": ["term/cs/singer-age"], "depth": 0})]
    for tool, arguments in asked:
        tools.call(tool, dict(arguments))
    events = read_events(log.path)
    assert [(e["tool"], e["arguments"]) for e in events] == asked
    # evolution reads three different queries, not three repeated calls
    (traj,) = group_events(read_log(log.path), {"s1": False})
    assert [e.arguments.get("q") for e in traj.calls("browse")] == ["singer age", "banned", "country"]


@pytest.mark.slow
def test_mcp_calls_log_their_arguments(tmp_path):
    pytest.importorskip("mcp")
    from mcp import Client

    from evoonto.server import create_server

    path = concert_workspace(tmp_path / "ws")
    log = TrajectoryLog(tmp_path / "mcp.jsonl", session="m1")
    server = create_server(path, trajectory=log)

    async def main():
        async with Client(server) as client:
            await client.call_tool("browse", {"q": "singer age", "kind": "term"})
            await client.call_tool("resolve", {"ids": ["term/cs/singer-age"], "expand": ["mappings"]})

    anyio.run(main)
    events = read_events(log.path)
    assert [(e["tool"], e["arguments"]) for e in events] == [
        ("browse", {"q": "singer age", "kind": "term"}),
        ("resolve", {"ids": ["term/cs/singer-age"], "expand": ["mappings"]})]
