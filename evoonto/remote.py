"""The :class:`~evoonto.store.Store` protocol over a remote SPARQL 1.1 endpoint (SPARQLWrapper).

For ontologies that outgrow one process (DESIGN.md §3): Oxigraph server, Fuseki, GraphDB, Virtuoso
or Neptune behind the standard SPARQL 1.1 Protocol. Queries use the ``default-graph-uri``
protocol parameter to build the default graph (the union of the six graphs by default), updates go
to the update endpoint. :func:`push` sends a workspace there: the base as ``INSERT DATA`` unless the
remote already holds it, then every patch not yet present (accepted patches as ``DELETE DATA``/
``INSERT DATA``, and every patch's metadata into the ``history`` graph), then checks the triple
count of each of the six graphs against the workspace and raises on any difference.

Graph names: a store opened with ``base_iri`` (and every store :func:`push` was given) reads and
writes the workspace's published graphs ``<base>graph/content`` … (:func:`evoonto.namespaces.workspace_graph_iri`),
so two workspaces pushed to one endpoint stay separate. Queries keep using the workspace-local names
(``GRAPH evog:content``, ``<https://w3id.org/evoonto/graph/content>``, ``default_graphs=["content"]``):
the store rewrites them in the query text, and graph IRIs in SELECT answers are given back as
``evog:…``. Without ``base_iri`` the store uses the shared ``evog:`` names of workspace format 1 (what
``evoonto push`` wrote before; :func:`migrate_remote` / ``evoonto migrate --endpoint`` moves them).

Only evoonto's six graphs are ever counted or read (an endpoint's own system graphs, e.g.
Virtuoso's ``virtrdf:``, are not). Reading a whole graph pages with ``LIMIT``/``OFFSET`` over a sorted
subquery, ``page_size`` rows at a time, until a page comes back empty, so an endpoint's cap on result
rows (Virtuoso: ``ResultSetMaxRows``, 10,000 by default) never truncates it silently.

Writes are chunked adaptively: at most ``max_triples`` triples per request (1,000 by default;
Virtuoso compiles one request into one SQL unit and refuses about 1,400 triples and more), halved
and retried when the endpoint refuses a request, down to one triple. ``INSERT DATA``/``DELETE DATA``
are idempotent, so a push that failed half-way is completed by running it again.

Example::

    ws = Workspace.open(".evoonto")
    remote = RemoteSparqlStore("http://127.0.0.1:7878/query", "http://127.0.0.1:7878/update", base_iri=ws.base_iri)
    push(ws, remote)
    Ontology(remote).query("SELECT (COUNT(*) AS ?n) WHERE { ?t a evo:Term }")
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any, Iterable, Iterator, NamedTuple

import rdflib
from rdflib import BNode, Literal, URIRef
from rdflib.namespace import PROV
from rdflib.term import Node

from evoonto.errors import EvoontoError, first_line
from evoonto.export import TriplesByGraph, data_operation, data_update
from evoonto.namespaces import (EVOG, GRAPH_NAMES, PREFIXES, local_graph_iri, workspace_graph_iri,
                                workspace_graph_prefix)
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
PAGE_SIZE = 10_000
"""Default rows per page when reading a whole graph (:class:`RemoteSparqlStore` ``page_size``); at or
below Virtuoso's default ``ResultSetMaxRows``. A smaller cap still reads everything (more pages)."""
#: Where a string literal, an IRI or a comment may start (see :func:`_code_only`).
_TOKEN_START = re.compile("[\"'<#]")
_LOCAL_GRAPH_IRI = re.compile("<" + re.escape(str(EVOG)) + r"([^<>\s]*)>")


@functools.lru_cache(maxsize=1)
def _sparql_tokens() -> dict[str, Any]:
    """The SPARQL terminal that may start at a character: string literals at a quote, an IRI at
    ``<`` (so a ``#`` or quote inside it starts nothing), a comment at ``#``; rdflib's own grammar
    terminals (pyparsing elements)."""
    from pyparsing import Regex
    from rdflib.plugins.sparql import parser as grammar

    return {'"': grammar.String, "'": grammar.String, "<": grammar.IRIREF, "#": Regex(r"#[^\n\r]*")}


def _code_only(sparql: str) -> str:
    """``sparql`` with every string literal and comment blanked out (same length, so positions in it
    are positions in ``sparql``): the text in which graph IRIs and ``PREFIX`` declarations are read.
    ``\\u`` escapes must be expanded first (:func:`_expanded`). Read left to right, one attempt per
    quote, ``<`` or ``#`` outside the tokens found before (about 0.1 ms each)."""
    from pyparsing import ParseBaseException

    tokens, chars = _sparql_tokens(), list(sparql)
    found = _TOKEN_START.search(sparql)
    while found is not None:
        start = end = found.start()
        try:
            end = tokens[sparql[start]].try_parse(sparql, start)
        except ParseBaseException:
            pass  # no token here (a '<' comparing, a quote left open: the endpoint will say so)
        if end > start and sparql[start] != "<":
            chars[start:end] = " " * (end - start)
        found = _TOKEN_START.search(sparql, max(end, start + 1))
    return "".join(chars)


def _expanded(sparql: str) -> str:
    """``sparql`` with its ``\\uXXXX``/``\\UXXXXXXXX`` escapes replaced by their characters, which SPARQL
    does before parsing anyway (so the endpoint reads the same query); literals are then found as
    the grammar finds them.

    Raises:
        QueryError: an escape that is no code point.
    """
    if "\\u" not in sparql and "\\U" not in sparql:
        return sparql
    from rdflib.plugins.sparql.parser import expandUnicodeEscapes

    try:
        return expandUnicodeEscapes(sparql)
    except ValueError as exc:
        raise QueryError(f"SPARQL: {exc}") from None


def _with_prefixes(sparql: str, code: str) -> str:
    """``sparql`` with the standard :data:`PREFIXES` it does not declare itself declared first
    (declarations are read in ``code``, :func:`_code_only` of ``sparql``, not inside literals)."""
    declared = {m.group(1) for m in _DECLARED.finditer(code)}
    head = "".join(f"PREFIX {p}: <{iri}>\n" for p, iri in PREFIXES.items() if p not in declared)
    return head + sparql


def _query_form(sparql: str) -> str:
    rest = _PROLOGUE.sub("", sparql, count=1).lstrip()  # the anchored prologue (possibly empty) removed
    return (rest.split(None, 1)[0].upper() if rest else "")


def _term(binding: dict[str, str], base_iri: str | None = None) -> Node:
    kind, value = binding["type"], binding["value"]
    if kind == "uri":
        return local_graph_iri(value, base_iri) if base_iri is not None else URIRef(value)
    if kind == "bnode":
        return BNode(value)
    if "xml:lang" in binding:
        return Literal(value, lang=binding["xml:lang"])
    datatype = binding.get("datatype")
    if datatype and datatype != "http://www.w3.org/2001/XMLSchema#string":
        return Literal(value, datatype=URIRef(datatype))
    return Literal(value)


def check_endpoint_url(url: str) -> str:
    """``url`` when it is an ``http://`` or ``https://`` URL with a host (a SPARQL endpoint).

    Raises:
        RemoteStoreError: anything else (a path, a ``file://`` URL, which urllib would open as a local
            file, or text that is no URL), in one line.
    """
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url) if isinstance(url, str) else None
        host = parts.hostname if parts is not None else None
    except ValueError:
        parts, host = None, None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not host:
        shown = str(url)[:200]
        raise RemoteStoreError(f"not an http(s) SPARQL endpoint URL: {shown!r} (give e.g. http://127.0.0.1:7878/query)")
    return url


class RemoteSparqlStore:
    """A quad store behind a SPARQL 1.1 query (+ update) endpoint.

    Args:
        query_endpoint: e.g. ``http://127.0.0.1:7878/query``.
        update_endpoint: e.g. ``http://127.0.0.1:7878/update`` (None: read-only).
        timeout_s: HTTP timeout per request, in seconds.
        base_iri: the workspace whose graphs this store reads and writes (``<base_iri>graph/<name>``
            at the endpoint); None: the shared format-1 names ``evog:<name>`` until :func:`push`
            binds the store to the workspace it pushes.
        timeout_s: HTTP timeout per request, in seconds.
        max_triples: most triples sent in one ``INSERT DATA``/``DELETE DATA`` request (>= 1); lowered
            for the rest of this object's life whenever the endpoint refuses a request that size.
        page_size: rows asked per request when reading a whole graph (>= 1; :meth:`triples`).

    Raises:
        ValueError: ``max_triples`` or ``page_size`` < 1, or ``base_iri`` does not end with ``/`` or ``#``.
    """

    def __init__(self, query_endpoint: str, update_endpoint: str | None = None, *, base_iri: str | None = None,
                 timeout_s: int = 60, max_triples: int = MAX_TRIPLES, page_size: int = PAGE_SIZE):
        if max_triples < 1:
            raise ValueError(f"max_triples must be at least 1, not {max_triples}")
        if page_size < 1:
            raise ValueError(f"page_size must be at least 1, not {page_size}")
        for endpoint in (query_endpoint, update_endpoint):
            if endpoint is not None:
                check_endpoint_url(endpoint)
        self.query_endpoint = query_endpoint
        self.update_endpoint = update_endpoint
        self.timeout_s = timeout_s
        self.max_triples = max_triples
        self.page_size = page_size
        self.base_iri: str | None = None
        if base_iri is not None:
            self.bind(base_iri)

    def bind(self, base_iri: str) -> None:
        """Read and write the graphs of the workspace with ``base_iri`` from now on.

        Raises:
            ValueError: ``base_iri`` does not end with ``/`` or ``#``.
            RemoteStoreError: the store is already bound to another workspace's base IRI.
        """
        if not base_iri.endswith(("/", "#")):
            raise ValueError(f"base_iri must end with '/' or '#': {base_iri!r}")
        if self.base_iri is not None and self.base_iri != base_iri:
            raise RemoteStoreError(f"this store reads the graphs of {self.base_iri}, not of {base_iri}")
        self.base_iri = base_iri

    def graph_iri(self, name_or_iri: str) -> URIRef:
        """The IRI at the endpoint of a workspace graph given by name (``"content"``) or ``evog:`` IRI:
        ``<base_iri>graph/content`` when bound, ``evog:content`` when not; any other IRI unchanged.

        Raises:
            EvoontoError: an unknown graph name that is not an IRI.
        """
        iri = graph_iri(name_or_iri)
        if self.base_iri is not None and str(iri).startswith(str(EVOG)):
            return workspace_graph_iri(iri, self.base_iri)
        return iri

    def _published_text(self, sparql: str) -> str:
        """``sparql`` with the standard prefixes declared and ``evog:`` graph names moved to the
        endpoint's names (the ``evog:`` prefix and ``<https://w3id.org/evoonto/graph/…>`` IRIs).

        Only IRI tokens are moved: the same text inside a string literal or a comment is left as
        written (literals and comments are found with rdflib's SPARQL terminals, :func:`_code_only`).

        Raises:
            QueryError: a malformed ``\\u`` escape.
        """
        sparql = _expanded(sparql)
        code = _code_only(sparql)
        text = _with_prefixes(sparql, code)
        if self.base_iri is None:
            return text
        prefix = workspace_graph_prefix(self.base_iri)
        head = len(text) - len(sparql)  # the declarations added before the query hold no literal
        code = text[:head] + code
        out, last = [], 0
        for m in _LOCAL_GRAPH_IRI.finditer(code):
            out += [text[last:m.start()], f"<{prefix}{m.group(1)}>"]
            last = m.end()
        return "".join(out) + text[last:]

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

        text = self._published_text(sparql)
        form = _query_form(text)
        wrapper = self._wrapper(self.query_endpoint)
        graphs = list(default_graphs) if default_graphs is not None else (list(GRAPH_NAMES) if default_union else [])
        for g in graphs:
            wrapper.addDefaultGraph(str(self.graph_iri(g)))
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
        return [{k: _term(v, self.base_iri) for k, v in row.items()} for row in result["results"]["bindings"]]

    def _run(self, wrapper):
        from urllib.error import URLError

        SPARQLWrapperException = require("SPARQLWrapper.SPARQLExceptions").SPARQLWrapperException

        try:
            return wrapper.query()
        except SPARQLWrapperException as exc:
            raise QueryError(f"{wrapper.endpoint}: {first_line(exc)}") from exc
        except (URLError, OSError) as exc:
            reason = exc.reason if isinstance(exc, URLError) else exc
            raise RemoteStoreError(f"cannot reach SPARQL endpoint {wrapper.endpoint}: {reason}") from exc

    def update(self, sparql: str) -> None:
        """Run a SPARQL 1.1 Update on the update endpoint (``evog:`` graph names moved as in :meth:`query`).

        Raises:
            RemoteStoreError: no update endpoint configured, or unreachable. QueryError: rejected.
        """
        self.send_update(self._published_text(sparql))

    def send_update(self, text: str) -> None:
        """Send one SPARQL 1.1 Update request exactly as written (no prefixes added, no graph names
        moved): every write of this store goes through here, its data operations already naming
        the endpoint's graphs (:meth:`graph_iri`), so literals are sent untouched.

        Raises:
            RemoteStoreError: no update endpoint configured, or unreachable. QueryError: rejected.
        """
        if not self.update_endpoint:
            raise RemoteStoreError(f"{self.query_endpoint} was opened read-only (no update endpoint)")
        wrapper = self._wrapper(self.update_endpoint)
        wrapper.setQuery(text)
        self._run(wrapper)

    def triples(self, name: str) -> Iterator[RdfTriple]:
        """Iterate the triples of one named graph, ``page_size`` rows per request.

        Pages are ``LIMIT``/``OFFSET`` slices of a subquery sorted by subject, predicate, object
        (a stable order; the nested form is the one Virtuoso pages past its sorted-row limit), read
        until a page comes back empty, so a server that returns fewer rows than asked (its own cap)
        is read to the end too.

        Raises:
            QueryError: the endpoint refused a page. RemoteStoreError: unreachable.
        """
        iri = self.graph_iri(name)
        offset = 0
        while True:
            rows = self.query(f"SELECT ?s ?p ?o WHERE {{ {{ SELECT ?s ?p ?o WHERE {{ GRAPH <{iri}> {{ ?s ?p ?o }} }} "
                              f"ORDER BY ?s ?p ?o }} }} OFFSET {offset} LIMIT {self.page_size}", default_union=False)
            if not rows:
                return
            for row in rows:
                yield (row["s"], row["p"], row["o"])
            offset += len(rows)

    def graph(self, name: str) -> rdflib.Graph:
        """A copy of one named graph as an rdflib Graph (evoonto prefixes bound)."""
        return named_graph(name, self.triples(name))

    def count(self, name: str | None = None) -> int:
        """Number of triples in one named graph, or in evoonto's six graphs together when None.

        The endpoint's other graphs (system graphs, other data) are never counted.
        """
        if name is None:
            return sum(self.counts().values())
        rows = self.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{self.graph_iri(name)}> {{ ?s ?p ?o }} }}",
                          default_union=False)
        return int(rows[0]["n"]) if rows else 0

    def counts(self) -> dict[str, int]:
        """``{graph name: number of triples}`` for the six graphs of :data:`GRAPH_NAMES` (one query)."""
        values = " ".join(f"<{self.graph_iri(n)}>" for n in GRAPH_NAMES)
        rows = self.query(f"SELECT ?g (COUNT(*) AS ?n) WHERE {{ VALUES ?g {{ {values} }} GRAPH ?g {{ ?s ?p ?o }} }} "
                          "GROUP BY ?g", default_union=False)
        found = {str(r["g"]): int(r["n"]) for r in rows}  # answers name the graphs evog:… (see query)
        return {n: found.get(str(graph_iri(n)), 0) for n in GRAPH_NAMES}

    def graph_names(self) -> list[URIRef]:
        """IRIs of the named graphs holding quads (this workspace's as ``evog:…`` when bound)."""
        rows = self.query("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }", default_union=False)
        return sorted(row["g"] for row in rows)

    def contains(self, triple: RdfTriple, name: str) -> bool:
        """True when ``triple`` is in graph ``name``."""
        s, p, o = (to_ox(t) for t in triple)
        return bool(self.query(f"ASK {{ GRAPH <{self.graph_iri(name)}> {{ {s} {p} {o} }} }}", default_union=False))

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
                self.send_update(data_operation(op, {str(self.graph_iri(name)): chunk}))
            except QueryError:
                if len(chunk) == 1:
                    raise
                self.max_triples = max(1, len(chunk) // 2)
                continue
            i += len(chunk)

    def replace_graph(self, name: str, graph: rdflib.Graph) -> None:
        """``DROP SILENT GRAPH`` then insert the triples of ``graph``."""
        self.send_update(f"DROP SILENT GRAPH <{self.graph_iri(name)}>")
        self.add(graph, name)

    def apply(self, removals: TriplesByGraph, additions: TriplesByGraph) -> None:
        """Remove then add: one update request (atomic on stores that run a request as one transaction)
        when it holds at most ``max_triples`` triples and the endpoint takes it, else chunked per graph
        (removals first); a half-applied change is completed by applying it again."""
        removed = {str(self.graph_iri(g)): list(t) for g, t in removals.items()}
        added = {str(self.graph_iri(g)): list(t) for g, t in additions.items()}
        size = sum(map(len, removed.values())) + sum(map(len, added.values()))
        if size == 0:
            return
        if size <= self.max_triples:
            try:
                self.send_update(data_update(removed, added))
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
        "SELECT ?id ?t WHERE { GRAPH evog:history {"
        " ?p a evo:Patch ; dcterms:identifier ?id . "
        "OPTIONAL { ?p prov:generatedAtTime ?t } } } ORDER BY ?t ?id", default_union=False)
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
        RemoteStoreError: diverged history, another workspace with the same base IRI, graphs still
            under the format-1 names, or a partial push.
    """
    return push_verified(workspace, remote).patches


def push_verified(workspace: Workspace, remote: RemoteSparqlStore) -> PushResult:
    """Send ``workspace`` to ``remote``: the base unless present, then missing patches in order; then verify.

    ``remote`` is bound to the workspace (:meth:`RemoteSparqlStore.bind`): everything goes to the
    graphs ``<base>graph/<name>`` of its base IRI, so workspaces with different base IRIs pushed to
    one endpoint stay separate, and ``remote`` reads this workspace afterwards. The base's history
    triples (``<B version/0>``) are written after the base's graphs, and each patch's metadata after
    its change, so a push that stops half-way leaves no marker of what it did not finish, and running
    it again completes it (``INSERT DATA``/``DELETE DATA`` are idempotent). Afterwards every one of
    the six graphs must hold at the endpoint as many triples as in the workspace.

    Raises:
        RemoteStoreError: ``remote`` is bound to another base IRI; the endpoint still holds this
            workspace under the shared format-1 graph names (run :func:`migrate_remote`, ``evoonto
            migrate --endpoint``); the remote holds patches the workspace does not know (diverged
            history) or another workspace's base with the same base IRI; or, after pushing, a graph
            whose triple count differs from the workspace's (partial push: the message names each
            graph and both counts).
        QueryError: the endpoint refused an update even one triple at a time.
    """
    remote.bind(workspace.base_iri)
    local = [e.id for e in workspace.log()]
    base_marker = workspace.iris.version(0)
    if not _holds_base(remote, base_marker) and _holds_base(_legacy(remote), base_marker):
        raise RemoteStoreError(
            f"{remote.query_endpoint} holds {workspace.path} under the shared graph names {EVOG}…; "
            "move them first: evoonto migrate --endpoint URL")
    has_base = _holds_base(remote, base_marker)
    other = _other_workspace(workspace, remote) if has_base else None
    if other is not None:
        raise RemoteStoreError(f"the remote graphs already hold another workspace with base IRI {workspace.base_iri} "
                               f"({other}), not {workspace.path}")
    present = set(remote_patch_ids(remote))
    unknown = present - set(local)
    if unknown:
        raise RemoteStoreError(f"the remote store has patch(es) {sorted(unknown)[:3]} unknown to {workspace.path}")
    sent_base = False
    if not has_base:
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


def _other_workspace(workspace: Workspace, remote: RemoteSparqlStore) -> str | None:
    """How the base that ``remote`` holds under ``workspace``'s base IRI differs from
    ``workspace``'s own, or ``None`` when it is this workspace's.

    Compared by the workspace identities minted at ``init`` (:attr:`Workspace.identity`); where
    either side predates identities, by the base's build time (``prov:generatedAtTime``, seconds),
    which cannot tell apart two workspaces made in the same second.
    """
    marker = workspace.iris.version(0)
    rows = remote.query(f"SELECT ?id ?t WHERE {{ GRAPH evog:history {{ "
                        f"OPTIONAL {{ <{marker}> dcterms:identifier ?id }} "
                        f"OPTIONAL {{ <{marker}> prov:generatedAtTime ?t }} }} }}", default_union=False)
    remote_ids = {str(r["id"]) for r in rows if r.get("id") is not None}
    local_id = workspace.identity
    if remote_ids and local_id is not None:
        return None if local_id in remote_ids else f"workspace id {sorted(remote_ids)[0]}, this one is {local_id}"
    remote_time = {r["t"].toPython() for r in rows if isinstance(r.get("t"), Literal)}
    local_time = {o.toPython() for s, p, o in workspace.store.triples("history")
                  if p == PROV.generatedAtTime and s == marker}
    if local_time and not (local_time & remote_time):
        return f"its base was built at {sorted(map(str, remote_time))[0]}"
    return None


def _legacy(remote: RemoteSparqlStore) -> RemoteSparqlStore:
    """An unbound store on the same endpoints: it reads the shared format-1 graphs ``evog:<name>``."""
    return RemoteSparqlStore(remote.query_endpoint, remote.update_endpoint, timeout_s=remote.timeout_s,
                             max_triples=remote.max_triples, page_size=remote.page_size)


def _holds_base(remote: RemoteSparqlStore, base_marker: URIRef) -> bool:
    return remote.query(f"ASK {{ GRAPH evog:history {{ <{base_marker}> ?p ?o }} }}", default_union=False) is True


def migrate_remote(workspace: Workspace, remote: RemoteSparqlStore) -> dict[str, int]:
    """Move ``workspace``'s graphs at the endpoint from the shared format-1 names (``evog:content`` …,
    written by ``evoonto push`` before graph names moved under the base IRI) to its own
    ``<base>graph/<name>``, with one SPARQL 1.1 ``MOVE SILENT GRAPH`` per graph (done by the server,
    so blank nodes stay as they are); ``remote`` is bound to the workspace.

    Legacy graphs that hold another workspace (no ``<B version/0>`` of this one in the legacy
    history graph) are left alone. Running it again after it succeeded moves nothing.

    Returns:
        ``{graph name: triples now in <base>graph/<name>}`` for the graphs moved; ``{}`` when there was
        nothing to move.

    Raises:
        RemoteStoreError: the workspace's own graphs at the endpoint already hold triples (both
            namings present: nothing is moved), ``remote`` is bound to another base IRI, or, after
            moving, a graph whose count differs from before.
        QueryError: the endpoint refused ``MOVE``.
    """
    remote.bind(workspace.base_iri)
    legacy = _legacy(remote)
    if not _holds_base(legacy, workspace.iris.version(0)):
        return {}
    before = legacy.counts()
    if any(remote.counts().values()):
        raise RemoteStoreError(f"{remote.query_endpoint} holds {workspace.path} under both graph namings "
                               f"({EVOG}… and {workspace.base_iri}graph/…); nothing was moved")
    for name in GRAPH_NAMES:
        if before[name]:
            remote.send_update(f"MOVE SILENT GRAPH <{legacy.graph_iri(name)}> TO <{remote.graph_iri(name)}>")
    after = remote.counts()
    wrong = [f"{n}: {before[n]:,} before, {after[n]:,} after" for n in GRAPH_NAMES if before[n] != after[n]]
    if wrong:
        raise RemoteStoreError(f"moving the graphs at {remote.query_endpoint} lost triples: " + "; ".join(wrong))
    return {n: after[n] for n in GRAPH_NAMES if before[n]}


def _is_base_history(triple: RdfTriple, workspace: Workspace) -> bool:
    return triple[0] == workspace.iris.version(0)


__all__ = ["RemoteSparqlStore", "RemoteStoreError", "check_endpoint_url", "PushResult", "push", "push_verified",
           "remote_patch_ids", "migrate_remote", "MAX_TRIPLES", "PAGE_SIZE"]
