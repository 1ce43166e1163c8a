"""Defect (issue 17): on stdio, a line with a lone surrogate escape or invalid JSON got no answer
at all, so the client waited forever. Every such line must get a JSON-RPC error (-32700 parse
error, -32600 invalid request), with the request's id when it can be read, and the server must go
on serving the next (valid) request."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest
from fixtures.mcp_support import concert_workspace

pytest.importorskip("mcp")

from evoonto.server import stdio_rejection  # noqa: E402

EVOONTO = str(Path(sys.executable).parent / "evoonto")
TIMEOUT_S = 60


def _read_line(proc: subprocess.Popen, timeout: float = TIMEOUT_S) -> dict:
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, "no answer from the server (the client would wait forever)"
    line = proc.stdout.readline()
    assert line, "the server closed stdout"
    return json.loads(line)


@pytest.mark.slow
def test_every_refused_stdio_line_gets_a_json_rpc_error(tmp_path):
    ws = concert_workspace(tmp_path / "ws")
    proc = subprocess.Popen([EVOONTO, "serve", "-w", str(ws), "--session", "raw"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        def send(raw: bytes) -> None:
            proc.stdin.write(raw + b"\n")
            proc.stdin.flush()

        send(b'{"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"x": "\\ud800"}}')  # lone surrogate
        answer = _read_line(proc)
        assert answer["id"] == 7 and answer["error"]["code"] == -32700
        send(b"{not json")
        answer = _read_line(proc)
        assert answer["id"] is None and answer["error"]["code"] == -32700
        send(b"[1, 2, 3]")
        assert _read_line(proc)["error"]["code"] == -32600
        send(b"\xff\xfe garbage \xed\xa0\x80")
        assert _read_line(proc)["error"]["code"] == -32700
        # the server still serves a valid request after all that
        send(json.dumps({"jsonrpc": "2.0", "id": 8, "method": "initialize",
                         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "raw", "version": "1"}}}).encode())
        answer = _read_line(proc)
        assert answer["id"] == 8 and answer["result"]["serverInfo"]["name"] == "evoonto"
        proc.stdin.close()
        assert proc.wait(timeout=TIMEOUT_S) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_rejection_of_one_line():
    assert stdio_rejection(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n') is None  # valid: the SDK answers
    assert stdio_rejection(b"   \n") is None  # blank: nothing to answer
    lone = json.loads(stdio_rejection(b'{"jsonrpc":"2.0","id":"a","method":"ping","params":{"q":"\\udc00"}}'))
    assert lone == {"jsonrpc": "2.0", "id": "a", "error": {"code": -32700, "message": lone["error"]["message"]}}
    assert lone["error"]["message"].startswith("Parse error")
    assert json.loads(stdio_rejection(b'{"jsonrpc": "2.0", "id": true, "method": 5}'))["id"] is None
