"""Issue 17, item 1: ``build`` silently replaced an existing workspace (its name, base IRI,
trajectories and runs stayed and were mixed with the new base). Now it refuses with one line saying
what is there, and ``--force`` moves the old workspace aside into ``backups/<time>/``."""

from __future__ import annotations

import pytest

from pathlib import Path

from fixtures.builder_support import make_cards_db
from fixtures.sources_support import sqlite_db

from evoonto.cli import main
from evoonto.workspace import Workspace


def _other_db(folder: Path) -> Path:
    return sqlite_db(folder / "shop.sqlite", """
        CREATE TABLE product (id INTEGER PRIMARY KEY, title TEXT, price REAL);
        INSERT INTO product VALUES (1, 'Lamp', 9.5), (2, 'Desk', 120.0), (3, 'Chair', 45.0);
    """)


@pytest.mark.slow
def test_build_refuses_an_existing_workspace_and_force_moves_it_aside(tmp_path, capsys):
    cards, shop = make_cards_db(tmp_path), _other_db(tmp_path)
    ws = tmp_path / "cards-ws"
    assert main(["build", "--source", str(cards), "-w", str(ws), "--no-progress"]) == 0
    (ws / "trajectories" / "session.jsonl").write_text('{"tool": "browse"}\n', encoding="utf-8")
    (ws / "runs" / "run-1").mkdir()
    copy = tmp_path / "x"
    import shutil

    shutil.copytree(ws, copy)
    before = {p.relative_to(copy): p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    capsys.readouterr()

    assert main(["build", "--source", str(shop), "-w", str(copy), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("evoonto: error:")
    for part in ("'cards-ws'", "https://example.org/evoonto/cards-ws/", "version 0", "1 trajectory", "1 run",
                 "--force"):
        assert part in err, part
    after = {p.relative_to(copy): p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    assert after == before  # nothing changed without --force

    assert main(["build", "--source", str(shop), "-w", str(copy), "--no-progress", "--force"]) == 0
    new = Workspace.open(copy)
    assert new.name == "x" and new.base_iri == "https://example.org/evoonto/x/"
    assert set(new.settings["sources"]) == {"shop"}
    assert not any(new.trajectories_dir.iterdir()) and not any(new.runs_dir.iterdir())
    (backup,) = (copy / "backups").iterdir()
    assert (backup / "trajectories" / "session.jsonl").is_file() and (backup / "runs" / "run-1").is_dir()
    assert Workspace.open(backup).name == "cards-ws"  # the old workspace is whole in its backup


@pytest.mark.slow
def test_build_into_a_fresh_init_keeps_its_base_iri(tmp_path):
    ws = tmp_path / "fin"
    assert main(["init", "-w", str(ws), "--base-iri", "https://data.example.com/fin/"]) == 0
    assert main(["build", "--source", str(make_cards_db(tmp_path)), "-w", str(ws), "--no-progress"]) == 0
    assert Workspace.open(ws).base_iri == "https://data.example.com/fin/"


def test_build_never_moves_foreign_files(tmp_path, capsys):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "thesis.txt").write_text("mine", encoding="utf-8")
    code = main(["build", "--source", str(make_cards_db(tmp_path)), "-w", str(folder), "--no-progress", "--force"])
    assert code == 2 and "thesis.txt" in capsys.readouterr().err
    assert [p.name for p in folder.iterdir()] == ["thesis.txt"]
