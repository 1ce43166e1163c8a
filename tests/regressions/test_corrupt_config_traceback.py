"""Issue 17: a corrupt config.json whose JSON parses but whose values have the wrong types (a
"format" string, a numeric name, a list of settings) crashed with a TypeError traceback or was used
as is. Each is now a one-line error naming the file."""

from __future__ import annotations

import json

import pytest

from evoonto.cli import main
from evoonto.workspace import Workspace


@pytest.mark.parametrize("change", [
    {"format": "1"},
    {"format": None},
    {"name": 5},
    {"settings": []},
])
def test_wrong_types_in_config_are_one_line_errors(tmp_path, capsys, change):
    ws = Workspace.init(tmp_path / "ws", name="cfg")
    config = tmp_path / "ws" / "config.json"
    config.write_text(json.dumps({**ws.config, **change}))
    capsys.readouterr()
    assert main(["validate", "-w", str(tmp_path / "ws")]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evoonto: error: ") and str(config) in lines[0], err


@pytest.mark.parametrize("cut", [0, 1, 10, 40])
def test_truncated_config_names_the_file(tmp_path, capsys, cut):
    Workspace.init(tmp_path / "ws", name="cfg")
    config = tmp_path / "ws" / "config.json"
    config.write_bytes(config.read_bytes()[:cut])
    assert main(["browse", "-w", str(tmp_path / "ws"), "x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(config) in err, err
