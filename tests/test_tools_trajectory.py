"""Trajectory log: event schema, order, concurrent writers (threads and processes)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from evoonto.errors import ToolArgumentError
from evoonto.ontology import Ontology
from evoonto.store import OxigraphStore, parse_rdf_file
from evoonto.tools.toolkit import OntologyTools
from evoonto.tools.trajectory import TrajectoryLog, read_events

FIXTURE = Path(__file__).parent / "fixtures" / "tools_concert.trig"
BASE = "https://example.org/evoonto/tools-test/"
KEYS = {"session", "seq", "ts", "version", "tool", "arguments", "result_size", "latency_ms", "error"}


def load() -> Ontology:
    store = OxigraphStore()
    store.load_quads(parse_rdf_file(FIXTURE))
    return Ontology(store, version=3, base_iri=BASE)


def test_calls_are_logged_in_order_with_schema(tmp_path):
    log = TrajectoryLog.for_workspace(tmp_path, session="s1", task="q7")
    tools = OntologyTools(load(), trajectory=log)
    hits = tools.call("browse", {"q": "banned"})
    tools.call("resolve", {"ids": [hits[0]["id"], "nope"]})
    with pytest.raises(ToolArgumentError):
        tools.call("browse", {"q": "", "n": 0})
    with pytest.raises(ToolArgumentError, match="unknown tool"):
        tools.call("admin_commit", {})
    tools.call("manifest")
    events = read_events(tmp_path / "trajectories" / "s1.jsonl")
    assert [e["tool"] for e in events] == ["browse", "resolve", "browse", "admin_commit", "manifest"]
    assert [e["seq"] for e in events] == [0, 1, 2, 3, 4]
    assert all(KEYS <= set(e) and e["session"] == "s1" and e["task"] == "q7" and e["version"] == 3 for e in events)
    assert events[0]["result_ids"] == [h["id"] for h in hits] and events[0]["error"] is None
    assert events[0]["result_size"] == len(json.dumps(hits, ensure_ascii=False, separators=(",", ":")))
    assert events[1]["result_ids"] == [hits[0]["id"]]
    assert events[2]["error"].startswith("browse: query must be") and events[2]["result_size"] == 0
    assert events[0]["ts"].endswith("Z") and events[0]["latency_ms"] >= 0
    assert events[0]["ts"] <= events[-1]["ts"]


def test_long_arguments_are_clipped(tmp_path):
    log = TrajectoryLog(tmp_path / "one.jsonl", session="s")
    log.record(tool="browse", arguments={"q": "x" * 100_000}, version=None, result_size=0, latency_ms=0.1)
    (event,) = read_events(tmp_path / "one.jsonl")
    assert len(event["arguments"]["q"]) == 2000 and event["arguments"]["q"].endswith("…")


def test_malformed_session_is_refused(tmp_path):
    with pytest.raises(ValueError):
        TrajectoryLog(tmp_path / "x.jsonl", session="../../etc/passwd")


def _write_many(path: str, session: str, count: int) -> None:
    log = TrajectoryLog(path, session=session)
    for i in range(count):
        log.record(tool="browse", arguments={"q": f"{session}-{i}", "pad": "y" * 3000}, version=1,
                   result_size=i, latency_ms=0.5)


@pytest.mark.slow
def test_concurrent_writers_never_interleave(tmp_path):
    path = str(tmp_path / "shared.jsonl")
    code = (
        "import sys\nfrom evoonto.tools.trajectory import TrajectoryLog\n"
        "log = TrajectoryLog(sys.argv[1], session=sys.argv[2])\n"
        "for i in range(100):\n"
        "    log.record(tool='browse', arguments={'q': str(i), 'pad': 'y' * 3000}, version=1,"
        " result_size=i, latency_ms=0.5)\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, path, f"p{i}"]) for i in range(3)]
    threads = [threading.Thread(target=_write_many, args=(path, f"t{i}", 100)) for i in range(4)]
    for worker in threads:
        worker.start()
    for worker in threads:
        worker.join()
    assert all(p.wait(timeout=60) == 0 for p in procs)
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 700
    events = [json.loads(line) for line in lines]  # every line is a whole event
    by_session: dict[str, list[int]] = {}
    for event in events:
        by_session.setdefault(event["session"], []).append(event["seq"])
    assert len(by_session) == 7
    assert all(seqs == list(range(100)) for seqs in by_session.values())  # in order per session


def test_child_logs(tmp_path):
    per_session = TrajectoryLog.for_workspace(tmp_path, session="srv")
    child = per_session.child("abc123")
    assert child.session == "srv-abc123" and child.path == tmp_path / "trajectories" / "srv-abc123.jsonl"
    shared = TrajectoryLog(tmp_path / "all.jsonl", session="srv")
    assert shared.child("x").path == shared.path
    with pytest.raises(ValueError):
        shared.child("../../x")
