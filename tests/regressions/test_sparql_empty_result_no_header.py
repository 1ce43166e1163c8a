"""Regression: a SELECT with no solution printed no header in ``evoonto sparql`` (the column names
were taken from the rows, and there were none), so ``--format tsv`` printed an empty line. The
projected variables now come with the result (``SelectRows.variables``)."""

from __future__ import annotations

from evoonto.cli import main
from evoonto.workspace import Workspace


def test_empty_select_prints_its_header(tmp_path, capsys):
    Workspace.init(tmp_path / "ws", base_iri="https://example.org/sparql-test/")
    ws = str(tmp_path / "ws")
    assert main(["sparql", "--workspace", ws, "SELECT ?t ?label WHERE { ?t a evo:Nothing }"]) == 0
    assert capsys.readouterr().out.splitlines() == ["t | label", "(0 rows)"]
    assert main(["sparql", "--workspace", ws, "--format", "tsv", "SELECT ?t ?label WHERE { ?t a evo:Nothing }"]) == 0
    assert capsys.readouterr().out.splitlines() == ["t\tlabel"]
