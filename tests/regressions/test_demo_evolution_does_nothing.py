"""Regression: `evoonto demo` printed "0 accepted, 0 rejected" — its evolution step did nothing.

The demo evolved the builder's version 0 on the very construction questions it was built from; all of
them passed, so the loop had no failure to diagnose and the gate never ran. The demo now evolves the
paper's raw-schema Baseline and the real gate must decide candidates, as read back from the workspace
history (`Workspace.log()`).

Since the demo uses the library's default gate, the Bayesian rule shared with `evoonto evolve` (issue
14), it no longer has to reject anything on concert_singer: the candidates the sign test rejected there
changed no question of V (1.000 -> 1.000) and are now decided on their screen (a net fix of the failures
they were written for). The test therefore checks that every decision is the default gate's, with its
statistics recorded, instead of counting rejections.
"""

from __future__ import annotations

import pytest

import os
import subprocess
import sys
from pathlib import Path


@pytest.mark.slow
def test_demo_evolution_accepts_and_rejects(tmp_path):
    script = Path(sys.executable).with_name("evoonto")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "evoonto"]
    env = {k: v for k, v in os.environ.items() if k not in ("EVOONTO_WORKSPACE", "ANTHROPIC_API_KEY")}
    proc = subprocess.run([*cmd, "demo", "--workspace", str(tmp_path / "ws")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 accepted, 0 rejected" not in proc.stdout

    from evoonto.workspace import Workspace

    histories = [Workspace.open(p.parent).log() for p in sorted(tmp_path.glob("ws/**/config.json"))]
    gated = [e for log in histories for e in log if e.decision in ("accepted", "rejected")]
    assert sum(1 for e in gated if e.decision == "accepted") >= 1, proc.stdout
    for entry in gated:  # decided by the default (Bayesian) gate on V, statistics kept in the history
        assert {"posterior", "regression_p", "size", "wins", "losses"} <= set(entry.metadata), entry.metadata
        assert entry.metadata["size"] >= 1 and "bayes" in entry.metadata["reason"], entry.metadata
