"""SHACL shapes and validation on the finance example: families, references, relations, focus nodes."""

from __future__ import annotations

import pytest
import rdflib
from rdflib import Literal, URIRef
from rdflib.namespace import OWL, RDF, SKOS

from evoonto.iris import IriFactory
from evoonto.namespaces import EVO, EVOSH
from evoonto.ontology import Ontology
from evoonto.records import Mapping, Relation
from evoonto.resources import shapes_graph, vocab_graph
from evoonto.validation import validate
from fixtures.core_support import FINANCE_BASE, finance_graphs

IRIS = IriFactory(FINANCE_BASE)
PROFIT, REVENUE, COST = (IRIS.term("finance", s) for s in ("profit", "revenue", "cost"))


def ontology(extra: list[tuple] = (), vocab_extra: list[tuple] = (), remove: list[tuple] = ()) -> Ontology:
    graphs = finance_graphs()
    for t in extra:
        graphs["content"].add(t)
    for t in remove:
        graphs["content"].remove(t)
    vocab = vocab_graph()
    for t in vocab_extra:
        vocab.add(t)
    return Ontology.from_graphs({**graphs, "vocab": vocab, "shapes": shapes_graph()}, base_iri=FINANCE_BASE)


def test_finance_example_conforms():
    report = validate(ontology())
    assert report.conforms, report.text()
    assert report.results == []


def test_mapping_to_missing_column_names_shape_focus_and_path():
    bad = Mapping(IRIS.mapping("finance", "fact_cost", "nope"), COST, IRIS.source("finance"),
                  IRIS.table("finance", "fact_cost"), IRIS.column("finance", "fact_cost", "nope"))
    report = validate(ontology(bad.to_triples()))
    assert not report.conforms
    hits = [r for r in report.violations if r.path == EVO.column and r.focus_node == bad.iri]
    assert hits and hits[0].shape == EVOSH.MappingShape
    assert "exists in the catalog" in hits[0].message
    text = report.text()
    assert "evosh:MappingShape" in text and "evo:column" in text and str(bad.iri) in text


def test_enumerations_and_datatypes():
    m = IRIS.mapping("finance", "fact_cost", "total_cost")
    onto = ontology([(m, EVO.aggregation, Literal("SUMM")), (m, EVO.grain, Literal(3))])
    report = validate(onto)
    paths = {r.path for r in report.violations}
    assert EVO.aggregation in paths and EVO.grain in paths


def test_unknown_relation_type_is_rejected_until_the_schema_declares_it():
    temporal = URIRef(str(EVO) + "TemporalDependency")
    precedes = URIRef(str(EVO) + "precedes")
    rel = Relation(IRIS.relation(temporal, COST, REVENUE), temporal, COST, REVENUE, direct_property=precedes)
    report = validate(ontology(rel.to_triples()))
    assert any(r.path == EVO.relationType for r in report.violations)
    # a schema diff (data in the vocab graph), not code, makes it admissible
    schema = [(temporal, RDF.type, EVO.RelationType), (temporal, EVO.directProperty, precedes),
              (precedes, RDF.type, OWL.ObjectProperty)]
    assert validate(ontology(rel.to_triples(), vocab_extra=schema)).conforms


def test_relation_property_must_match_its_type_and_direct_triple_must_exist():
    rel = IRIS.relation("Derivation", PROFIT, REVENUE)
    wrong = ontology([(rel, RDF.type, EVO.Relation), (rel, EVO.relationType, EVO.Derivation),
                      (rel, OWL.annotatedSource, PROFIT), (rel, OWL.annotatedProperty, SKOS.related),
                      (rel, OWL.annotatedTarget, REVENUE)])
    messages = [r.message for r in validate(wrong).violations if r.focus_node == rel]
    assert any("not the evo:directProperty" in m for m in messages)
    missing = ontology(remove=[(PROFIT, EVO.derivedFrom, COST)])
    report = validate(missing)
    assert any("direct triple" in r.message for r in report.violations)


def test_constraint_target_family_and_severity():
    c = IRIS.constraint("profit-definition")
    onto = ontology([(c, EVO.constrains, IRIS.evidence("c0st5um")), (c, EVO.severity, EVO.Term)])
    paths = {r.path for r in validate(onto).violations if r.focus_node == c}
    assert {EVO.constrains, EVO.severity} <= paths


def test_blank_nodes_are_flagged():
    b = rdflib.BNode()
    onto = ontology([(PROFIT, SKOS.note, b), (b, RDF.type, EVO.Term)])
    assert any("blank node" in r.message for r in validate(onto).violations)


def test_focus_validation_only_reports_focus_nodes():
    bad_m = Mapping(IRIS.mapping("finance", "fact_cost", "nope"), COST, IRIS.source("finance"),
                    IRIS.table("finance", "fact_cost"), IRIS.column("finance", "fact_cost", "nope"))
    onto = ontology(bad_m.to_triples())
    assert validate(onto, [PROFIT]).conforms
    focused = validate(onto, [bad_m.iri])
    assert not focused.conforms and {r.focus_node for r in focused.results} == {bad_m.iri}
    assert focused.focus_nodes == 1
    assert validate(onto, []).conforms


def test_validate_plain_graph_uses_packaged_schema():
    g = finance_graphs()["content"] + finance_graphs()["catalog"]
    assert validate(g).conforms
    g.add((PROFIT, SKOS.prefLabel, Literal("Gewinn", lang="en")))  # two English prefLabels
    report = validate(g)
    assert any(r.path == SKOS.prefLabel for r in report.violations)
    assert "1 SHACL violation" in report.summary() or "violation" in report.summary()


def test_validate_patch_on_a_candidate_leaves_the_parent_unchanged():
    from evoonto.patch import Patch
    from evoonto.validation import patch_focus_nodes, validate_patch

    parent = ontology()
    before = parent.store.count("content")
    removal = {t for t in parent.store.triples("content") if t[0] == COST}
    patch = Patch.from_graphs("content", removals={"content": removal})
    candidate = parent.with_patch(patch)
    assert candidate.candidate and candidate.version == parent.version + 1
    assert parent.store.count("content") == before and candidate.store.count("content") == before - len(removal)
    focus = patch_focus_nodes(candidate, patch)
    assert COST in focus and IRIS.mapping("finance", "fact_cost", "total_cost") in focus  # referrer of COST
    report = validate_patch(candidate, patch)
    assert not report.conforms
    schema = Patch.from_graphs("schema", {"vocab": [(EVO.Metric, RDF.type, OWL.Class)]})
    assert patch_focus_nodes(parent.with_patch(schema), schema) is None


def test_ontology_record_reads_typed_records():
    from evoonto.records import Constraint, Mapping as MappingRecord, RecordError, Relation as RelationRecord, Term

    onto = ontology()
    profit = onto.record(PROFIT)
    assert isinstance(profit, Term) and profit.label == "Profit" and profit.kinds == ["Metric"]
    m = onto.record(IRIS.mapping("finance", "fact_cost", "total_cost"))
    assert isinstance(m, MappingRecord) and m.aggregation == "SUM" and m.confidence == 0.9
    c = onto.record(IRIS.constraint("profit-definition"))
    assert isinstance(c, Constraint) and c.severity == "Violation"
    assert sorted(c.trigger_keywords) == ["margin", "profit"]
    rel = onto.record(URIRef(FINANCE_BASE + "relation/Derivation/cost"))
    assert isinstance(rel, RelationRecord) and rel.type == "Derivation" and rel.target == COST
    with pytest.raises(RecordError):
        onto.record(IRIS.source("finance"))
