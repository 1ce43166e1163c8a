"""Regression (found trying the CLI as a new user): ``validate --node term/…`` was refused as "not an
absolute IRI" although every other command (browse, resolve, check-sql) prints and takes these short
ids. ``--node`` expands a short id under the workspace base, as resolve does."""

from __future__ import annotations

from evoonto.cli import main


def test_validate_node_takes_the_short_id_browse_prints(tmp_path, capsys):
    from fixtures.core_support import finance_workspace

    ws = finance_workspace(tmp_path / "ws")
    iri = str(ws.iris.term("finance", "cost"))
    short = iri[len(ws.base_iri):]
    assert short.startswith("term/")
    assert main(["validate", "-w", str(ws.path), "--node", short]) == 0
    assert "1 focus node" in capsys.readouterr().out
