"""Regression: `evoonto demo` printed "0 accepted, 0 rejected" — its evolution step did nothing.

The demo evolved the builder's version 0 on the very construction questions it was built from; all of
them passed, so the loop had no failure to diagnose and the gate never ran. The demo now evolves the
paper's raw-schema Baseline and the real gate must both accept and reject candidates, as read back
from the workspace history (`Workspace.log()`).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


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
    decisions = [e.decision for log in histories for e in log]
    assert decisions.count("accepted") >= 1, proc.stdout
    assert decisions.count("rejected") >= 1, proc.stdout
