"""Issue 17: a build killed in its first milliseconds left a folder (empty workspace folders, a
``base.trig`` without ``config.json``, temp files) that ``build`` then refused to reuse."""

from __future__ import annotations

from fixtures.builder_support import make_cards_db

from evoonto.cli import main
from evoonto.workspace import Workspace


def test_build_reuses_a_half_made_workspace(tmp_path):
    ws = tmp_path / "ws"
    Workspace.init(ws)
    (ws / "config.json").unlink()  # killed between base.trig and config.json
    (ws / ".base.trig.4242.tmp").write_bytes(b"partial")
    (ws / "lexicon.tsv").write_text("abbreviation\tqty\tquantity\n", encoding="utf-8")
    assert main(["build", "--source", str(make_cards_db(tmp_path)), "-w", str(ws), "--no-progress"]) == 0
    opened = Workspace.open(ws)
    assert opened.version == 0 and opened.name == "ws" and "cards" in opened.settings["sources"]
    assert (ws / "lexicon.tsv").is_file() and not (ws / ".base.trig.4242.tmp").exists()  # moved with the orphan base
    assert sorted(p.name for p in ws.iterdir() if not p.name.startswith(".")) == [
        "backups", "base.trig", "config.json", "lexicon.tsv", "patches", "runs", "trajectories"]
    (backup,) = (ws / "backups").iterdir()  # the orphan base.trig is kept, not deleted
    assert [p.name for p in backup.iterdir() if p.is_file() and not p.name.startswith(".")] == ["base.trig"]


def test_build_reuses_an_empty_folder_tree(tmp_path):
    ws = tmp_path / "ws"
    for name in ("patches", "trajectories", "runs"):
        (ws / name).mkdir(parents=True)
    assert main(["build", "--source", str(make_cards_db(tmp_path)), "-w", str(ws), "--no-progress"]) == 0
    assert Workspace.open(ws).version == 0
