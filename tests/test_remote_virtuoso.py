"""Push to a SPARQL server that is not Oxigraph: OpenLink Virtuoso 7 (Debian package), started by the
``virtuoso`` fixture (tests/conftest.py); skipped with the reason when the package is not installed."""

from __future__ import annotations

import json

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import SKOS

from evoonto.cli import main
from evoonto.namespaces import EVO, GRAPH_NAMES
from evoonto.ontology import Ontology
from evoonto.patch import Patch
from evoonto.remote import RemoteSparqlStore, RemoteStoreError, push, push_verified
from evoonto.tools import OntologyTools
from evoonto.workspace import Workspace
from fixtures.core_support import finance_workspace, term_patch
from fixtures.remote_support import virtuoso_binaries, virtuoso_server

pytestmark = [pytest.mark.slow,
              pytest.mark.filterwarnings("ignore:not detected query type:RuntimeWarning",
                                         "ignore:unknown query type:RuntimeWarning")]

QUESTIONS = ("invoice total", "customer country", "purchase record", "employee hire date", "track length")


def chinook_workspace(path, shared_data, name: str = "chinook") -> Workspace:
    """Chinook built by the offline builder under base ``https://example.org/evoonto/<name>/``."""
    Workspace.init(path, base_iri=f"https://example.org/evoonto/{name}/", name=name)
    db = shared_data / "chinook" / "Chinook_Sqlite.sqlite"
    assert main(["build", "--source", str(db), "--workspace", str(path), "--no-progress"]) == 0
    return Workspace.open(path)


def synonym_patch(ws: Workspace, label: str, synonym: str) -> Patch:
    """A content patch adding ``skos:altLabel synonym`` to the Term whose prefLabel is ``label``."""
    rows = ws.ontology.query(f'SELECT ?t WHERE {{ ?t a evo:Term ; skos:prefLabel ?l FILTER(STR(?l) = "{label}") }}')
    assert rows, label
    term = URIRef(rows[0]["t"])
    import rdflib

    graph = rdflib.Graph()
    graph.add((term, SKOS.altLabel, Literal(synonym, lang="en")))
    return Patch.from_graphs("content", {"content": graph}, signature="test", intervention="synonym")


def answers(ontology: Ontology) -> str:
    """browse for each of QUESTIONS and resolve of the top hits, as one canonical JSON text."""
    tools = OntologyTools(ontology)
    out = []
    for q in QUESTIONS:
        hits = tools.browse(q)
        out.append({"q": q, "browse": hits, "resolve": tools.resolve([h["id"] for h in hits[:3]])})
    return json.dumps(out, sort_keys=True, default=str)


def test_push_commit_push_answers_like_the_local_store(tmp_path, shared_data, virtuoso):
    ws = chinook_workspace(tmp_path / "ws", shared_data)
    assert ws.store.count("content") > 1400  # more than Virtuoso takes in one request
    remote = RemoteSparqlStore(virtuoso, virtuoso)
    assert remote.count() == 0  # the server's system graphs are not evoonto's
    first = push_verified(ws, remote)  # binds remote to the workspace's graphs <base>graph/…
    assert first.base and first.patches == 0
    assert first.counts == {n: ws.store.count(n) for n in GRAPH_NAMES}
    terms = [r["t"] for r in ws.ontology.query("SELECT ?t WHERE { ?t a evo:Term ; skos:prefLabel ?l }")]
    invoice = next(str(r["l"]) for r in ws.ontology.query(
        "SELECT ?l WHERE { ?t a evo:Entity ; skos:prefLabel ?l }") if "invoice" in str(r["l"]).lower())
    ws.commit(synonym_patch(ws, invoice, "purchase record"))
    second = push_verified(ws, remote)
    assert (second.base, second.patches) == (False, 1)
    assert push_verified(ws, remote).patches == 0
    served = Ontology(remote, version=ws.version, base_iri=ws.base_iri)
    assert len(terms) == len(served.query("SELECT ?t WHERE { ?t a evo:Term ; skos:prefLabel ?l }"))
    assert served.query(f'ASK {{ ?t skos:altLabel "purchase record"@en ; a <{EVO.Term}> }}') is True
    local = answers(ws.ontology)
    assert "purchase record" in local
    assert answers(served) == local


def test_push_cli_reports_verified_counts(tmp_path, shared_data, virtuoso, capsys):
    ws = chinook_workspace(tmp_path / "ws", shared_data)
    assert main(["push", virtuoso, "--workspace", str(ws.path), "--max-triples", "5000"]) == 0
    out = capsys.readouterr().out
    assert "pushed the base and 0 patch(es)" in out
    assert f"content {ws.store.count('content'):,}" in out
    # a different workspace with the same base IRI cannot be pushed into the graphs that hold this one
    other = chinook_workspace(tmp_path / "other", shared_data)
    assert main(["push", virtuoso, "--workspace", str(other.path)]) == 2
    assert "another workspace" in capsys.readouterr().err


def test_two_workspaces_pushed_to_one_endpoint_stay_separate(tmp_path, shared_data, virtuoso):
    a = chinook_workspace(tmp_path / "a", shared_data, name="a")
    b = chinook_workspace(tmp_path / "b", shared_data, name="b")
    b.commit(synonym_patch(b, next(str(r["l"]) for r in b.ontology.query(
        "SELECT ?l WHERE { ?t a evo:Entity ; skos:prefLabel ?l } LIMIT 1")), "only in b"))
    for ws in (a, b):
        assert main(["push", virtuoso, "--workspace", str(ws.path)]) == 0
    remote = RemoteSparqlStore(virtuoso, virtuoso)
    rows = remote.query("SELECT ?g ?t WHERE { GRAPH ?g { ?t a evo:Term } }", default_union=False)
    bases_per_graph: dict[str, set[str]] = {}
    for r in rows:
        bases_per_graph.setdefault(str(r["g"]), set()).add(str(r["t"]).split("/term/")[0])
    assert {base for bases in bases_per_graph.values() for base in bases} == {
        "https://example.org/evoonto/a", "https://example.org/evoonto/b"}
    assert all(len(bases) == 1 for bases in bases_per_graph.values()), bases_per_graph
    only_b = remote.query('SELECT ?g WHERE { GRAPH ?g { ?t skos:altLabel "only in b"@en } }', default_union=False)
    assert len(only_b) == 1 and "/evoonto/b/" in str(only_b[0]["g"])


def test_remote_triples_page_past_the_result_cap(tmp_path, shared_data):
    """Defect: ``RemoteSparqlStore.triples`` read a graph with one SELECT, so Virtuoso's cap on result
    rows (``ResultSetMaxRows``, 10,000 by default) silently cut every graph larger than that (and
    ``copy()``/``graph()`` with it). Here a Virtuoso whose cap is 1,000 rows serves Chinook's graphs."""
    if virtuoso_binaries() is None:
        pytest.skip("Virtuoso is not installed: apt-get install virtuoso-opensource-7-bin")
    ws = chinook_workspace(tmp_path / "ws", shared_data)
    cap = 1000
    assert ws.store.count("content") > 2 * cap
    with virtuoso_server(tmp_path / "capped", result_max_rows=cap) as endpoint:
        remote = RemoteSparqlStore(endpoint, endpoint, base_iri=ws.base_iri)
        push_verified(ws, remote)  # verified by COUNT, which the cap does not touch
        one_select = remote.query("SELECT ?s ?p ?o WHERE { GRAPH evog:content { ?s ?p ?o } }", default_union=False)
        assert len(one_select) == cap  # the cap bites: one unpaged answer is cut
        for name in ("content", "catalog"):
            assert set(remote.triples(name)) == set(ws.store.triples(name)), name
        small_pages = RemoteSparqlStore(endpoint, base_iri=ws.base_iri, page_size=700)
        assert set(small_pages.triples("content")) == set(ws.store.triples("content"))


def test_graph_names_collide_migration_moves_format1_graphs(tmp_path, virtuoso, capsys):
    """Graphs pushed under the shared format-1 names (``evog:content`` …) are moved to the workspace's
    own names by ``evoonto migrate --endpoint`` (SPARQL MOVE, which Virtuoso runs), after which push
    sends only what is missing; before it, push refuses instead of writing a second copy."""
    ws = finance_workspace(tmp_path / "ws")
    ws.commit(term_patch(ws, "ebitda"))
    legacy = RemoteSparqlStore(virtuoso, virtuoso)  # unbound: the shared names of workspace format 1
    for name in GRAPH_NAMES:
        legacy.add(ws.store.triples(name), name)
    with pytest.raises(RemoteStoreError, match="migrate --endpoint"):
        push(ws, RemoteSparqlStore(virtuoso, virtuoso))
    assert main(["migrate", "--workspace", str(ws.path), "--endpoint", virtuoso]) == 0
    assert f"now in {ws.base_iri}graph/" in capsys.readouterr().out
    assert legacy.count() == 0
    remote = RemoteSparqlStore(virtuoso, virtuoso, base_iri=ws.base_iri)
    assert remote.counts() == {n: ws.store.count(n) for n in GRAPH_NAMES}
    assert push_verified(ws, remote) == (0, False, remote.counts())
    assert main(["migrate", "--workspace", str(ws.path), "--endpoint", virtuoso]) == 0
    assert "nothing to move" in capsys.readouterr().out
