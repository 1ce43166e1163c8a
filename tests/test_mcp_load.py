"""MCP under load over streamable HTTP (issue 17 item 10), the small version of
``benchmarks/mcp_load_bench.py``: 5 concurrent sessions x 10 calls (browse, resolve and run_sql mixed)
against ``evoonto serve --transport http`` on 127.0.0.1. Asserts correctness (every call answered,
no tool error, no transport failure), not timing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fixtures.mcp_support import concert_workspace

pytest.importorskip("mcp")

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_five_sessions_times_ten_mixed_calls_are_all_answered(tmp_path):
    ws = concert_workspace(tmp_path / "ws")
    db = tmp_path / "ws-concert_singer.sqlite"
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "mcp_load_bench.py"), "--workspace", str(ws),
                           "--db", str(db), "--sessions", "5", "--calls", "10", "--deadline", "240", "--json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.stdout.strip(), proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["error_samples"] == []
    assert result["answered"] == result["expected_calls"] == 50
    assert result["tool_errors"] == 0 and result["transport_failures"] == 0 and result["solo_errors"] == 0
    # every tool of the mix was exercised under load
    assert all(result["loaded_ms"][tool]["n"] > 0 for tool in ("browse", "resolve", "run_sql"))
    assert proc.returncode == 0
