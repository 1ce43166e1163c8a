"""Regression (issue 16, item 6): the vocabulary was not a well-formed OWL 2 DL ontology for tools.

``dcterms:title`` / ``dcterms:source`` were used on the ontology but not declared annotation
properties; the header had no license, creator, ``owl:versionIRI`` or preferred prefix (vann); 23
terms lacked a label or comment, 2 properties a domain and 7 a range. Now each is declared, and
HermiT (owlready2, Java) finds the vocabulary consistent.
"""

from __future__ import annotations

import pytest
from rdflib import Literal, Namespace, URIRef
from rdflib.namespace import DCTERMS, OWL, RDF, RDFS

from evoonto.namespaces import EVO
from evoonto.resources import vocab_graph

VANN = Namespace("http://purl.org/vocab/vann/")
ONTOLOGY = URIRef("https://w3id.org/evoonto/ns")
PROPERTY_KINDS = {OWL.ObjectProperty, OWL.DatatypeProperty, OWL.AnnotationProperty, RDF.Property}


def test_header_names_license_creator_version_and_prefix():
    g = vocab_graph()
    assert (ONTOLOGY, RDF.type, OWL.Ontology) in g
    for predicate in (DCTERMS.license, DCTERMS.creator, OWL.versionIRI, OWL.versionInfo):
        assert g.value(ONTOLOGY, predicate) is not None, predicate
    assert g.value(ONTOLOGY, VANN.preferredNamespacePrefix) == Literal("evo")
    assert g.value(ONTOLOGY, VANN.preferredNamespaceUri) == Literal(str(EVO))
    used = {p for p, _ in g.predicate_objects(ONTOLOGY)} - {RDF.type, RDFS.label, RDFS.comment, OWL.versionIRI,
                                                            OWL.versionInfo}
    for predicate in used:  # every annotation on the header is declared, as OWL 2 DL wants
        assert (predicate, RDF.type, OWL.AnnotationProperty) in g, predicate


def test_every_term_has_label_comment_and_every_property_domain_range():
    g = vocab_graph()
    terms = {s for s in g.subjects() if isinstance(s, URIRef) and str(s).startswith(str(EVO))}
    assert len(terms) > 90
    missing = []
    for term in sorted(terms):
        kinds = set(g.objects(term, RDF.type))
        need = [RDFS.label, RDFS.comment] + ([RDFS.domain, RDFS.range] if kinds & PROPERTY_KINDS else [])
        missing += [f"{term} {p}" for p in need if g.value(term, p) is None]
    assert not missing, missing


@pytest.mark.slow
def test_hermit_finds_the_vocabulary_consistent():
    from evoonto.reasoning import check_consistency, java_executable

    if java_executable() is None:
        pytest.skip("no Java runtime for HermiT (install a JRE, e.g. Debian default-jre-headless)")
    report = check_consistency(vocab_graph())
    assert report.consistent and not report.unsatisfiable, report.message
