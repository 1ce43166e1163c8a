"""Defect (issue 17): ``serve`` failed every tool call when it could not write its trajectory log
(read-only mount, full disk). Serving must go on, with one warning on stderr."""

from __future__ import annotations

import json

import anyio
import pytest
from fixtures.mcp_support import concert_workspace

pytest.importorskip("mcp")
from mcp import Client  # noqa: E402

from evoonto.server import create_server  # noqa: E402
from evoonto.tools.trajectory import TrajectoryLog  # noqa: E402


@pytest.mark.slow
def test_tool_calls_answer_when_the_log_cannot_be_written(tmp_path, capfd):
    path = concert_workspace(tmp_path / "ws")
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the log folder should be")  # unwritable even for root
    log = TrajectoryLog(blocker / "trajectories" / "s.jsonl", session="s")
    server = create_server(path, trajectory=log)

    async def main():
        async with Client(server) as client:
            results = [await client.call_tool("browse", {"q": "singer age"}) for _ in range(3)]
            results.append(await client.call_tool("resolve", {"ids": ["term/cs/singer-age"]}))
            return results

    results = anyio.run(main)
    assert not any(r.is_error for r in results), [r.content[0].text for r in results if r.is_error]
    assert json.loads(results[0].content[0].text)[0]["id"] == "term/cs/singer-age"
    err = capfd.readouterr().err
    warnings = [line for line in err.splitlines() if "trajectory log" in line]
    assert len(warnings) == 1 and "warning" in warnings[0] and str(blocker) in warnings[0]
    assert not log.writable
