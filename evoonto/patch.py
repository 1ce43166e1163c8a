"""Patches: typed edits as additions/removals graphs on exactly one level (paper: evolution, patch step).

A :class:`Patch` holds, per target graph, the triples it removes and the triples it adds. Its
level decides which graphs it may touch (docs/architecture.md §2):

========  ==========================
level     target graphs
========  ==========================
content   ``content``, ``catalog``
tool      ``tools``
schema    ``vocab``, ``shapes``
========  ==========================

(``restore`` touches every evolvable graph; only :meth:`evoonto.workspace.Workspace.rollback`
creates it.) ``history`` is never a target: the workspace writes it. Patches never contain blank
nodes (SPARQL ``DELETE DATA`` forbids them and diffs break under relabelling).

On disk a patch is a TriG file with the graphs ``evog:patch/{id}/additions/{target}``,
``evog:patch/{id}/removals/{target}`` and ``evog:patch/{id}/meta`` (see :mod:`evoonto.history`).
Applying a patch = remove its removals, then add its additions (RDF Patch semantics, W3C-style
``D``/``A`` rows).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Iterable, Mapping

import rdflib
from rdflib import BNode, URIRef
from rdflib.term import Node
from rdflib.namespace import RDF, SKOS

from evoonto.errors import EvoontoError
from evoonto.iris import stable_key
from evoonto.namespaces import (
    EVO, GRAPH_NAMES, check_patch_id, parse_patch_graph, patch_additions_graph, patch_removals_graph,
)

#: Target graphs of each level.
LEVELS: dict[str, tuple[str, ...]] = {
    "content": ("content", "catalog"),
    "tool": ("tools",),
    "schema": ("vocab", "shapes"),
}
#: Level of a rollback patch (written by the workspace only); may touch every evolvable graph.
RESTORE_LEVEL = "restore"
EVOLVABLE_GRAPHS: tuple[str, ...] = tuple(g for g in GRAPH_NAMES if g != "history")


class PatchError(EvoontoError):
    """A patch is malformed: unknown level, a graph outside its level, blank nodes, bad id."""


def _triples(value) -> frozenset:
    if value is None:
        return frozenset()
    if isinstance(value, rdflib.Graph):
        return frozenset(value.triples((None, None, None)))
    return frozenset(tuple(t) for t in value)


def _check_triples(name: str, triples: frozenset) -> None:
    for triple in triples:
        if len(triple) != 3:
            raise PatchError(f"graph {name!r}: expected (subject, predicate, object) triples, got {triple!r}")
        s, p, o = triple
        if isinstance(s, BNode) or isinstance(o, BNode):
            raise PatchError(f"graph {name!r}: blank node in {s.n3()} {p.n3()} {o.n3()}; mint an IRI instead")
        if not isinstance(s, URIRef) or not isinstance(p, URIRef) or not isinstance(o, rdflib.term.Identifier):
            raise PatchError(f"graph {name!r}: not an RDF triple: {triple!r}")


def _ntriples(triples: Iterable) -> list[str]:
    return sorted(f"{s.n3()} {p.n3()} {o.n3()}" for s, p, o in triples)


@dataclass(frozen=True)
class Patch:
    """An edit of one level: ``removals`` then ``additions``, per target graph name.

    Build with :meth:`from_graphs`. Attributes: ``level``; ``additions`` / ``removals``:
    ``{target graph name: frozenset of triples}`` (empty graphs omitted); ``signature``: the
    failure signature it addresses; ``intervention``: what it does; ``id``: patch id (letters,
    digits, ``.-_``).
    """

    level: str
    additions: Mapping[str, frozenset] = field(default_factory=dict)
    removals: Mapping[str, frozenset] = field(default_factory=dict)
    signature: str = ""
    intervention: str = ""
    id: str = ""

    @classmethod
    def from_graphs(cls, level: str, additions: Mapping | None = None, removals: Mapping | None = None, *,
                    signature: str = "", intervention: str = "", id: str | None = None) -> "Patch":
        """Build and check a patch.

        Args:
            level: ``"content" | "tool" | "schema"``.
            additions, removals: ``{target graph name: rdflib.Graph or iterable of triples}``.
            signature, intervention: free text (kept in history; the fingerprint hashes them).
            id: patch id; default ``p<12 hex>`` derived from content and time.

        Raises:
            PatchError: unknown level, a target outside the level (or ``history``), blank nodes,
            non-RDF values, or an invalid id.
        """
        return cls._build(level, additions, removals, signature, intervention, id, allowed=LEVELS.get(level))

    @classmethod
    def _build(cls, level, additions, removals, signature, intervention, id, *, allowed) -> "Patch":
        if allowed is None:
            raise PatchError(f"unknown patch level {level!r}; expected one of {', '.join(LEVELS)}")
        adds = {k: _triples(v) for k, v in (additions or {}).items()}
        rems = {k: _triples(v) for k, v in (removals or {}).items()}
        for name in set(adds) | set(rems):
            if name not in allowed:
                raise PatchError(
                    f"a {level} patch may only touch graph(s) {', '.join(allowed)}, not {name!r}"
                    " (one level per patch)")
        for name, triples in list(adds.items()) + list(rems.items()):
            _check_triples(name, triples)
        adds = {k: v for k, v in adds.items() if v}
        rems = {k: v for k, v in rems.items() if v}
        if id is None:
            id = "p" + stable_key(level, signature, intervention, _ntriples_all(adds, rems), time.time_ns(), length=12)
        try:
            check_patch_id(id)
        except ValueError as exc:
            raise PatchError(str(exc)) from None
        return cls(level, adds, rems, signature or "", intervention or "", id)

    @classmethod
    def restore(cls, additions: Mapping, removals: Mapping, *, signature: str, intervention: str,
                id: str | None = None) -> "Patch":
        """A ``restore``-level patch over every evolvable graph (used by rollback only)."""
        return cls._build(RESTORE_LEVEL, additions, removals, signature, intervention, id, allowed=EVOLVABLE_GRAPHS)

    @classmethod
    def diff(cls, level: str, old: Mapping[str, Iterable], new: Mapping[str, Iterable], **kwargs) -> "Patch":
        """The patch turning graphs ``old`` into ``new`` (``{name: Graph}``, same names) on ``level``."""
        adds, rems = {}, {}
        for name in set(old) | set(new):
            a, b = _triples(old.get(name)), _triples(new.get(name))
            adds[name], rems[name] = b - a, a - b
        if level == RESTORE_LEVEL:
            return cls.restore(adds, rems, **kwargs)
        return cls.from_graphs(level, adds, rems, **kwargs)

    # properties -----------------------------------------------------------------------------
    @property
    def targets(self) -> list[str]:
        """Target graph names the patch touches, in GRAPH order."""
        names = set(self.additions) | set(self.removals)
        return [n for n in GRAPH_NAMES if n in names]

    def is_empty(self) -> bool:
        """True when the patch adds and removes nothing."""
        return not self.additions and not self.removals

    def __len__(self) -> int:
        """Number of quads (additions + removals)."""
        return sum(len(v) for v in self.additions.values()) + sum(len(v) for v in self.removals.values())

    @property
    def content_hash(self) -> str:
        """Stable hash (16 hex characters) of level, additions and removals."""
        return stable_key(self.level, _ntriples_all(self.additions, self.removals))

    @property
    def fingerprint(self) -> str:
        """Stable hash of level + signature + intervention (content hash when both are empty).

        Rejected fingerprints are skipped by later evolution rounds (DESIGN.md §1).
        """
        if not self.signature and not self.intervention:
            return self.content_hash
        return stable_key(self.level, self.signature.strip().lower(), self.intervention.strip().lower())

    def touched_nodes(self) -> set[URIRef]:
        """IRIs occurring as subject, or as object of a non-``rdf:type`` triple, in the patch."""
        nodes: set[URIRef] = set()
        for triples in list(self.additions.values()) + list(self.removals.values()):
            for s, p, o in triples:
                nodes.add(s)
                if isinstance(o, URIRef) and p != RDF.type:
                    nodes.add(o)
        return nodes

    def subjects(self, *, removals_only: bool = False) -> set[URIRef]:
        """Subjects of the patch's triples (of its removals only, if asked)."""
        groups = list(self.removals.values())
        if not removals_only:
            groups += list(self.additions.values())
        return {s for triples in groups for s, _, _ in triples}

    def inverse(self, *, id: str | None = None) -> "Patch":
        """The patch undoing this one (additions and removals swapped; exact on a normalised patch)."""
        return Patch(self.level, dict(self.removals), dict(self.additions), self.signature,
                     f"undo: {self.intervention}", id or f"{self.id}-undo")

    def normalized(self, contains) -> "Patch":
        """The effective patch on a state: drop removals that are absent and additions already present.

        Args:
            contains: ``contains(triple, graph_name) -> bool`` (e.g. ``OxigraphStore.contains``).
        """
        rems = {n: frozenset(t for t in ts if contains(t, n)) for n, ts in self.removals.items()}
        adds = {n: frozenset(t for t in ts if not contains(t, n) or t in self.removals.get(n, ()))
                for n, ts in self.additions.items()}
        # a triple both removed and re-added is a no-op
        for n in list(adds):
            both = adds[n] & rems.get(n, frozenset())
            if both:
                adds[n] -= both
                rems[n] -= both
        return Patch(self.level, {k: v for k, v in adds.items() if v}, {k: v for k, v in rems.items() if v},
                     self.signature, self.intervention, self.id)

    def with_top_concepts(self, store) -> "Patch":
        """This patch plus the rows that keep the SKOS top concepts consistent once it is applied.

        The builder makes every Term ``skos:inScheme`` a scheme with no ``skos:broader`` /
        ``evo:partOf`` (:data:`NOT_TOP_CONCEPT`) a top concept of it (``<scheme> skos:hasTopConcept
        <term>`` and ``<term> skos:topConceptOf <scheme>``, :func:`top_concept_triples`). For every
        IRI this patch touches in the ``content`` graph, the state in ``store`` (this patch already
        applied) is compared with that rule: a new Term without a broader one becomes a top concept,
        a removed Term or one given a broader one stops being one, and a lone half of the inverse
        pair is completed or removed. Schemes with no top concept at all (a workspace built before
        top concepts were written) are left as they are. Used by ``Workspace.commit``, so rollback,
        which restores a state reached this way, stays consistent too.

        Args:
            store: a :class:`~evoonto.store.Store` holding the state after this patch.

        Returns:
            A patch with the same id, level and texts; ``self`` when nothing is to change. The
            extra rows are applied to ``store`` too.
        """
        touched = [n for n in self._content_nodes() if isinstance(n, URIRef)]
        if not touched:
            return self
        schemes = {str(r["s"]) for r in store.query(
            "SELECT DISTINCT ?s WHERE { GRAPH evog:content { ?s skos:hasTopConcept ?t } }", default_union=False)}
        if not schemes:
            return self
        values = " ".join(f"<{n}>" for n in sorted(touched, key=str))
        blockers = "|".join(f"<{p}>" for p in NOT_TOP_CONCEPT)
        wanted = {t for r in store.query(
            f"SELECT ?t ?s WHERE {{ VALUES ?t {{ {values} }} GRAPH evog:content {{ ?t <{SKOS.inScheme}> ?s "
            f"FILTER NOT EXISTS {{ ?t {blockers} ?b }} }} }}", default_union=False)
            if str(r["s"]) in schemes for t in top_concept_triples(r["s"], r["t"])}
        present = {(r["s"], r["p"], r["o"]) for r in store.query(
            f"SELECT ?s ?p ?o WHERE {{ VALUES ?t {{ {values} }} GRAPH evog:content {{ "
            f"{{ ?s ?p ?t FILTER(?p = <{SKOS.hasTopConcept}>) BIND(?t AS ?o) }} UNION "
            f"{{ ?t ?p ?o FILTER(?p = <{SKOS.topConceptOf}>) BIND(?t AS ?s) }} }} }}", default_union=False)}
        add, remove = wanted - present, present - wanted
        if not add and not remove:
            return self
        store.apply({"content": remove}, {"content": add})
        adds = {k: set(v) for k, v in self.additions.items()}
        rems = {k: set(v) for k, v in self.removals.items()}
        adds.setdefault("content", set()).update(add)
        adds["content"] -= remove
        rems.setdefault("content", set()).update(remove)
        rems["content"] -= add
        return Patch(self.level, {k: frozenset(v) for k, v in adds.items() if v},
                     {k: frozenset(v) for k, v in rems.items() if v}, self.signature, self.intervention, self.id)

    def _content_nodes(self) -> set:
        """Subjects and objects of the patch's ``content`` rows."""
        rows = list(self.additions.get("content", ())) + list(self.removals.get("content", ()))
        return {s for s, _, _ in rows} | {o for _, _, o in rows}

    def apply_to(self, store) -> None:
        """Apply to a :class:`~evoonto.store.Store` (removals first, then additions)."""
        store.apply(dict(self.removals), dict(self.additions))

    # serialisation --------------------------------------------------------------------------
    def quads(self) -> list[tuple]:
        """The patch as quads ``(s, p, o, patch graph IRI)`` (additions/removals graphs)."""
        out: list[tuple] = []
        for name, triples in self.additions.items():
            g = patch_additions_graph(self.id, name)
            out.extend((s, p, o, g) for s, p, o in triples)
        for name, triples in self.removals.items():
            g = patch_removals_graph(self.id, name)
            out.extend((s, p, o, g) for s, p, o in triples)
        return out

    @classmethod
    def from_quads(cls, quads: Iterable[tuple], *, level: str, signature: str = "", intervention: str = "",
                   id: str | None = None) -> "Patch":
        """Rebuild a patch from quads of its additions/removals graphs (other graphs are ignored).

        Raises:
            PatchError: quads of several patch ids, or the content does not fit ``level``.
        """
        adds: dict[str, set] = {}
        rems: dict[str, set] = {}
        for s, p, o, g in quads:
            parsed = parse_patch_graph(g)
            if parsed is None:
                continue
            pid, kind, target = parsed
            if target is None:  # the meta graph (the only patch graph without a target)
                continue
            if id is None:
                id = pid
            elif pid != id:
                raise PatchError(f"quads of two patches ({id!r} and {pid!r}) in one patch file")
            (adds if kind == "additions" else rems).setdefault(target, set()).add((s, p, o))
        if level == RESTORE_LEVEL:
            return cls.restore(adds, rems, signature=signature, intervention=intervention, id=id)
        return cls.from_graphs(level, adds, rems, signature=signature, intervention=intervention, id=id)


#: Predicates that make a Term narrower than another, so not a top concept of its scheme.
NOT_TOP_CONCEPT: tuple[URIRef, ...] = (SKOS.broader, EVO.partOf)


def top_concept_triples(scheme: Node, term: Node) -> list[tuple[Node, URIRef, Node]]:
    """``<scheme> skos:hasTopConcept <term>`` and its inverse ``<term> skos:topConceptOf <scheme>``
    (SKOS §4.6.3: both are asserted, SKOS tools without inference read either)."""
    return [(scheme, SKOS.hasTopConcept, term), (term, SKOS.topConceptOf, scheme)]


def _ntriples_all(adds: Mapping, rems: Mapping) -> str:
    parts: list[str] = []
    for label, data in (("A", adds), ("D", rems)):
        for name in sorted(data):
            parts.extend(f"{label} {name} {line}" for line in _ntriples(data[name]))
    return "\n".join(parts)


__all__ = ["Patch", "PatchError", "LEVELS", "RESTORE_LEVEL", "EVOLVABLE_GRAPHS", "NOT_TOP_CONCEPT",
           "top_concept_triples"]
