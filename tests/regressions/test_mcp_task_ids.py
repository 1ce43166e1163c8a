"""Regression (issue 14): an MCP client could not group its tool calls into tasks. Every event of a
stdio session carried only the session id, so one served session with several questions was one
"task" and its outcome could not be given per question.

Now the ``_meta`` of a ``tools/call`` request (``evoonto/task``, ``evoonto/question``) is written into
the trajectory event, and evolution groups events by it.
"""

from __future__ import annotations

import anyio
import pytest

from evoonto.evolution.trajectories import group_events
from evoonto.tools.trajectory import TrajectoryLog, read_events
from evoonto.workspace import Workspace


def test_request_meta_names_the_task(tmp_path):
    pytest.importorskip("mcp")
    from mcp import Client

    from evoonto.server import create_server

    ws = Workspace.init(tmp_path / "ws", base_iri="https://example.org/task-ids/")
    server = create_server(ws.path, trajectory=TrajectoryLog(tmp_path / "log.jsonl", session="one-session"))

    async def main():
        async with Client(server) as client:
            for task in ("first", "second"):
                await client.call_tool("browse", {"q": task}, meta={"evoonto/task": task,
                                                                    "evoonto/question": f"the {task} question"})

    anyio.run(main)
    events = read_events(tmp_path / "log.jsonl")
    assert [e.get("task") for e in events] == ["first", "second"]
    tasks = group_events(events, {"first": True, "second": False})
    assert [(t.task_id, t.question, t.passed) for t in tasks] == [
        ("first", "the first question", True), ("second", "the second question", False)]
