"""A ``build --force`` killed while it wrote its replacement journal (or while it assembled its new
workspace) left its temp entries in the workspace for good: the journal's temp file
(``..<pid>.init.tmp.<pid>.tmp``, before the rename that makes it a journal) and the staging folder
``.new.<pid>.tmp`` (a whole workspace). No journal means nothing to finish, so opening the workspace
returned before looking at them (seen once in CI by ``test_kill_build_force_at_random_moments``).
Opening a complete workspace now removes them, unless a writer holds the lock (they are then its own).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from evoonto.fileio import WriterLock
from evoonto.workspace import LOCK_FILE, Workspace


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _leave_killed_build(path: Path, pid: int) -> list[Path]:
    journal_tmp = path / f"..{pid}.init.tmp.{pid}.tmp"
    journal_tmp.write_text('{"replace": 1, "pid": ')  # cut mid-write
    staging = path / f".new.{pid}.tmp"
    (staging / "patches").mkdir(parents=True)
    (staging / "base.trig").write_text("# half a workspace\n")
    return [journal_tmp, staging]


def test_open_removes_the_temp_entries_of_a_killed_build(tmp_path):
    path = tmp_path / "ws"
    Workspace.init(path, base_iri="http://example.org/k/", name="k")
    before = sorted(p.name for p in path.iterdir() if p.name != LOCK_FILE)
    leftovers = _leave_killed_build(path, _dead_pid())
    ws = Workspace.open(path)
    assert ws.version == 0
    assert not [p for p in leftovers if p.exists()]
    assert sorted(p.name for p in path.iterdir() if p.name != LOCK_FILE) == before


def test_open_leaves_the_temp_entries_of_a_writer_holding_the_lock(tmp_path):
    path = tmp_path / "ws"
    Workspace.init(path, base_iri="http://example.org/k/", name="k")
    leftovers = _leave_killed_build(path, _dead_pid())
    with WriterLock(path / LOCK_FILE):  # (a build at work: its temp entries are its own)
        Workspace.open(path)
        assert all(p.exists() for p in leftovers)
    Workspace.open(path)
    assert not [p for p in leftovers if p.exists()]


def test_half_made_folder_keeps_its_init_marker(tmp_path):
    """A folder without config.json (an init killed early) keeps its temp entries: its init marker says
    the base.trig next to it is that init's own, so the next init may replace it."""
    from evoonto.workspace import describe_workspace

    path = tmp_path / "half"
    path.mkdir()
    marker = path / f".{_dead_pid()}.init.tmp"
    marker.write_bytes(b"")
    (path / "base.trig").write_text("# a built base\n")
    assert describe_workspace(path) is None
    assert marker.exists()


def test_open_leaves_temp_files_of_writers_that_take_no_lock(tmp_path):
    """Review of the first fix: opening a workspace deleted every hidden ``.tmp`` entry, also those of
    writers that take no lock (a feedback record, an evolution's hold-out, a nested workspace being
    built) and a user's own: a verdict was lost. Only a build's or an init's entries of dead processes go."""
    import os

    path = tmp_path / "ws"
    Workspace.init(path, base_iri="http://example.org/k/", name="k")
    live = os.getpid()
    kept = [path / f".feedback.jsonl.{live}.140234.tmp", path / f".verified_holdout.json.{live}.tmp",
            path / f".inner.{live}.init.tmp", path / ".notes.tmp", path / f".new.{live}.tmp"]
    for entry in kept[:2] + kept[3:4]:
        entry.write_text("x")
    for folder in kept[2:3] + kept[4:]:
        folder.mkdir()
    dead = _leave_killed_build(path, _dead_pid())
    Workspace.open(path)
    assert all(p.exists() for p in kept), [p.name for p in kept if not p.exists()]
    assert not [p for p in dead if p.exists()]
