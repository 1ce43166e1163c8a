"""EVO namespace vs vocab/*.ttl, GRAPH, patch graph helpers, packaged resources."""

from __future__ import annotations

import typing

import pytest
import rdflib

from evoonto import codegen
from evoonto.namespaces import (
    EVO, EVOG, GRAPH, GRAPH_NAMES, bind_prefixes, parse_patch_graph, patch_additions_graph,
    patch_meta_graph, patch_removals_graph,
)
from evoonto.resources import shapes_files, shapes_graph, vocab_files, vocab_graph


def test_evo_namespace_declares_exactly_the_vocab_terms():
    declared = set(codegen.declared_terms(vocab_graph()))
    in_python = {name for name in typing.get_type_hints(EVO) if not name.startswith("_")}
    in_python |= set(EVO._extras)
    assert declared == in_python
    assert codegen.main(["--check"]) == 0


def test_evo_namespace_raises_on_typo():
    assert EVO.Term == rdflib.URIRef("https://w3id.org/evoonto/ns#Term")
    with pytest.raises(AttributeError):
        EVO.Trem  # noqa: B018


def test_every_contract_term_is_declared():
    # Terms named in docs/architecture.md §3.
    names = """sourceKind rowCount declaredType primaryKey references ordinal Document Passage text
    Term Metric Entity Identifier Dimension Category TimeDimension hasMapping Mapping mapsTerm source table
    column filter aggregation grain joinPath Evidence summary rowsObserved nullFraction distinctCount
    minValue maxValue sampleValue valueDistribution valuePattern Probe query Constraint constrains
    condition triggerKeyword severity RelationType Derivation Association Hierarchy Composition
    Equivalence derivedFrom partOf directProperty Relation relationType joinCondition formula
    BrowseSettings searchField fieldWeight field weight defaultResults maxResults ResolveSettings
    responseBudget evidenceBudget ManifestNote order DeclaredTool toolName sqlTemplate sparqlTemplate
    parameter parameterName parameterType Version Patch level signature intervention fingerprint Gate
    decision parentScore candidateScore""".split()
    for name in names:
        assert name in EVO, name


def test_relation_types_are_data_in_the_vocab():
    vocab = vocab_graph()
    types = set(vocab.subjects(rdflib.RDF.type, EVO.RelationType))
    assert types == {EVO.Derivation, EVO.Association, EVO.Hierarchy, EVO.Composition, EVO.Equivalence}
    assert vocab.value(EVO.Derivation, EVO.directProperty) == EVO.derivedFrom
    assert vocab.value(EVO.Composition, EVO.directProperty) == EVO.partOf


def test_graph_names_and_patch_graphs():
    assert list(GRAPH) == list(GRAPH_NAMES) == ["vocab", "shapes", "catalog", "content", "tools", "history"]
    assert GRAPH.content == GRAPH["content"] == EVOG.content
    assert GRAPH.name_of(EVOG.tools) == "tools"
    with pytest.raises(KeyError):
        GRAPH["contents"]
    add = patch_additions_graph("p1", "content")
    assert str(add) == "https://w3id.org/evoonto/graph/patch/p1/additions/content"
    assert parse_patch_graph(add) == ("p1", "additions", "content")
    assert parse_patch_graph(patch_removals_graph("p1", "vocab")) == ("p1", "removals", "vocab")
    assert parse_patch_graph(patch_meta_graph("p1")) == ("p1", "meta", None)
    assert parse_patch_graph(GRAPH.content) is None
    with pytest.raises(ValueError):
        patch_additions_graph("bad id", "content")
    with pytest.raises(ValueError):
        patch_additions_graph("p1", "nope")


def test_bind_prefixes():
    g = bind_prefixes(rdflib.Graph())
    assert dict(g.namespaces())["evo"] == rdflib.URIRef(str(EVO))


def test_packaged_resources_load_without_blank_nodes():
    assert "core.ttl" in vocab_files()
    assert shapes_files()
    for graph in (vocab_graph(), shapes_graph()):
        assert len(graph) > 50
        assert not any(isinstance(t, rdflib.BNode) for triple in graph for t in triple)
    # deterministic skolemisation: same IRIs on every load
    assert set(shapes_graph()) == set(shapes_graph())
