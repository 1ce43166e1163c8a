"""The source benchmark script runs end to end (small generated table; no timing assertions)."""

from __future__ import annotations

import pytest

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "sources_bench.py"


@pytest.mark.slow
def test_sources_bench_runs(spider_dir: Path, capsys):
    spec = importlib.util.spec_from_file_location("sources_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--spider", str(spider_dir), "--rows", "3000"]) == 0
    out = capsys.readouterr().out
    assert "Spider: 12 databases" in out and "3,000-row SQLite table" in out
