"""Issue 19 item 1: the browse index per content version, incremental per patch, kept in the workspace
cache; the MCP server answers with the previous version while a new one is indexed."""

from __future__ import annotations

import json
import pickle
import threading
import time
from pathlib import Path

import pytest
import rdflib

from evoonto.patch import Patch
from evoonto.tools.index import IndexCache, SearchIndex, build_index, gather_documents
from evoonto.tools.settings import load_settings
from evoonto.tools.toolkit import OntologyTools
from evoonto.workspace import Workspace

from test_mcp_server import BASE, EVO, make_workspace

SKOS = rdflib.Namespace("http://www.w3.org/2004/02/skos/core#")
QUERIES = ["singer age", "Banned", "country of singers", "concert stadium capacity", "Netherlands",
           "how many singers are from France", "Singer_ID", "song name of the youngest singer"]


def _patch(ident: str = "p1") -> Patch:
    """A content patch: one new Term with a label and a definition, one changed label."""
    g = rdflib.Graph()
    term = rdflib.URIRef(BASE + "term/cs/stage-name")
    g.add((term, rdflib.RDF.type, EVO.Term))
    g.add((term, SKOS.prefLabel, rdflib.Literal("stage name")))
    g.add((term, SKOS.definition, rdflib.Literal("The name a performer uses on stage, e.g. Timbaland.")))
    g.add((term, SKOS.inScheme, rdflib.URIRef(BASE + "scheme")))
    return Patch.from_graphs("content", additions={"content": g}, signature="test", intervention=ident, id=ident)


def _answers(index: SearchIndex, ontology) -> list:
    from evoonto.tools.browse import browse

    settings = load_settings(ontology).browse
    out = []
    for q in QUERIES:
        for kind in ("term", "any"):
            out.append(browse(index, settings, q, kind=kind, format="verbose"))
            out.append(browse(index, settings, q, kind=kind, format="compact", budget=1500))
    return out


@pytest.fixture()
def patched(tmp_path) -> Workspace:
    path = make_workspace(tmp_path / "ws")
    ws = Workspace.open(path)
    ws.commit(_patch(), metadata={"decision": "accepted"})
    return ws


@pytest.mark.slow
def test_incremental_index_equals_full_rebuild_on_a_patched_workspace(patched):
    ws = patched
    v0, v1 = ws.ontology_at(0), ws.ontology
    weights = load_settings(v1).browse.weights
    SearchIndex._TOKENS.clear()
    parent = SearchIndex(gather_documents(v0), weights)
    SearchIndex._TOKENS.clear()  # nothing shared through the process cache: only the parent's tokens
    incremental = SearchIndex(gather_documents(v1), weights, parent=parent)
    SearchIndex._TOKENS.clear()
    full = SearchIndex(gather_documents(v1), weights)

    assert incremental.documents == full.documents
    assert incremental.doc_tokens == full.doc_tokens
    assert incremental.label_norm == full.label_norm
    assert incremental.vocab == full.vocab
    assert _answers(incremental, v1) == _answers(full, v1)
    # only the records the patch changed were tokenized again
    assert incremental.tokenized == {BASE + "term/cs/stage-name"}
    assert len(full.tokenized) > 10


def test_index_cache_loads_the_indexed_version_instead_of_building_it(patched, monkeypatch):
    ws = patched
    first = OntologyTools.for_workspace(ws)
    expected = _answers(first.built.index, ws.ontology)
    files = list((ws.path / "cache" / "index").glob("*.index"))
    assert len(files) == 1

    def no_gathering(ontology):
        raise AssertionError("the cached index should have been loaded")

    monkeypatch.setattr("evoonto.tools.index.gather_documents", no_gathering)
    again = OntologyTools.for_workspace(Workspace.open(ws.path))  # a new process would do the same
    assert again.built.index is not first.built.index
    assert _answers(again.built.index, ws.ontology) == expected


def test_index_cache_of_a_new_version_reuses_the_tokens_of_the_cached_one(patched):
    ws = patched
    OntologyTools.for_workspace(ws).built  # noqa: B018 - indexes version 1 into the cache
    ws.commit(Patch.from_graphs(
        "content", additions={"content": _label_graph()},
        signature="test", intervention="p2", id="p2"), metadata={"decision": "accepted"})
    SearchIndex._TOKENS.clear()
    tools = OntologyTools.for_workspace(ws)
    index = tools.built.index
    assert index.tokenized == {BASE + "term/cs/stage-name"}  # the one record the patch changed
    SearchIndex._TOKENS.clear()
    assert _answers(index, ws.ontology) == _answers(SearchIndex(gather_documents(ws.ontology),
                                                                load_settings(ws.ontology).browse.weights),
                                                    ws.ontology)
    assert len(list((ws.path / "cache" / "index").glob("*.index"))) == 2


def _label_graph() -> rdflib.Graph:
    g = rdflib.Graph()
    g.add((rdflib.URIRef(BASE + "term/cs/stage-name"), SKOS.altLabel, rdflib.Literal("performer alias")))
    return g


class _Planted:
    def __reduce__(self):
        return (print, ("planted code ran",))


def test_index_cache_refuses_a_planted_or_truncated_file(patched, capsys):
    ws = patched
    cache = IndexCache.for_workspace(ws)
    weights = load_settings(ws.ontology).browse.weights
    index = build_index(ws.ontology, weights, cache=cache)
    path = cache.path(weights)
    good = path.read_bytes()
    path.write_bytes(pickle.dumps(_Planted()))
    assert cache.load(weights) is None
    assert "planted code ran" not in capsys.readouterr().out
    path.write_bytes(good[: len(good) // 2])
    assert cache.load(weights) is None
    rebuilt = build_index(ws.ontology, weights, cache=cache)  # rebuilt and written again
    assert rebuilt.doc_tokens == index.doc_tokens and cache.load(weights) is not None


@pytest.mark.slow
def test_server_call_during_a_rebuild_is_answered_by_the_previous_version(tmp_path, monkeypatch):
    """While a committed version is indexed, calls (and a new client's initialize) are answered at
    once by the version loaded before; the new version is served once its index is ready."""
    import anyio
    from mcp import Client

    from evoonto.server import create_server

    path = make_workspace(tmp_path / "ws")
    server = create_server(path)
    provider = server.evoonto_provider
    provider.reload_wait = 0.0
    release, entered = threading.Event(), threading.Event()
    real_gather = gather_documents

    def slow_gather(ontology):
        entered.set()
        assert release.wait(60)
        return real_gather(ontology)

    monkeypatch.setattr("evoonto.tools.index.gather_documents", slow_gather)
    Workspace.open(path).commit(_patch(), metadata={"decision": "accepted"})

    async def during_rebuild() -> list[float]:
        took = []
        async with Client(server) as client:  # initialize while the new version is being indexed
            started = time.perf_counter()
            hits = json.loads((await client.call_tool("browse", {"q": "singer age"})).content[0].text)
            took.append(time.perf_counter() - started)
            assert hits and hits[0]["id"] == "term/cs/singer-age"
            assert entered.wait(30) and provider.reloading
            started = time.perf_counter()
            await client.call_tool("browse", {"q": "stage name"})
            took.append(time.perf_counter() - started)
        return took

    try:
        took = anyio.run(during_rebuild)
    finally:
        release.set()
    assert max(took) < 10, took
    assert provider.tools.version in (0, 1)
    assert provider.wait_for_reload(60)
    tools = provider.tools
    assert tools.version == 1 and provider.reloads == 1
    assert tools.browse("stage name")[0]["id"] == "term/cs/stage-name"
    versions = [e["version"] for e in _events(provider)]
    assert versions and set(versions) == {0}  # both calls were answered by version 0


def _events(provider) -> list[dict]:
    from evoonto.tools.trajectory import read_events

    return [e for e in read_events(provider.trajectory.path) if e["tool"] == "browse"]


def test_index_cache_folder_is_in_the_workspace_cache(patched):
    assert IndexCache.for_workspace(patched).folder == Path(patched.path) / "cache" / "index"


def test_candidate_index_is_built_from_its_parents_index(tmp_path):
    """An evolution candidate (``with_patch``) reuses the tokens of its parent's built index, even
    when the process-wide token cache was emptied, and answers as a full rebuild does."""
    ws = Workspace.open(make_workspace(tmp_path / "ws"))
    parent_tools = OntologyTools(ws.ontology)
    parent_tools.built  # noqa: B018 - build the parent's index
    SearchIndex._TOKENS.clear()
    candidate = ws.ontology.with_patch(_patch())
    index = OntologyTools(candidate).built.index
    assert index.tokenized == {BASE + "term/cs/stage-name"}
    SearchIndex._TOKENS.clear()
    full = SearchIndex(gather_documents(candidate), load_settings(candidate).browse.weights)
    assert _answers(index, candidate) == _answers(full, candidate)


def test_index_file_decodes_documents_and_texts_on_first_use(patched):
    """Issue 33 item 3: a cached index is memory-mapped and decodes a chunk of documents (and the
    texts) only when read; it equals the built index, and a damaged chunk is one WorkspaceError."""
    from evoonto.errors import WorkspaceError
    from evoonto.tools import index as index_module

    ws = patched
    cache = IndexCache.for_workspace(ws)
    weights = load_settings(ws.ontology).browse.weights
    built = build_index(ws.ontology, weights, cache=cache)
    loaded = cache.load(weights)
    assert isinstance(loaded.documents, index_module.LazyDocuments)
    assert loaded.documents._decoded == [None] * len(loaded.documents._decoded)  # nothing decoded yet
    assert loaded._texts is None  # not decoded yet
    assert _answers(loaded, ws.ontology) == _answers(built, ws.ontology)
    assert loaded.documents == built.documents and list(loaded.documents) == list(built.documents)
    assert loaded.documents[-1] == built.documents[-1] and loaded.documents[1:3] == built.documents[1:3]
    assert loaded.texts == built.texts
    assert loaded.layout() == _derived_layout(built)  # read from the file, equal to the derived one

    # a chunk damaged after the file was opened: one error naming the cure, not a traceback of pickle
    again = cache.load(weights)
    again.documents._raw[0] = memoryview(b"\x80\x05garbage")
    with pytest.raises(WorkspaceError, match="delete the workspace's cache/index folder"):
        again.documents[0]


def test_lazy_documents_decode_the_same_from_several_threads(patched):
    """Server worker threads may read the same undecoded chunk at once: each gets the documents."""
    ws = patched
    cache = IndexCache.for_workspace(ws)
    weights = load_settings(ws.ontology).browse.weights
    built = build_index(ws.ontology, weights, cache=cache)
    expected = [d.iri for d in built.documents]
    for _ in range(5):
        loaded = cache.load(weights)
        got: list = []
        threads = [threading.Thread(target=lambda docs=loaded.documents, out=got: out.append([d.iri for d in docs]))
                   for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert got == [expected] * 8


def _derived_layout(index: SearchIndex):
    from evoonto.tools.index import SchemaLayout

    return SchemaLayout.of(list(index.documents))
