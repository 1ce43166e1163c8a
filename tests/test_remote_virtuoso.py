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
from evoonto.remote import RemoteSparqlStore, push_verified
from evoonto.tools import OntologyTools
from evoonto.workspace import Workspace

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
