"""Regression (issue 16, item 6): qualified relation nodes were not typed ``owl:Axiom``.

They carry ``owl:annotatedSource/Property/Target`` (OWL 2 annotation reification), which the OWL 2
RDF mapping reads only on an ``owl:Axiom`` node; OWLAPI dropped those triples. Every Relation record
(builder and evolution write them through ``records.Relation``) is now ``a owl:Axiom`` too, and
reading it back still gives the same record.
"""

from __future__ import annotations

from importlib import resources

import rdflib
from rdflib.namespace import OWL, RDF

from evoonto.builder import build
from evoonto.namespaces import EVO
from evoonto.records import Relation


def test_relation_record_is_an_owl_axiom():
    ex = rdflib.Namespace("https://example.org/x/")
    rel = Relation(ex.rel, "Association", ex.a, ex.b, join_condition="a.x = b.y")
    g = rel.to_graph()
    assert (ex.rel, RDF.type, OWL.Axiom) in g and (ex.rel, RDF.type, EVO.Relation) in g
    assert Relation.from_graph(g, ex.rel) == rel


def test_built_relations_are_owl_axioms():
    db = resources.files("evoonto.data") / "concert_singer" / "concert_singer.sqlite"
    with resources.as_file(db) as path:
        content = build([path]).graphs["content"]
    annotated = set(content.subjects(OWL.annotatedSource, None))
    assert annotated and annotated == set(content.subjects(RDF.type, OWL.Axiom))
