"""Exports: Turtle loadable elsewhere, TriG of everything, spec-valid RDF Patch, SPARQL Update."""

from __future__ import annotations

import re

import pyoxigraph as ox
import pytest
import rdflib

from evoonto.export import (
    data_update, export, rdf_patches, sparql_update, to_rdf_patch, to_sparql_update, to_trig, to_turtle,
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


# RDF Patch grammar (https://afs.github.io/rdf-delta/rdf-patch.html, "Structure", "Header",
# "Transactions", "Changes"), read strictly, with RDF Delta's reader's choices where the text leaves one
# open (a prefix name is a string token there). No RDF Patch reader besides rdflib's is installable
# from PyPI, npm or Debian here (the PyPI ``rdf-delta`` package is only an HTTP client; RDF Delta's
# Java reader is on Maven only).
_PN_PREFIX = r"[A-Za-z][A-Za-z0-9_.-]*"  # Turtle PN_PREFIX, ASCII part
_ROW = re.compile(r"(H|TX|TC|TA|PA|PD|A|D)(?: (.*))? \.")


def _term(text: str):
    """One N-Triples term, parsed by pyoxigraph (raises SyntaxError when it is not one)."""
    return next(iter(ox.parse(f"<urn:s> <urn:p> {text} .", format=ox.RdfFormat.N_TRIPLES))).object


def strict_rdf_patch(text: str) -> tuple[dict[str, object], list[list[str]]]:
    """``(header {key: term}, [rows of each TX…TC block]``) of ONE RDF Patch; AssertionError on any
    departure from the grammar: a header row after the first ``TX`` (a one-patch reader would take
    it as this patch's header), a repeated header key, a change outside a transaction, an unclosed
    transaction, a prefix name that is not a quoted string, an ``A``/``D`` row that is not 3-4 terms."""
    header: dict[str, object] = {}
    blocks: list[list[str]] = []
    block: list[str] | None = None
    for line in text.splitlines():
        match = _ROW.fullmatch(line)
        assert match, f"not an RDF Patch row: {line!r}"
        code, rest = match.group(1), match.group(2) or ""
        if code == "H":
            assert not blocks and block is None, f"header row after a transaction: {line!r}"
            key, _, value = rest.partition(" ")
            assert re.fullmatch(_PN_PREFIX, key) or re.fullmatch(r'"[^"]+"', key), line
            assert key not in header, f"header {key} twice"
            header[key] = _term(value)
        elif code == "TX":
            assert block is None and not rest, line
            block = []
        elif code in ("TC", "TA"):
            assert block is not None and not rest, line
            blocks.append(block)
            block = None
        else:
            assert block is not None, f"change outside a transaction: {line!r}"
            if code in ("PA", "PD"):
                prefix, _, iri = rest.partition(" ")
                assert re.fullmatch(f'"{_PN_PREFIX}"', prefix), f"prefix is not a quoted name: {line!r}"
                if code == "PA":
                    assert isinstance(_term(iri), (ox.NamedNode, ox.Literal)), line
                else:
                    assert not iri, line
            else:
                quads = list(ox.parse(rest + " .", format=ox.RdfFormat.N_QUADS))
                assert len(quads) == 1, line
            block.append(line)
    assert block is None, "transaction not closed"
    return header, blocks


def test_strict_rdf_patch_grammar_refuses_what_rdf_delta_refuses():
    good = 'H id <urn:a> .\nTX .\nPA "ex" <http://example.org/> .\nA <urn:s> <urn:p> "o" <urn:g> .\nTC .\n'
    assert strict_rdf_patch(good) == ({"id": ox.NamedNode("urn:a")}, [good.splitlines()[2:4]])
    for bad in ("H id <urn:a> .\nTX .\nPA ex <http://example.org/> .\nTC .",  # unquoted prefix
                "H id <urn:a> .\nTX .\nTC .\nH id <urn:b> .\nTX .\nTC .",  # two patches in one
                "H id <urn:a> .\nA <urn:s> <urn:p> <urn:o> .",  # change outside TX
                "TX .\nA <urn:s> <urn:p> .\nTC .",  # two terms
                "TX .\nA <urn:s> <urn:p> <urn:o> .",  # not closed
                "TX .\nA <urn:s> <urn:p> <urn:o>\nTC ."):  # no dot
        with pytest.raises((AssertionError, SyntaxError)):
            strict_rdf_patch(bad)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_rdf_patch_is_spec_valid_and_replays_to_active_state(ws):
    text = to_rdf_patch(ws)
    header, blocks = strict_rdf_patch(text)  # one patch: one header, one transaction per version
    assert header == {"id": strict_rdf_patch(rdf_patches(ws)[-1][1])[0]["id"]}  # the last version's patch id
    assert len(blocks) == 3  # base + 2 accepted (rejected is left out)
    assert all(row.startswith("PA ") for row in blocks[0][:5]) and not any(
        row.startswith("PA ") for block in blocks[1:] for row in block)
    ds = rdflib.Dataset()
    ds.parse(data=text, format="patch")  # rdflib's RDF Patch parser (not ours) reads it as one patch
    store = apply_rdf_patch(text)
    for name, triples in active(ws).items():
        quads = store.quads_for_pattern(None, None, None, ox.NamedNode(published(ws, name)))
        got = {(q.subject, q.predicate, q.object) for q in quads}
        assert len(got) == len(triples), name
        assert len(ds.graph(rdflib.URIRef(published(ws, name)))) == len(triples), name
    assert "\\n" in text  # multi-line literal kept on one row
    without_base = strict_rdf_patch(to_rdf_patch(ws, include_base=False))
    assert without_base[0]["prev"] == ox.NamedNode(str(ws.iris.version(0))) and len(without_base[1]) == 2
    # each per-version patch is one patch too, chained by H prev
    previous = None
    for _, one in rdf_patches(ws):
        head, body = strict_rdf_patch(one)
        assert len(body) == 1 and head.get("prev") == previous
        previous = head["id"]


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
