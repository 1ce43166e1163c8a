"""Regression (issue 17, item 7): an INSERT in ``%%sparql`` gave Oxigraph's parser message ("expected
CONSTRUCT", at a line shifted by the injected prefixes) instead of the read-only refusal that
``evoonto sparql`` gives. Both now use one check, :func:`evoonto.store.refuse_update`."""

from __future__ import annotations

import pytest

from evoonto.cli import main
from evoonto.sparql_magic import run_query
from evoonto.store import QueryError


@pytest.fixture()
def workspace(tmp_path):
    from evoonto.workspace import Workspace

    Workspace.init(tmp_path / "ws")
    return tmp_path / "ws"


@pytest.mark.parametrize("update", [
    "INSERT DATA { evo:x a evo:Term }",
    "DELETE WHERE { ?s ?p ?o }",
    "PREFIX ex: <urn:ex#>\nCLEAR ALL",
])
def test_the_magic_refuses_updates_like_the_cli(workspace, update, capsys):
    from evoonto.workspace import Workspace

    ws = Workspace.open(workspace)
    before = ws.ontology.counts()
    with pytest.raises(QueryError, match="SPARQL updates are refused: %sparql is read-only"):
        run_query(ws, update)
    assert Workspace.open(workspace).ontology.counts() == before

    assert main(["sparql", "-w", str(workspace), update]) == 2
    assert "SPARQL updates are refused: `evoonto sparql` is read-only" in capsys.readouterr().err


def test_the_cell_magic_prints_the_refusal_in_one_line(workspace, capsys):
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    try:
        ip.run_cell("%load_ext evoonto.sparql_magic")
        out = ip.run_cell(f"%%sparql -w {workspace}\nINSERT DATA {{ evo:x a evo:Term }}")
    finally:
        InteractiveShell.clear_instance()
    assert out.result is None
    printed = capsys.readouterr().out.strip()
    assert printed.startswith("sparql: error: SPARQL updates are refused") and "\n" not in printed
