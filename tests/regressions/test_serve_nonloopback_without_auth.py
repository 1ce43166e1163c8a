"""Defect (issue 17): ``evoonto serve --transport http --host 0.0.0.0`` (any non-loopback address)
silently turned the Host/Origin checks off, and there was no authentication at all. Binding
elsewhere must require an explicit Host allow-list AND a bearer token (or refuse to start with one
line saying what is needed), and requests without ``Authorization: Bearer …`` get 401."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fixtures.mcp_support import concert_workspace

pytest.importorskip("mcp")

EVOONTO = str(Path(sys.executable).parent / "evoonto")
TOKEN = "s3cret-token-for-tests-0123456789"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "test", "version": "1"}}}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _post(port: int, body: str, headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", "/mcp", body=body.encode(), headers=headers)
        response = conn.getresponse()
        status, got = response.status, {k.lower(): v for k, v in response.getheaders()}
        if status == 200:  # an SSE stream: read its first event only
            text = response.readline().decode() + response.readline().decode()
        else:
            text = response.read().decode()
        return status, got, text
    finally:
        conn.close()


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "EVOONTO_MCP_TOKEN"}
    return {**env, **extra}


@pytest.mark.slow
@pytest.mark.parametrize("extra", [[], ["--allow-host", "mcp.test"]])
def test_a_non_loopback_bind_without_allow_list_and_token_refuses_to_start(tmp_path, extra):
    ws = concert_workspace(tmp_path / "ws")
    proc = subprocess.run([EVOONTO, "serve", "-w", str(ws), "--transport", "http", "--host", "0.0.0.0",
                           "--port", str(_free_port()), *extra],
                          capture_output=True, text=True, timeout=60, env=_env())
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert "token" in lines[0] and "0.0.0.0" in lines[0]
    if not extra:
        assert "--allow-host" in lines[0]


@pytest.mark.slow
def test_a_short_token_is_refused(tmp_path):
    ws = concert_workspace(tmp_path / "ws")
    proc = subprocess.run([EVOONTO, "serve", "-w", str(ws), "--transport", "http", "--host", "0.0.0.0",
                           "--port", str(_free_port()), "--allow-host", "mcp.test"],
                          capture_output=True, text=True, timeout=60, env=_env(EVOONTO_MCP_TOKEN="short"))
    assert proc.returncode != 0 and "16 characters" in proc.stderr


@pytest.mark.slow
def test_non_loopback_serving_checks_host_and_bearer_token(tmp_path):
    ws = concert_workspace(tmp_path / "ws")
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n", encoding="utf-8")
    port = _free_port()
    proc = subprocess.Popen([EVOONTO, "serve", "-w", str(ws), "--transport", "http", "--host", "0.0.0.0",
                             "--port", str(port), "--allow-host", "mcp.test", "--token-file", str(token_file)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_env())
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.1)
        base = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        good = {**base, "Host": f"mcp.test:{port}", "Authorization": f"Bearer {TOKEN}"}
        body = json.dumps(INITIALIZE)
        status, headers, _ = _post(port, body, {k: v for k, v in good.items() if k != "Authorization"})
        assert status == 401 and headers["www-authenticate"].startswith("Bearer")
        assert _post(port, body, {**good, "Authorization": "Bearer " + "x" * len(TOKEN)})[0] == 401
        assert _post(port, body, {**good, "Authorization": TOKEN})[0] == 401  # no scheme
        assert _post(port, body, {**good, "Host": f"evil.example:{port}"})[0] == 421
        assert _post(port, body, {**good, "Origin": "https://evil.example"})[0] == 403
        status, _, text = _post(port, body, good)
        assert status == 200, text
        assert "evoonto" in text
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        proc.stderr.close()


@pytest.mark.slow
def test_the_python_api_refuses_an_unprotected_non_loopback_app(tmp_path):
    from evoonto.errors import ConfigurationError
    from evoonto.server import BearerTokenMiddleware, create_server

    server = create_server(concert_workspace(tmp_path / "ws"))
    with pytest.raises(ConfigurationError, match="--allow-host .* and a bearer token"):
        server.streamable_http_app(host="0.0.0.0")  # what server.run("streamable-http", host=...) builds
    with pytest.raises(ConfigurationError, match="bearer token"):
        server.configure_http("0.0.0.0", allow_hosts=["mcp.test"])
    server.configure_http("0.0.0.0", allow_hosts=["mcp.test"], token=TOKEN)
    app = server.streamable_http_app(host="0.0.0.0")
    assert [m.cls for m in app.user_middleware].count(BearerTokenMiddleware) == 1
