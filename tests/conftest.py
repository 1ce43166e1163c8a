"""Shared pytest fixtures.

``shared_data``: the ``../shared/data`` folder beside the repository (Spider, Chinook, Northwind,
InsightBench), or ``$EVOONTO_SHARED_DATA``; tests that need it are skipped when it is absent.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def shared_data_dir() -> Path | None:
    """The shared data folder, or None when it is not present on this machine."""
    env = os.environ.get("EVOONTO_SHARED_DATA")
    candidates = [Path(env)] if env else []
    candidates.append(REPO_ROOT.parent / "shared" / "data")
    for path in candidates:
        if (path / "spider").is_dir():
            return path
    return None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = shared_data_dir()
    if path is None:
        pytest.skip("../shared/data is not present (set EVOONTO_SHARED_DATA)")
    return path


@pytest.fixture(scope="session")
def spider_dir(shared_data: Path) -> Path:
    return shared_data / "spider"
