"""benchmarks/core_bench.py runs end to end on a small generated ontology (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_core_bench_runs_small():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "core_bench.py"), "--triples", "3000",
                           "--commits", "1", "--json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["patch_quads"] == 200 and result["commits_valid"] and result["full_validation_conforms"]
    assert result["content_catalog_triples"] >= 3000 and result["turtle_bytes"] > 0
