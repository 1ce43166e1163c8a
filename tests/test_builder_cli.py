"""``evoonto build`` (evoonto.cli.build)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.builder_support import make_cards_db

from evoonto.cli import main


@pytest.fixture(scope="module")
def cards_db(tmp_path_factory) -> Path:
    return make_cards_db(tmp_path_factory.mktemp("cards"))


def test_build_writes_version_zero(cards_db, tmp_path, capsys):
    workload = tmp_path / "q.jsonl"
    workload.write_text('{"id": "1", "question": "Which cards are banned?"}\n', encoding="utf-8")
    ws = tmp_path / "ws"
    assert main(["build", "--source", str(cards_db), "--workload", str(workload), "-w", str(ws), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "version 0" in out and "terms" in out and "cards: " in out
    from evoonto.workspace import Workspace

    opened = Workspace.open(ws)
    assert opened.version == 0 and len(opened.ontology.graph("content")) > 100
    # rebuilding into the same workspace is refused without --force, and replaces it with --force
    assert main(["build", "--source", str(cards_db), "-w", str(ws), "--no-progress"]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["build", "--source", str(cards_db), "-w", str(ws), "--no-progress", "--force"]) == 0
    assert Workspace.open(ws).version == 0 and len(list((ws / "backups").iterdir())) == 1


@pytest.mark.parametrize("extra, message", [
    (["--proposer", "anthropic:claude-sonnet-5-5"], "ANTHROPIC_API_KEY"),
    (["--workload", "missing.jsonl"], "workload file not found"),
    (["--proposer", "oracle"], "unknown proposer"),
])
def test_errors_are_one_line_and_create_nothing(cards_db, tmp_path, capsys, monkeypatch, extra, message):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    ws = tmp_path / "ws"
    assert main(["build", "--source", str(cards_db), "-w", str(ws), "--no-progress", *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and err.startswith("evoonto: error:")
    assert not ws.exists()


def test_help_lists_options(capsys):
    with pytest.raises(SystemExit):
        main(["build", "--help"])
    out = capsys.readouterr().out
    assert "--source" in out and "--workload" in out and "anthropic:MODEL" in out and "--workspace" in out
    assert "--force" in out and "backups/" in out
