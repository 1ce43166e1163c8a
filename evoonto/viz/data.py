"""Extraction of the visual explorer's data: RDF graphs -> one JSON-ready ``dict`` (the page *model*).

The page (:mod:`evoonto.viz.page`) only renders what this module extracts, so everything the
explorer shows can be tested without a browser. Input is the named graphs of one workspace version
(docs/architecture.md §2-3) plus the additions/removals graphs of its patches; output is a plain
``dict`` of lists, strings and numbers:

``meta``
    ``title``, ``base`` (workspace base IRI or None), ``version`` (active version number or None),
    ``maxVisible`` (node budget of one rendered view; past it the page opens on ``overview``),
    ``counts`` (``term``, ``mapping``, ``constraint``, ``evidence``, ``relation``, ``triples``).
``relationTypes``
    ``[{"key", "label", "property", "directed"}]``: the semantic relation types (the five of the
    vocabulary plus any ``evo:RelationType`` a schema patch added), in display order.
``nodes``
    ``[{"iri", "family", "kind", "label", "deprecated", "search", "fields", "sections"}]`` where
    ``family`` is ``term``/``mapping``/``constraint``/``evidence``, ``kind`` the Term kind
    (``Metric``, ``Entity``, …; the family name for satellites), ``search`` extra label strings
    (synonyms, hidden labels), ``fields`` the record as ``[[field name, [value, …]], …]`` and
    ``sections`` the indices of linked satellites shown inline in the record (a Term's Mappings,
    Evidence and Constraints). A value is a string or ``{"ref": node index, "text": label}``.
``edges``
    ``[{"source", "target", "type", "fields"}]`` with node indices; ``type`` is a relation type key
    (``derivation``, ``association``, ``hierarchy``, ``composition``, ``equivalence``, …) or a
    structural reference (``mapping``, ``constrains``, ``evidence``); ``fields`` carries the
    qualified relation node's join condition, formula and evidence.
``overview``
    the start view of the page: ``{"basis", "nodes", "terms", "total"}`` (see
    :meth:`evoonto.viz.content.ContentGraph.overview`): the entities (tables) with the number of
    Terms under each, at most ``maxVisible``. The page opens on it when the whole graph exceeds the
    node budget; search (and "Explore from here") lead into the rest.
``history``
    One row per gate decision (accepted, rejected, invalid; plus any patch without a gate), in
    commit order: ``id`` (patch id), ``gate`` and ``patch`` (IRIs), ``round``, ``seq``, ``version``
    (generated version or None), ``parentVersion``, ``level``, ``signature``, ``intervention``,
    ``fingerprint``, ``decision``, ``parentScore``, ``candidateScore``, ``time`` and ``diff`` =
    ``{"added", "removed"}`` (triple counts), ``"byGraph"`` (``{target: [added, removed]}``),
    ``"triples"`` (``[[op, graph, s, p, o, sRef, oRef]]``, at most ``max_diff_triples``),
    ``"nodesAdded"``/``"nodesRemoved"``/``"edgesAdded"``/``"edgesRemoved"`` (indices of drawn
    graph elements the patch touched).

The work is split by concept: :mod:`evoonto.viz.content` (nodes, records, edges),
:mod:`evoonto.viz.history` (rows and diffs), :mod:`evoonto.viz.names` (display text); this module
holds the entry points.

Sources: W3C SKOS (labels, semantic relations), PROV-O (evidence, history), OWL 2 annotation
reification for qualified relations, SSSOM (``sssom:confidence``); the version history model is the
gate of the paper (arXiv 2609.15779, evolution loop).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path

from rdflib import Graph

from evoonto.errors import RDFParseError, WorkspaceError, first_line
from evoonto.namespaces import GRAPH, local_graph_iri_of_export, parse_patch_graph
from evoonto.memory import paused_cyclic_gc
from evoonto.viz.content import ContentGraph
from evoonto.viz.history import PatchGraphs, history_rows

#: Default node budget of one rendered view (nodes); past it the page opens on the entities overview.
DEFAULT_MAX_VISIBLE = 300
#: Default number of triples listed per patch in the history (the counts are always complete).
DEFAULT_MAX_DIFF_TRIPLES = 200


def graphs_from_dataset(dataset) -> tuple[dict[str, Graph], dict[str, PatchGraphs]]:
    """Split an rdflib ``Dataset`` into the workspace graphs and the patch graphs.

    Args:
        dataset: an ``rdflib.Dataset`` (or ``ConjunctiveGraph``) holding named graphs ``evog:content``,
            ``evog:history``, … and ``evog:patch/{id}/additions|removals/{target}``, or the same names
            under a workspace base IRI (``<base>graph/content``, as exports write them).

    Returns:
        ``(graphs, patches)``: ``{name: Graph}`` for the six workspace graphs present and
        ``{patch id: PatchGraphs}``. Other named graphs (patch ``meta``, unknown IRIs) are ignored.
    """
    graphs: dict[str, Graph] = {}
    patches: dict[str, PatchGraphs] = {}
    for graph in dataset.graphs():
        local = local_graph_iri_of_export(graph.identifier)  # exports name graphs under the base IRI
        name = GRAPH.name_of(local)
        if name is not None:
            graphs[name] = graph
            continue
        parsed = parse_patch_graph(local)
        if parsed is None:
            continue
        patch_id, kind, target = parsed
        if target is None:  # the meta graph (the only patch graph without a target)
            continue
        entry = patches.setdefault(patch_id, PatchGraphs(patch_id))
        (entry.additions if kind == "additions" else entry.removals)[target] = graph
    return graphs, patches


def load_trig(path: str | Path) -> tuple[dict[str, Graph], dict[str, PatchGraphs]]:
    """Parse a TriG file and split it with :func:`graphs_from_dataset`.

    Raises:
        WorkspaceError: the file does not exist.
        RDFParseError: the file is not valid TriG (message names the file).
    """
    from rdflib import Dataset

    path = Path(path)
    if not path.is_file():
        raise WorkspaceError(f"no such TriG file: {path}")
    dataset = Dataset()
    try:
        dataset.parse(path, format="trig")
    except Exception as exc:  # rdflib raises several unrelated exception types on bad input
        raise RDFParseError(f"{path}: {first_line(exc)}") from exc
    return graphs_from_dataset(dataset)


def build_model(
    graphs: Mapping[str, Graph],
    patches: Mapping[str, PatchGraphs] | None = None,
    *,
    title: str | None = None,
    version: int | None = None,
    max_visible: int = DEFAULT_MAX_VISIBLE,
    max_diff_triples: int = DEFAULT_MAX_DIFF_TRIPLES,
) -> dict:
    """Extract the explorer model (see the module docstring for its shape) from workspace graphs.

    Args:
        graphs: ``{name: rdflib.Graph}`` of the active version; ``content`` is drawn, ``catalog``
            names tables and columns, ``vocab`` names fields and relation types, ``history`` gives
            the version rows. Missing graphs are treated as empty.
        patches: ``{patch id: PatchGraphs}``: the additions/removals of each patch in the history.
        title: page title (default: the workspace base IRI or "evoonto ontology").
        version: the active version number shown in the header.
        max_visible: node budget of one rendered view (nodes, ≥ 10).
        max_diff_triples: triples listed per history row (the counts stay complete).

    Returns:
        A JSON-serialisable ``dict``.

    Raises:
        ValueError: ``max_visible`` < 10 or ``max_diff_triples`` < 0.
    """
    if max_visible < 10:
        raise ValueError(f"max_visible must be at least 10 nodes, got {max_visible}")
    if max_diff_triples < 0:
        raise ValueError(f"max_diff_triples must be >= 0, got {max_diff_triples}")
    with paused_cyclic_gc():
        content = ContentGraph(graphs)
        history = graphs.get("history")
        rows = history_rows(history if history is not None else Graph(), patches or {}, content,
                            max_diff_triples=max_diff_triples)
    families = Counter(node["family"] for node in content.nodes)
    semantic = {t["key"] for t in content.relation_types}
    return {
        "format": 1,
        "meta": {
            "title": title or (content.base.rstrip("/") if content.base else "evoonto ontology"),
            "base": content.base,
            "version": version,
            "generated": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
            "maxVisible": max_visible,
            "counts": {
                "term": families["term"], "mapping": families["mapping"],
                "constraint": families["constraint"], "evidence": families["evidence"],
                "relation": sum(1 for e in content.edges if e["type"] in semantic),
                "triples": content.triple_count,
            },
        },
        "relationTypes": [{k: t[k] for k in ("key", "label", "property", "directed")} for t in content.relation_types],
        "nodes": content.nodes,
        "edges": content.edges,
        "overview": content.overview(max_visible),
        "history": rows,
    }


def load_workspace_model(path: str | Path, **options) -> dict:
    """Build the model of a workspace directory through the core API (:class:`evoonto.workspace.Workspace`).

    Args:
        path: the workspace directory.
        **options: passed to :func:`build_model` (``title``, ``max_visible``, ``max_diff_triples``).

    Raises:
        WorkspaceError: the workspace is missing or malformed (raised by ``Workspace.open``).
    """
    from evoonto.workspace import Workspace

    workspace = Workspace.open(path)
    options.setdefault("version", workspace.version)
    if options.get("title") is None:
        options["title"] = workspace.name
    return build_model(workspace.ontology.graphs(), _workspace_patches(workspace), **options)


def _workspace_patches(workspace) -> dict[str, PatchGraphs]:
    """The additions/removals of every patch (accepted, rejected, invalid) of a workspace, by id."""
    patches = {}
    for entry in workspace.log():
        patch = workspace.patch(entry.id)
        patches[entry.id] = PatchGraphs(entry.id, dict(patch.additions), dict(patch.removals), seq=entry.seq)
    return patches


__all__ = [
    "DEFAULT_MAX_VISIBLE", "DEFAULT_MAX_DIFF_TRIPLES", "PatchGraphs", "build_model",
    "graphs_from_dataset", "load_trig", "load_workspace_model",
]
