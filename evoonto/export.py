"""Exports: Turtle (active layers), TriG (everything), RDF Patch (accepted history), SPARQL Update.

- :func:`to_turtle`: the active vocab, shapes, catalog, content and tools graphs merged into one
  Turtle document any triple store can load (W3C RDF 1.1 Turtle).
- :func:`to_trig`: the six active graphs plus every patch's additions/removals/meta graphs (TriG).
- :func:`to_rdf_patch`: the base (optional) and the accepted patches in order, as RDF Patch
  (https://afs.github.io/rdf-delta/rdf-patch.html): per patch ``H id <…> .``, ``H prev <…> .``,
  ``TX .``, ``D``/``A`` quad rows on the target graphs, ``TC .``. Header rows end with `` .`` as
  the grammar requires (rdflib's writer omits it on ``H prev``, DESIGN.md §9).
- :func:`sparql_update`: one patch as a SPARQL 1.1 Update (``DELETE DATA``; ``INSERT DATA``);
  :func:`to_sparql_update` the whole accepted history (for pushing to a remote store);
  :func:`data_update` / :func:`data_operation` any ``{graph: triples}`` (used by
  :class:`evoonto.remote.RemoteSparqlStore`).

Terms are written in canonical N-Triples form by pyoxigraph, so multi-line literals stay on one row.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Iterable, Mapping

import pyoxigraph as ox
from rdflib.term import Node

from evoonto.namespaces import GRAPH, GRAPH_NAMES, patch_meta_graph
from evoonto.patch import EVOLVABLE_GRAPHS, Patch
from evoonto.errors import EvoontoError
from evoonto.store import FILE_PREFIXES, OxigraphStore, graph_iri, to_ox, to_ox_quad

if TYPE_CHECKING:
    from evoonto.ontology import Ontology
    from evoonto.workspace import Workspace

TriplesByGraph = Mapping[str, Iterable[tuple[Node, Node, Node]]]
"""``{graph name or IRI: iterable of rdflib (s, p, o) triples}``."""

#: Graphs of the Turtle export (everything but history).
TURTLE_GRAPHS: tuple[str, ...] = EVOLVABLE_GRAPHS
FORMATS = ("ttl", "trig", "patch", "update")


def to_turtle(ontology: Ontology, graphs: Iterable[str] = TURTLE_GRAPHS) -> bytes:
    """The union of ``graphs`` (default: all but history) of ``ontology`` as prefixed Turtle (UTF-8).

    Runs a CONSTRUCT on Oxigraph (ordered by subject so the Turtle groups each subject's triples;
    duplicates across graphs are merged) and serializes it with pyoxigraph, without rdflib terms.

    Raises:
        EvoontoError: ``ontology`` is not held in an embedded :class:`~evoonto.store.OxigraphStore`
            (e.g. a remote SPARQL endpoint).
    """
    values = " ".join(f"<{GRAPH[name]}>" for name in graphs)
    triples = _embedded(ontology, "the Turtle export").ox.query(
        f"CONSTRUCT {{ ?s ?p ?o }} WHERE {{ VALUES ?g {{ {values} }} GRAPH ?g {{ ?s ?p ?o }} }} ORDER BY ?s ?p")
    assert isinstance(triples, ox.QueryTriples)  # a CONSTRUCT always yields triples
    return _serialize(triples, ox.RdfFormat.TURTLE)


def to_trig(workspace: Workspace) -> bytes:
    """Everything of a workspace as TriG: the six active graphs and every patch's graphs
    (additions/removals per target and the meta graph), accepted or not."""
    quads = list(workspace.store.ox.quads_for_pattern(None, None, None, None))
    for entry in workspace.log():
        patch = workspace.patch(entry.id)
        meta = patch_meta_graph(entry.id)
        rows = patch.quads() + [(s, p, o, meta) for s, p, o in workspace.patch_metadata(entry.id)]
        quads.extend(to_ox_quad((s, p, o), ox.NamedNode(str(g))) for s, p, o, g in rows)
    quads.sort(key=lambda q: (str(q.graph_name), str(q.subject), str(q.predicate), str(q.object)))
    return _serialize(quads, ox.RdfFormat.TRIG)


def _embedded(ontology: Ontology, what: str) -> OxigraphStore:
    """The embedded store of ``ontology``; EvoontoError naming ``what`` when it is another store."""
    store = ontology.store
    if not isinstance(store, OxigraphStore):
        raise EvoontoError(f"{what} needs an ontology in an embedded Oxigraph store, not {type(store).__name__}")
    return store


def _serialize(terms: Iterable[ox.Triple] | Iterable[ox.Quad], fmt: ox.RdfFormat) -> bytes:
    """``terms`` serialized by pyoxigraph in ``fmt`` with :data:`FILE_PREFIXES`."""
    buffer = io.BytesIO()  # with an output stream ox.serialize returns None, so no Optional to handle
    ox.serialize(terms, buffer, fmt, prefixes=FILE_PREFIXES)
    return buffer.getvalue()


def _row(op: str, s: Node, p: Node, o: Node, graph: str) -> str:
    return f"{op} {to_ox(s)} {to_ox(p)} {to_ox(o)} {ox.NamedNode(str(graph))} ."


def patch_rows(patch: Patch) -> list[str]:
    """The ``D`` then ``A`` rows of ``patch`` on its target graphs (sorted, canonical N-Triples terms)."""
    rows = []
    for op, data in (("D", patch.removals), ("A", patch.additions)):
        for name in sorted(data, key=GRAPH_NAMES.index):
            rows.extend(sorted(_row(op, s, p, o, GRAPH[name]) for s, p, o in data[name]))
    return rows


def to_rdf_patch(workspace: Workspace, *, include_base: bool = True) -> str:
    """The accepted history of ``workspace`` as an RDF Patch log (text).

    Args:
        include_base: start with the base (version 0) as an all-``A`` patch with id ``<B version/0>``,
            so applying the log to an empty dataset reproduces the active evolvable graphs.
    """
    out: list[str] = []
    prev = None
    if include_base:
        base = workspace.ontology_at(0)
        ident = workspace.iris.version(0)
        out += [f"H id {ox.NamedNode(str(ident))} .", "TX ."]
        for prefix, iri in sorted(FILE_PREFIXES.items()):
            out.append(f"PA {prefix} {ox.NamedNode(iri)} .")
        for name in EVOLVABLE_GRAPHS:
            rows = _embedded(base, "the RDF Patch export").triples(name)
            out.extend(sorted(_row("A", s, p, o, GRAPH[name]) for s, p, o in rows))
        out.append("TC .")
        prev = ident
    for entry in workspace.log():
        if entry.decision != "accepted":
            continue
        ident = workspace.iris.patch(entry.id)
        out.append(f"H id {ox.NamedNode(str(ident))} .")
        if prev is not None:
            out.append(f"H prev {ox.NamedNode(str(prev))} .")
        out.append("TX .")
        out.extend(patch_rows(workspace.patch(entry.id)))
        out.append("TC .")
        prev = ident
    return "\n".join(out) + "\n"


def data_operation(op: str, triples_by_graph: TriplesByGraph) -> str:
    """One SPARQL 1.1 Update ``INSERT DATA`` / ``DELETE DATA`` operation (W3C SPARQL 1.1 Update §3.1.1-2).

    Args:
        op: ``"INSERT"`` or ``"DELETE"``.
        triples_by_graph: ``{graph name or IRI: iterable of rdflib triples}``; one ``GRAPH`` block
            each, triples sorted, terms in canonical N-Triples form (no prefixes needed).

    Raises:
        EvoontoError: an unknown graph name (see :func:`evoonto.store.graph_iri`).
    """
    parts = []
    for graph, triples in triples_by_graph.items():
        body = "\n".join(sorted(f"    {to_ox(s)} {to_ox(p)} {to_ox(o)} ." for s, p, o in triples))
        parts.append(f"  GRAPH {ox.NamedNode(str(graph_iri(graph)))} {{\n{body}\n  }}")
    return f"{op} DATA {{\n" + "\n".join(parts) + "\n}"


def data_update(removals: TriplesByGraph, additions: TriplesByGraph) -> str:
    """``DELETE DATA {…} ;`` then ``INSERT DATA {…}`` as one SPARQL 1.1 Update request.

    Args:
        removals, additions: ``{graph name or IRI: iterable of rdflib triples}``; empty graphs are skipped.

    Returns:
        The request text, or an empty string when there is nothing to remove or add.
    """
    ops = []
    for op, data in (("DELETE", removals), ("INSERT", additions)):
        listed = {g: list(t) for g, t in data.items()}
        nonempty = {g: t for g, t in listed.items() if t}
        if nonempty:
            ops.append(data_operation(op, nonempty))
    return " ;\n".join(ops)


def sparql_update(patch: Patch) -> str:
    """``patch`` as one SPARQL 1.1 Update request: ``DELETE DATA {…} ; INSERT DATA {…}`` on its target graphs.

    Returns an empty string for an empty patch.
    """
    return data_update(patch.removals, patch.additions)


def insert_graphs_update(graphs: TriplesByGraph) -> str:
    """``INSERT DATA`` of ``{graph name: triples}`` (empty graphs skipped); empty string if nothing."""
    return data_update({}, graphs)


#: Most triples per request of the SPARQL Update export (Virtuoso refuses about 1,400 and more).
UPDATE_MAX_TRIPLES = 1000


def update_requests(workspace: Workspace, *, include_base: bool = True,
                    max_triples: int = UPDATE_MAX_TRIPLES) -> list[str]:
    """The accepted history as SPARQL 1.1 Update requests of at most ``max_triples`` triples each.

    The base (if asked) is one ``INSERT DATA`` request per chunk; a patch of at most ``max_triples``
    triples is one request (``DELETE DATA {…} ; INSERT DATA {…}``, atomic on transactional stores),
    a larger one is split into ``DELETE DATA`` chunks then ``INSERT DATA`` chunks.

    Raises:
        ValueError: ``max_triples`` < 1.
    """
    if max_triples < 1:
        raise ValueError(f"max_triples must be at least 1, not {max_triples}")

    def chunked(op: str, graphs: TriplesByGraph) -> list[str]:
        out = []
        for name, triples in graphs.items():
            rows = list(triples)
            out += [data_operation(op, {name: rows[i:i + max_triples]}) for i in range(0, len(rows), max_triples)]
        return out

    requests: list[str] = []
    if include_base:
        store = _embedded(workspace.ontology_at(0), "the SPARQL Update export")
        requests += chunked("INSERT", {n: list(store.triples(n)) for n in EVOLVABLE_GRAPHS})
    for entry in workspace.log():
        if entry.decision != "accepted":
            continue
        patch = workspace.patch(entry.id)
        if sum(len(t) for t in patch.removals.values()) + sum(len(t) for t in patch.additions.values()) <= max_triples:
            op = sparql_update(patch)
            requests += [op] if op else []
        else:
            requests += chunked("DELETE", patch.removals) + chunked("INSERT", patch.additions)
    return requests


def to_sparql_update(workspace: Workspace, *, include_base: bool = True,
                     max_triples: int = UPDATE_MAX_TRIPLES) -> str:
    """The accepted history (base first if asked) as the requests of :func:`update_requests`, each
    separated from the next by a line holding only ``;``.

    The whole text is one valid SPARQL 1.1 Update request (``;`` separates operations), for stores
    that take any size (Oxigraph, Fuseki); a store that compiles one request as one unit (Virtuoso)
    takes the parts between the ``;`` lines one request at a time (``evoonto push`` does that
    itself). No other line is exactly ``;`` (terms are canonical N-Triples, newlines escaped).
    """
    return "\n;\n".join(update_requests(workspace, include_base=include_base, max_triples=max_triples)) + "\n"


def export(workspace: Workspace, fmt: str) -> bytes:
    """Export ``workspace`` as ``fmt`` (one of ``ttl``, ``trig``, ``patch``, ``update``); UTF-8 bytes.

    Raises:
        evoonto.errors.EvoontoError: unknown format.
    """
    if fmt == "ttl":
        return to_turtle(workspace.ontology)
    if fmt == "trig":
        return to_trig(workspace)
    if fmt == "patch":
        return to_rdf_patch(workspace).encode("utf-8")
    if fmt == "update":
        return to_sparql_update(workspace).encode("utf-8")
    raise EvoontoError(f"unknown export format {fmt!r}; expected one of {', '.join(FORMATS)}")


__all__ = ["to_turtle", "to_trig", "to_rdf_patch", "sparql_update", "to_sparql_update", "patch_rows",
           "insert_graphs_update", "data_operation", "data_update", "export", "FORMATS", "update_requests",
           "UPDATE_MAX_TRIPLES"]
