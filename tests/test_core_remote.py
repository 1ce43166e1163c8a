"""RemoteSparqlStore against a real `oxigraph serve` on 127.0.0.1 (skipped when the binary is absent)."""

from __future__ import annotations

import shutil

import pytest

from evoonto.errors import EvoontoError
from evoonto.namespaces import GRAPH, GRAPH_NAMES, workspace_graph_iri
from evoonto.ontology import Ontology
from evoonto.remote import RemoteSparqlStore, RemoteStoreError, push
from evoonto.store import QueryError
from evoonto.validation import validate
from evoonto.workspace import Workspace
from fixtures.core_support import finance_workspace, term_patch
from fixtures.remote_support import oxigraph_binary, oxigraph_server

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path):
    if oxigraph_binary() is None:
        pytest.skip("the oxigraph server binary (pip package 'oxigraph') is not installed")
    with oxigraph_server(tmp_path) as base:
        yield base


@pytest.mark.filterwarnings("ignore:not detected query type:RuntimeWarning", "ignore:unknown query type:RuntimeWarning")
def test_workspace_round_trips_through_a_remote_store(tmp_path, server):
    ws = finance_workspace(tmp_path / "ws")
    shutil.copytree(ws.path, tmp_path / "fork")  # the same workspace, before its history diverges
    ws.commit(term_patch(ws, "ebitda", "EBITDA \"adj.\"\nline two"))
    ws.record_rejected(term_patch(ws, "nope"))
    remote = RemoteSparqlStore(f"{server}/query", f"{server}/update")
    assert push(ws, remote) == 2
    assert push(ws, remote) == 0
    for name in GRAPH_NAMES:
        assert set(remote.triples(name)) == set(ws.store.triples(name)), name
    # the endpoint holds the workspace's own graph names; queries and answers use the local evog: ones
    filled = [n for n in GRAPH_NAMES if ws.store.count(n)]
    assert {str(workspace_graph_iri(n, ws.base_iri)) for n in filled} == set(
        map(str, RemoteSparqlStore(f"{server}/query").graph_names()))
    assert set(remote.graph_names()) == {GRAPH[n] for n in filled}
    full_iri = remote.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{GRAPH['content']}> {{ ?s ?p ?o }} }}",
                            default_union=False)
    assert int(full_iri[0]["n"]) == ws.store.count("content") > 0
    # later commits are pushed as SPARQL Update
    cost = ws.iris.term("finance", "cost")
    ws.commit(term_patch(ws, "opex"))
    assert push(ws, remote) == 1
    onto = Ontology(remote, version=ws.version, base_iri=ws.base_iri)
    assert set(onto.graph("content")) == set(ws.ontology.graph("content"))
    rows = onto.query("SELECT ?l WHERE { ?t a evo:Metric ; skos:prefLabel ?l } ORDER BY ?l")
    assert [str(r["l"]) for r in rows] == sorted(str(r["l"]) for r in ws.ontology.query(
        "SELECT ?l WHERE { ?t a evo:Metric ; skos:prefLabel ?l }"))
    assert onto.query(f"ASK {{ <{cost}> a evo:Term }}") is True
    assert len(onto.query("CONSTRUCT { ?s ?p ?o } WHERE { ?s a evo:Mapping ; ?p ?o }")) > 10
    assert validate(onto).conforms
    candidate = onto.with_patch(term_patch(ws, "capex"))
    assert candidate.store.count("content") == remote.count("content") + 4  # the new Term is also a skos:Concept
    with pytest.raises(QueryError):
        onto.query("SELEC nonsense")
    # a copy of the workspace that does not know the remote's history is refused
    with pytest.raises(RemoteStoreError, match="unknown"):
        push(Workspace.open(tmp_path / "fork"), remote)
    # another workspace built under the same base IRI is refused too (its base is not the one pushed)
    other = finance_workspace(tmp_path / "other")
    with pytest.raises(RemoteStoreError, match="another workspace"):
        push(other, remote)


def test_unreachable_endpoint_is_a_clear_error():
    remote = RemoteSparqlStore("http://127.0.0.1:9/query", timeout_s=2)
    with pytest.raises(EvoontoError, match="cannot reach"):
        remote.count()
