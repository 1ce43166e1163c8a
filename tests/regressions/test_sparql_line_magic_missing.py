"""Regression (issue 17, item 7): only the cell magic ``%%sparql`` existed; ``%sparql QUERY`` failed
with "Line magic function `%sparql` not found". The line magic takes its options first."""

from __future__ import annotations

import pytest

from evoonto.sparql_magic import SparqlResult, split_line


@pytest.fixture()
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext evoonto.sparql_magic")
    yield ip
    InteractiveShell.clear_instance()


def test_line_magic_runs_a_query_and_selects_a_workspace(shell, tmp_path, capsys):
    from evoonto.workspace import Workspace

    Workspace.init(tmp_path / "ws")
    ask = shell.run_cell(f"%sparql --workspace {tmp_path / 'ws'} ASK {{ GRAPH evog:vocab {{ evo:Term a owl:Class }} }}")
    assert ask.error_in_exec is None and ask.result is True, capsys.readouterr().out

    Workspace.init(tmp_path / "other ws")
    chosen = shell.run_cell(f"%sparql -w '{tmp_path / 'other ws'}'")
    assert chosen.result is None and "using workspace" in capsys.readouterr().out
    rows = shell.run_cell("%sparql --limit 1 SELECT ?c WHERE { GRAPH evog:vocab { ?c a owl:Class } }")
    assert isinstance(rows.result, SparqlResult) and rows.result.display_limit == 1 and len(rows.result) > 1


def test_split_line_keeps_quotes_of_the_query():
    assert split_line('-w "a b" --limit=3 ASK { ?t skos:prefLabel "x"@en }') == (
        '-w "a b" --limit=3', 'ASK { ?t skos:prefLabel "x"@en }')
    assert split_line("SELECT * WHERE { ?s ?p ?o }") == ("", "SELECT * WHERE { ?s ?p ?o }")
    assert split_line("--bogus 1 ASK {}") == ("--bogus 1 ASK {}", "")
