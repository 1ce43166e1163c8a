"""Exports: Turtle loadable elsewhere, TriG of everything, spec-valid RDF Patch, SPARQL Update."""

from __future__ import annotations

import re

import pyoxigraph as ox
import pytest
import rdflib

from evoonto.export import (
    data_update, export, sparql_update, to_rdf_patch, to_sparql_update, to_trig, to_turtle,
)
from evoonto.errors import EvoontoError
from evoonto.namespaces import GRAPH, patch_additions_graph, patch_meta_graph, workspace_graph_iri
from evoonto.patch import EVOLVABLE_GRAPHS, Patch
from fixtures.core_support import finance_workspace, term_patch


@pytest.fixture
def ws(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    ws.commit(term_patch(ws, "ebitda", "EBITDA \"adjusted\"\nsecond line"))
    cost_label = next(t for t in ws.store.triples("content") if str(t[1]).endswith("prefLabel") and "Cost" in t[2])
    costs = (cost_label[0], cost_label[1], rdflib.Literal("Costs", lang="en"))
    ws.commit(Patch.from_graphs("content", {"content": [costs]}, {"content": [cost_label]}))
    ws.record_rejected(term_patch(ws, "nope"))
    return ws


def active(ws) -> dict:
    return {g: set(ws.store.triples(g)) for g in EVOLVABLE_GRAPHS}


def test_turtle_export_loads_in_rdflib_and_oxigraph(ws):
    data = to_turtle(ws.ontology)
    union = set().union(*active(ws).values())
    assert set(rdflib.Graph().parse(data=data, format="turtle")) == union
    assert len(list(ox.parse(data, format=ox.RdfFormat.TURTLE))) == len(union)


def published(ws, graph) -> str:
    return str(workspace_graph_iri(graph, ws.base_iri))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_trig_export_holds_the_active_graphs_or_the_history(ws):
    ds = rdflib.Dataset()
    ds.parse(data=to_trig(ws), format="trig")
    names = {str(g.identifier) for g in ds.graphs() if len(g)}
    assert {published(ws, n) for n in ("vocab", "content", "history")} <= names <= {published(ws, n) for n in GRAPH}
    full = rdflib.Dataset()
    full.parse(data=to_trig(ws, history=True), format="trig")
    names = {str(g.identifier) for g in full.graphs() if len(g)}
    for entry in ws.log():
        assert published(ws, patch_meta_graph(entry.id)) in names
    first = ws.log()[0].id
    assert len(full.graph(rdflib.URIRef(published(ws, patch_additions_graph(first, "content"))))) == 4


def apply_rdf_patch(text: str) -> ox.Store:
    store = ox.Store()
    for line in text.splitlines():
        op, _, rest = line.partition(" ")
        if op in ("A", "D"):
            quad = next(iter(ox.parse(rest, format=ox.RdfFormat.N_QUADS)))
            (store.add if op == "A" else store.remove)(quad)
    return store


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_rdf_patch_is_spec_valid_and_replays_to_active_state(ws):
    text = to_rdf_patch(ws)
    lines = text.splitlines()
    for line in lines:
        op = line.split(" ", 1)[0]
        assert op in ("H", "TX", "TC", "PA", "A", "D"), line
        assert line.endswith(" ."), line
        if op == "PA":
            assert re.fullmatch(r'PA "[A-Za-z][A-Za-z0-9_-]*" <[^>]+> \.', line), line
    headers = [line for line in lines if line.startswith("H ")]
    assert sum(h.startswith("H id ") for h in headers) == 3  # base + 2 accepted (rejected is left out)
    assert sum(h.startswith("H prev ") for h in headers) == 2
    assert all(re.fullmatch(r"H (id|prev) <[^>]+> \.", h) for h in headers)
    ds = rdflib.Dataset()
    ds.parse(data=text, format="patch")  # rdflib's RDF Patch parser accepts it
    store = apply_rdf_patch(text)
    for name, triples in active(ws).items():
        quads = store.quads_for_pattern(None, None, None, ox.NamedNode(published(ws, name)))
        got = {(q.subject, q.predicate, q.object) for q in quads}
        assert len(got) == len(triples), name
    assert "\\n" in text  # multi-line literal kept on one row


def test_sparql_update_replays_to_active_state(ws):
    store = ox.Store()
    store.update(to_sparql_update(ws))
    for name, triples in active(ws).items():
        graph = ox.NamedNode(published(ws, name))
        assert sum(1 for _ in store.quads_for_pattern(None, None, None, graph)) == len(triples)
    one = sparql_update(ws.patch(ws.log()[1].id))
    assert one.startswith("DELETE DATA") and "INSERT DATA" in one
    assert sparql_update(Patch.from_graphs("content")) == ""


def test_data_update_on_names_and_iris():
    ex = rdflib.Namespace("https://example.org/x/")
    other = "https://example.org/graph/other"
    store = ox.Store()
    store.update(data_update({}, {"content": [(ex.b, ex.p, ex.c), (ex.a, ex.p, rdflib.Literal("x"))],
                                  other: [(ex.a, ex.p, ex.b)], "tools": []}))
    assert sorted(q.graph_name.value for q in store) == sorted([str(GRAPH["content"])] * 2 + [other])
    request = data_update({"content": iter([(ex.b, ex.p, ex.c)])}, {"tools": []})
    assert request.startswith("DELETE DATA") and "INSERT" not in request
    store.update(request)
    assert len(store) == 2
    assert data_update({"content": []}, {}) == ""
    with pytest.raises(EvoontoError, match="unknown graph"):
        data_update({}, {"nope": [(ex.a, ex.p, ex.b)]})


def test_export_dispatch(ws):
    assert export(ws, "patch").startswith(b"H id ")
    with pytest.raises(EvoontoError, match="unknown export format"):
        export(ws, "xml")
