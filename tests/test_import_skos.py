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


MULTILINGUAL = Path(__file__).parent / "fixtures" / "glossary_multilingual.ttl"
_EVO_TERM = URIRef("https://w3id.org/evoonto/ns#Term")


@pytest.fixture
def shop(tmp_path) -> Workspace:
    """A small built workspace whose ``invoice`` table gives an ``Invoice`` Term (label-matched by the glossary)."""
    import sqlite3

    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.executescript("CREATE TABLE invoice (invoice_id INTEGER PRIMARY KEY, total NUMERIC);"
                          "INSERT INTO invoice VALUES (1, 2.5), (2, 4.0);")
    con.close()
    assert main(["build", "--source", str(db), "--workspace", str(tmp_path / "ws"), "--no-progress"]) == 0
    return Workspace.open(tmp_path / "ws")


def _terms_of(ws: Workspace) -> dict[URIRef, set[URIRef]]:
    """source concept IRI -> the live Terms that carry ``skos:exactMatch`` to it."""
    found: dict[URIRef, set[URIRef]] = {}
    for row in ws.ontology.query("SELECT ?t ?c WHERE { ?t a evo:Term ; skos:exactMatch ?c "
                                 "FILTER NOT EXISTS { ?t owl:deprecated true } }"):
        found.setdefault(URIRef(row["c"]), set()).add(URIRef(row["t"]))
    return found


def test_skos_reimport_keeps_identity_scheme_notes_languages(shop, capsys):
    """Regression (issue 31 item 2, SKOS identity): imported concepts got new IRIs with no way back to the
    source, the scheme and dct notes were dropped, and importing again could not update."""
    import rdflib
    from rdflib.namespace import DCTERMS, RDF

    ws = shop
    source = rdflib.Graph().parse(MULTILINGUAL, format="turtle")
    concepts = set(source.subjects(RDF.type, SKOS.Concept))
    terms_before = len(list(ws.ontology.graph("content").subjects(RDF.type, _EVO_TERM)))
    assert main(["import", "skos", str(MULTILINGUAL), "-w", str(ws.path)]) == 0
    assert "1 matched existing Terms, 3 new Terms" in capsys.readouterr().out
    ws = Workspace.open(ws.path)
    content = ws.ontology.graph("content")
    # every concept traceable to its source IRI, by exactly one Term
    by_concept = _terms_of(ws)
    assert set(by_concept) == concepts and all(len(t) == 1 for t in by_concept.values())
    assert len(list(content.subjects(RDF.type, _EVO_TERM))) == terms_before + 3
    invoice = ws.iris.term("shop", "invoice")
    assert by_concept[URIRef("https://vocab.example.org/commerce/invoice")] == {invoice}  # linked by label
    # the scheme itself and membership
    scheme = URIRef("https://vocab.example.org/commerce/scheme")
    assert (scheme, RDF.type, SKOS.ConceptScheme) in content
    assert (scheme, DCTERMS.creator, Literal("Vocabulary working group")) in content
    assert {str(o) for o in content.objects(scheme, SKOS.prefLabel)} == {"Commerce vocabulary", "Handelsvokabular"}
    assert all((t, SKOS.inScheme, scheme) in content for ts in by_concept.values() for t in ts)
    # notes, provenance and language tags kept
    (refund,) = by_concept[URIRef("https://vocab.example.org/commerce/refund")]
    (trade,) = by_concept[URIRef("https://vocab.example.org/commerce/trade")]
    assert set(content.objects(refund, SKOS.prefLabel)) == {Literal("Refund", lang="en"),
                                                            Literal("Rückerstattung", lang="de")}
    assert Literal("An die Kundschaft zurückgezahltes Geld.", lang="de") in set(content.objects(refund, SKOS.note))
    assert (refund, SKOS.related, invoice) in content and (refund, SKOS.broader, trade) in content
    assert (invoice, DCTERMS.source, URIRef("https://vocab.example.org/sources/handbook")) in content
    assert (invoice, SKOS.scopeNote, Literal("Includes credit notes.", lang="en")) in content
    assert str(content.value(invoice, SKOS.definition)) == "A document requesting payment for goods sold."
    assert Literal("Rechnung", lang="de") in set(content.objects(invoice, SKOS.prefLabel))
    assert len(list(content.objects(invoice, URIRef("https://w3id.org/evoonto/ns#hasMapping")))) >= 1
    assert main(["validate", "-w", str(ws.path)]) == 0
    capsys.readouterr()
    # the same vocabulary again: nothing changes (0 duplicates)
    assert main(["import", "skos", str(MULTILINGUAL), "-w", str(ws.path)]) == 0
    assert "nothing new to import" in capsys.readouterr().out
    assert Workspace.open(ws.path).version == 1


def test_skos_reimport_of_a_changed_vocabulary_updates_terms(shop, tmp_path, capsys):
    """A renamed concept, a changed note and a new concept: re-import renames the Term the import minted,
    replaces its note, adds the new concept, and duplicates nothing."""
    ws = shop
    assert main(["import", "skos", str(MULTILINGUAL), "-w", str(ws.path)]) == 0
    refund_iri = URIRef("https://vocab.example.org/commerce/refund")
    (refund,) = _terms_of(Workspace.open(ws.path))[refund_iri]
    changed = tmp_path / "changed.ttl"
    text = MULTILINGUAL.read_text(encoding="utf-8")
    text = text.replace('"Refund"@en', '"Reimbursement"@en').replace(
        '"Money returned to a customer."@en', '"Money paid back to a customer."@en')
    text = text.replace('skos:example "Points earned per purchase."@en ;\n    skos:broader v:trade .',
                        'skos:example "Points earned per purchase."@en ;\n    skos:broader v:refund .')
    assert "skos:broader v:refund" in text  # loyalty moves under refund
    text += ('\nv:discount a skos:Concept ; skos:inScheme v:scheme ; skos:prefLabel "Discount"@en ;'
             ' skos:broader v:trade .\n')
    changed.write_text(text, encoding="utf-8")
    capsys.readouterr()
    assert main(["import", "skos", str(changed), "-w", str(ws.path)]) == 0
    out = capsys.readouterr().out
    assert "1 new Terms" in out and "4 imported before" in out
    ws = Workspace.open(ws.path)
    content = ws.ontology.graph("content")
    by_concept = _terms_of(ws)
    assert by_concept[refund_iri] == {refund}  # same Term, renamed
    assert set(content.objects(refund, SKOS.prefLabel)) == {Literal("Reimbursement", lang="en"),
                                                            Literal("Rückerstattung", lang="de")}
    notes = set(content.objects(refund, SKOS.note))
    assert Literal("Money paid back to a customer.", lang="en") in notes
    assert Literal("Money returned to a customer.", lang="en") not in notes
    assert all(len(t) == 1 for t in by_concept.values()) and len(by_concept) == 5
    (loyalty,) = by_concept[URIRef("https://vocab.example.org/commerce/loyalty")]
    (trade,) = by_concept[URIRef("https://vocab.example.org/commerce/trade")]
    assert set(content.objects(loyalty, SKOS.broader)) == {refund}
    assert ws.ontology.query(f"ASK {{ ?r owl:annotatedSource <{loyalty}> ; owl:annotatedTarget <{trade}> }}") is False
    assert main(["validate", "-w", str(ws.path)]) == 0
    capsys.readouterr()
    assert main(["import", "skos", str(changed), "-w", str(ws.path)]) == 0
    assert "nothing new to import" in capsys.readouterr().out


def test_skos_same_label_concepts_get_distinct_terms(shop, tmp_path):
    """Two source concepts with one prefLabel (in different schemes) are two Terms, not one merged Term."""
    from evoonto.imports.skos import skos_patch

    path = tmp_path / "twins.ttl"
    path.write_text("@prefix skos: <http://www.w3.org/2004/02/skos/core#> .\n"
                    "<https://a.example.org/c/1> a skos:Concept ; skos:prefLabel \"Margin\"@en .\n"
                    "<https://b.example.org/c/1> a skos:Concept ; skos:prefLabel \"Margin\"@en .\n", encoding="utf-8")
    _patch, summary = skos_patch(shop.ontology, path)
    assert len(set(summary.new.values())) == 2


def test_skos_concept_claimed_by_two_terms_adds_no_third(shop, capsys):
    """Two Terms carrying skos:exactMatch to one concept (a person copied one): re-import updates the one
    whose label fits, lists the concept as ambiguous, and adds no new Term for it."""
    import rdflib

    from evoonto.imports.skos import skos_patch
    from evoonto.patch import Patch
    from evoonto.records import Term

    assert main(["import", "skos", str(MULTILINGUAL), "-w", str(shop.path)]) == 0
    ws = Workspace.open(shop.path)
    refund_iri = URIRef("https://vocab.example.org/commerce/refund")
    (refund,) = _terms_of(ws)[refund_iri]
    copy = rdflib.Graph()
    other = ws.iris.term("glossary", "money-back")
    Term(other, "Money back", scheme=ws.iris.scheme()).to_graph(copy)
    copy.add((other, SKOS.exactMatch, refund_iri))
    ws.commit(Patch.from_graphs("content", {"content": copy}, {}, signature="test", intervention="copy"))
    ws = Workspace.open(shop.path)
    assert _terms_of(ws)[refund_iri] == {refund, other}
    _patch, summary = skos_patch(ws.ontology, MULTILINGUAL)
    assert summary.new == {} and summary.known[str(refund_iri)] == str(refund)
    assert summary.ambiguous == [str(refund_iri)]
