"""``build --force`` moved the old workspace's files one by one into ``backups/<time>/`` (base.trig
first) and only then made the new workspace in place. Killed after moving base.trig aside, it left
config.json without base.trig: the folder no longer opened, nothing said the data was in
``backups/`` and nothing restored it. The build now assembles the whole new workspace in a hidden
folder inside the workspace and swaps it in with renames under a journal (the init marker
``.<pid>.init.tmp`` holding JSON); the next ``open`` (or build) finishes an interrupted swap. Each
test kills a child process (SIGKILL) at one exact step."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from fixtures.builder_support import make_cards_db
from fixtures.core_support import term_patch
from fixtures.sources_support import sqlite_db

from evoonto.builder import build, write_workspace
from evoonto.builder.pipeline import workspace_base_iri
from evoonto.errors import WorkspaceError
from evoonto.workspace import Workspace

TESTS = Path(__file__).resolve().parents[1]

# write_workspace(build of argv[2], argv[1], force=argv[3]); kill mode argv[4]:
#   "swap:K"  K renames after the swap journal was written (K=0: right after it)
#   "file:N"  right after the file named N was written (atomically) while the workspace is assembled
CHILD = textwrap.dedent("""
    import os, re, signal, sys
    from pathlib import Path
    import evoonto.workspace as w
    from evoonto.builder import build, write_workspace
    from evoonto.builder.pipeline import workspace_base_iri

    path, db, force, mode = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "1", sys.argv[4]
    result = build([db], base_iri=workspace_base_iri(path, force=force))
    kind, _, arg = mode.partition(":")
    die = lambda: os.kill(os.getpid(), signal.SIGKILL)
    if kind == "swap":
        real_replace, state = os.replace, {"journal": False, "renames": 0}
        def replace(src, dst, *a, **kw):
            real_replace(src, dst, *a, **kw)
            if state["journal"]:
                state["renames"] += 1
            elif re.fullmatch(r"[.][0-9]+[.]init[.]tmp", Path(dst).name) and b"replace" in Path(dst).read_bytes():
                state["journal"] = True
            if state["journal"] and state["renames"] == int(arg):
                die()
        os.replace = replace
    else:
        real_write = w.atomic_write
        def write(target, data, **kw):
            real_write(target, data, **kw)
            if Path(target).name == arg:
                die()
        w.atomic_write = write
    write_workspace(result, path, force=force)
    print("finished", flush=True)
""")


def run_killed(path: Path, db: Path, mode: str, *, force: bool = True) -> subprocess.CompletedProcess:
    """Run the build child; returns it (returncode -SIGKILL when the kill point was reached)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-c", CHILD, str(path), str(db), "1" if force else "0", mode],
                          env=env, capture_output=True, timeout=300)


def _shop_db(folder: Path) -> Path:
    return sqlite_db(folder / "shop.sqlite", """
        CREATE TABLE product (id INTEGER PRIMARY KEY, title TEXT, price REAL);
        INSERT INTO product VALUES (1, 'Lamp', 9.5), (2, 'Desk', 120.0), (3, 'Chair', 45.0);
    """)


@pytest.fixture(scope="module")
def old_workspace(tmp_path_factory) -> Path:
    """A built workspace at version 1 (one committed patch), with a lexicon and a trajectory."""
    folder = tmp_path_factory.mktemp("old")
    path = folder / "ws"
    ws = write_workspace(build([str(make_cards_db(folder))], base_iri=workspace_base_iri(path)), path)
    ws.commit(term_patch(ws, "k1"))
    (path / "trajectories" / "session.jsonl").write_text('{"tool": "browse"}\n', encoding="utf-8")
    (path / "lexicon.tsv").write_text("abbreviation\tqty\tquantity\n", encoding="utf-8")
    return path


def _files(path: Path) -> dict[str, bytes]:
    """The workspace's files (not hidden ones, not backups) by relative path."""
    files = {}
    for p in path.rglob("*"):
        parts = p.relative_to(path).parts
        if p.is_file() and parts[0] != "backups" and not any(part.startswith(".") for part in parts):
            files["/".join(parts)] = p.read_bytes()
    return files


def _no_temp_left(path: Path) -> None:
    assert not [p.name for p in path.iterdir() if p.name.endswith(".tmp")], sorted(p.name for p in path.iterdir())


# 5 entries moved aside (base.trig, config.json, patches, runs, trajectories), 5 moved up (config last)
@pytest.mark.slow
@pytest.mark.parametrize("renames", [0, 1, 2, 5, 6, 9, 10])
def test_build_killed_after_moving_base_aside_strands_the_workspace(tmp_path, old_workspace, renames):
    path = Path(shutil.copytree(old_workspace, tmp_path / "ws"))
    before = _files(path)
    proc = run_killed(path, _shop_db(tmp_path), f"swap:{renames}")
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    ws = Workspace.open(path)  # finishes the swap the killed build recorded
    assert ws.version == 0 and set(ws.settings["sources"]) == {"shop"}
    _no_temp_left(path)
    assert (path / "lexicon.tsv").read_bytes() == before["lexicon.tsv"]
    (backup,) = (path / "backups").iterdir()
    assert _files(backup) == {k: v for k, v in before.items() if k != "lexicon.tsv"}  # the old workspace, whole
    assert Workspace.open(backup).version == 1


@pytest.mark.slow
@pytest.mark.parametrize("written", ["base.trig", "config.json"])
def test_build_killed_after_moving_base_aside_while_assembling_keeps_the_old_workspace(tmp_path, old_workspace,
                                                                                       written):
    path, shop = Path(shutil.copytree(old_workspace, tmp_path / "ws")), _shop_db(tmp_path)
    before = _files(path)
    proc = run_killed(path, shop, f"file:{written}")
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()[-2000:]
    assert _files(path) == before and not (path / "backups").exists()  # untouched ...
    assert Workspace.open(path).version == 1  # ... and it opens at its version
    rebuilt = write_workspace(build([str(shop)], base_iri=workspace_base_iri(path, force=True)),
                              path, force=True)  # the next build removes the killed one's staging folder
    assert set(rebuilt.settings["sources"]) == {"shop"}
    _no_temp_left(path)


@pytest.mark.slow
def test_build_killed_after_moving_base_aside_names_the_backup_and_restore_command(tmp_path, old_workspace):
    """The state the old code left (config.json in place, base.trig in backups/<time>/): open says
    where the files are and the command that restores them, and that command works."""
    path = Path(shutil.copytree(old_workspace, tmp_path / "ws"))
    backup = path / "backups" / "20260101T000000000000Z"
    backup.mkdir(parents=True)
    os.replace(path / "base.trig", backup / "base.trig")
    with pytest.raises(WorkspaceError) as err:
        Workspace.open(path)
    message = str(err.value)
    assert str(backup) in message and f"mv {backup}/* {path}/" in message
    subprocess.run(["sh", "-c", message.split("`")[1]], check=True)
    assert Workspace.open(path).version == 1


def test_build_killed_after_moving_base_aside_journal_outside_the_folder_is_refused(tmp_path, old_workspace):
    path = Path(shutil.copytree(old_workspace, tmp_path / "ws"))
    (path / ".999999.init.tmp").write_text('{"replace": 1, "staging": "../x", "aside": "backups/a", '
                                           '"keep": true, "displace": ["base.trig"]}', encoding="utf-8")
    with pytest.raises(WorkspaceError, match="damaged replacement journal"):
        Workspace.open(path)
    assert (path / "base.trig").is_file() and not (tmp_path / "x").exists()


def test_build_killed_after_moving_base_aside_refused_build_changes_nothing(tmp_path, old_workspace):
    """A --force build that fails (a blank node in its graphs) while it is assembled leaves the old
    workspace as it was: nothing moved to backups/, no staging folder left."""
    from rdflib import BNode, URIRef

    path = Path(shutil.copytree(old_workspace, tmp_path / "ws"))
    before = _files(path)
    result = build([str(_shop_db(tmp_path))], base_iri=workspace_base_iri(path, force=True))
    result.graphs["content"].add((URIRef(result.base_iri + "x"), URIRef("https://example.org/p"), BNode()))
    with pytest.raises(WorkspaceError, match="blank node"):
        write_workspace(result, path, force=True)
    assert _files(path) == before and not (path / "backups").exists()
    _no_temp_left(path)
    assert Workspace.open(path).version == 1
