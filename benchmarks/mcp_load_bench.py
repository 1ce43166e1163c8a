"""MCP under load over streamable HTTP (issue 17 item 10).

Starts ``evoonto serve --transport http --data-tools`` on 127.0.0.1 (loopback only) as a subprocess
of the console script, then runs S concurrent client sessions (SDK ``mcp.Client``; even sessions
use the current stateless protocol, odd ones the handshake-era protocol with an
``mcp-session-id``), each making C tool calls mixed from ``browse``, ``resolve`` and ``run_sql``.
The queries are taken from the served database itself (table and column names, a few cell
values), the resolve ids from earlier browse answers, and the SQL is ``SELECT COUNT(*)`` /
``SELECT * … LIMIT 20`` over its tables.

It prints: calls answered, tool errors, transport failures; p50/p99/max latency (ms) per tool and
overall, seen by the clients under load and for one session alone (the same calls, one after the
other, before the load), and the server-side time of the loaded calls (``latency_ms`` of the
trajectory: from the check of the arguments to the result, worker thread included); calls per
second and the server's CPU seconds during the load; and the server's resident memory (RSS, MB,
from /proc) before and after the load.
A call that waited for other sessions' work shows up as a loaded p99 far above the solo p99.

Default target: a world_1-sized ontology, built from Spider's ``world_1.sqlite`` into a
temporary workspace (``--workspace`` serves an existing one instead). Bounded: every call has a
60 s timeout and the whole run is capped by ``--deadline`` seconds.

Usage::

    python benchmarks/mcp_load_bench.py [--sessions 20] [--calls 50] [--workspace WS --db DB] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
SPIDER_DB = ROOT.parent / "shared" / "data" / "spider" / "database" / "world_1" / "world_1.sqlite"
EVOONTO = str(Path(sys.executable).parent / "evoonto")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def rss_mb(pid: int) -> float:
    """Resident set size of process ``pid`` in MB (Linux /proc; 0.0 elsewhere)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def cpu_s(pid: int) -> float:
    """User + system CPU seconds used so far by process ``pid`` (Linux /proc; 0.0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def workload(db: Path, seed: int = 0) -> tuple[list[str], list[str]]:
    """Browse queries and SQL statements drawn from the database ``db`` itself."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' "
                                            "AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        queries: list[str] = []
        sql: list[str] = []
        for table in tables:
            quoted = '"' + table.replace('"', '""') + '"'
            columns = [r[1] for r in con.execute(f"PRAGMA table_info({quoted})")]
            queries.append(table.replace("_", " "))
            queries += [c.replace("_", " ") for c in columns]
            for row in con.execute(f"SELECT * FROM {quoted} LIMIT 3"):
                queries += [v for v in row if isinstance(v, str) and 2 < len(v) < 40][:2]
            sql += [f"SELECT COUNT(*) FROM {quoted}", f"SELECT * FROM {quoted} LIMIT 20"]
    finally:
        con.close()
    rng = random.Random(seed)
    rng.shuffle(queries)
    return queries, sql


def plan(calls: int, queries: list[str], sql: list[str], seed: int) -> list[tuple[str, object]]:
    """``calls`` steps: ("browse", q) / ("resolve", None: ids of the last browse) / ("run_sql", sql)."""
    rng = random.Random(seed)
    steps: list[tuple[str, object]] = []
    for i in range(calls):
        pick = i % 3
        if pick == 0:
            steps.append(("browse", rng.choice(queries)))
        elif pick == 1:
            steps.append(("resolve", None))
        else:
            steps.append(("run_sql", rng.choice(sql)))
    return steps


async def run_session(url: str, steps: list[tuple[str, object]], legacy: bool, out: dict) -> None:
    """Run ``steps`` in one client session; append (tool, ms, ok) to ``out["calls"]``."""
    from mcp import Client

    kwargs = {"mode": "legacy"} if legacy else {}
    try:
        async with Client(url, read_timeout_seconds=60, **kwargs) as client:
            ids: list[str] = []
            for tool, arg in steps:
                if tool == "browse":
                    args: dict = {"q": arg, "kind": "any"}
                elif tool == "resolve":
                    args = {"ids": ids[:3] or ["term/none"]}
                else:
                    args = {"sql": arg, "limit": 20}
                t0 = time.perf_counter()
                with anyio.fail_after(60):
                    result = await client.call_tool(tool, args)
                ms = (time.perf_counter() - t0) * 1000.0
                ok = not result.is_error and bool(result.content)
                if tool == "browse" and ok:
                    ids = [hit["id"] for hit in json.loads(result.content[0].text)] or ids
                out["calls"].append((tool, ms, ok))
                if not ok:
                    out["errors"].append(f"{tool} {args}: {result.content[0].text[:200] if result.content else ''}")
    except Exception as exc:  # a transport failure: counted, the other sessions go on
        out["failures"].append(f"{type(exc).__name__}: {str(exc)[:200]}")


def percentiles(values: list[float]) -> dict[str, float]:
    """p50, p99 and max of ``values`` (ms, rounded to 0.1)."""
    if not values:
        return {"p50": 0.0, "p99": 0.0, "max": 0.0, "n": 0}
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return {"p50": round(statistics.median(ordered), 1), "p99": round(p99, 1), "max": round(ordered[-1], 1),
            "n": len(ordered)}


def summarize(calls: list[tuple[str, float, bool]]) -> dict[str, dict[str, float]]:
    """Latency percentiles per tool and overall."""
    out = {tool: percentiles([ms for t, ms, _ in calls if t == tool]) for tool in ("browse", "resolve", "run_sql")}
    out["all"] = percentiles([ms for _, ms, _ in calls])
    return out


def start_server(workspace: Path, db: Path, port: int, log: Path) -> subprocess.Popen:
    """``evoonto serve`` over HTTP on 127.0.0.1:``port`` (the data sources are those the workspace
    records; ``db`` only supplies the workload); returns once it accepts connections."""
    proc = subprocess.Popen([EVOONTO, "serve", "--workspace", str(workspace), "--transport", "http",
                             "--host", "127.0.0.1", "--port", str(port), "--data-tools",
                             "--trajectory", str(log)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.stderr.read().decode()[-1000:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("server did not start within 120 s") from None
            time.sleep(0.1)


def run(workspace: Path, db: Path, sessions: int, calls: int, deadline_s: float, seed: int = 0) -> dict:
    """Serve ``workspace`` and run the load; returns the numbers (see the module docstring)."""
    queries, sql = workload(db, seed)
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = start_server(workspace, db, port, Path(tmp) / "trajectory.jsonl")
        url = f"http://127.0.0.1:{port}/mcp"
        try:
            solo: dict = {"calls": [], "errors": [], "failures": []}
            loaded: dict = {"calls": [], "errors": [], "failures": []}

            marks: dict[str, float] = {}

            async def main() -> float:
                with anyio.fail_after(deadline_s):
                    await run_session(url, plan(6, queries, sql, seed + 999), False,
                                      {"calls": [], "errors": [], "failures": []})  # warm-up, not counted
                    await run_session(url, plan(calls, queries, sql, seed), False, solo)  # one session alone
                    rss = rss_mb(proc.pid)
                    marks["cpu0"], marks["t0"] = cpu_s(proc.pid), time.perf_counter()
                    async with anyio.create_task_group() as group:
                        for s in range(sessions):
                            group.start_soon(run_session, url, plan(calls, queries, sql, seed + 1 + s), s % 2 == 1,
                                             loaded)
                    marks["cpu1"], marks["t1"] = cpu_s(proc.pid), time.perf_counter()
                    return rss

            t0 = time.perf_counter()
            rss_before = anyio.run(main)
            wall = time.perf_counter() - t0
            rss_after = rss_mb(proc.pid)
            from evoonto.tools.trajectory import read_events

            # the trajectory holds the warm-up and solo calls first (sequential), then the load
            events = read_events(Path(tmp) / "trajectory.jsonl")[6 + calls:]
            server_calls = [(e["tool"], float(e.get("latency_ms") or 0.0), not e.get("error")) for e in events]
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
            proc.stderr.close()
    return {
        "sessions": sessions, "calls_per_session": calls, "expected_calls": sessions * calls,
        "answered": len(loaded["calls"]), "tool_errors": len(loaded["errors"]),
        "transport_failures": len(loaded["failures"]), "error_samples": (loaded["errors"] + loaded["failures"])[:5],
        "solo_ms": summarize(solo["calls"]), "solo_errors": len(solo["errors"]) + len(solo["failures"]),
        "loaded_ms": summarize(loaded["calls"]), "wall_s": round(wall, 2),
        "loaded_server_ms": summarize(server_calls),
        "load_wall_s": round(marks["t1"] - marks["t0"], 2),
        "server_cpu_s": round(marks["cpu1"] - marks["cpu0"], 2),
        "calls_per_s": round(len(loaded["calls"]) / max(marks["t1"] - marks["t0"], 1e-9), 1),
        "load_average_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "rss_mb_before": round(rss_before, 1), "rss_mb_after": round(rss_after, 1),
        "rss_mb_growth": round(rss_after - rss_before, 1),
    }


def build_workspace(db: Path, target: Path) -> None:
    """``evoonto build --source db -w target`` (the offline builder)."""
    proc = subprocess.run([EVOONTO, "build", "--source", str(db), "-w", str(target)], capture_output=True,
                          text=True, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"build failed: {proc.stderr[-1000:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--calls", type=int, default=50, help="calls per session")
    parser.add_argument("--workspace", type=Path, default=None, help="serve this workspace (default: build --db)")
    parser.add_argument("--db", type=Path, default=SPIDER_DB, help="SQLite database (default: Spider world_1)")
    parser.add_argument("--deadline", type=float, default=900.0, help="cap on the whole load, in seconds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if not 1 <= args.sessions <= 200 or not 1 <= args.calls <= 1000:
        parser.error("--sessions must be 1..200 and --calls 1..1000")
    if not args.db.is_file():
        parser.error(f"no database at {args.db}")
    with tempfile.TemporaryDirectory() as tmp:
        workspace = args.workspace
        build_s = 0.0
        if workspace is None:
            workspace = Path(tmp) / "ws"
            t0 = time.perf_counter()
            build_workspace(args.db, workspace)
            build_s = time.perf_counter() - t0
        result = run(workspace, args.db, args.sessions, args.calls, args.deadline, args.seed)
    result["build_s"] = round(build_s, 1)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"MCP streamable HTTP load: {args.sessions} sessions x {args.calls} calls on {args.db.name}")
        print(f"  answered {result['answered']}/{result['expected_calls']}, tool errors {result['tool_errors']}, "
              f"transport failures {result['transport_failures']}, wall {result['wall_s']} s")
        print(f"  under load: {result['calls_per_s']} calls/s over {result['load_wall_s']} s; server CPU "
              f"{result['server_cpu_s']} s ({os.cpu_count()} cores on this machine, load average "
              f"{result['load_average_1min']})")
        for label in ("solo_ms", "loaded_ms", "loaded_server_ms"):
            for tool, stats in result[label].items():
                print(f"  {label[:-3]:13} {tool:8} p50 {stats['p50']:8.1f} ms  p99 {stats['p99']:8.1f} ms  "
                      f"max {stats['max']:8.1f} ms  (n={stats['n']})")
        print(f"  server RSS {result['rss_mb_before']} MB -> {result['rss_mb_after']} MB "
              f"(+{result['rss_mb_growth']} MB)")
        for sample in result["error_samples"]:
            print(f"  error: {sample}")
    ok = (result["answered"] == result["expected_calls"] and not result["tool_errors"]
          and not result["transport_failures"])
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
