"""Regression: relation nodes are typed ``owl:Axiom`` (OWL 2 annotation reification) but carried
``evo:relationType`` (declared an object property), ``evo:joinCondition`` and ``evo:formula`` (datatype
properties). OWL 2 DL allows only annotation properties on an axiom node, so an OWL 2 DL parser read the
relation nodes as punned individuals. Every ``evo:`` property written on an ``owl:Axiom`` node of a built
workspace must be declared ``owl:AnnotationProperty`` (and nothing else) in the vocabulary.
"""

from __future__ import annotations

import rdflib
from rdflib.namespace import OWL, RDF

from evoonto.builder import build
from evoonto.namespaces import EVO
from evoonto.resources import vocab_graph
from fixtures.sources_support import make_shop_db

#: Properties of the OWL 2 reification itself (owl:annotatedSource/Property/Target, rdf:type).
_REIFICATION = {RDF.type, OWL.annotatedSource, OWL.annotatedProperty, OWL.annotatedTarget}


def test_evo_properties_on_axiom_nodes_are_annotation_properties(tmp_path):
    result = build([str(make_shop_db(tmp_path))], None, base_iri="https://example.org/shop/")
    content = result.graphs["content"]
    axioms = set(content.subjects(RDF.type, OWL.Axiom))
    assert axioms, "the shop database yields relations (its foreign keys)"
    used = {p for a in axioms for p in content.predicates(a)} - _REIFICATION
    evo_used = {p for p in used if str(p).startswith(str(EVO))}
    assert EVO.relationType in evo_used
    vocab = vocab_graph()
    for p in sorted(evo_used):
        kinds = set(vocab.objects(p, RDF.type))
        assert kinds == {OWL.AnnotationProperty}, f"{p} is declared {sorted(kinds)} but used on owl:Axiom nodes"


def test_relation_annotation_properties_are_typed_once():
    vocab = vocab_graph()
    assert isinstance(vocab, rdflib.Graph)
    for p in (EVO.relationType, EVO.joinCondition, EVO.formula):
        assert set(vocab.objects(p, RDF.type)) == {OWL.AnnotationProperty}


def test_every_property_on_axiom_nodes_is_an_annotation_property(tmp_path):
    """Regression (issue 31 item 4): ``prov:wasDerivedFrom`` on relation (``owl:Axiom``) nodes was
    declared an object property (as PROV-O declares it), so no export was OWL 2 DL. Every property
    written on an axiom node, whatever its namespace, is declared ``owl:AnnotationProperty`` and
    nothing else."""
    from rdflib.namespace import PROV

    result = build([str(make_shop_db(tmp_path))], None, base_iri="https://example.org/shop/")
    content = result.graphs["content"]
    axioms = set(content.subjects(RDF.type, OWL.Axiom))
    used = {p for a in axioms for p in content.predicates(a)} - _REIFICATION
    assert PROV.wasDerivedFrom in used  # relations cite the evidence they rest on
    vocab = vocab_graph()
    for p in sorted(used):
        assert set(vocab.objects(p, RDF.type)) == {OWL.AnnotationProperty}, p


def test_every_vocabulary_entity_is_typed_once():
    """OWL 2 DL (issue 31 item 4): no IRI of the vocabulary is declared two kinds of entity (a class
    and a property, or an object and an annotation property: punning that DL forbids for properties)."""
    from collections import defaultdict

    from rdflib.namespace import RDFS

    kinds = {OWL.Class, OWL.ObjectProperty, OWL.DatatypeProperty, OWL.AnnotationProperty, RDFS.Class, RDF.Property}
    declared: dict = defaultdict(set)
    for s, o in vocab_graph().subject_objects(RDF.type):
        if o in kinds:
            declared[s].add(o)
    assert declared and not {s: k for s, k in declared.items() if len(k) > 1}
