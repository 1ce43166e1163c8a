"""Defect (issue 17): one slow ``run_sql`` blocked every other session's ``run_sql`` for up to 5 s:
all sessions shared one connection per source, behind one lock. Each concurrent call must get a
connection of its own (a pool), run off the event loop."""

from __future__ import annotations

import json
import sqlite3
import threading
import time

import anyio
import pytest
from fixtures.mcp_support import concert_workspace

pytest.importorskip("mcp")
from mcp import Client  # noqa: E402

from evoonto.server import create_server  # noqa: E402
from evoonto.tools.pool import SourcePool  # noqa: E402

# a CPU-bound query that runs until the 5 s timeout interrupts it
SLOW_SQL = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
            "SELECT COUNT(*) FROM c WHERE x < 0")


@pytest.mark.slow
def test_a_quick_run_sql_does_not_wait_for_another_sessions_slow_one(tmp_path):
    server = create_server(concert_workspace(tmp_path / "ws"), data_tools=True)
    timings: dict[str, float] = {}
    slow_started = anyio.Event()

    async def slow_session() -> None:
        async with Client(server) as client:
            warm = await client.call_tool("run_sql", {"sql": "SELECT 1"})  # source opened, parser loaded
            assert not warm.is_error
            slow_started.set()
            t0 = time.perf_counter()
            result = await client.call_tool("run_sql", {"sql": SLOW_SQL})
            timings["slow"] = time.perf_counter() - t0
            assert result.is_error and "interrupted" in result.content[0].text  # the 5 s timeout

    async def quick_session() -> None:
        async with Client(server) as client:
            await slow_started.wait()
            await anyio.sleep(0.5)  # the slow statement is running by now
            t0 = time.perf_counter()
            result = await client.call_tool("run_sql", {"sql": "SELECT COUNT(*) FROM singer"})
            timings["quick"] = time.perf_counter() - t0
            timings["quick_done"] = time.perf_counter()
            assert not result.is_error, result.content[0].text
            assert json.loads(result.content[0].text)["rows"] == [[3]]

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(slow_session)
            group.start_soon(quick_session)

    anyio.run(main)
    assert timings["slow"] >= 4.0  # the slow statement really ran until its timeout
    # blocked, the quick call would have waited for the rest of the slow one (≈ 4.5 s)
    assert timings["quick"] < 2.0, timings


def _db(tmp_path) -> str:
    path = tmp_path / "pool.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (x INTEGER)")
    con.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(10)])
    con.commit()
    con.close()
    return str(path)


def test_the_pool_grows_only_under_concurrency_and_closes_everything(tmp_path):
    pool = SourcePool.open(_db(tmp_path), size=3)
    for _ in range(5):
        assert pool.run("SELECT COUNT(*) FROM t", limit=1).scalar() == 10
    assert pool.connections == 1  # one caller at a time: one connection
    assert [t.name for t in pool.tables()] == ["t"] and pool.table("T").name == "t"

    start = threading.Barrier(3)
    errors: list[BaseException] = []

    def slow() -> None:
        try:
            start.wait()
            pool.run(SLOW_SQL, limit=1, timeout_ms=800)
        except BaseException as exc:  # QueryTimeout expected
            errors.append(exc)

    threads = [threading.Thread(target=slow) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(errors) == 3 and all("interrupted" in str(e) for e in errors)
    assert pool.connections == 3  # three at once: three connections, never more than size
    pool.close()
    with pytest.raises(Exception, match="closed"):
        pool.run("SELECT 1", limit=1)
