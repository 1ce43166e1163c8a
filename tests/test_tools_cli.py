"""CLI: evoonto browse / resolve / serve (argument errors) on a workspace built from the fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evoonto.cli import main
from evoonto.store import OxigraphStore, parse_rdf_file
from evoonto.workspace import Workspace

FIXTURE = Path(__file__).parent / "fixtures" / "tools_concert.trig"
BASE = "https://example.org/evoonto/tools-test/"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("cli") / "ws"
    store = OxigraphStore()
    store.load_quads(parse_rdf_file(FIXTURE))
    ws = Workspace.init(path, base_iri=BASE)
    ws.replace_base({name: store.graph(name) for name in ("catalog", "content", "tools")}, validate_shapes=False)
    return str(path)


def test_browse_prints_ranked_hits(workspace, capsys):
    assert main(["browse", "banned", "--format", "verbose", "--workspace", workspace]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[1:3] == ["term", "term/cs/legal-status"]
    assert 'value "Banned"' in out


def test_browse_json_kind_and_no_match(workspace, capsys):
    assert main(["browse", "Age", "--kind", "mapping", "-n", "1", "--format", "verbose", "--json",
                 "--workspace", workspace]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert [h["label"] for h in hits] == ["singer.Age"]
    # verbose: no hit; the compact default lists a small schema whole even when nothing matched
    assert main(["browse", "qqqzzz", "--format", "verbose", "--workspace", workspace]) == 1
    assert capsys.readouterr().out.strip() == "no match"


def test_browse_bad_arguments_exit_2(workspace, capsys):
    assert main(["browse", "age", "--kind", "table", "--workspace", workspace]) == 2
    assert "unknown kind" in capsys.readouterr().err
    assert main(["browse", "age", "-n", "0", "--workspace", workspace]) == 2
    assert main(["browse", "age", "--workspace", workspace + "-missing"]) == 2


def test_resolve_prints_json(workspace, capsys):
    assert main(["resolve", "term/cs/singer-age", "--workspace", workspace]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["records"][0]["mappings"][0]["column"] == "Age"
    assert main(["resolve", "term/cs/singer", "nope", "--expand", "mappings", "--depth", "0",
                 "--workspace", workspace]) == 1
    answer = json.loads(capsys.readouterr().out)
    assert answer["errors"][0]["id"] == "nope" and "mappings" not in answer["records"][0]
    assert main(["resolve", "x", "--expand", "bogus", "--workspace", workspace]) == 2


def test_serve_rejects_missing_workspace_and_bad_port(tmp_path, capsys):
    assert main(["serve", "--workspace", str(tmp_path / "none")]) == 2
    assert "no workspace" in capsys.readouterr().err
    assert main(["serve", "--workspace", str(tmp_path), "--transport", "http", "--port", "70000"]) == 2
