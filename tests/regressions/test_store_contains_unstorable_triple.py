"""Defect: ``OxigraphStore.contains`` raised pyoxigraph's cryptic TypeError for a triple whose subject
is a literal (or whose predicate is not an IRI) instead of answering False: no graph can hold such
a triple, so it is not in the store."""

from __future__ import annotations

from rdflib import RDF, BNode, Literal, URIRef

from evoonto.namespaces import EVO
from evoonto.store import OxigraphStore

A = URIRef("https://example.org/a")


def test_contains_is_false_for_a_triple_no_graph_can_hold():
    store = OxigraphStore()
    store.add([(A, RDF.type, EVO.Term)], "content")
    assert store.contains((A, RDF.type, EVO.Term), "content")
    assert store.contains((Literal("a"), RDF.type, EVO.Term), "content") is False
    assert store.contains((A, BNode("p"), EVO.Term), "content") is False
