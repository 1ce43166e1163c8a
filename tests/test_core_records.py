"""IRI minting and typed records <-> RDF."""

from __future__ import annotations

import datetime as dt

import pytest
import rdflib
from rdflib.namespace import SH, SKOS

from evoonto.iris import IriFactory, default_base, slugify, stable_key
from evoonto.namespaces import EVO
from evoonto.records import (
    Constraint, Evidence, Mapping, ProbeActivity, RecordError, Relation, Term, direct_properties,
)
from evoonto.resources import vocab_graph

B = "https://example.org/evoonto/fin/"


@pytest.fixture
def iris():
    return IriFactory(B)


def test_iri_patterns(iris):
    assert str(iris.source("s")) == B + "source/s"
    assert str(iris.table("s", "t")) == B + "source/s/table/t"
    assert str(iris.column("s", "t", "c")) == B + "source/s/table/t/column/c"
    assert str(iris.term("s", "profit")) == B + "term/s/profit"
    assert str(iris.mapping("s", "t", "c", 2)) == B + "mapping/s/t/c/2"
    assert str(iris.mapping("s", "t")) == B + "mapping/s/t"
    assert str(iris.evidence("k")) == B + "evidence/k"
    assert str(iris.probe("k")) == B + "probe/k"
    assert str(iris.constraint("x")) == B + "constraint/x"
    assert str(iris.tools("browse")) == B + "tools/browse"
    assert str(iris.version(3)) == B + "version/3"
    assert str(iris.patch("p")) == B + "patch/p" and str(iris.gate("p")) == B + "gate/p"
    assert str(iris.scheme()) == B + "scheme"
    rel = iris.relation(EVO.Derivation, "a", "b")
    assert str(rel).startswith(B + "relation/Derivation/") and rel == iris.relation("Derivation", "a", "b")
    assert default_base("my ws") == "https://example.org/evoonto/my%20ws/"


def test_segments_are_percent_encoded(iris):
    col = iris.column("my db", 'o"rder', "sé/lect")
    assert str(col) == B + "source/my%20db/table/o%22rder/column/s%C3%A9%2Flect"
    rdflib.Graph().add((col, rdflib.RDF.type, EVO.Term))  # a valid IRI for rdflib
    with pytest.raises(ValueError):
        iris.column("s", "", "c")


def test_bad_base_rejected():
    for bad in ("relative/", "https://x.org/no-slash", "https://x y/"):
        with pytest.raises(ValueError):
            IriFactory(bad)


def test_stable_key_and_slug():
    assert stable_key("SELECT 1") == stable_key("SELECT 1") != stable_key("SELECT 2")
    assert stable_key("a", "bc") != stable_key("ab", "c")
    assert len(stable_key("x")) == 16
    assert slugify("Total Revenue (€)") == "total-revenue"
    assert slugify("%%%").startswith("x")


def test_term_round_trip(iris):
    term = Term(iris.term("fin", "profit"), "Profit", kinds=["Metric"], alt_labels=["margin", "earnings"],
                hidden_labels=["PROFIT_AMT"], definition="Revenue minus cost",
                scheme=iris.scheme(), mappings=[iris.mapping("fin", "t", "c")])
    graph = term.to_graph()
    assert (term.iri, rdflib.RDF.type, EVO.Metric) in graph
    assert (term.iri, SKOS.prefLabel, rdflib.Literal("Profit", lang="en")) in graph
    assert Term.from_graph(graph, term.iri) == Term(**{**term.__dict__, "alt_labels": ["earnings", "margin"]})


def test_mapping_writes_inverse_and_round_trips(iris):
    mapping = Mapping(iris.mapping("fin", "fact_cost", "total_cost"), iris.term("fin", "cost"),
                      iris.source("fin"), iris.table("fin", "fact_cost"),
                      iris.column("fin", "fact_cost", "total_cost"), aggregation="SUM", confidence=0.9)
    graph = mapping.to_graph()
    assert (mapping.term, EVO.hasMapping, mapping.iri) in graph
    assert Mapping.from_graph(graph, mapping.iri) == mapping


def test_constraint_severity(iris):
    c = Constraint(iris.constraint("profit"), [iris.term("fin", "profit")], condition="profit = revenue - cost",
                   severity=SH.Violation, trigger_keywords=["profit"])
    assert c.severity == "Violation"
    assert Constraint.from_graph(c.to_graph(), c.iri) == c
    with pytest.raises(RecordError):
        Constraint(iris.constraint("x"), severity="Fatal")


def test_evidence_and_probe_round_trip(iris):
    key = stable_key("SELECT total_cost FROM fact_cost")
    when = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
    ev = Evidence(iris.evidence(key), probe=iris.probe(key), generated_at=when, summary="3 rows",
                  rows_observed=3, null_fraction=0.0, distinct_count=3, min_value="1", max_value="9",
                  sample_values=["1", "5", "9"], value_distribution={"1": 1, "5": 1}, value_pattern="integer")
    assert Evidence.from_graph(ev.to_graph(), ev.iri) == ev
    probe = ProbeActivity(iris.probe(key), "SELECT total_cost FROM fact_cost", used=iris.source("fin"),
                          started_at=when, ended_at=when)
    assert ProbeActivity.from_graph(probe.to_graph(), probe.iri) == probe


def test_relation_direct_triple_and_qualified_node(iris):
    a, b = iris.term("fin", "profit"), iris.term("fin", "revenue")
    rel = Relation(iris.relation("Derivation", a, b), "Derivation", a, b, formula="revenue - cost")
    graph = rel.to_graph()
    assert (a, EVO.derivedFrom, b) in graph
    assert (rel.iri, EVO.relationType, EVO.Derivation) in graph
    assert Relation.from_graph(graph, rel.iri) == rel
    # built-in direct properties agree with the vocab's data
    vocab_props = direct_properties(vocab_graph())
    for name in ("Derivation", "Association", "Hierarchy", "Composition", "Equivalence"):
        assert Relation(rel.iri, name, a, b).direct_property == vocab_props[EVO[name]]
    with pytest.raises(RecordError):
        Relation(rel.iri, "Temporal", a, b)


def test_from_graph_errors(iris):
    with pytest.raises(RecordError, match="not an"):
        Term.from_graph(rdflib.Graph(), iris.term("x"))
    g = rdflib.Graph()
    g.add((iris.term("x"), rdflib.RDF.type, EVO.Term))
    with pytest.raises(RecordError, match="prefLabel"):
        Term.from_graph(g, iris.term("x"))
