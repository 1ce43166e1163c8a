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
    # an empty name (SQL allows a column named "") gets a segment no other name encodes to
    assert str(iris.column("s", "", "c")) == B + "source/s/table/%00/column/c"
    assert iris.column("s", "t", "") not in {iris.column("s", "t", n) for n in ("_", "-", "%00", " ")}


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


def _harvested(tmp_path, iris, documents: bool = False) -> rdflib.Graph:
    from pathlib import Path

    from evoonto.sources import open_source
    from evoonto.sources.catalog import harvest

    if documents:
        folder = tmp_path / "notes"
        folder.mkdir()
        (folder / "rules.md").write_text("# Rules\n\nA banned card is not legal.\n\n## Formats\n\nStandard only.\n")
        location = str(folder)
    else:
        data = Path(__file__).resolve().parents[1] / "evoonto" / "data"
        location = str(data / "concert_singer" / "concert_singer.sqlite")
    with open_source(location) as src:
        return harvest(src, iris)


@pytest.mark.parametrize("documents", [False, True])
def test_catalog_records_write_exactly_what_harvest_writes(tmp_path, iris, documents):
    """Reading every catalog node back as its record and writing it again gives the harvested graph."""
    from rdflib.compare import isomorphic
    from rdflib.namespace import RDF

    from evoonto.records import CATALOG_RECORD_TYPES, Column, ForeignKeyDefinition, Source, Table, records_to_graph

    graph = _harvested(tmp_path, iris, documents)
    records = [cls.from_graph(graph, node) for rdf_type, cls in CATALOG_RECORD_TYPES.items()
               for node in graph.subjects(RDF.type, rdf_type)]
    assert len(records) > 3
    assert isomorphic(records_to_graph(records), graph)
    if not documents:
        assert {type(r) for r in records} == {Source, Table, Column, ForeignKeyDefinition}
        singer = Table.from_graph(graph, iris.table("concert_singer", "singer"))
        assert singer.name == "singer" and singer.row_count == 6
        assert singer.source == iris.source("concert_singer")
        with pytest.raises(RecordError):
            Column.from_graph(graph, iris.table("concert_singer", "singer"))  # a table is not a column


def test_read_catalog_rejects_what_it_cannot_query():
    from evoonto.catalog import read_catalog

    with pytest.raises(TypeError):
        read_catalog(42)


def test_read_catalog_finds_sources_by_id_or_iri(tmp_path, iris):
    from evoonto.catalog import read_catalog
    from evoonto.errors import SourceError

    catalog = read_catalog(_harvested(tmp_path, iris))
    by_id = catalog.source("concert_singer")
    assert catalog.source(iris.source("concert_singer")) is by_id
    assert by_id.kind == "sqlite" and by_id.table("SINGER") is by_id.table("singer")
    assert catalog.get("nope") is None
    with pytest.raises(SourceError):
        catalog.source("nope")
