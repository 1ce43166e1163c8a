"""Hostile and oversized input (issue 30): the numbers of the closing note.

Each case runs the real ``evoonto`` console script in a child process on a small workspace built here
and prints: exit status, wall time (s), the child's peak RSS (MiB, ``ru_maxrss`` of the children), the
lines it wrote to stderr, and what the case checks (connections to a local listener, answers of the
stdio loop, workspace version after the command).

Cases:
  skos-1m      ``import skos`` of an N-Triples glossary of 1,000,000 SKOS triples (refused at its limit)
  skos-remote  ``import skos`` of JSON-LD with a remote ``@context`` on a 127.0.0.1 listener (connections)
  dbt-3000     ``import dbt --dry-run`` of 3,000 semantic models (+1,000 metrics) over 100 tables
  verified-1mb ``verified add`` of one query of 1 MB of SQL
  stdio        ``serve`` (stdio) fed N random malformed lines and N malformed tools/call requests

Usage::

    python benchmarks/hostile_bench.py [--lines 1000] [CASE ...]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

EVOONTO = str(Path(sys.executable).parent / "evoonto")


def _children_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def _run(args: list[str], **kwargs) -> tuple[int, float, list[str]]:
    started = time.monotonic()
    proc = subprocess.run([EVOONTO, *args], capture_output=True, text=True, **kwargs)
    return proc.returncode, time.monotonic() - started, proc.stderr.strip().splitlines()


def _workspace(folder: Path, tables: int = 1) -> Path:
    db = folder / "shop.sqlite"
    with sqlite3.connect(db) as con:
        for n in range(tables):
            con.execute(f"CREATE TABLE t{n} (id INTEGER PRIMARY KEY, name TEXT, amount REAL, status TEXT)")
            con.execute(f"INSERT INTO t{n} VALUES (1, 'a', 1.5, 'open'), (2, 'b', 2.5, 'closed')")
    code, _, err = _run(["build", "--source", str(db), "--workspace", str(folder / "ws"), "--no-progress"])
    assert code == 0, err
    return folder / "ws"


def _version(ws: Path) -> int:
    from evoonto.workspace import Workspace

    return Workspace.open(ws).version


def _report(case: str, code: int, seconds: float, err: list[str], **extra) -> None:
    shown = {"case": case, "exit": code, "seconds": round(seconds, 2), "stderr_lines": len(err),
             "stderr": (err[0][:160] if err else ""), **extra}
    print(json.dumps(shown), flush=True)


def case_skos_1m(tmp: Path) -> None:
    ws = _workspace(tmp)
    path = tmp / "big.nt"
    with path.open("w") as out:
        for i in range(250_000):
            c = f"<http://ex.org/c{i}>"
            out.write(f"{c} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
                      f"<http://www.w3.org/2004/02/skos/core#Concept> .\n"
                      f'{c} <http://www.w3.org/2004/02/skos/core#prefLabel> "concept {i}"@en .\n'
                      f'{c} <http://www.w3.org/2004/02/skos/core#definition> "the {i}th concept"@en .\n'
                      f"{c} <http://www.w3.org/2004/02/skos/core#broader> <http://ex.org/c{i // 10}> .\n")
    before = _children_rss_mib()
    code, seconds, err = _run(["import", "skos", str(path), "-w", str(ws)])
    _report("skos-1m", code, seconds, err, triples=1_000_000, peak_rss_mib=round(max(_children_rss_mib(), before)),
            version=_version(ws))


def case_skos_remote(tmp: Path) -> None:
    ws = _workspace(tmp)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    sock.settimeout(0.1)
    connections = [0]
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            connections[0] += 1
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    path = tmp / "remote.jsonld"
    path.write_text(json.dumps({"@context": f"http://127.0.0.1:{sock.getsockname()[1]}/c.jsonld",
                                "@id": "http://ex.org/c", "@type": "skos:Concept", "prefLabel": "x"}))
    code, seconds, err = _run(["import", "skos", str(path), "-w", str(ws)])
    time.sleep(0.5)
    stop.set()
    thread.join(2)
    sock.close()
    _report("skos-remote", code, seconds, err, connections=connections[0], version=_version(ws))


def case_dbt_3000(tmp: Path) -> None:
    ws = _workspace(tmp, tables=100)
    project = tmp / "dbt"
    project.mkdir()
    models = []
    metrics = []
    for n in range(3000):
        table = f"t{n % 100}"
        models.append({"name": f"m{n}", "model": f"ref('{table}')",
                       "entities": [{"name": f"e{n}", "type": "primary", "expr": "id"}],
                       "dimensions": [{"name": "status", "type": "categorical"}],
                       "measures": [{"name": f"amount_{n}", "agg": "sum", "expr": "amount"}]})
        if n < 1000:
            metrics.append({"name": f"metric_{n}", "type": "simple", "type_params": {"measure": f"amount_{n}"}})
    (project / "models.yml").write_text(json.dumps({"semantic_models": models, "metrics": metrics}))  # JSON is YAML
    code, seconds, err = _run(["import", "dbt", str(project), "-w", str(ws), "--dry-run"])
    _report("dbt-3000", code, seconds, err, models=3000, metrics=1000, peak_rss_mib=round(_children_rss_mib()))


def case_verified_1mb(tmp: Path) -> None:
    ws = _workspace(tmp)
    sql = "SELECT id FROM t0 WHERE " + " OR ".join(f"amount = {i}" for i in range(70_000))
    path = tmp / "verified.jsonl"
    path.write_text(json.dumps({"question": "big", "sql": sql}) + "\n")
    code, seconds, err = _run(["verified", "add", str(path), "-w", str(ws)])
    _report("verified-1mb", code, seconds, err, sql_chars=len(sql), version=_version(ws))


def case_stdio(tmp: Path, n: int) -> None:
    ws = _workspace(tmp)
    rng = random.Random(30)
    alphabet = b'{}[]":,0123456789abcdefjsonrpcidmethod \\\x00\xff\xc3'
    lines = [b"[" * 100_000, b'{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}', b'{"id":1.5,"method":"x"}']
    while len(lines) < n:
        line = bytes(rng.choice(alphabet) for _ in range(rng.randint(1, 300))).replace(b"\n", b" ")
        if line.strip():
            lines.append(line)
    bad_args = [{"q": 5}, {"q": ""}, {"q": "x" * 30_000}, {"q": "age", "n": -1}, {"nope": 1}, [], "x", None,
                {"q": {"deep": [[[[[]]]]]}}]
    tools = ["browse", "resolve", "check_sql", "coverage", "join_path", "unknown_tool"]
    calls = [{"name": rng.choice(tools), "arguments": rng.choice(bad_args)} for _ in range(n)]
    init = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "b", "version": "0"}}}
    requests = [json.dumps(init).encode(), b'{"jsonrpc":"2.0","method":"notifications/initialized"}', *lines]
    requests += [json.dumps({"jsonrpc": "2.0", "id": f"c{k}", "method": "tools/call", "params": c}).encode()
                 for k, c in enumerate(calls)]
    requests.append(b'{"jsonrpc":"2.0","id":"last","method":"ping"}')
    started = time.monotonic()
    proc = subprocess.Popen([EVOONTO, "serve", "--workspace", str(ws)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    threading.Thread(target=lambda: (proc.stdin.write(b"\n".join(requests) + b"\n"), proc.stdin.flush()),
                     daemon=True).start()
    expected = {f"c{k}" for k in range(n)} | {"init", "last"}
    seen: set = set()
    null_ids = 0
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and not expected <= seen:
        line = proc.stdout.readline()
        if not line:
            break
        answer = json.loads(line)
        seen.add(answer.get("id"))
        null_ids += answer.get("id") is None
    alive = proc.poll() is None
    seconds = time.monotonic() - started
    proc.stdin.close()
    proc.terminate()
    proc.wait(30)
    err = proc.stderr.read().decode().strip().splitlines()
    _report("stdio", 0 if alive else proc.returncode, seconds, err, malformed_lines=len(lines),
            answered_lines=null_ids, malformed_calls=n, answered_calls=len(seen & {f"c{k}" for k in range(n)}),
            alive=alive, tracebacks=sum("Traceback" in e for e in err))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1000, help="malformed lines and calls of the stdio case")
    parser.add_argument("cases", nargs="*", default=["skos-remote", "verified-1mb", "dbt-3000", "skos-1m", "stdio"])
    args = parser.parse_args(argv)
    for case in args.cases:
        with tempfile.TemporaryDirectory() as tmp:
            if case == "stdio":
                case_stdio(Path(tmp), args.lines)
            else:
                {"skos-1m": case_skos_1m, "skos-remote": case_skos_remote, "dbt-3000": case_dbt_3000,
                 "verified-1mb": case_verified_1mb}[case](Path(tmp))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
