"""``evoonto viz`` on a real workspace."""

from __future__ import annotations

import json
import re

import pytest
from fixtures.viz_support import SMALL_NODES, make_workspace

from evoonto.cli import main


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return make_workspace(tmp_path_factory.mktemp("viz-cli") / "ws")


def test_viz_writes_one_html_file(workspace, tmp_path, capsys):
    out = tmp_path / "explorer.html"
    assert main(["viz", "--workspace", str(workspace), "--out", str(out), "--max-visible", "50"]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    page = out.read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="evoonto-data">(.*?)</script>', page, re.S).group(1))
    assert len(data["nodes"]) == SMALL_NODES
    assert data["meta"]["maxVisible"] == 50 and data["meta"]["version"] == 2
    assert [row["decision"] for row in data["history"]] == ["accepted", "rejected", "accepted", "invalid"]
    assert "<title>demo · evoonto explorer</title>" in page


def test_viz_default_output_is_in_the_current_directory(workspace, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EVOONTO_WORKSPACE", str(workspace))
    assert main(["viz", "--title", "Concerts"]) == 0
    assert "<title>Concerts · evoonto explorer</title>" in (tmp_path / "evoonto-viz.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("args, message", [
    (["--max-visible", "3"], "--max-visible must be at least 10"),
    (["--max-diff-triples", "-1"], "--max-diff-triples must be >= 0"),
    (["--out", "{tmp}/missing/x.html"], "directory does not exist"),
    (["--out", "{tmp}"], "must be a file path"),
])
def test_viz_user_errors_exit_2_with_one_line(workspace, tmp_path, capsys, args, message):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert main(["viz", "--workspace", str(workspace), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_viz_on_a_missing_workspace(tmp_path, capsys):
    assert main(["viz", "--workspace", str(tmp_path / "nope"), "--out", str(tmp_path / "x.html")]) == 2
    assert "error" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()
