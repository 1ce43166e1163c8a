"""``evoonto import skos``: a SKOS glossary enriches the Terms it matches and adds the others."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import SKOS

from evoonto.cli import main
from evoonto.tools import OntologyTools
from evoonto.workspace import Workspace

GLOSSARY = Path(__file__).parent / "fixtures" / "glossary_music.ttl"


@pytest.fixture
def chinook(tmp_path, shared_data) -> Workspace:
    db = shared_data / "chinook" / "Chinook_Sqlite.sqlite"
    assert main(["build", "--source", str(db), "--workspace", str(tmp_path / "ws"), "--no-progress"]) == 0
    return Workspace.open(tmp_path / "ws")


@pytest.mark.slow
def test_import_skos_matches_enriches_and_adds(chinook, capsys):
    ws = chinook
    invoice = ws.iris.term("Chinook_Sqlite", "Invoice")
    assert main(["import", "skos", str(GLOSSARY), "-w", str(ws.path), "--dry-run"]) == 0
    assert "2 matched existing Terms, 3 new Terms" in capsys.readouterr().out
    assert Workspace.open(ws.path).version == 0  # a dry run commits nothing
    assert main(["import", "skos", str(GLOSSARY), "-w", str(ws.path)]) == 0
    assert "-> version 1" in capsys.readouterr().out
    ws = Workspace.open(ws.path)
    content = ws.ontology.graph("content")
    # matched: Invoice keeps its Mapping and gains the glossary's labels and definition
    assert {str(o) for o in content.objects(invoice, SKOS.altLabel)} >= {"bill", "sales receipt"}
    assert str(content.value(invoice, SKOS.definition)) == "A document recording one sale to one customer."
    assert len(list(content.objects(invoice, URIRef("https://w3id.org/evoonto/ns#hasMapping")))) >= 1
    # new Terms, and the hierarchy (skos:broader and skos:narrower) as Hierarchy relations
    revenue, finance = ws.iris.term("glossary", "net-revenue"), ws.iris.term("glossary", "finance")
    churn = ws.iris.term("glossary", "churn")
    assert content.value(revenue, SKOS.prefLabel) == Literal("Net revenue", lang="en")
    assert (revenue, SKOS.broader, finance) in content and (churn, SKOS.broader, finance) in content
    assert ws.ontology.query(f"ASK {{ ?r a evo:Relation ; owl:annotatedSource <{revenue}> ; "
                             f"owl:annotatedTarget <{finance}> ; evo:relationType evo:Hierarchy }}") is True
    hits = OntologyTools(ws.ontology).browse("turnover")
    assert hits and hits[0]["id"].endswith("term/glossary/net-revenue")
    # importing the same glossary again changes nothing
    assert main(["import", "skos", str(GLOSSARY), "-w", str(ws.path)]) == 0
    assert "nothing new to import" in capsys.readouterr().out
    assert Workspace.open(ws.path).version == 1


@pytest.mark.slow
def test_import_skos_bad_file_is_one_line(chinook, tmp_path, capsys):
    bad = tmp_path / "bad.ttl"
    bad.write_text("this is not turtle <", encoding="utf-8")
    assert main(["import", "skos", str(bad), "-w", str(chinook.path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evoonto: error: cannot parse") and err.count("\n") == 1
    empty = tmp_path / "empty.ttl"
    empty.write_text("<urn:a> <urn:b> <urn:c> .\n", encoding="utf-8")
    assert main(["import", "skos", str(empty), "-w", str(chinook.path)]) == 2
    assert "no skos:Concept" in capsys.readouterr().err
    assert Workspace.open(chinook.path).version == 0
