"""The linter and the type checker run as part of the test suite (settings in pyproject.toml), so the
README's test command and CI enforce them."""

from __future__ import annotations

import pytest

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_ruff_finds_nothing():
    proc = _run("ruff", "check", "evoonto", "tests", "benchmarks")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


@pytest.mark.slow
def test_mypy_finds_nothing():
    proc = _run("mypy")
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
