"""Regression (issue 19): a full SHACL validation of a 7,450-column build took minutes because
pyshacl evaluated every nested property shape once per focus node. The property shapes now carry
their node shape's targets (``hoist_property_shapes``); the results must stay exactly pyshacl's
results on the unrewritten shapes, here on the finance fixture with a violation of every kind of
constraint the packaged shapes use (cardinality, datatype, class, nodeKind, in, or, xone, pattern,
uniqueLang, range)."""

from __future__ import annotations

import pytest

import rdflib
from rdflib import Literal, URIRef
from rdflib.namespace import RDF, SH, SKOS, XSD

from evoonto.iris import IriFactory
from evoonto.namespaces import EVO, EVOSH
from evoonto.ontology import Ontology
from evoonto.resources import shapes_graph, vocab_graph
from evoonto.validation import (PreparedShapes, _data_graph, _run_pyshacl, hoist_property_shapes,
                                prepare_shapes, validate)
from fixtures.core_support import FINANCE_BASE, finance_graphs

IRIS = IriFactory(FINANCE_BASE)
CSVW = rdflib.Namespace("http://www.w3.org/ns/csvw#")
DCTERMS = rdflib.Namespace("http://purl.org/dc/terms/")


def _broken() -> Ontology:
    graphs = finance_graphs()
    content, catalog = graphs["content"], graphs["catalog"]
    profit, cost = IRIS.term("finance", "profit"), IRIS.term("finance", "cost")
    mapping = IRIS.mapping("finance", "fact_cost", "total_cost")
    ev = IRIS.evidence("x1")
    tool = URIRef(FINANCE_BASE + "tool/bad")
    for triple in [
        (profit, SKOS.prefLabel, Literal("Gewinn", lang="en")),           # uniqueLang
        (profit, SKOS.altLabel, URIRef(FINANCE_BASE + "not-a-literal")),  # nodeKind
        (profit, EVO.hasMapping, cost),                                   # class
        (mapping, EVO.aggregation, Literal("SUMM")),                      # in
        (mapping, EVO.grain, Literal(3)),                                 # datatype
        (mapping, EVO.table, IRIS.table("finance", "dim_nope")),          # maxCount + class
        (ev, RDF.type, EVO.Evidence), (ev, EVO.nullFraction, Literal(2.5)),  # range
        (ev, EVO.rowsObserved, Literal("many")),                          # datatype
        (tool, RDF.type, EVO.DeclaredTool), (tool, EVO.toolName, Literal("Bad Name")),  # pattern, minCount
        (tool, EVO.sqlTemplate, Literal("SELECT 1")), (tool, EVO.sparqlTemplate, Literal("ASK {}")),  # xone
        (IRIS.constraint("c-none"), RDF.type, EVO.Constraint),            # or + minCount
    ]:
        content.add(triple)
    table = next(catalog.subjects(RDF.type, CSVW.Table))
    for title in list(catalog.objects(table, DCTERMS.title)):             # sh:or (title or name)
        catalog.remove((table, DCTERMS.title, title))
    catalog.add((table, EVO.rowCount, Literal(-1, datatype=XSD.integer)))
    return Ontology.from_graphs({**graphs, "vocab": vocab_graph(), "shapes": shapes_graph()}, base_iri=FINANCE_BASE)


def _key(results):
    return sorted((r.severity, str(r.shape), str(r.focus_node), str(r.path), str(r.value), r.message, str(r.component))
                  for r in results)


def test_build_validation_per_focus_node_hoisted_shapes_give_pyshacl_results():
    onto = _broken()
    plain, hoisted = PreparedShapes(shapes_graph(), hoist=False), PreparedShapes(shapes_graph())
    assert plain.hoisted == 0 and hoisted.hoisted > 50
    for focus in (None, sorted({s for s in onto.graph("content").subjects() if isinstance(s, URIRef)}, key=str)[:7]):
        data = _data_graph(onto, focus)
        expected = _run_pyshacl(plain, data, focus)
        assert _key(_run_pyshacl(hoisted, data, focus)) == _key(expected)
        if focus is None:
            paths = {r.path for r in expected}
            assert len(expected) >= 12 and {EVO.aggregation, EVO.grain, EVO.toolName, SKOS.prefLabel} <= paths
    # validate() uses the hoisted shapes and still names the node shape and the property path
    report = validate(onto)
    assert any(r.shape == EVOSH.MappingShape and r.path == EVO.aggregation for r in report.violations)
    assert prepare_shapes(shapes_graph()).hoisted == hoisted.hoisted


def test_build_validation_per_focus_node_hoisting_leaves_referenced_shapes_alone():
    ex = rdflib.Namespace("https://example.org/s#")
    g = rdflib.Graph()
    for t in [(ex.A, RDF.type, SH.NodeShape), (ex.A, SH.targetClass, ex.C), (ex.A, SH.property, ex.pa),
              (ex.pa, SH.path, ex.p), (ex.pa, SH.minCount, Literal(1)),
              # B is used inside sh:node of another shape: evaluating B as a whole must stay possible
              (ex.B, RDF.type, SH.NodeShape), (ex.B, SH.targetClass, ex.C), (ex.B, SH.property, ex.pb),
              (ex.pb, SH.path, ex.q), (ex.pb, SH.minCount, Literal(1)), (ex.D, SH.node, ex.B),
              # E has no target: nothing to hoist
              (ex.E, RDF.type, SH.NodeShape), (ex.E, SH.property, ex.pe), (ex.pe, SH.path, ex.r)]:
        g.add(t)
    assert hoist_property_shapes(g) == 1
    assert (ex.pa, SH.targetClass, ex.C) in g and (ex.A, SH.property, ex.pa) not in g
    assert (ex.B, SH.property, ex.pb) in g and (ex.pb, SH.targetClass, None) not in g
    assert (ex.E, SH.property, ex.pe) in g


@pytest.mark.slow
def test_build_validation_per_focus_node_builder_check_reads_its_own_graphs(tmp_path):
    """The builder hands pyshacl its content graph (plus vocab and catalog for the check) instead of
    a copy: a violation is still found, and the graphs are left exactly as built."""
    import pytest
    from fixtures.builder_support import make_cards_db

    from evoonto.builder import build
    from evoonto.builder.pipeline import _validate
    from evoonto.errors import ShapeViolationError

    result = build([make_cards_db(tmp_path)], validate=False)
    before = {name: set(g) for name, g in result.graphs.items()}
    assert _validate(result).conforms
    assert {name: set(g) for name, g in result.graphs.items()} == before
    mapping = next(result.graphs["content"].subjects(RDF.type, EVO.Mapping))
    result.graphs["content"].add((mapping, EVO.aggregation, Literal("SUMM")))
    with pytest.raises(ShapeViolationError, match="violates the shapes"):
        _validate(result)
    assert set(result.graphs["content"]) == before["content"] | {(mapping, EVO.aggregation, Literal("SUMM"))}
    assert set(result.graphs["catalog"]) == before["catalog"]


@pytest.mark.slow
def test_build_validation_per_focus_node_write_workspace_validates_once(tmp_path, monkeypatch):
    """write_workspace validated the whole base a second time after build had; it now skips the
    second pass only for a conforming build whose graphs are unchanged."""
    import pytest
    from fixtures.builder_support import make_cards_db

    import evoonto.workspace as workspace_module
    from evoonto.builder import build, write_workspace
    from evoonto.errors import ShapeViolationError

    result = build([make_cards_db(tmp_path)])
    calls = []
    real = workspace_module.validate
    monkeypatch.setattr(workspace_module, "validate", lambda *a, **k: calls.append(1) or real(*a, **k))
    ws = write_workspace(result, tmp_path / "ws")
    assert calls == [] and result.hand_over(True)[2]  # still the validated graphs
    assert ws.ontology.store.count("content") == len(result.graphs["content"])
    # a result changed after its validation is validated again, and rejected when it broke
    mapping = next(result.graphs["content"].subjects(RDF.type, EVO.Mapping))
    result.graphs["content"].add((mapping, EVO.aggregation, Literal("SUMM")))
    with pytest.raises(ShapeViolationError):
        write_workspace(result, tmp_path / "ws2")
    assert calls == [1]
    (tmp_path / "b").mkdir()
    unvalidated = build([make_cards_db(tmp_path / "b")], validate=False)
    write_workspace(unvalidated, tmp_path / "ws3")
    assert calls == [1, 1]
