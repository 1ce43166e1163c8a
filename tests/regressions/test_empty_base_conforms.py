"""Issue 17: a zero-byte `base.trig` was accepted and `evoonto validate` reported "conforms" (the
shapes were gone too, so nothing could fail). A base without its vocabulary, shapes or history graph
is damaged: opening it is an error naming the file."""

from __future__ import annotations

import pytest

from evoonto.cli import main
from evoonto.errors import WorkspaceError
from evoonto.workspace import Workspace


def test_zero_byte_base_is_an_error_naming_the_file(tmp_path, capsys):
    Workspace.init(tmp_path / "ws", name="empty")
    (tmp_path / "ws" / "base.trig").write_bytes(b"")
    with pytest.raises(WorkspaceError, match="base.trig"):
        Workspace.open(tmp_path / "ws")
    capsys.readouterr()
    assert main(["validate", "-w", str(tmp_path / "ws")]) == 2
    captured = capsys.readouterr()
    assert "conforms" not in captured.out
    assert str(tmp_path / "ws" / "base.trig") in captured.err and "empty" in captured.err


def test_base_cut_after_its_first_graph_is_an_error(tmp_path, capsys):
    """A base.trig truncated at a graph boundary still parses, but lacks the shapes: refused."""
    Workspace.init(tmp_path / "ws", name="cut")
    base = tmp_path / "ws" / "base.trig"
    text = base.read_text()
    first_graph_end = text.index("\n}\n") + 3
    base.write_text(text[:first_graph_end])
    assert main(["validate", "-w", str(tmp_path / "ws")]) == 2
    captured = capsys.readouterr()
    assert "conforms" not in captured.out and "base.trig" in captured.err and "graph" in captured.err
