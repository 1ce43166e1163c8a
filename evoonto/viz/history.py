"""The version history as the explorer lists it: one row per gate decision, with the patch's diff.

Reads the ``history`` graph (PROV-O, docs/architecture.md §3 "History"): a gate
(``evo:Gate``, a ``prov:Activity``) ``prov:used`` the parent version and the patch and, when
accepted, ``prov:generated`` the next version; it carries ``evo:decision``, ``evo:parentScore``,
``evo:candidateScore`` and ``evo:metadata`` (JSON, e.g. ``{"round": 3}``). The patch's
additions/removals graphs (``evog:patch/{id}/additions|removals/{target}``) become the row's
diff, mapped onto the drawn Content graph so the page can highlight it. Rows follow the paper's
gate (arXiv 2609.15779, evolution loop): accepted, rejected and invalid candidates alike.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from rdflib import Graph
from rdflib.namespace import DCTERMS, PROV, RDF

from evoonto.namespaces import EVO, GRAPH_NAMES
from evoonto.viz.content import ContentGraph
from evoonto.viz.names import cut, local_name


@dataclass
class PatchGraphs:
    """The additions and removals of one patch, by target graph name (``"content"``, …).

    Attributes:
        patch_id: the patch id (``evog:patch/{id}/…``).
        additions, removals: ``{target: rdflib.Graph or collection of (s, p, o) triples}``.
        seq: commit order in the workspace (orders the history rows), or None when unknown.
    """

    patch_id: str
    additions: dict[str, Collection] = field(default_factory=dict)
    removals: dict[str, Collection] = field(default_factory=dict)
    seq: int | None = None


def history_rows(history: Graph, patches: Mapping[str, PatchGraphs], content: ContentGraph, *,
                 max_diff_triples: int) -> list[dict]:
    """One row per gate (and per patch without a gate), in commit order, each with its diff.

    Args:
        history: the ``history`` graph.
        patches: ``{patch id: PatchGraphs}``; a row whose patch is missing gets an empty diff.
        content: the drawn Content graph (the diff is mapped onto its node and edge indices).
        max_diff_triples: triples listed per row (counts stay complete).

    Returns:
        ``[{"id", "gate", "patch", "round", "seq", "version", "parentVersion", "level",
        "signature", "intervention", "fingerprint", "decision", "parentScore", "candidateScore",
        "time", "diff"}]``; see :func:`patch_diff` for ``diff``. Order: the workspace's commit
        order when known, else ``round`` from the metadata, else parent version (rejected
        candidates before the accepted one), time and id. ``round`` defaults to the row number.
    """
    h = history
    rows = []
    gated: set[str] = set()
    for gate in set(h.subjects(RDF.type, EVO.Gate)):
        used = list(h.objects(gate, PROV.used))
        patch = next((u for u in used if (u, RDF.type, EVO.Patch) in h or "/patch/" in str(u)), None)
        parent = next((u for u in used if u != patch
                       and ((u, RDF.type, EVO.Version) in h or "/version/" in str(u))), None)
        patch_id = _patch_id(h, patch if patch is not None else gate)
        gated.add(patch_id)
        meta = _json_object(h.value(gate, EVO.metadata))
        time = h.value(gate, PROV.endedAtTime) or h.value(gate, PROV.startedAtTime)
        parent_score = h.value(gate, EVO.parentScore)
        candidate_score = h.value(gate, EVO.candidateScore)
        rows.append({
            "id": patch_id, "gate": str(gate), "patch": str(patch) if patch is not None else None,
            "round": _int_or_none(meta.get("round")),
            "version": _version_number(h, h.value(gate, PROV.generated)),
            "parentVersion": _version_number(h, parent),
            **_patch_fields(h, patch),
            "decision": _text(h.value(gate, EVO.decision)) or "unknown",
            "parentScore": _number(parent_score if parent_score is not None else meta.get("parent_score")),
            "candidateScore": _number(candidate_score if candidate_score is not None else meta.get("candidate_score")),
            "time": str(time) if time is not None else None,
        })
    for patch in set(h.subjects(RDF.type, EVO.Patch)):  # e.g. a patch recorded without a gate
        patch_id = _patch_id(h, patch)
        if patch_id not in gated:
            rows.append({"id": patch_id, "gate": None, "patch": str(patch), "round": None, "version": None,
                         "parentVersion": None, **_patch_fields(h, patch), "decision": "applied",
                         "parentScore": None, "candidateScore": None, "time": None})
    last = {"accepted": 1, "applied": 1}
    seqs = {pid: patch.seq for pid, patch in patches.items() if patch.seq is not None}
    inf = float("inf")
    rows.sort(key=lambda r: (
        seqs.get(r["id"], inf), r["round"] if r["round"] is not None else inf,
        r["parentVersion"] if r["parentVersion"] is not None else -1,
        last.get(r["decision"], 0), r["time"] or "", r["id"]))
    for seq, row in enumerate(rows, start=1):
        row["seq"] = seq
        if row["round"] is None:
            row["round"] = seq
        row["diff"] = patch_diff(patches.get(row["id"]), content, max_triples=max_diff_triples)
    return rows


def patch_diff(patch: PatchGraphs | None, content: ContentGraph, *, max_triples: int) -> dict:
    """A patch's named-graph diff, mapped onto the drawn Content graph.

    Returns:
        ``{"added", "removed"}`` (triple counts), ``"byGraph"`` (``{target: [added, removed]}``),
        ``"triples"`` (``[[op "+"|"-", target, subject text, predicate text, object text,
        subject node index or None, object node index or None]]``, sorted, at most
        ``max_triples``), ``"nodesAdded"``/``"nodesRemoved"`` (nodes that are the subject of an
        added/removed triple) and ``"edgesAdded"``/``"edgesRemoved"`` (edges whose triple or
        qualified relation node was added/removed). All empty when ``patch`` is None.
    """
    result: dict[str, Any] = {"added": 0, "removed": 0, "byGraph": {}, "triples": [], "nodesAdded": [],
                              "nodesRemoved": [], "edgesAdded": [], "edgesRemoved": []}
    if patch is None:
        return result
    for op, graphs, count_key, nodes_key, edges_key in (
            ("+", patch.additions, "added", "nodesAdded", "edgesAdded"),
            ("-", patch.removals, "removed", "nodesRemoved", "edgesRemoved")):
        nodes: set[int] = set()
        edges: set[int] = set()
        for target in GRAPH_NAMES:
            triples = graphs.get(target)
            if not triples or len(triples) == 0:
                continue
            result["byGraph"].setdefault(target, [0, 0])[0 if op == "+" else 1] += len(triples)
            result[count_key] += len(triples)
            for s, p, o in sorted(triples, key=lambda t: (str(t[0]), str(t[1]), str(t[2]))):
                s_node, s_edge = content.touched(s)
                o_node, _ = content.touched(o)
                if s_node is not None:
                    nodes.add(s_node)
                if s_edge is not None:
                    edges.add(s_edge)
                if s_node is not None and o_node is not None:
                    edge = content.edge_for(s_node, str(p), o_node)
                    if edge is not None:
                        edges.add(edge)
                if len(result["triples"]) < max_triples:
                    result["triples"].append([op, target, content.display(s), content.namer(str(p)),
                                              content.display(o), s_node, o_node])
        result[nodes_key] = sorted(nodes)
        result[edges_key] = sorted(edges)
    return result


def _patch_fields(history: Graph, patch) -> dict:
    if patch is None:
        return {"level": None, "signature": None, "intervention": None, "fingerprint": None}
    return {key: _text(history.value(patch, prop)) for key, prop in (
        ("level", EVO.level), ("signature", EVO.signature), ("intervention", EVO.intervention),
        ("fingerprint", EVO.fingerprint))}


def _patch_id(history: Graph, patch) -> str:
    """A patch's id: its ``dcterms:identifier``, else the last segment of its IRI (``B patch/{id}``)."""
    identifier = history.value(patch, DCTERMS.identifier)
    return str(identifier) if identifier is not None else local_name(str(patch))


def _version_number(history: Graph, version) -> int | None:
    """``evo:versionNumber`` of a version node, else the ``n`` of its IRI ``B version/{n}``."""
    if version is None:
        return None
    number = history.value(version, EVO.versionNumber)
    if number is not None:
        return _int_or_none(str(number))
    match = re.search(r"version/(\d+)$", str(version))
    return int(match.group(1)) if match else None


def _json_object(value) -> dict:
    if value is None:
        return {}
    try:
        data = json.loads(str(value))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _int_or_none(value) -> int | None:
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def _number(value) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _text(value) -> str | None:
    return cut(str(value), 500) if value is not None else None


__all__ = ["PatchGraphs", "history_rows", "patch_diff"]
