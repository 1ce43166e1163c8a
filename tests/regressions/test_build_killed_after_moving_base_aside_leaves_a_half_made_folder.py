"""A build into a new folder made it with ``init`` in place (base.trig, then config.json), then
rewrote base.trig with the build: killed between base.trig and config.json it left a folder with a
``base.trig`` and no config (tests/test_core_faults.py::test_kill_build_at_random_moments forbids
any file but ``.lock`` there; it failed once), and killed after config.json a packaged-only
workspace. The build now assembles the workspace in a hidden sibling folder and renames it into
place, so the folder is absent or complete; into an existing folder (empty, or a fresh ``init``) it
swaps the assembled workspace in under a journal the next ``open`` finishes."""

from __future__ import annotations

import signal

import pytest
from fixtures.builder_support import make_cards_db
from test_build_killed_after_moving_base_aside_strands_the_workspace import run_killed

from evoonto.workspace import Workspace


@pytest.mark.slow
@pytest.mark.parametrize("written", ["base.trig", "config.json"])
def test_build_killed_after_moving_base_aside_leaves_a_half_made_folder(tmp_path, written):
    path, db = tmp_path / "ws", make_cards_db(tmp_path)
    proc = run_killed(path, db, f"file:{written}", force=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    assert not path.exists()  # the staging sibling was never renamed into place
    proc = run_killed(path, db, "swap:-1", force=False)  # never killed: runs through
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert Workspace.open(path).settings["sources"]
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]  # the dead staging was removed


@pytest.mark.slow
@pytest.mark.parametrize("renames", [0, 3, 4, 5])
def test_build_killed_after_moving_base_aside_into_a_fresh_init(tmp_path, renames):
    path = tmp_path / "fin"
    Workspace.init(path, base_iri="https://data.example.com/fin/", settings={"owner": "me"})
    proc = run_killed(path, make_cards_db(tmp_path), f"swap:{renames}", force=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    ws = Workspace.open(path)  # finished: the build, with the init's name, base IRI and settings
    assert ws.base_iri == "https://data.example.com/fin/" and ws.settings["owner"] == "me"
    assert "cards" in ws.settings["sources"] and ws.ontology.graph("catalog")
    assert sorted(p.name for p in path.iterdir()) == [".lock", "base.trig", "config.json", "patches", "runs",
                                                      "trajectories"]  # no backup of a fresh init, no temp


@pytest.mark.slow
def test_build_killed_after_moving_base_aside_into_an_empty_folder(tmp_path):
    path = tmp_path / "empty"
    path.mkdir()
    proc = run_killed(path, make_cards_db(tmp_path), "swap:2", force=False)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    from evoonto.builder.pipeline import describe_workspace

    assert describe_workspace(path) is not None  # the build's workspace, finished by describe (the build's check)
    assert "cards" in Workspace.open(path).settings["sources"]
