"""User-facing polish of the CLI found by a new-user trial (error lines, timings, help examples)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.builder_support import make_cards_db

from evoonto.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def cards_db(tmp_path_factory) -> Path:
    return make_cards_db(tmp_path_factory.mktemp("cards"))


@pytest.mark.parametrize("source", ["missing.sqlite", "notes.md"])
def test_build_error_starts_its_own_line_and_leaves_nothing(tmp_path, capsys, monkeypatch, source):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.md").write_text("# Notes\n\nNothing tabular here.\n", encoding="utf-8")
    code, _, err = run(capsys, "build", "--source", source, "-w", "ws")  # progress bar not disabled
    assert code == 2
    assert err.splitlines()[0].startswith("evoonto: error:") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "ws").exists()
    if source == "notes.md":
        assert "no Terms built" in err


def test_build_reports_total_time(cards_db, tmp_path, capsys):
    code, out, _ = run(capsys, "build", "--source", str(cards_db), "-w", str(tmp_path / "ws"), "--no-progress")
    assert code == 0
    first = out.splitlines()[0]
    assert "(build " in first and "validation and writing " in first


@pytest.fixture
def fin(tmp_path):
    from fixtures.core_support import finance_workspace

    return finance_workspace(tmp_path / "fin")


@pytest.mark.parametrize("update", [
    "INSERT DATA { <http://a.example/s> <http://a.example/p> <http://a.example/o> }",
    "DELETE WHERE { ?t a evo:Metric }",
    "CLEAR ALL",
])
def test_sparql_refuses_updates_and_changes_nothing(fin, capsys, update):
    before = len(fin.ontology.graph("content"))
    code, _, err = run(capsys, "sparql", "-w", str(fin.path), update)
    assert code == 2 and "SPARQL updates are refused" in err and "read-only" in err
    from evoonto.workspace import Workspace

    assert len(Workspace.open(fin.path).ontology.graph("content")) == before


def test_sparql_tsv_full_iris_table_legend_and_limit(fin, capsys):
    query = "SELECT ?t WHERE { ?t a evo:Metric } ORDER BY ?t"
    code, out, _ = run(capsys, "sparql", "-w", str(fin.path), query, "--format", "tsv")
    assert code == 0 and "<B>" not in out and fin.base_iri in out
    code, out, _ = run(capsys, "sparql", "-w", str(fin.path), query, "--limit", "2")
    lines = out.splitlines()
    assert lines[-1] == "(2 of 3 rows)" and lines[-2] == f"<B> = <{fin.base_iri}>"
    assert sum(line.startswith("<B>term/") for line in lines) == 2
    code, out, _ = run(capsys, "sparql", "-w", str(fin.path), query)
    assert out.splitlines()[-1] == "(3 rows)"


@pytest.mark.parametrize("node, message", [
    ("not-an-iri", "no such node in the active version: https://"),  # a short id, expanded under the base
    ("term/a b", "not an absolute IRI"),
    ("https://example.org/a>b", "not an absolute IRI"),
    ("https://example.org/evoonto/nowhere/term/x", "no such node in the active version: https://example.org/evoonto/nowhere/term/x"),
])
def test_validate_node_errors_are_one_line(fin, capsys, node, message):
    code, out, err = run(capsys, "validate", "-w", str(fin.path), "--node", node)
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1


def test_validate_existing_node(fin, capsys):
    code, out, _ = run(capsys, "validate", "-w", str(fin.path), "--node", str(fin.iris.term("finance", "cost")))
    assert code == 0 and "1 focus node" in out


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory, spider_dir):
    """The workspace ``evoonto demo`` leaves, at its default name ``evoonto-demo`` (no evolution)."""
    import contextlib
    import io

    root = tmp_path_factory.mktemp("demo")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["demo", "-w", str(root / "evoonto-demo"), "--rounds", "0"]) == 0
    return root


def _examples(command: str) -> list[list[str]]:
    """The ``evoonto COMMAND …`` example lines of a sub-command's help, split like a shell would."""
    import shlex

    from evoonto.cli import build_parser

    parser = build_parser()
    import argparse

    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    text = sub.choices[command].description
    lines = [line.split("#")[0].strip() for line in text.splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith(f"evoonto {command} -w evoonto-demo")]


@pytest.mark.slow
@pytest.mark.parametrize("command", ["resolve", "browse", "validate"])
def test_help_examples_work_on_the_demo_workspace(demo_dir, monkeypatch, capsys, command):
    monkeypatch.chdir(demo_dir)
    examples = _examples(command)
    assert examples
    for argv in examples:
        if "--owl" in argv:
            continue  # needs Java
        code, out, err = run(capsys, *argv)
        assert code == 0 and out and not err, (argv, err)
        if command == "resolve":
            assert '"errors": []' in out


def test_log_json_lists_the_base_row_like_the_text_log(tmp_path, capsys):
    import json

    assert run(capsys, "init", "-w", str(tmp_path / "fresh"))[0] == 0
    code, out, _ = run(capsys, "log", "-w", str(tmp_path / "fresh"))
    assert code == 0 and "base" in out.splitlines()[1]
    code, out, _ = run(capsys, "log", "-w", str(tmp_path / "fresh"), "--json")
    (base,) = json.loads(out)
    assert base["decision"] == "base" and base["version"] == 0 and base["seq"] == 0 and base["created"]


@pytest.mark.slow
@pytest.mark.parametrize("transport, host", [("http", "127.0.0.1"), ("http", "::1"), ("stdio", "127.0.0.1")])
def test_serve_announces_the_http_url_on_stderr_only(fin, capsys, monkeypatch, transport, host):
    from mcp.server.mcpserver import MCPServer

    calls = []
    monkeypatch.setattr(MCPServer, "run", lambda self, *a, **k: calls.append((a, k)))
    code, out, err = run(capsys, "serve", "-w", str(fin.path), "--transport", transport, "--host", host,
                         "--port", "8799", "--trajectory", str(fin.path / "t.jsonl"))
    assert code == 0 and out == "" and len(calls) == 1
    if transport == "stdio":
        assert err == ""
    else:
        shown = "[::1]" if host == "::1" else host
        assert err == (f"evoonto: serving MCP over streamable HTTP at http://{shown}:8799/mcp "
                       "(Ctrl-C to stop)\n")


def test_demo_help_promises_seconds_not_a_minute(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    words = " ".join(capsys.readouterr().out.split())  # argparse wraps the help column
    assert "demo run the end-to-end demo on the bundled Spider database (offline; a few seconds)" in words


def test_build_warns_about_a_table_source_without_terms(cards_db, tmp_path, capsys):
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")  # a valid SQLite database without tables
    code, out, err = run(capsys, "build", "--source", str(cards_db), "--source", str(empty),
                         "-w", str(tmp_path / "ws"), "--no-progress")
    assert code == 0 and "empty: 0 terms" in out
    assert "evoonto: warning: source empty yields no Terms (no table with columns)" in err.splitlines()


def test_build_workload_error_starts_its_own_line(cards_db, tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "question": \n', encoding="utf-8")
    code, _, err = run(capsys, "build", "--source", str(cards_db), "--workload", str(bad), "-w", str(tmp_path / "ws"))
    assert code == 2 and err.startswith("evoonto: error:") and "malformed JSON line" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "ws").exists()
