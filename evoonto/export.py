"""Exports: Turtle (active layers), TriG (active dataset, or with history), RDF Patch, SPARQL Update.

Graph names in every export are the workspace's published names, under its base IRI
(``<base>graph/content``, :func:`evoonto.namespaces.workspace_graph_iri`), so exports of two
workspaces loaded into one store stay separate.

- :func:`to_turtle`: the active vocab, shapes, catalog, content and tools graphs merged into one
  Turtle document any triple store can load (W3C RDF 1.1 Turtle).
- :func:`to_trig`: the active dataset (the six graphs of the active version) as TriG, safe to load
  with a union default graph; ``history=True`` adds every patch's additions/removals/meta graphs
  (``<base>graph/patch/P/…``), each described in its meta graph as an ``evo:PatchGraph`` with its
  ``evo:patchStatus`` (accepted, rejected, invalid), so none is mistaken for an active graph.
- :func:`rdf_patches`: the base (optional) and the accepted patches in order, one RDF Patch each
  (https://afs.github.io/rdf-delta/rdf-patch.html): ``H id <…> .``, ``H prev <…> .`` (all but the
  first), ``TX .``, ``PA "prefix" <iri> .`` rows (prefix as a string, as RDF Delta's reader wants),
  ``D``/``A`` quad rows, ``TC .``; :func:`write_rdf_patches` writes one file each (``evoonto export
  --format patch -o DIR/``). :func:`to_rdf_patch` is the same history as one patch for one file or
  stdout: one header (``H id`` of the active version), then one ``TX``…``TC`` block per version.
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
from rdflib import RDF, Literal
from rdflib.term import Node, URIRef

from evoonto.namespaces import (EVO, GRAPH, GRAPH_NAMES, parse_patch_graph, patch_meta_graph,
                                workspace_graph_iri)
from evoonto.patch import EVOLVABLE_GRAPHS, Patch
from evoonto.errors import EvoontoError
from evoonto.store import FILE_PREFIXES, OxigraphStore, graph_iri, publish_quads, to_ox, to_ox_quad

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


def to_trig(workspace: Workspace, *, history: bool = False) -> bytes:
    """A workspace as TriG (UTF-8), graph names under its base IRI.

    Args:
        history: False (default): the active dataset only, the six graphs of the active version
            (``<base>graph/vocab`` … ``<base>graph/history``): loading it with a union default graph
            answers like the workspace. True: also every patch's graphs, accepted or not
            (``<base>graph/patch/P/additions/<target>``, ``…/removals/<target>``, ``…/meta``); each
            is described in the patch's meta graph (``a evo:PatchGraph ; evo:ofPatch <patch> ;
            evo:patchStatus "accepted"|"rejected"|"invalid" ; evo:changeKind …``). Query those
            graphs by name; a union default graph over a history export mixes the history in.
    """
    base = workspace.iris.base
    quads = list(workspace.store.ox.quads_for_pattern(None, None, None, None))
    if history:
        for entry in workspace.log():
            patch = workspace.patch(entry.id)
            meta = patch_meta_graph(entry.id)
            rows = patch.quads() + [(s, p, o, meta) for s, p, o in workspace.patch_metadata(entry.id)]
            graphs = sorted({g for _, _, _, g in rows} | {meta}, key=str)
            rows += [(s, p, o, meta) for g in graphs for s, p, o in _patch_graph_description(
                workspace, entry.id, entry.decision, g)]
            quads.extend(to_ox_quad((s, p, o), ox.NamedNode(str(g))) for s, p, o, g in rows)
    return _serialize(publish_quads(quads, base), ox.RdfFormat.TRIG)


def _patch_graph_description(workspace: Workspace, patch_id: str, decision: str, graph) -> list[tuple]:
    """Triples describing one patch graph of the history export (subject: its published IRI)."""
    base = workspace.iris.base
    parsed = parse_patch_graph(str(graph))
    assert parsed is not None  # graphs of Patch.quads() and patch_meta_graph are patch graphs
    _, kind, target = parsed
    node = workspace_graph_iri(graph, base)
    out = [(node, RDF.type, EVO.PatchGraph), (node, EVO.ofPatch, workspace.iris.patch(patch_id)),
           (node, EVO.patchStatus, Literal(decision)), (node, EVO.changeKind, Literal(kind))]
    if target is not None:
        out.append((node, EVO.targetGraph, workspace_graph_iri(target, base)))
    return out


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


def _graph_name(name: str, base_iri: str | None) -> URIRef:
    """The IRI rows on graph ``name`` carry: published under ``base_iri``, or ``evog:<name>`` without one."""
    return workspace_graph_iri(name, base_iri) if base_iri is not None else GRAPH[name]


def patch_rows(patch: Patch, base_iri: str | None = None) -> list[str]:
    """The ``D`` then ``A`` rows of ``patch`` on its target graphs (sorted, canonical N-Triples terms).

    Args:
        base_iri: the workspace base IRI: rows name the published graphs ``<base>graph/<target>``;
            None keeps the workspace-local ``evog:<target>`` names.
    """
    rows = []
    for op, data in (("D", patch.removals), ("A", patch.additions)):
        for name in sorted(data, key=GRAPH_NAMES.index):
            graph = _graph_name(name, base_iri)
            rows.extend(sorted(_row(op, s, p, o, graph) for s, p, o in data[name]))
    return rows


def prefix_rows() -> list[str]:
    """``PA "prefix" <iri> .`` rows for :data:`~evoonto.store.FILE_PREFIXES`, sorted by prefix: the
    prefix as an N-Triples string literal (RDF Delta's reader refuses a bare word there)."""
    return [f"PA {ox.Literal(prefix)} {ox.NamedNode(iri)} ." for prefix, iri in sorted(FILE_PREFIXES.items())]


def _change_blocks(workspace: Workspace, include_base: bool) -> list[tuple[str, URIRef, list[str]]]:
    """``[(file stem, patch id IRI, D/A rows)]`` of the base (if asked) and each accepted patch, in order."""
    base_iri = workspace.iris.base
    out: list[tuple[str, URIRef, list[str]]] = []
    if include_base:
        base = _embedded(workspace.ontology_at(0), "the RDF Patch export")
        rows: list[str] = []
        for name in EVOLVABLE_GRAPHS:
            graph = _graph_name(name, base_iri)
            rows.extend(sorted(_row("A", s, p, o, graph) for s, p, o in base.triples(name)))
        out.append(("0000-base", workspace.iris.version(0), rows))
    for entry in workspace.log():
        if entry.decision == "accepted":
            out.append((f"{entry.version or 0:04d}-{entry.id}", workspace.iris.patch(entry.id),
                        patch_rows(workspace.patch(entry.id), base_iri)))
    return out


def rdf_patches(workspace: Workspace, *, include_base: bool = True) -> list[tuple[str, str]]:
    """The accepted history of ``workspace`` as RDF Patches, one per version, in order.

    Each patch is complete on its own (RDF Patch, https://afs.github.io/rdf-delta/rdf-patch.html)::

        H id <B version/0> .            # the base; later patches: H id <B patch/P> .
        H prev <previous id> .          # every patch but the first
        TX .
        PA "csvw" <http://www.w3.org/ns/csvw#> .   # prefix rows (prefix as a string)
        A <s> <p> <o> <B graph/content> .          # D rows first, then A rows, sorted
        TC .

    Graph names are the workspace's published ones (``<base>graph/<name>``).

    Args:
        include_base: start with the base (version 0) as an all-``A`` patch with id ``<B version/0>``,
            so applying the patches in order to an empty dataset reproduces the active evolvable graphs.

    Returns:
        ``[(file stem, patch text)]``: ``"0000-base"``, then ``"NNNN-<patch id>"`` (NNNN = version).
    """
    out: list[tuple[str, str]] = []
    prev = None if include_base else workspace.iris.version(0)
    for stem, ident, rows in _change_blocks(workspace, include_base):
        header = [f"H id {ox.NamedNode(str(ident))} ."]
        if prev is not None:
            header.append(f"H prev {ox.NamedNode(str(prev))} .")
        out.append((stem, "\n".join([*header, "TX .", *prefix_rows(), *rows, "TC ."]) + "\n"))
        prev = ident
    return out


def to_rdf_patch(workspace: Workspace, *, include_base: bool = True) -> str:
    """The accepted history of ``workspace`` as one RDF Patch (text), for a single file or stdout.

    One patch has one header (RDF Patch, "Structure": a header, then change blocks), so this is::

        H id <B patch/P> .              # P: the last accepted patch (<B version/0> when there is none):
                                        # the id :func:`rdf_patches` gives the same state, so a later
                                        # per-version patch (H prev <B patch/P>) chains onto this one
        H prev <B version/0> .          # only without the base: the state it applies to
        TX .  PA … rows, the base's A rows  TC .
        TX .  the first accepted patch's D/A rows  TC .
        …                               # one transaction per version, in order

    A one-patch reader (RDF Delta's) applies it as a whole; the per-version patches with their own
    ids, chained by ``H prev``, are :func:`rdf_patches` (``evoonto export --format patch -o DIR/``).
    """
    blocks = _change_blocks(workspace, include_base)
    last = blocks[-1][1] if blocks else workspace.iris.version(0)
    rows = [f"H id {ox.NamedNode(str(last))} ."]
    if not include_base and last != workspace.iris.version(0):
        rows.append(f"H prev {ox.NamedNode(str(workspace.iris.version(0)))} .")
    for i, (_, _, changes) in enumerate(blocks):
        rows += ["TX .", *(prefix_rows() if i == 0 else []), *changes, "TC ."]
    return "\n".join(rows) + "\n"


def write_rdf_patches(workspace: Workspace, folder, *, include_base: bool = True) -> list[str]:
    """Write :func:`rdf_patches` as ``folder/<stem>.rdfp`` files, one patch each (atomic writes).

    Returns:
        The file names written, in order (apply them in this order).

    Raises:
        EvoontoError: ``folder`` exists and is not a directory, or cannot be written.
    """
    from pathlib import Path

    from evoonto.fileio import atomic_write, make_dirs

    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise EvoontoError(f"{folder} is not a directory")
    make_dirs(folder)
    names = []
    for stem, text in rdf_patches(workspace, include_base=include_base):
        atomic_write(folder / f"{stem}.rdfp", text.encode("utf-8"))
        names.append(f"{stem}.rdfp")
    return names


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

    base_iri = workspace.iris.base

    def published(data: TriplesByGraph) -> dict[str, list]:
        return {str(workspace_graph_iri(n, base_iri)): list(t) for n, t in data.items()}

    def chunked(op: str, graphs: TriplesByGraph) -> list[str]:
        out = []
        for name, triples in published(graphs).items():
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
            op = data_update(published(patch.removals), published(patch.additions))
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


def export(workspace: Workspace, fmt: str, *, history: bool = False) -> bytes:
    """Export ``workspace`` as ``fmt`` (one of ``ttl``, ``trig``, ``patch``, ``update``); UTF-8 bytes.

    Args:
        history: TriG only: add every patch's graphs, marked with their status (see :func:`to_trig`).

    Raises:
        evoonto.errors.EvoontoError: unknown format, or ``history`` with a format other than trig.
    """
    if history and fmt != "trig":
        raise EvoontoError(f"--history needs --format trig (the {fmt} export has the accepted history "
                           "or the active layers only)")
    if fmt == "ttl":
        return to_turtle(workspace.ontology)
    if fmt == "trig":
        return to_trig(workspace, history=history)
    if fmt == "patch":
        return to_rdf_patch(workspace).encode("utf-8")
    if fmt == "update":
        return to_sparql_update(workspace).encode("utf-8")
    raise EvoontoError(f"unknown export format {fmt!r}; expected one of {', '.join(FORMATS)}")


__all__ = ["to_turtle", "to_trig", "to_rdf_patch", "rdf_patches", "write_rdf_patches", "prefix_rows",
           "sparql_update", "to_sparql_update", "patch_rows", "update_requests", "UPDATE_MAX_TRIPLES",
           "insert_graphs_update", "data_operation", "data_update", "export", "FORMATS"]
