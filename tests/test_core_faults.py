"""Fault injection: a writer killed at any point of a commit leaves the parent or the child version."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from rdflib.namespace import RDF

from evoonto.namespaces import EVO
from evoonto.workspace import Workspace
from fixtures.core_support import term_patch

TESTS = Path(__file__).resolve().parent

CHILD = textwrap.dedent("""
    import os, signal, sys
    from evoonto.workspace import Workspace
    from fixtures.core_support import term_patch

    path, stage, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    ws = Workspace.open(path)
    if stage != "random":
        Workspace._fault_hook = staticmethod(
            lambda s: os.kill(os.getpid(), signal.SIGKILL) if s == stage else None)
    for i in range(count):
        ws.commit(term_patch(ws, f"k{ws.version + 1}"))
        print(ws.version, flush=True)
""")


def run_child(path: Path, stage: str, count: int = 1, kill_after: float | None = None) -> int:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path), stage, str(count)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if kill_after is not None:
        # the clock starts once the child has committed once, so a slow start (imports on a loaded
        # machine) cannot turn every run into a kill before the first commit
        assert proc.stdout is not None
        proc.stdout.readline()
        time.sleep(kill_after)
        proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=120)
    return proc.returncode


def check_consistent(path: Path) -> int:
    """Open the workspace and check that version n holds exactly the terms k1..kn."""
    ws = Workspace.open(path)
    terms = {str(s).rsplit("/", 1)[-1] for s in ws.ontology.graph("content").subjects(RDF.type, EVO.Term)}
    assert terms == {f"k{i}" for i in range(1, ws.version + 1)}, (ws.version, sorted(terms))
    assert len(ws.log()) == ws.version
    return ws.version


@pytest.mark.parametrize("stage,expected", [("validated", 0), ("written", 0), ("renamed", 1)])
def test_kill_at_each_commit_step(tmp_path, stage, expected):
    Workspace.init(tmp_path / "ws", name="faults")
    assert run_child(tmp_path / "ws", stage) == -signal.SIGKILL
    assert check_consistent(tmp_path / "ws") == expected
    # the workspace stays writable: a leftover temp file or lock does not block the next commit
    ws = Workspace.open(tmp_path / "ws")
    assert ws.commit(term_patch(ws, f"k{expected + 1}")) == expected + 1
    assert not list((tmp_path / "ws" / "patches").glob(".*.tmp"))
    check_consistent(tmp_path / "ws")


def test_kill_at_random_moments(tmp_path):
    rng = random.Random(11)
    Workspace.init(tmp_path / "ws", name="faults")
    versions = []
    for _ in range(3):
        run_child(tmp_path / "ws", "random", count=200, kill_after=rng.uniform(0.2, 1.5))
        versions.append(check_consistent(tmp_path / "ws"))
    assert versions == sorted(versions) and versions[-1] > 0, versions
