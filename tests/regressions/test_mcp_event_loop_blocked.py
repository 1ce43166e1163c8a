"""Defect (issue 13 item 6): the MCP server ran browse/resolve synchronously inside its async
handlers, so a slow call froze the event loop (a 50 ms timer set during a world_1 resolve fired at
868 ms) and every session waited on every other. Tool calls must run off the loop."""

from __future__ import annotations

import time

import anyio
import pytest
from fixtures.mcp_support import concert_workspace

pytest.importorskip("mcp")
from mcp import Client  # noqa: E402

from evoonto.server import create_server  # noqa: E402
from evoonto.tools.toolkit import OntologyTools  # noqa: E402
from evoonto.workspace import Workspace  # noqa: E402

SLOW_S = 0.6


class SlowTools(OntologyTools):
    """A facade whose resolve takes SLOW_S seconds of blocking work (deterministic stand-in for a
    large resolve)."""

    def resolve(self, ids, **kwargs):
        time.sleep(SLOW_S)
        return super().resolve(ids, **kwargs)


def test_a_heartbeat_keeps_ticking_during_a_slow_tool_call(tmp_path):
    ws = Workspace.open(concert_workspace(tmp_path / "ws"))
    server = create_server(SlowTools(ws.ontology, version=ws.version))
    ticks: list[float] = []

    async def heartbeat(stop: anyio.Event) -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())
            await anyio.sleep(0.01)

    async def main() -> tuple[float, float]:
        async with Client(server) as client:
            stop = anyio.Event()
            async with anyio.create_task_group() as group:
                group.start_soon(heartbeat, stop)
                await anyio.sleep(0.05)
                started = time.perf_counter()
                result = await client.call_tool("resolve", {"ids": ["term/cs/singer-age"]})
                ended = time.perf_counter()
                stop.set()
            assert not result.is_error
            return started, ended

    started, ended = anyio.run(main)
    assert ended - started >= SLOW_S  # the slow call really was slow
    # the loop kept running: the heartbeat ticked all through the call (blocked, the last tick
    # before the call and the end of the call would be ≥ SLOW_S apart)
    points = [t for t in ticks if t < ended] + [ended]
    gaps = [b - a for a, b in zip(points, points[1:], strict=False)]
    assert max(gaps) < SLOW_S / 3, max(gaps)
    assert sum(started <= t <= ended for t in ticks) >= 10
