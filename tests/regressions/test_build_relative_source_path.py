"""Issue 17: ``build`` stored source paths relative to where it ran, so a server started from
another directory (as MCP clients start it) could not open the data source."""

from __future__ import annotations

from fixtures.builder_support import make_cards_db

from evoonto.cli import main
from evoonto.sources import open_source
from evoonto.workspace import Workspace


def test_source_recorded_by_build_opens_from_another_directory(tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "data").mkdir()
    make_cards_db(a / "data")
    monkeypatch.chdir(a)
    assert main(["build", "--source", "data/cards.sqlite", "-w", "ws", "--no-progress"]) == 0
    monkeypatch.chdir(b)
    location = Workspace.open(a / "ws").settings["sources"]["cards"]
    src = open_source(location)
    try:
        assert src.id == "cards" and src.run("SELECT COUNT(*) FROM cards").rows[0][0] > 0
    finally:
        src.close()
