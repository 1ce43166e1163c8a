"""The :class:`~evoonto.store.Store` protocol over a remote SPARQL 1.1 endpoint (SPARQLWrapper).

For ontologies that outgrow one process (DESIGN.md §3): Oxigraph server, Fuseki, GraphDB, Virtuoso
or Neptune behind the standard SPARQL 1.1 Protocol. Queries use the ``default-graph-uri``
protocol parameter to build the default graph (the union of the six graphs by default), updates go
to the update endpoint. :func:`push` sends a workspace there: the base as ``INSERT DATA`` unless the
remote already holds it, then every patch not yet present (accepted patches as ``DELETE DATA``/
``INSERT DATA``, and every patch's metadata into the ``history`` graph), then checks the triple
count of each of the six graphs against the workspace and raises on any difference.

Only evoonto's six graphs are ever counted or read (an endpoint's own system graphs, e.g.
Virtuoso's ``virtrdf:``, are not). Writes are chunked adaptively: at most ``max_triples`` triples
per request (1,000 by default; Virtuoso compiles one request into one SQL unit and refuses about
1,400 triples and more), halved and retried when the endpoint refuses a request, down to one
triple. ``INSERT DATA``/``DELETE DATA`` are idempotent, so a push that failed half-way is completed
by running it again.

Example::

    remote = RemoteSparqlStore("http://127.0.0.1:7878/query", "http://127.0.0.1:7878/update")
    push(Workspace.open(".evoonto"), remote)
    Ontology(remote).query("SELECT (COUNT(*) AS ?n) WHERE { ?t a evo:Term }")
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable, Iterator, NamedTuple

import rdflib
from rdflib import BNode, Literal, URIRef
from rdflib.term import Node

from evoonto.errors import EvoontoError, first_line
from evoonto.export import TriplesByGraph, data_operation, data_update
from evoonto.namespaces import GRAPH, GRAPH_NAMES, PREFIXES
from evoonto.store import OxigraphStore, QueryError, graph_iri, named_graph, to_ox
from evoonto.optional import require

if TYPE_CHECKING:
    from evoonto.workspace import Workspace

RdfTriple = tuple[Node, Node, Node]


class RemoteStoreError(EvoontoError):
    """The remote endpoint is unreachable, refused a request, or holds a history that diverges."""


_PROLOGUE = re.compile(r"^\s*(?:(?:PREFIX\s+[\w.-]*:\s*<[^>]*>|BASE\s+<[^>]*>|#[^\n]*)\s*)*", re.IGNORECASE)
_DECLARED = re.compile(r"PREFIX\s+([\w.-]*):", re.IGNORECASE)
MAX_TRIPLES = 1000
"""Default upper bound of triples per update request (:class:`RemoteSparqlStore` ``max_triples``)."""


def _with_prefixes(sparql: str) -> str:
    declared = {m.group(1) for m in _DECLARED.finditer(sparql)}
    head = "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in PREFIXES.items() if p not in declared)
    return head + sparql


def _query_form(sparql: str) -> str:
    rest = _PROLOGUE.sub("", sparql, count=1).lstrip()  # the anchored prologue (possibly empty) removed
    return (rest.split(None, 1)[0].upper() if rest else "")


def _term(binding: dict[str, str]) -> Node:
    kind, value = binding["type"], binding["value"]
    if kind == "uri":
        return URIRef(value)
    if kind == "bnode":
        return BNode(value)
    if "xml:lang" in binding:
        return Literal(value, lang=binding["xml:lang"])
    datatype = binding.get("datatype")
    if datatype and datatype != "http://www.w3.org/2001/XMLSchema#string":
        return Literal(value, datatype=URIRef(datatype))
    return Literal(value)


class RemoteSparqlStore:
    """A quad store behind a SPARQL 1.1 query (+ update) endpoint.

    Args:
        query_endpoint: e.g. ``http://127.0.0.1:7878/query``.
        update_endpoint: e.g. ``http://127.0.0.1:7878/update`` (None: read-only).
        timeout_s: HTTP timeout per request, in seconds.
        max_triples: most triples sent in one ``INSERT DATA``/``DELETE DATA`` request (>= 1); lowered
            for the rest of this object's life whenever the endpoint refuses a request that size.

    Raises:
        ValueError: ``max_triples`` < 1.
    """

    def __init__(self, query_endpoint: str, update_endpoint: str | None = None, *, timeout_s: int = 60,
                 max_triples: int = MAX_TRIPLES):
        if max_triples < 1:
            raise ValueError(f"max_triples must be at least 1, not {max_triples}")
        self.query_endpoint = query_endpoint
        self.update_endpoint = update_endpoint
        self.timeout_s = timeout_s
        self.max_triples = max_triples

    def __repr__(self) -> str:
        return f"RemoteSparqlStore({self.query_endpoint!r})"

    def _wrapper(self, endpoint: str):
        sw = require("SPARQLWrapper")
        POST, SPARQLWrapper = sw.POST, sw.SPARQLWrapper

        wrapper = SPARQLWrapper(endpoint, updateEndpoint=self.update_endpoint)
        wrapper.setMethod(POST)
        wrapper.setTimeout(self.timeout_s)
        return wrapper

    # reading --------------------------------------------------------------------------------
    def query(self, sparql: str, *, default_union: bool = True, default_graphs: Iterable | None = None):
        """Run a query remotely; same return types as :meth:`OxigraphStore.query`.

        Raises:
            QueryError: the endpoint rejected the query. RemoteStoreError: the endpoint is unreachable.
        """
        sw = require("SPARQLWrapper")
        JSON, TURTLE = sw.JSON, sw.TURTLE

        text = _with_prefixes(sparql)
        form = _query_form(text)
        wrapper = self._wrapper(self.query_endpoint)
        graphs = list(default_graphs) if default_graphs is not None else (list(GRAPH_NAMES) if default_union else [])
        for g in graphs:
            wrapper.addDefaultGraph(str(graph_iri(g)))
        wrapper.setQuery(text)
        if form in ("CONSTRUCT", "DESCRIBE"):
            wrapper.setReturnFormat(TURTLE)
            data = self._run(wrapper).convert()
            graph = rdflib.Graph()
            graph.parse(data=data.decode("utf-8") if isinstance(data, bytes) else data, format="turtle")
            return graph
        wrapper.setReturnFormat(JSON)
        result = self._run(wrapper).convert()
        if "boolean" in result:
            return bool(result["boolean"])
        if form == "ASK":  # Virtuoso answers ASK as rows: one {"__ASK_RETVAL": 1} when true, none when false
            rows = result["results"]["bindings"]
            return any(v.get("value") not in ("0", "false") for row in rows for v in row.values())
        return [{k: _term(v) for k, v in row.items()} for row in result["results"]["bindings"]]

    def _run(self, wrapper):
        from urllib.error import URLError

        SPARQLWrapperException = require("SPARQLWrapper.SPARQLExceptions").SPARQLWrapperException

        try:
            return wrapper.query()
        except SPARQLWrapperException as exc:
            raise QueryError(f"{wrapper.endpoint}: {first_line(exc)}") from exc
        except (URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise RemoteStoreError(f"cannot reach SPARQL endpoint {wrapper.endpoint}: {reason}") from exc

    def update(self, sparql: str) -> None:
        """Run a SPARQL 1.1 Update on the update endpoint.

        Raises:
            RemoteStoreError: no update endpoint configured, or unreachable. QueryError: rejected.
        """
        if not self.update_endpoint:
            raise RemoteStoreError(f"{self.query_endpoint} was opened read-only (no update endpoint)")
        wrapper = self._wrapper(self.update_endpoint)
        wrapper.setQuery(_with_prefixes(sparql))
        self._run(wrapper)

    def triples(self, name: str) -> Iterator[RdfTriple]:
        """Iterate the triples of one named graph."""
        rows = self.query(f"SELECT ?s ?p ?o WHERE {{ GRAPH <{graph_iri(name)}> {{ ?s ?p ?o }} }}", default_union=False)
        for row in rows:
            yield (row["s"], row["p"], row["o"])

    def graph(self, name: str) -> rdflib.Graph:
        """A copy of one named graph as an rdflib Graph (evoonto prefixes bound)."""
        return named_graph(name, self.triples(name))

    def count(self, name: str | None = None) -> int:
        """Number of triples in one named graph, or in evoonto's six graphs together when None.

        The endpoint's other graphs (system graphs, other data) are never counted.
        """
        if name is None:
            return sum(self.counts().values())
        rows = self.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph_iri(name)}> {{ ?s ?p ?o }} }}",
                          default_union=False)
        return int(rows[0]["n"]) if rows else 0

    def counts(self) -> dict[str, int]:
        """``{graph name: number of triples}`` for the six graphs of :data:`GRAPH_NAMES` (one query)."""
        values = " ".join(f"<{graph_iri(n)}>" for n in GRAPH_NAMES)
        rows = self.query(f"SELECT ?g (COUNT(*) AS ?n) WHERE {{ VALUES ?g {{ {values} }} GRAPH ?g {{ ?s ?p ?o }} }} "
                          "GROUP BY ?g", default_union=False)
        found = {str(r["g"]): int(r["n"]) for r in rows}
        return {n: found.get(str(graph_iri(n)), 0) for n in GRAPH_NAMES}

    def graph_names(self) -> list[URIRef]:
        """IRIs of the named graphs holding quads."""
        rows = self.query("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }", default_union=False)
        return sorted(row["g"] for row in rows)

    def contains(self, triple: RdfTriple, name: str) -> bool:
        """True when ``triple`` is in graph ``name``."""
        s, p, o = (to_ox(t) for t in triple)
        return bool(self.query(f"ASK {{ GRAPH <{graph_iri(name)}> {{ {s} {p} {o} }} }}", default_union=False))

    # writing --------------------------------------------------------------------------------
    def add(self, triples: Iterable[RdfTriple], name: str) -> None:
        """``INSERT DATA`` the triples into graph ``name``, at most ``max_triples`` per request.

        Raises:
            QueryError: the endpoint refused a request even with a single triple.
            RemoteStoreError: unreachable, or no update endpoint.
        """
        self._send("INSERT", list(triples), name)

    def remove(self, triples: Iterable[RdfTriple], name: str) -> None:
        """``DELETE DATA`` the triples from graph ``name``, chunked as :meth:`add`."""
        self._send("DELETE", list(triples), name)

    def _send(self, op: str, rows: list[RdfTriple], name: str) -> None:
        """``op DATA`` of ``rows`` in chunks; a refused chunk is halved and re-sent (idempotent)."""
        i = 0
        while i < len(rows):
            chunk = rows[i:i + self.max_triples]
            try:
                self.update(data_operation(op, {name: chunk}))
            except QueryError:
                if len(chunk) == 1:
                    raise
                self.max_triples = max(1, len(chunk) // 2)
                continue
            i += len(chunk)

    def replace_graph(self, name: str, graph: rdflib.Graph) -> None:
        """``DROP SILENT GRAPH`` then insert the triples of ``graph``."""
        self.update(f"DROP SILENT GRAPH <{graph_iri(name)}>")
        self.add(graph, name)

    def apply(self, removals: TriplesByGraph, additions: TriplesByGraph) -> None:
        """Remove then add: one update request (atomic on stores that run a request as one transaction)
        when it holds at most ``max_triples`` triples and the endpoint takes it, else chunked per graph
        (removals first); a half-applied change is completed by applying it again."""
        removed = {g: list(t) for g, t in removals.items()}
        added = {g: list(t) for g, t in additions.items()}
        size = sum(map(len, removed.values())) + sum(map(len, added.values()))
        if size == 0:
            return
        if size <= self.max_triples:
            try:
                self.update(data_update(removed, added))
                return
            except QueryError:
                if size == 1:
                    raise
                self.max_triples = max(1, size // 2)
        for g, rows in removed.items():
            self.remove(rows, g)
        for g, rows in added.items():
            self.add(rows, g)

    def copy(self) -> OxigraphStore:
        """An in-memory :class:`OxigraphStore` copy of the six graphs (for candidates)."""
        out = OxigraphStore()
        for name in GRAPH_NAMES:
            out.add(self.triples(name), name)
        return out


def remote_patch_ids(remote: RemoteSparqlStore) -> list[str]:
    """Ids of the patches recorded in the remote ``history`` graph, in commit order (by time, then id)."""
    rows = remote.query(
        f"SELECT ?id ?t WHERE {{ GRAPH <{GRAPH['history']}> {{ ?p a evo:Patch ; dcterms:identifier ?id . "
        "OPTIONAL { ?p prov:generatedAtTime ?t } } }", default_union=False)
    return [str(r["id"]) for r in rows]


class PushResult(NamedTuple):
    """What :func:`push` did: ``patches`` pushed (accepted and rejected), whether the ``base`` was
    sent, and the verified ``counts`` ``{graph name: triples}`` of the six graphs at the endpoint."""

    patches: int
    base: bool
    counts: dict[str, int]


def push(workspace: Workspace, remote: RemoteSparqlStore) -> int:
    """Send ``workspace`` to ``remote`` and verify it; :func:`push_verified` with only the patch count.

    Returns:
        Number of patches pushed (accepted and rejected; only accepted ones change the graphs).

    Raises:
        RemoteStoreError: diverged history, another workspace in the same graphs, or a partial push.
    """
    return push_verified(workspace, remote).patches


def push_verified(workspace: Workspace, remote: RemoteSparqlStore) -> PushResult:
    """Send ``workspace`` to ``remote``: the base unless present, then missing patches in order; then verify.

    The base's history triples (``<B version/0>``) are written after the base's graphs, and each
    patch's metadata after its change, so a push that stops half-way leaves no marker of what it
    did not finish, and running it again completes it (``INSERT DATA``/``DELETE DATA`` are
    idempotent). Afterwards every one of the six graphs must hold at the endpoint as many triples
    as in the workspace.

    Raises:
        RemoteStoreError: the remote holds patches the workspace does not know (diverged history),
            another workspace's base in the same graphs, or, after pushing, a graph whose triple count
            differs from the workspace's (partial push: the message names each graph and both counts).
        QueryError: the endpoint refused an update even one triple at a time.
    """
    local = [e.id for e in workspace.log()]
    base_marker = workspace.iris.version(0)
    has_base = remote.query(f"ASK {{ GRAPH <{GRAPH['history']}> {{ <{base_marker}> ?p ?o }} }}",
                            default_union=False) is True
    present = set(remote_patch_ids(remote))
    unknown = present - set(local)
    if unknown:
        raise RemoteStoreError(f"the remote store has patch(es) {sorted(unknown)[:3]} unknown to {workspace.path}")
    sent_base = False
    if not has_base:
        others = remote.query(f"SELECT ?v WHERE {{ GRAPH <{GRAPH['history']}> {{ ?v evo:versionNumber 0 }} }} LIMIT 1",
                              default_union=False)
        if others:
            raise RemoteStoreError(
                f"the remote graphs already hold another workspace (base {others[0]['v']}), not {workspace.path}")
        base = workspace.ontology_at(0)
        for name in GRAPH_NAMES:
            if name != "history":
                remote.add(base.graph(name), name)  # Ontology's public reader (its store is any Store)
        remote.add([t for t in workspace.store.triples("history") if _is_base_history(t, workspace)], "history")
        sent_base = True
    pushed = 0
    for entry in workspace.log():
        if entry.id in present:
            continue
        if entry.decision == "accepted":
            patch = workspace.patch(entry.id)
            remote.apply(dict(patch.removals), dict(patch.additions))
        remote.add(workspace.patch_metadata(entry.id), "history")
        pushed += 1
    counts = remote.counts()
    wrong = [f"{n} {counts[n]:,} at the endpoint vs {workspace.store.count(n):,} here" for n in GRAPH_NAMES
             if counts[n] != workspace.store.count(n)]
    if wrong:
        raise RemoteStoreError(f"partial push to {remote.update_endpoint or remote.query_endpoint}: "
                               + "; ".join(wrong) + " (run push again; if it persists, the endpoint changes triples)")
    return PushResult(pushed, sent_base, counts)


def _is_base_history(triple: RdfTriple, workspace: Workspace) -> bool:
    return triple[0] == workspace.iris.version(0)


__all__ = ["RemoteSparqlStore", "RemoteStoreError", "PushResult", "push", "push_verified", "remote_patch_ids",
           "MAX_TRIPLES"]
