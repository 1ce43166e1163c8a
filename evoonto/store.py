"""Quad stores: the :class:`Store` protocol and the embedded :class:`OxigraphStore`.

A store holds quads in named graphs (the six graphs of :data:`evoonto.namespaces.GRAPH`, addressed
by name or IRI) and answers SPARQL 1.1 on the Oxigraph engine (DESIGN.md §3, §9: ~100× faster
than rdflib's engine at 100k triples). rdflib stays the public term type: everything going in and
out is an ``rdflib`` term, ``Graph`` or list of result rows.

The same protocol is implemented over a remote SPARQL 1.1 endpoint by
:class:`evoonto.remote.RemoteSparqlStore`.
"""

from __future__ import annotations

import functools
import re

from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Protocol, cast, runtime_checkable

import pyoxigraph as ox
import rdflib
from rdflib import BNode, Literal, URIRef
from rdflib.term import Node
from rdflib.namespace import RDF, XSD

from evoonto.errors import EvoontoError, RDFParseError, first_line
from evoonto.namespaces import GRAPH, GRAPH_NAMES, PREFIXES, bind_prefixes, local_graph_iri, workspace_graph_iri

Triple = tuple  # (subject, predicate, object) of rdflib terms
Row = dict  # {variable name: rdflib term}

_XSD_STRING = str(XSD.string)
#: Prefixes used when writing files (graph IRIs stay full IRIs: evog: names would need escaped slashes).
FILE_PREFIXES = {k: v for k, v in PREFIXES.items() if k != "evog"}
_LANG_STRING = str(RDF.langString)


class QueryError(EvoontoError):
    """A SPARQL query or update is malformed or failed on the engine (message names the cause)."""


def refuse_update(sparql: str, *, where: str = "this query interface") -> None:
    """Raise :class:`QueryError` when ``sparql`` parses as a SPARQL 1.1 Update (parsed, never run).

    The read-only check shared by every query-only entry point (``evoonto sparql``, the ``%sparql``
    notebook magic): call it after a query failed, so an INSERT/DELETE/LOAD/CLEAR gets this message
    instead of the engine's parser error. Text that is not an update returns ``None`` (the caller's
    own error then stands).

    Args:
        sparql: the text the user gave (without injected prefixes).
        where: the entry point named in the message, e.g. ``"`evoonto sparql`"``.
    Raises:
        QueryError: "SPARQL updates are refused: <where> is read-only (…)".
    """
    from rdflib.plugins.sparql.parser import parseUpdate

    try:
        parseUpdate(sparql)
    except Exception:  # noqa: BLE001 - any parse failure means "not an update": the query error stands
        return
    raise QueryError(f"SPARQL updates are refused: {where} is read-only "
                     "(change the ontology with patches: evoonto evolve, or evoonto rollback)")


# --- term conversion -----------------------------------------------------------------------------

@functools.lru_cache(maxsize=200_000)
def ox_named_node(text: str) -> ox.NamedNode:
    """The pyoxigraph IRI ``text`` (cached; raises ValueError for an invalid IRI). Call it with the
    plain str: a URIRef hashes as (class name, text) in Python, so it would never find the str key
    (every IRI converted anew)."""
    return ox.NamedNode(text)


def to_ox(term) -> ox.NamedNode | ox.BlankNode | ox.Literal:
    """Convert an rdflib term to the pyoxigraph term."""
    if isinstance(term, URIRef):
        return ox_named_node(str(term))
    if isinstance(term, Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype is not None:
            return ox.Literal(str(term), datatype=ox_named_node(str(term.datatype)))
        return ox.Literal(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    raise TypeError(f"not an RDF term: {term!r}")


def _ox_subject(term) -> ox.NamedNode | ox.BlankNode:
    node = to_ox(term)
    if isinstance(node, ox.Literal):
        raise TypeError(f"a literal cannot be the subject of a triple: {term!r}")
    return node


def _ox_predicate(term) -> ox.NamedNode:
    node = to_ox(term)
    if not isinstance(node, ox.NamedNode):
        raise TypeError(f"the predicate of a triple must be an IRI: {term!r}")
    return node


def to_ox_quad(triple: Triple, graph: ox.NamedNode) -> ox.Quad:
    """The rdflib triple ``(s, p, o)`` in named graph ``graph`` as a pyoxigraph ``Quad`` (see :func:`to_ox`).

    Raises:
        TypeError: a term is not an RDF term, the subject is a literal or the predicate is not an IRI.
    """
    s, p, o = triple
    return ox.Quad(_ox_subject(s), _ox_predicate(p), to_ox(o), graph)


#: rdflib terms made once per distinct text (rdflib parses a typed literal's value when it is made)
_rdflib_iri = functools.lru_cache(maxsize=200_000)(URIRef)


@functools.lru_cache(maxsize=200_000)
def _typed_literal(value: str, datatype: str) -> Literal:
    return Literal(value, datatype=URIRef(datatype))


def from_ox(term) -> rdflib.term.Node | None:
    """Convert a pyoxigraph term to the rdflib term (``xsd:string`` literals become plain literals).

    Returns None for ``ox.DefaultGraph`` (the default graph has no name); raises TypeError for
    any other non-term (e.g. an RDF-star triple).
    """
    if isinstance(term, ox.NamedNode):
        return _rdflib_iri(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return Literal(term.value, lang=term.language)
        datatype = term.datatype.value
        if datatype == _XSD_STRING:
            return Literal(term.value)
        # typed literals (integers, booleans, dates, doubles) repeat a lot: made once per distinct
        # literal (Literals are immutable)
        return _typed_literal(term.value, datatype)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.DefaultGraph):
        return None
    raise TypeError(f"unsupported pyoxigraph term: {term!r}")


def graph_iri(name_or_iri) -> URIRef:
    """A named graph given by name (``"content"``) or IRI, as an IRI."""
    text = str(name_or_iri)
    if text in GRAPH_NAMES:
        return GRAPH[text]
    if ":" not in text:
        raise EvoontoError(f"unknown graph {text!r}; expected one of {', '.join(GRAPH_NAMES)} or an IRI")
    return URIRef(text)


def named_graph(name_or_iri, triples: Iterable[Triple]) -> rdflib.Graph:
    """An rdflib ``Graph`` identified by :func:`graph_iri` of ``name_or_iri``, holding ``triples``.

    The evoonto prefixes are bound on it (:func:`evoonto.namespaces.bind_prefixes`). Raises
    EvoontoError for an unknown graph name that is not an IRI (as :func:`graph_iri`).
    """
    out = bind_prefixes(rdflib.Graph(identifier=graph_iri(name_or_iri)))
    for triple in triples:
        out.add(triple)
    return out


def _ox_graph(name_or_iri) -> ox.NamedNode:
    return ox.NamedNode(str(graph_iri(name_or_iri)))


# --- protocol ------------------------------------------------------------------------------------

@runtime_checkable
class Store(Protocol):
    """What :class:`~evoonto.ontology.Ontology` needs from a quad store (embedded or remote)."""

    def query(self, sparql: str, *, default_union: bool = True, default_graphs: Iterable | None = None):
        """Run a SPARQL query. SELECT -> ``list[dict[str, Node]]``; ASK -> bool; CONSTRUCT -> Graph."""

    def update(self, sparql: str) -> None:
        """Run a SPARQL 1.1 Update."""

    def graph(self, name) -> rdflib.Graph:
        """A copy of one named graph as an rdflib ``Graph``."""

    def triples(self, name) -> Iterator[Triple]:
        """Iterate the triples ``(s, p, o)`` (rdflib terms) of one named graph."""

    def replace_graph(self, name, graph: rdflib.Graph) -> None:
        """Replace the content of one named graph."""

    def apply(self, removals: dict, additions: dict) -> None:
        """Remove then add triples, ``{graph name or IRI: iterable of triples}``, atomically."""

    def count(self, name=None) -> int:
        """Number of quads in one graph (or all graphs when None)."""

    def contains(self, triple: Triple, name) -> bool:
        """True when ``triple`` is in graph ``name``."""

    def graph_names(self) -> list[URIRef]:
        """IRIs of the named graphs that hold quads."""


# --- embedded Oxigraph ---------------------------------------------------------------------------

class OxigraphStore:
    """An in-memory pyoxigraph store behind the :class:`Store` protocol.

    Args:
        store: an existing ``pyoxigraph.Store`` (default: a new in-memory store).
    """

    def __init__(self, store: ox.Store | None = None):
        self.ox = store if store is not None else ox.Store()
        self._revision = 0
        self._graph_revisions: dict[str, int] = {}

    @property
    def revision(self) -> int:
        """A counter bumped by every write through this object (cache key for derived data)."""
        return self._revision

    def graph_revision(self, name) -> tuple[int, int]:
        """A cache key that changes whenever graph ``name`` may have changed through this object."""
        return (self._graph_revisions.get(str(graph_iri(name)), 0), self._global_writes)

    _global_writes = 0  # bumped by writes that may touch any graph (SPARQL Update, file loads)

    def _touch(self, *names) -> None:
        self._revision += 1
        if not names:
            self._global_writes += 1
        for name in names:
            key = str(graph_iri(name))
            self._graph_revisions[key] = self._graph_revisions.get(key, 0) + 1

    def __repr__(self) -> str:
        return f"OxigraphStore({len(self.ox)} quads)"

    # reading --------------------------------------------------------------------------------
    def query(self, sparql: str, *, default_union: bool = True, default_graphs: Iterable | None = None):
        """Run a SPARQL 1.1 query on Oxigraph.

        Args:
            sparql: the query text (standard prefixes of :data:`~evoonto.namespaces.PREFIXES` are
                predeclared, so ``evo:``, ``skos:`` … work without PREFIX lines).
            default_union: the default graph is the union of all named graphs (default True).
            default_graphs: graph names/IRIs to use as the default graph instead (overrides
                ``default_union``).

        Returns:
            SELECT: ``list[dict[str, rdflib Node]]`` (unbound variables omitted); ASK: ``bool``;
            CONSTRUCT/DESCRIBE: ``rdflib.Graph``.

        Raises:
            QueryError: the query is malformed or fails.
        """
        default_graph: list[ox.NamedNode | ox.BlankNode | ox.DefaultGraph] | None = None
        if default_graphs is not None:
            default_graph = [_ox_graph(g) for g in default_graphs]
        try:
            result = self.ox.query(sparql, prefixes=PREFIXES, default_graph=default_graph,
                                   use_default_graph_as_union=default_graph is None and default_union)
            return _convert_result(result)
        except (SyntaxError, OSError, ValueError, TypeError) as exc:
            raise QueryError(f"SPARQL query failed: {sparql_error(exc, sparql)}") from exc

    def select_values(self, sparql: str) -> "SelectRows":
        """Run a SPARQL 1.1 SELECT over the union of the named graphs (standard prefixes predeclared)
        and return its rows as plain strings: each bound value's lexical form (an IRI's text, a
        literal's lexical value), without making an rdflib term per value (:meth:`query` does).

        Returns:
            :class:`SelectRows` (``list[dict[str, str]]``, unbound variables left out).
        Raises:
            QueryError: the query is malformed, fails or is not a SELECT.
        """
        try:
            result = self.ox.query(sparql, prefixes=PREFIXES, use_default_graph_as_union=True)
        except (SyntaxError, OSError, ValueError, TypeError) as exc:
            raise QueryError(f"SPARQL query failed: {sparql_error(exc, sparql)}") from exc
        if not isinstance(result, ox.QuerySolutions):
            raise QueryError("select_values needs a SELECT query")
        return solution_rows(result, lambda term: term.value)

    def update(self, sparql: str) -> None:
        """Run a SPARQL 1.1 Update (standard prefixes predeclared). Raises QueryError."""
        self._touch()
        try:
            self.ox.update(sparql, prefixes=PREFIXES)
        except (SyntaxError, OSError, ValueError) as exc:
            raise QueryError(f"SPARQL update failed: {first_line(exc)}") from exc

    def triples(self, name) -> Iterator[Triple]:
        """Iterate the triples of one named graph (rdflib terms)."""
        for quad in self.ox.quads_for_pattern(None, None, None, _ox_graph(name)):
            yield (from_ox(quad.subject), from_ox(quad.predicate), from_ox(quad.object))

    def subjects(self, predicate, obj, name) -> Iterator[rdflib.term.Node]:
        """Subjects of the triples ``(?, predicate, obj)`` of graph ``name`` (``obj`` None: any
        object), as rdflib terms; a subject is given once per matching triple."""
        o = None if obj is None else to_ox(obj)
        for quad in self.ox.quads_for_pattern(None, _ox_predicate(predicate), o, _ox_graph(name)):
            node = from_ox(quad.subject)
            if node is not None:
                yield node

    def graph(self, name) -> rdflib.Graph:
        """A copy of named graph ``name`` (name or IRI) as an rdflib ``Graph`` with evoonto prefixes."""
        return named_graph(name, self.triples(name))

    def count(self, name=None) -> int:
        """Number of quads in graph ``name`` (all graphs when None)."""
        if name is None:
            return len(self.ox)
        rows = self.ox.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph_iri(name)}> {{ ?s ?p ?o }} }}")
        if not isinstance(rows, ox.QuerySolutions):
            raise QueryError(f"COUNT query returned {type(rows).__name__}, not solutions")
        count = next(iter(rows))["n"]
        if count is None:
            raise QueryError("COUNT query returned no count")
        return int(count.value)

    def graph_names(self) -> list[URIRef]:
        """IRIs of the named graphs holding quads, sorted."""
        return sorted(URIRef(g.value) for g in self.ox.named_graphs() if isinstance(g, ox.NamedNode))

    def contains(self, triple: Triple, name) -> bool:
        """True when ``triple`` is in graph ``name`` (False for a triple no graph can hold, e.g. a literal subject)."""
        s, p, o = (to_ox(t) for t in triple)
        if isinstance(s, ox.Literal) or not isinstance(p, ox.NamedNode):
            return False
        return next(iter(self.ox.quads_for_pattern(s, p, o, _ox_graph(name))), None) is not None

    # writing --------------------------------------------------------------------------------
    def add(self, triples: Iterable[Triple], name) -> None:
        """Add ``triples`` to graph ``name`` in one transaction (converted as the store reads them; a
        triple that cannot be converted raises and leaves the store unchanged)."""
        g = _ox_graph(name)
        self._touch(name)
        self.ox.extend(to_ox_quad(t, g) for t in triples)

    def add_ox(self, triples: Iterable[tuple], name) -> None:
        """Add pyoxigraph triples ``(subject, predicate, object)`` (e.g. from
        :meth:`evoonto.records.Term.to_ox_triples`) to graph ``name`` in one transaction, read as
        they come (an iterator is not made into a list of Python quads first)."""
        g = _ox_graph(name)
        self._touch(name)
        self.ox.extend(ox.Quad(s, p, o, g) for s, p, o in triples)

    def remove(self, triples: Iterable[Triple], name) -> None:
        """Remove ``triples`` from graph ``name`` (missing ones are ignored)."""
        g = _ox_graph(name)
        self._touch(name)
        for triple in triples:
            self.ox.remove(to_ox_quad(triple, g))

    def replace_graph(self, name, graph: Iterable[Triple]) -> None:
        """Replace the content of graph ``name`` by the triples of ``graph``."""
        g = _ox_graph(name)
        self._touch(name)
        self.ox.remove_graph(g) if self.ox.contains_named_graph(g) else None
        self.add(graph, name)

    def apply(self, removals: dict, additions: dict) -> None:
        """Remove then add triples per graph: ``{name or IRI: iterable of triples}``.

        All quads are converted before the store is touched, so a conversion error (e.g. a
        non-RDF value) leaves the store unchanged.
        """
        rem = [to_ox_quad(t, _ox_graph(n)) for n, ts in removals.items() for t in ts]
        add = [to_ox_quad(t, _ox_graph(n)) for n, ts in additions.items() for t in ts]
        self._touch(*removals, *additions)
        for quad in rem:
            self.ox.remove(quad)
        self.ox.extend(add)

    def load_quads(self, quads: Iterable) -> None:
        """Add pyoxigraph quads (e.g. from :func:`parse_rdf_file` or :func:`iter_rdf_file`) in one
        transaction: read as they come (an iterator is never made into a list first); an iterator
        that raises part way leaves the store unchanged, and the error propagates."""
        self._touch()
        self.ox.extend(quads)

    def copy(self) -> "OxigraphStore":
        """An independent in-memory copy of this store."""
        other = ox.Store()
        other.bulk_extend(self.ox.quads_for_pattern(None, None, None, None))
        return OxigraphStore(other)

    def dump(self, fmt: ox.RdfFormat, *, graph=None) -> bytes:
        """Serialize the whole dataset (``fmt`` TriG/N-Quads) or one graph (Turtle/N-Triples)."""
        prefixes = FILE_PREFIXES if fmt in (ox.RdfFormat.TURTLE, ox.RdfFormat.TRIG) else None
        from_graph = _ox_graph(graph) if graph is not None else None
        return _serialized(self.ox.dump(format=fmt, from_graph=from_graph, prefixes=prefixes))


def rename_graphs(quads: Iterable[ox.Quad], rename: Callable[[str], str]) -> list[ox.Quad]:
    """``quads`` with every named graph ``g`` replaced by ``rename(g)`` (default-graph quads unchanged)."""
    return list(iter_renamed_graphs(quads, rename))


def iter_renamed_graphs(quads: Iterable[ox.Quad], rename: Callable[[str], str]) -> Iterator[ox.Quad]:
    """:func:`rename_graphs`, lazily: each quad is renamed as it is read (for a store to load a big
    file without a list of all its quads)."""
    cache: dict[str, ox.NamedNode] = {}
    for q in quads:
        g = q.graph_name
        if isinstance(g, ox.NamedNode):
            node = cache.get(g.value)
            if node is None:
                node = cache[g.value] = ox.NamedNode(str(rename(g.value)))
            q = ox.Quad(q.subject, q.predicate, q.object, node)
        yield q


def publish_quads(quads: Iterable[ox.Quad], base_iri: str) -> list[ox.Quad]:
    """``quads`` with their workspace-local graph names (``evog:…``) moved under ``base_iri``
    (:func:`evoonto.namespaces.workspace_graph_iri`), sorted by graph, subject, predicate, object.

    Raises:
        ValueError: a quad is in a graph that is not a workspace graph.
    """
    renamed = rename_graphs(quads, lambda g: workspace_graph_iri(g, base_iri))
    renamed.sort(key=lambda q: (str(q.graph_name), str(q.subject), str(q.predicate), str(q.object)))
    return renamed


def localize_quads(quads: Iterable[ox.Quad], base_iri: str) -> list[ox.Quad]:
    """``quads`` read from a file or an endpoint with graph names ``<base_iri>graph/…`` renamed to
    their workspace-local ``evog:…`` names; ``evog:`` names (format-1 files) are kept as they are."""
    return list(iter_localized_quads(quads, base_iri))


def iter_localized_quads(quads: Iterable[ox.Quad], base_iri: str) -> Iterator[ox.Quad]:
    """:func:`localize_quads`, lazily (see :func:`iter_renamed_graphs`)."""
    return iter_renamed_graphs(quads, lambda g: local_graph_iri(g, base_iri))


#: what, anywhere in a TriG text, could start a token that spans lines (a long string) or is not an
#: IRI although it starts with ``<`` (an RDF 1.2 triple term): their presence turns the shortcut of
#: :func:`load_localized_trig` off
_SPANNING_TOKENS = (b'"""', b"'''", b"<<")
#: a line that ends a statement where pyoxigraph's TriG serializer writes one before a graph label:
#: the ``}`` closing a graph block, or a whole ``@prefix p: <IRI> .`` directive
_STATEMENT_END_LINE = re.compile(rb"(?:\}|@prefix [^\s<>]*: <[^\x00-\x20<>\"{}|^`\\]*> \.)\r?\n")
#: the name of a workspace graph after ``<base>graph/`` as evoonto writes it (``content``, ``tools``)
_GRAPH_NAME = rb"[A-Za-z0-9_-]+(?:/[A-Za-z0-9_-]+)*"


def load_localized_trig(data: bytes, base_iri: str) -> OxigraphStore | None:
    """The store of the TriG ``data`` with its workspace graph names localized (``<base>graph/X`` ->
    ``evog:X``), the same as loading :func:`iter_localized_quads` of it, but parsed and loaded by
    pyoxigraph alone: at 3.7 million quads (70,000 columns) renaming each quad in Python cost about 10 of
    the 21 CPU s of opening a workspace.

    The graph names are localized in the text before it is parsed, which is the same as renaming
    the parsed quads only when every occurrence of ``<base>graph/`` in the text is a graph label.
    That is taken as shown only for the layout pyoxigraph's TriG serializer writes (every workspace
    file evoonto writes): each occurrence starts a line that reads exactly ``<base>graph/X> {``
    (``X`` letters, digits, ``_``, ``-`` and ``/``), and the line before it is the file's start, a
    ``}`` or a whole ``@prefix p: <IRI> .`` directive. No token spans lines there (no long string,
    checked; a short string, a comment and an IRI end at the line's end), so the line before ends a
    statement and the ``<`` that starts the line (not ``<<``, checked) starts the IRI of the next
    one, which ``{`` can follow only as a graph label (a ``PREFIX`` or ``BASE`` whose IRI is on the
    next line is refused by the rule on the line before). Any other text (a hand-edited file, a
    literal quoting a graph IRI, a prefixed or relative graph name) returns None, as does a base IRI
    that is not a valid IRI prefix, text that does not parse or a graph name still under
    ``<base>graph/`` afterwards: the caller then loads it quad by quad, which also reports a
    malformed file with its line.

    Args:
        data: the bytes of a TriG file.
        base_iri: the workspace's base IRI (:func:`evoonto.namespaces.workspace_graph_prefix`).
    Returns:
        A new :class:`OxigraphStore`, or None when the shortcut does not apply.
    """
    from evoonto.namespaces import EVOG, workspace_graph_prefix

    published = workspace_graph_prefix(base_iri)
    try:
        marker = b"<" + published.encode()
    except UnicodeEncodeError:  # a lone surrogate read from config.json
        return None
    if marker not in data or any(token in data for token in _SPANNING_TOKENS):
        return None
    try:  # the prefix with a name after it is an IRI (so is the local one: the rewrite keeps validity)
        ox.NamedNode(published + "x")
    except ValueError:
        return None
    if not all(_is_graph_label_line(data, at, marker) for at in _occurrences(data, marker)):
        return None
    engine = ox.Store()
    try:
        engine.load(data.replace(marker, b"<" + str(EVOG).encode()), format=ox.RdfFormat.TRIG)
    except (SyntaxError, OSError, ValueError, MemoryError):  # MemoryError: a token over the parser's 16 MiB
        return None
    if any(isinstance(g, ox.NamedNode) and g.value.startswith(published) for g in engine.named_graphs()):
        return None
    return OxigraphStore(engine)


def _occurrences(data: bytes, text: bytes) -> Iterator[int]:
    """The offsets at which ``text`` occurs in ``data``, overlapping ones too."""
    at = data.find(text)
    while at >= 0:
        yield at
        at = data.find(text, at + 1)


#: the longest graph label line taken as one (pyoxigraph refuses a token over 16 MiB: a rewrite that
#: shortens or lengthens a label near that size would change whether the file loads)
_LABEL_LINE_MAX = 4096


def _is_graph_label_line(data: bytes, at: int, marker: bytes) -> bool:
    """Whether ``marker`` at offset ``at`` of ``data`` starts a line ``<marker>NAME> {`` (NAME as
    :data:`_GRAPH_NAME`) that is the first line or follows a line of :data:`_STATEMENT_END_LINE`."""
    end = data.find(b"\n", at, at + _LABEL_LINE_MAX + 1)
    line = data[at:end if end >= 0 else at + _LABEL_LINE_MAX + 1]
    if len(line) > _LABEL_LINE_MAX or re.fullmatch(re.escape(marker) + _GRAPH_NAME + rb"> \{\r?", line) is None:
        return False
    if at == 0:
        return True
    if data[at - 1:at] != b"\n":
        return False
    start = data.rfind(b"\n", 0, at - 1) + 1
    return _STATEMENT_END_LINE.fullmatch(data, start, at) is not None


def serialize_ox(quads: Iterable[ox.Quad], fmt: ox.RdfFormat = ox.RdfFormat.TRIG) -> bytes:
    """pyoxigraph quads serialized in ``fmt`` (TriG by default) with :data:`FILE_PREFIXES`; the quads
    are read as they are written (an iterator is not made into a list first)."""
    return _serialized(ox.serialize(quads, format=fmt, prefixes=FILE_PREFIXES))


def _serialized(data: bytes | None) -> bytes:
    """The bytes pyoxigraph returns when serializing without an output (it returns None only with one)."""
    if data is None:
        raise EvoontoError("pyoxigraph returned no serialization")
    return data


class SelectRows(list):
    """The rows of a SELECT result (a ``list`` of ``{variable: value}`` dicts) and ``variables``, the
    projected variable names in query order (known even when there is no row)."""

    variables: tuple[str, ...] = ()


def solution_rows(solutions: ox.QuerySolutions, convert: Callable[[Any], Any] = from_ox) -> SelectRows:
    """The rows of a pyoxigraph SELECT result, one ``{variable name: convert(term)}`` dict per solution.

    Args:
        solutions: the ``ox.QuerySolutions`` of a SPARQL 1.1 SELECT (consumed).
        convert: maps each bound pyoxigraph term to the row value; default :func:`from_ox` (rdflib
            nodes); ``lambda term: term.value`` gives plain strings.

    Returns:
        :class:`SelectRows` (``list[dict[str, value]]``) in solution order; unbound variables are left
        out of their row; ``.variables`` names the projected variables.
    """
    names = [v.value for v in solutions.variables]
    rows = SelectRows()
    rows.variables = tuple(names)
    for solution in solutions:
        # a solution iterates its values in the order of ``solutions.variables`` (None when unbound):
        # read so, not by name (a name lookup per value cost 5 CPU s of the 706,000 rows a
        # 70,000-column index reads)
        rows.append({name: convert(value) for name, value in zip(names, solution, strict=True) if value is not None})
    return rows


_SYNTAX_AT = re.compile(r"^error at (\d+):(\d+): (.*)$", re.S)
_PREFIXED = re.compile(r"([A-Za-z][\w.-]*)?:[\w.%-]*$")


def sparql_error(exc: BaseException, sparql: str) -> str:
    """A one-line message for a SPARQL error of pyoxigraph, without its character-class lists.

    ``error at 1:31: expected one of Prefix not found, ['%'], …`` on ``?t a foo:Bar`` becomes
    ``unknown prefix 'foo:' at line 1, column 31 (declare it with PREFIX foo: <IRI>; predeclared:
    evo:, skos:, …)``; other syntax errors keep their position and the words they expected.

    Args:
        exc: the exception pyoxigraph raised; sparql: the query text it was given.
    Returns:
        The message (at most about 300 characters).
    """
    text = " ".join(str(exc).split())
    match = _SYNTAX_AT.match(text)
    if not match:
        return first_line(exc, 300)
    line, col, detail = int(match.group(1)), int(match.group(2)), match.group(3)
    where = f"line {line}, column {col}"
    if "Prefix not found" in detail:
        rows = sparql.split("\n")
        before = rows[line - 1][:col] if 0 < line <= len(rows) else ""
        found = _PREFIXED.search(before.rstrip())
        name = (found.group(1) or "") if found else None
        known = ", ".join(f"{p}:" for p in PREFIXES)
        if name is not None:
            return (f"unknown prefix '{name}:' at {where} (declare it with PREFIX {name}: <IRI>; "
                    f"predeclared: {known})")
        return f"unknown prefix at {where} (predeclared: {known})"
    expected = [part.strip() for part in re.sub(r"\[[^\]]*\]", "", detail).split(",")]
    words = [w for w in expected if w and w != "expected one of"]
    head = detail.split(" one of ")[0] if " one of " in detail else detail
    listed = ", ".join(w.replace("expected one of ", "") for w in words[:6])
    return f"syntax error at {where}: {head} {listed}".strip()[:300] if listed else f"syntax error at {where}"


def _convert_result(result):
    if isinstance(result, ox.QueryBoolean):
        return bool(result)
    if isinstance(result, ox.QuerySolutions):
        return solution_rows(result)
    graph = rdflib.Graph()
    for triple in result:
        graph.add(cast("tuple[Node, Node, Node]",  # the terms of a triple are never None
                       (from_ox(triple.subject), from_ox(triple.predicate), from_ox(triple.object))))
    return graph


# --- files ---------------------------------------------------------------------------------------

_FORMATS = {".trig": ox.RdfFormat.TRIG, ".ttl": ox.RdfFormat.TURTLE, ".nt": ox.RdfFormat.N_TRIPLES,
            ".nq": ox.RdfFormat.N_QUADS}


def _format_of(path: Path) -> ox.RdfFormat:
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise RDFParseError(f"{path}: unsupported RDF file extension {path.suffix!r} (use .trig, .ttl, .nt, .nq)")
    return fmt


def _parse_error(path: Path, fmt: ox.RdfFormat, exc: Exception) -> RDFParseError:
    if isinstance(exc, SyntaxError):
        line = exc.lineno
        detail = str(exc).splitlines()[0] if str(exc) else "syntax error"
        where = f"{path}:{line}" if line else str(path)
        return RDFParseError(f"{where}: malformed {fmt.name}: {detail}")
    return RDFParseError(f"{path}: cannot read ({(exc.strerror if isinstance(exc, OSError) else None) or exc})")


def parse_rdf_file(path: Path | str, data: bytes | None = None) -> list[ox.Quad]:
    """Parse a TriG/Turtle/N-Triples/N-Quads file with pyoxigraph (format from the extension).

    Args:
        path: the file (used for the format and the error message).
        data: the file content, when already read.

    Returns:
        pyoxigraph quads (triples of Turtle files are in the default graph).

    Raises:
        RDFParseError: the file is missing or malformed; the message names the file and line.
    """
    path = Path(path)
    fmt = _format_of(path)
    try:
        if data is None:
            data = path.read_bytes()
        return list(ox.parse(data, format=fmt))
    except (SyntaxError, OSError) as exc:
        raise _parse_error(path, fmt, exc) from exc


def iter_rdf_file(path: Path | str, data: bytes) -> Iterator[ox.Quad]:
    """:func:`parse_rdf_file` of ``data`` (the bytes of ``path``), lazily: quads are parsed as they
    are read, so a store can load a big file without a list of all its quads (at 3.7 million quads
    the list alone costs seconds and gigabytes).

    Raises:
        RDFParseError: while iterating, at the first malformed statement (names the file and line);
            a store loading the iterator in one transaction (:meth:`OxigraphStore.load_quads`) is
            left unchanged.
    """
    path = Path(path)
    fmt = _format_of(path)
    try:
        yield from ox.parse(data, format=fmt)
    except (SyntaxError, OSError) as exc:
        raise _parse_error(path, fmt, exc) from exc


def load_rdf_file(store: OxigraphStore, path: Path | str) -> None:
    """Load a TriG/N-Quads file into ``store`` natively (fast path; transactional).

    Raises:
        RDFParseError: the file is missing or malformed (names the file and line); the store is unchanged.
    """
    path = Path(path)
    fmt = _format_of(path)
    store._touch()
    try:
        store.ox.load(path=str(path), format=fmt)
    except (SyntaxError, OSError) as exc:
        raise _parse_error(path, fmt, exc) from exc


def serialize_quads(quads: Iterable[tuple], fmt: ox.RdfFormat = ox.RdfFormat.TRIG) -> bytes:
    """Serialize rdflib quads ``(s, p, o, graph IRI)`` with pyoxigraph (TriG by default, prefixed)."""
    keyed = [(str(g), to_ox_quad((s, p, o), ox.NamedNode(str(g)))) for s, p, o, g in quads]
    keyed.sort(key=lambda gq: (gq[0], str(gq[1].subject), str(gq[1].predicate), str(gq[1].object)))
    return _serialized(ox.serialize([q for _, q in keyed], format=fmt, prefixes=FILE_PREFIXES))


__all__ = [
    "Store", "OxigraphStore", "QueryError", "refuse_update", "to_ox", "to_ox_quad", "from_ox", "graph_iri",
    "parse_rdf_file", "load_rdf_file", "serialize_quads", "solution_rows", "rename_graphs", "publish_quads",
    "localize_quads", "serialize_ox", "ox_named_node", "iter_rdf_file", "iter_renamed_graphs", "iter_localized_quads",
]
