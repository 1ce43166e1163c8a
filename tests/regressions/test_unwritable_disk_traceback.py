"""Issue 17: `evolve`, `rollback`, `build`, `init` and `viz` printed a Python traceback on a read-only
or full disk (the writer lock, folder creation, the splits file and the viz temp file raised a raw
OSError). Each must print one line naming the place, exit 2, and leave every file as it was.

The disk is simulated in process (tests run as root, where chmod does not stop writes) by
:func:`fixtures.disk_faults.unwritable`, which makes the OS calls under one folder fail as a read-only
mount (EROFS) or a full disk (ENOSPC) would; the commands run through the real CLI entry point.
"""

from __future__ import annotations

import errno
import shutil
from pathlib import Path

import pytest

from evoonto.cli import main
from evoonto.demo import bundled_data
from evoonto.evaluation.benchmarks import load_benchmark
from evoonto.evaluation.splits import load_or_create_splits
from evoonto.workspace import Workspace
from fixtures.core_support import term_patch
from fixtures.disk_faults import tree_state, unwritable

CODES = {errno.EROFS: "Read-only file system", errno.ENOSPC: "No space left on device"}


@pytest.fixture(scope="module")
def built(tmp_path_factory, concert_workspace) -> Path:
    """A copy of the session's workspace built from the bundled concert_singer database (offline proposer)."""
    path = tmp_path_factory.mktemp("built") / "ws"
    shutil.copytree(concert_workspace, path)
    return path


def run_refused(monkeypatch, capsys, root: Path, code: int, argv: list[str]) -> str:
    """Run ``evoonto ARGV`` with writes under ``root`` failing with ``code``; check the one-line error
    and that no file under ``root`` changed; return the error line."""
    before = tree_state(root)
    capsys.readouterr()
    with monkeypatch.context() as patch:
        unwritable(patch, root, code)
        status = main(argv)
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert status == 2, err
    assert "Traceback" not in err
    assert lines and lines[-1].startswith("evoonto: error: ") and CODES[code] in lines[-1], err
    assert tree_state(root) == before  # nothing lost, nothing half-written
    return lines[-1]


@pytest.mark.parametrize("code", list(CODES))
def test_init_on_unwritable_disk(tmp_path, monkeypatch, capsys, code):
    line = run_refused(monkeypatch, capsys, tmp_path, code, ["init", "-w", str(tmp_path / "new")])
    assert str(tmp_path / "new") in line


@pytest.mark.parametrize("code", list(CODES))
def test_build_on_unwritable_disk(tmp_path, monkeypatch, capsys, code):
    argv = ["build", "-w", str(tmp_path / "new"), "--source", str(bundled_data().database), "--no-progress"]
    line = run_refused(monkeypatch, capsys, tmp_path, code, argv)
    assert str(tmp_path / "new") in line


@pytest.mark.parametrize("code", list(CODES))
def test_rollback_on_unwritable_disk(tmp_path, monkeypatch, capsys, code):
    ws = Workspace.init(tmp_path / "ws", name="ro")
    ws.commit(term_patch(ws, "k1"))
    line = run_refused(monkeypatch, capsys, tmp_path, code, ["rollback", "-w", str(tmp_path / "ws"), "0"])
    assert str(tmp_path / "ws") in line
    assert Workspace.open(tmp_path / "ws").version == 1


@pytest.mark.parametrize("code", list(CODES))
def test_viz_on_unwritable_disk(tmp_path, monkeypatch, capsys, built, code):
    out = tmp_path / "page.html"
    line = run_refused(monkeypatch, capsys, tmp_path, code, ["viz", "-w", str(built), "--out", str(out)])
    assert str(out) in line and not out.exists()


@pytest.mark.parametrize("code", list(CODES))
def test_evolve_on_unwritable_disk(tmp_path, monkeypatch, capsys, built, code):
    ws = shutil.copytree(built, tmp_path / "ws")
    data = bundled_data().questions.parent
    argv = ["evolve", "-w", str(ws), "--data", str(data), "--rounds", "1", "--no-progress"]
    line = run_refused(monkeypatch, capsys, tmp_path, code, argv)
    assert str(ws) in line


@pytest.mark.slow
def test_evolve_on_full_disk_with_stored_splits(tmp_path, monkeypatch, capsys, built):
    """With the splits already stored, the first write is a patch file inside the loop."""
    ws = shutil.copytree(built, tmp_path / "ws")
    data = bundled_data().questions.parent
    load_or_create_splits(ws / "splits.json", load_benchmark(None, data).questions, seed=0)
    argv = ["evolve", "-w", str(ws), "--data", str(data), "--rounds", "1", "--no-progress"]
    line = run_refused(monkeypatch, capsys, tmp_path, errno.ENOSPC, argv)
    assert str(ws) in line
    assert Workspace.open(ws).version == 0
