"""Regression: the Turtle export (vocab + shapes + catalog + content + tools in one document) had two
``owl:Ontology`` headers, the vocabulary's and the shapes' (``evosh: a owl:Ontology``, only there to carry
``sh:declare``); an OWL 2 document has one ontology header."""

from __future__ import annotations

import rdflib
from rdflib.namespace import OWL, RDF

from evoonto.export import to_turtle
from fixtures.core_support import finance_workspace


def test_turtle_export_has_one_ontology_header(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    g = rdflib.Graph().parse(data=to_turtle(ws.ontology), format="turtle")
    headers = set(g.subjects(RDF.type, OWL.Ontology))
    assert headers == {rdflib.URIRef("https://w3id.org/evoonto/ns")}
    # the SHACL prefix declarations the SPARQL constraints use are still there
    assert any(True for _ in g.objects(None, rdflib.URIRef("http://www.w3.org/ns/shacl#declare")))
