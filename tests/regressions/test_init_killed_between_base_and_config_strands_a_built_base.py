"""``Workspace.init(graphs=…)`` in an existing folder writes a built base.trig, then config.json. Killed
in between, it left a folder that could be neither opened (no config.json) nor re-initialised (a
base.trig holding catalog/content is protected as a possibly lost workspace). ``init`` now marks the
folder while it fills it (``.<pid>.init.tmp``): a base.trig next to the marker of a dead process is
that killed init's own and may be replaced; a built base.trig without a marker is still never
overwritten (test_killed_init_blocks_reuse.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
import rdflib

from evoonto.builder.pipeline import describe_workspace
from evoonto.errors import WorkspaceError
from evoonto.workspace import Workspace
from fixtures.core_support import term_patch

# init(graphs=…) into an existing folder, killed right after base.trig is written, before config.json
CHILD = textwrap.dedent("""
    import os, signal, sys
    import rdflib
    import evoonto.workspace as w

    real = w.atomic_write
    def write_then_die(path, data, **kw):
        real(path, data, **kw)
        if path.name == "base.trig":
            os.kill(os.getpid(), signal.SIGKILL)
    w.atomic_write = write_then_die
    content = rdflib.Graph().parse(sys.argv[2], format="nt")
    w.Workspace.init(sys.argv[1], name="killed", graphs={"content": content})
""")


def _content(tmp_path) -> rdflib.Graph:
    source = Workspace.init(tmp_path / "source", name="killed")
    source.commit(term_patch(source, "k1"))
    return source.ontology.graph("content")


def _kill_init(tmp_path, path, content: rdflib.Graph) -> None:
    (tmp_path / "content.nt").write_text(content.serialize(format="nt"), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", CHILD, str(path), str(tmp_path / "content.nt")],
                          capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert (path / "base.trig").is_file() and not (path / "config.json").exists()


@pytest.mark.slow
def test_init_killed_between_base_and_config_strands_a_built_base(tmp_path):
    content = _content(tmp_path)
    path = tmp_path / "ws"
    path.mkdir()
    _kill_init(tmp_path, path, content)
    with pytest.raises(WorkspaceError):
        Workspace.open(path)  # not a workspace yet ...
    made = Workspace.init(path, name="killed", graphs={"content": content})  # ... but init may redo it
    assert set(Workspace.open(path).ontology.graph("content")) == set(content) == set(made.ontology.graph("content"))
    assert not [p.name for p in path.iterdir() if p.name.endswith(".tmp")]  # no marker left


@pytest.mark.slow
def test_build_recovers_a_folder_of_an_init_killed_between_base_and_config(tmp_path):
    content = _content(tmp_path)
    path = tmp_path / "ws"
    path.mkdir()
    _kill_init(tmp_path, path, content)
    assert describe_workspace(path) is None  # a half-made workspace: a build writes there (moving base.trig aside)


def test_init_failing_between_base_and_config_changes_nothing(tmp_path, monkeypatch):
    import evoonto.workspace as w

    content = _content(tmp_path)
    path = tmp_path / "ws"
    path.mkdir()
    real = w.atomic_write

    def refuse_config(target, data, **kw):
        if target.name == "config.json":
            raise WorkspaceError(f"cannot write {target}: No space left on device")
        return real(target, data, **kw)

    monkeypatch.setattr(w, "atomic_write", refuse_config)
    with pytest.raises(WorkspaceError, match="No space left"):
        Workspace.init(path, graphs={"content": content})
    assert not [p for p in path.iterdir() if p.is_file()]  # neither base.trig nor the marker
    monkeypatch.setattr(w, "atomic_write", real)
    assert Workspace.init(path, graphs={"content": content}).version == 0


@pytest.mark.slow
def test_init_refuses_a_folder_another_init_is_filling(tmp_path):
    content = _content(tmp_path)
    path = tmp_path / "ws"
    path.mkdir()
    _kill_init(tmp_path, path, content)
    marker = path / f".{os.getppid()}.init.tmp"  # a live process (this test's parent) still marks it
    marker.write_bytes(b"")
    before = (path / "base.trig").read_bytes()
    with pytest.raises(WorkspaceError, match=f"being created by process {os.getppid()}"):
        Workspace.init(path, graphs={"content": content})
    assert (path / "base.trig").read_bytes() == before
