"""Regression (issue 17, item 7): ``%%sparql --workspace BAD`` was remembered before it opened, so
every later cell without ``--workspace`` failed on the bad path although a good workspace had been
selected before. A workspace is now remembered only once it has opened."""

from __future__ import annotations

import pytest

from evoonto.sparql_magic import SparqlResult


@pytest.fixture()
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext evoonto.sparql_magic")
    yield ip
    InteractiveShell.clear_instance()


def test_a_workspace_that_fails_to_open_is_not_remembered(shell, tmp_path, capsys):
    from evoonto.workspace import Workspace

    Workspace.init(tmp_path / "good")
    first = shell.run_cell(f"%%sparql --workspace {tmp_path / 'good'}\nSELECT (COUNT(*) AS ?n) WHERE {{ ?s ?p ?o }}")
    assert isinstance(first.result, SparqlResult)

    bad = shell.run_cell(f"%%sparql --workspace {tmp_path / 'typo'}\nASK {{ ?s ?p ?o }}")
    assert bad.result is None
    assert "sparql: error:" in capsys.readouterr().out

    later = shell.run_cell("%%sparql\nASK { GRAPH evog:vocab { evo:Term a owl:Class } }")
    assert later.result is True, capsys.readouterr().out
