"""CLI: init, validate, sparql, export, log, diff, rollback (in-process through evoonto.cli.main)."""

from __future__ import annotations

import json

import pytest

from evoonto.cli import main
from evoonto.workspace import Workspace
from fixtures.core_support import finance_workspace, term_patch


@pytest.fixture
def ws(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    ws.commit(term_patch(ws, "ebitda", intervention="add EBITDA"))
    ws.record_rejected(term_patch(ws, "nope", intervention="add nope"))
    return ws


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_init_and_errors(tmp_path, capsys):
    code, out, _ = run(capsys, "init", "-w", str(tmp_path / "new"), "--base-iri", "https://data.example.com/x/")
    assert code == 0 and "created workspace" in out
    assert Workspace.open(tmp_path / "new").base_iri == "https://data.example.com/x/"
    code, _, err = run(capsys, "init", "-w", str(tmp_path / "new"))
    assert code == 2 and err.startswith("evoonto: error:") and "already exists" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "validate", "-w", str(tmp_path / "missing"))
    assert code == 2 and "no workspace" in err


def test_validate(ws, capsys):
    code, out, _ = run(capsys, "validate", "-w", str(ws.path))
    assert code == 0 and "version 1: conforms" in out
    code, out, _ = run(capsys, "validate", "-w", str(ws.path), "--node", str(ws.iris.term("finance", "cost")))
    assert code == 0 and "1 focus node" in out


def test_sparql(ws, capsys):
    code, out, _ = run(capsys, "sparql", "-w", str(ws.path),
                       "SELECT ?l WHERE { ?t a evo:Metric ; skos:prefLabel ?l } ORDER BY ?l", "--format", "json")
    assert code == 0 and [r["l"] for r in json.loads(out)] == ["Cost", "Ebitda", "Profit", "Revenue"]
    code, out, _ = run(capsys, "sparql", "-w", str(ws.path), "ASK { ?t a evo:Mapping }")
    assert out.strip() == "true"
    code, _, err = run(capsys, "sparql", "-w", str(ws.path), "SELEC")
    assert code == 2 and "SPARQL query failed" in err


@pytest.mark.slow
def test_export_log_diff_rollback(ws, capsys, tmp_path):
    code, out, _ = run(capsys, "export", "-w", str(ws.path), "--format", "ttl", "-o", str(tmp_path / "o.ttl"))
    assert code == 0 and (tmp_path / "o.ttl").read_bytes().startswith(b"@prefix")
    code, out, _ = run(capsys, "log", "-w", str(ws.path))
    assert code == 0 and "accepted" in out and "rejected" in out and "add EBITDA" in out
    code, out, _ = run(capsys, "log", "-w", str(ws.path), "--json")
    assert [e["decision"] for e in json.loads(out)] == ["base", "accepted", "rejected"]
    code, out, _ = run(capsys, "diff", "-w", str(ws.path), "0", "1")
    assert code == 0 and "+4 -0" in out and "Ebitda" in out
    code, out, _ = run(capsys, "rollback", "-w", str(ws.path), "0")
    assert code == 0 and "version 1 -> 2" in out
    assert Workspace.open(ws.path).version == 2
