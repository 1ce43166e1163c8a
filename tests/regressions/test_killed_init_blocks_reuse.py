"""Issue 17: a `build`/`init` killed in its first milliseconds left a folder (base.trig, patches/,
trajectories/, runs/ but no config.json) that the next `init` or `build` refused as "not empty".
A new workspace is now assembled aside and renamed into place, and an unfinished folder is reused."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from evoonto.cli import main
from evoonto.errors import WorkspaceError
from evoonto.workspace import Workspace
from fixtures.core_support import term_patch

# kill the process right after base.trig is written, before config.json
CHILD = textwrap.dedent("""
    import os, signal, sys
    import evoonto.workspace as w

    real = w.atomic_write
    def write_then_die(path, data, **kw):
        real(path, data, **kw)
        if path.name == "base.trig":
            os.kill(os.getpid(), signal.SIGKILL)
    w.atomic_write = write_then_die
    w.Workspace.init(sys.argv[1], name="killed")
""")


@pytest.mark.slow
@pytest.mark.parametrize("existing", [False, True], ids=["new-folder", "empty-folder"])
def test_init_killed_before_config_leaves_a_reusable_path(tmp_path, capsys, existing):
    path = tmp_path / "ws"
    if existing:
        path.mkdir()
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    with pytest.raises(WorkspaceError):
        Workspace.open(path)  # not a workspace (no config.json) ...
    capsys.readouterr()
    assert main(["init", "-w", str(path)]) == 0, capsys.readouterr().err  # ... and not in the way
    assert Workspace.open(path).version == 0
    # the staging folder of the killed process is gone once its pid is dead and a new init ran
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".init.tmp")]


def test_a_folder_with_other_files_is_still_refused(tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "notes.txt").write_text("mine")
    with pytest.raises(WorkspaceError, match="not empty"):
        Workspace.init(tmp_path / "ws")
    (tmp_path / "ws2" / "patches").mkdir(parents=True)
    (tmp_path / "ws2" / "patches" / "0001-x.trig").write_text("")
    with pytest.raises(WorkspaceError, match="not empty"):
        Workspace.init(tmp_path / "ws2")
    assert os.listdir(tmp_path / "ws") == ["notes.txt"]


def test_a_base_with_content_but_no_config_is_not_overwritten(tmp_path):
    """Only an init's own leftovers count as unfinished: a base holding content (a build whose
    config.json was lost) is refused rather than replaced."""
    ws = Workspace.init(tmp_path / "ws", name="kept")
    ws.commit(term_patch(ws, "k1"))
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "base.trig").write_bytes(ws.ontology.store.dump(_trig()))
    before = (tmp_path / "kept" / "base.trig").read_bytes()
    with pytest.raises(WorkspaceError, match="not empty"):
        Workspace.init(tmp_path / "kept")
    assert (tmp_path / "kept" / "base.trig").read_bytes() == before


def _trig():
    import pyoxigraph

    return pyoxigraph.RdfFormat.TRIG

