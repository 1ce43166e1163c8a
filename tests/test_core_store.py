"""OxigraphStore: term conversion, named graphs, SPARQL result shapes, file parsing errors."""

from __future__ import annotations

import pytest
import rdflib
from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF, SKOS

from evoonto.errors import EvoontoError, RDFParseError
from evoonto.namespaces import EVO, GRAPH
from evoonto.store import OxigraphStore, QueryError, Store, from_ox, parse_rdf_file, to_ox

A, B = URIRef("https://example.org/a"), URIRef("https://example.org/b")


@pytest.mark.parametrize("term", [
    A, Literal("plain"), Literal("chat", lang="fr"), Literal(3), Literal(0.5), Literal(True),
    Literal("2026-01-01T00:00:00Z", datatype=rdflib.XSD.dateTime), Literal("multi\nline \"q\""), BNode("b1"),
])
def test_term_round_trip(term):
    assert from_ox(to_ox(term)) == term


def test_graphs_and_queries():
    store = OxigraphStore()
    assert isinstance(store, Store)
    store.add([(A, RDF.type, EVO.Term), (A, SKOS.prefLabel, Literal("A", lang="en"))], "content")
    store.add([(EVO.Term, RDF.type, rdflib.OWL.Class)], "vocab")
    assert store.count("content") == 2 and store.count() == 3
    assert store.graph_names() == sorted([GRAPH.content, GRAPH.vocab])
    assert store.contains((A, RDF.type, EVO.Term), "content") and not store.contains((A, RDF.type, EVO.Term), "vocab")
    rows = store.query("SELECT ?t ?c WHERE { ?t a ?c . ?c a owl:Class }")  # union of graphs by default
    assert rows == [{"t": A, "c": EVO.Term}]
    assert store.query("SELECT ?t WHERE { ?t a evo:Term }", default_union=False) == []
    assert store.query("SELECT ?t WHERE { ?t a evo:Term }", default_graphs=["content"]) == [{"t": A}]
    assert store.query("ASK { ?t skos:prefLabel 'A'@en }") is True
    graph = store.query("CONSTRUCT { ?t skos:related ?t } WHERE { ?t a evo:Term }")
    assert set(graph) == {(A, SKOS.related, A)}
    rows = store.query("SELECT ?t ?missing WHERE { ?t a evo:Term OPTIONAL { ?t skos:note ?missing } }")
    assert rows == [{"t": A}]
    with pytest.raises(QueryError):
        store.query("SELECT WHERE")
    with pytest.raises(EvoontoError, match="unknown graph"):
        store.count("contents")


def test_apply_replace_copy_and_graph():
    store = OxigraphStore()
    store.add([(A, SKOS.related, B)], "content")
    rev = store.graph_revision("content")
    store.apply({"content": [(A, SKOS.related, B)]}, {"content": [(B, SKOS.related, A)]})
    assert store.graph_revision("content") != rev and store.graph_revision("vocab") == (0, 0)
    assert set(store.graph("content")) == {(B, SKOS.related, A)}
    copy = store.copy()
    store.replace_graph("content", [(A, RDF.type, EVO.Term)])
    assert set(copy.triples("content")) == {(B, SKOS.related, A)}
    assert set(store.triples("content")) == {(A, RDF.type, EVO.Term)}
    assert store.graph("content").identifier == GRAPH.content


def test_parse_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "bad.ttl"
    bad.write_text("@prefix ex: <http://e/> .\nex:a ex:b ex:c .\nex:a ex:b .\n")
    with pytest.raises(RDFParseError, match=r"bad\.ttl:3"):
        parse_rdf_file(bad)
    with pytest.raises(RDFParseError, match="cannot read"):
        parse_rdf_file(tmp_path / "missing.trig")
    with pytest.raises(RDFParseError, match="unsupported RDF file extension"):
        parse_rdf_file(tmp_path / "x.json")
    good = tmp_path / "good.ttl"
    good.write_text("<http://e/a> <http://e/b> 'c' .\n")
    assert len(parse_rdf_file(good)) == 1


def test_ontology_dataset_round_trip():
    from evoonto.ontology import Ontology

    onto = Ontology.from_graphs({"content": [(A, RDF.type, EVO.Term)],
                                 "vocab": [(EVO.Term, RDF.type, rdflib.OWL.Class)]})
    ds = onto.dataset()
    again = Ontology.from_dataset(ds)
    expected = {"vocab": 1, "shapes": 0, "catalog": 0, "content": 1, "tools": 0, "history": 0}
    assert again.counts() == onto.counts() == expected
    with pytest.raises(EvoontoError, match="unknown graph"):
        Ontology.from_graphs({"contents": []})
