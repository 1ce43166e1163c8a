"""``evoonto viz`` on a real workspace."""

from __future__ import annotations

import json
import re

import pytest
from fixtures.viz_support import SMALL_NODES, SMALL_TRIG, make_workspace

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


def test_viz_draws_a_trig_dataset(tmp_path, capsys):
    out = tmp_path / "trig.html"
    assert main(["viz", "--trig", str(SMALL_TRIG), "--out", str(out)]) == 0
    data = json.loads(re.search(r'id="evoonto-data">(.*?)</script>', out.read_text(encoding="utf-8"), re.S).group(1))
    assert len(data["nodes"]) == SMALL_NODES and len(data["history"]) == 4
    assert data["meta"]["title"] == "https://example.org/evoonto/demo"


@pytest.mark.parametrize("args, message", [
    (["-w", "{ws}", "--max-visible", "3"], "--max-visible must be at least 10"),
    (["-w", "{ws}", "--max-diff-triples", "-1"], "--max-diff-triples must be >= 0"),
    (["-w", "{ws}", "--out", "{tmp}/missing/x.html"], "directory does not exist"),
    (["-w", "{ws}", "--out", "{tmp}"], "must be a file path"),
    (["--trig", "{tmp}/missing.trig", "--out", "{tmp}/x.html"], "no such TriG file"),
    (["-w", "{ws}", "--trig", str(SMALL_TRIG), "--out", "{tmp}/x.html"], "either --trig or --workspace"),
])
def test_viz_user_errors_exit_2_with_one_line(workspace, tmp_path, capsys, args, message):
    args = [a.replace("{tmp}", str(tmp_path)).replace("{ws}", str(workspace)) for a in args]
    assert main(["viz", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_viz_on_a_missing_workspace(tmp_path, capsys):
    assert main(["viz", "--workspace", str(tmp_path / "nope"), "--out", str(tmp_path / "x.html")]) == 2
    assert "error" in capsys.readouterr().err
    assert not (tmp_path / "x.html").exists()


def test_a_trig_export_of_the_workspace_draws_the_same_page(workspace, tmp_path):
    def model(page):
        found = re.search(r'id="evoonto-data">(.*?)</script>', page.read_text(encoding="utf-8"), re.S)
        return json.loads(found.group(1))

    trig = tmp_path / "all.trig"
    assert main(["export", "--workspace", str(workspace), "--format", "trig", "--history", "--output", str(trig)]) == 0
    assert main(["viz", "--trig", str(trig), "--out", str(tmp_path / "a.html")]) == 0
    assert main(["viz", "--workspace", str(workspace), "--out", str(tmp_path / "b.html")]) == 0
    a, b = model(tmp_path / "a.html"), model(tmp_path / "b.html")
    assert a["nodes"] == b["nodes"] and a["edges"] == b["edges"]
    rows = lambda m: [(r["id"], r["decision"], r["round"], r["diff"]["added"], r["diff"]["removed"],  # noqa: E731
                       r["diff"]["nodesAdded"], r["diff"]["nodesRemoved"]) for r in m["history"]]
    assert rows(a) == rows(b)


def test_viz_file_mode_follows_the_umask(workspace, tmp_path, capsys):
    import os
    import stat

    out = tmp_path / "explorer.html"
    old = os.umask(0o022)
    try:
        assert main(["viz", "--workspace", str(workspace), "--out", str(out)]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    out.chmod(0o640)  # an existing file keeps its mode, as with open(out, "w")
    assert main(["viz", "--workspace", str(workspace), "--out", str(out)]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
