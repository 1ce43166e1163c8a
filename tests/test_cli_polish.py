"""User-facing polish of the CLI found by a new-user trial (error lines, timings, help examples)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.builder_support import make_cards_db

from evoonto.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def cards_db(tmp_path_factory) -> Path:
    return make_cards_db(tmp_path_factory.mktemp("cards"))


@pytest.mark.parametrize("source", ["missing.sqlite", "notes.md"])
def test_build_error_starts_its_own_line_and_leaves_nothing(tmp_path, capsys, monkeypatch, source):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.md").write_text("# Notes\n\nNothing tabular here.\n", encoding="utf-8")
    code, _, err = run(capsys, "build", "--source", source, "-w", "ws")  # progress bar not disabled
    assert code == 2
    assert err.splitlines()[0].startswith("evoonto: error:") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "ws").exists()
    if source == "notes.md":
        assert "no Terms built" in err


def test_build_reports_total_time(cards_db, tmp_path, capsys):
    code, out, _ = run(capsys, "build", "--source", str(cards_db), "-w", str(tmp_path / "ws"), "--no-progress")
    assert code == 0
    first = out.splitlines()[0]
    assert "(build " in first and "validation and writing " in first
