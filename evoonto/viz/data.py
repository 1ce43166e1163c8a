"""Extraction of the visual explorer's data: RDF graphs -> one JSON-ready ``dict`` (the page *model*).

The page (:mod:`evoonto.viz.page`) only renders what this module extracts, so everything the
explorer shows can be tested without a browser. Input is the named graphs of one workspace version
(docs/architecture.md §2-3) plus the additions/removals graphs of its patches; output is a plain
``dict`` of lists, strings and numbers:

``meta``
    ``title``, ``base`` (workspace base IRI or None), ``version`` (active version number or None),
    ``maxVisible`` (node budget of one rendered view; past it the page shows a neighbourhood),
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
``history``
    One row per gate decision (accepted, rejected, invalid), in round order: ``id``, ``round``,
    ``seq``, ``version`` (generated version or None), ``parentVersion``, ``level``, ``signature``,
    ``intervention``, ``fingerprint``, ``decision``, ``parentScore``, ``candidateScore``, ``time``
    and ``diff`` = ``{"added", "removed"}`` (triple counts), ``"byGraph"`` (``{target: [added,
    removed]}``), ``"triples"`` (``[[op, graph, s, p, o, sRef, oRef]]``, at most
    ``max_diff_triples``), ``"nodesAdded"``/``"nodesRemoved"``/``"edgesAdded"``/``"edgesRemoved"``
    (indices of graph elements the patch touched).

Sources: W3C SKOS (labels, semantic relations), PROV-O (evidence, history), OWL 2 annotation
reification for qualified relations, SSSOM (``sssom:confidence``); the version history model is the
gate of the paper (arXiv 2609.15779, evolution loop).
"""

from __future__ import annotations

import gc
import json
import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, OWL, PROV, RDF, RDFS, SH, SKOS

from evoonto.errors import RDFParseError, WorkspaceError
from evoonto.namespaces import CSVW, EVO, GRAPH, GRAPH_NAMES, PREFIXES, SSSOM, parse_patch_graph

#: Default node budget of one rendered view (nodes); past it the page renders a neighbourhood.
DEFAULT_MAX_VISIBLE = 300
#: Default number of triples listed per patch in the history (the counts are always complete).
DEFAULT_MAX_DIFF_TRIPLES = 200
#: Longest literal shown in a record or diff (characters); longer ones are cut with an ellipsis.
MAX_LITERAL_CHARS = 2000

TERM_KINDS = ("Entity", "Identifier", "Metric", "Dimension", "Category", "TimeDimension")

# The five relation types of the vocabulary (docs/architecture.md §3), used when no vocab graph is given.
_BUILTIN_RELATIONS = (
    (EVO.Derivation, EVO.derivedFrom, "derivation", True),
    (EVO.Association, SKOS.related, "association", False),
    (EVO.Hierarchy, SKOS.broader, "hierarchy", True),
    (EVO.Composition, EVO.partOf, "composition", True),
    (EVO.Equivalence, SKOS.exactMatch, "equivalence", False),
)
# When both a specific and a general direct triple link the same pair, only the specific one is drawn.
_SUBSUMED = {"association": "derivation", "hierarchy": "composition"}

_FAMILIES = {EVO.Mapping: "mapping", EVO.Constraint: "constraint", EVO.Evidence: "evidence"}
_FAMILY_ORDER = ("term", "mapping", "constraint", "evidence")
# Structural references drawn as edges: predicate -> (edge type, edge runs subject->object?)
_STRUCTURAL = {EVO.hasMapping: ("mapping", True), EVO.mapsTerm: ("mapping", False),
               EVO.constrains: ("constrains", True), PROV.wasDerivedFrom: ("evidence", True)}

# Record fields: display names of the standard properties (vocab rdfs:label wins for evo: terms).
_FIELD_NAMES = {str(prop): name for prop, name in {
    SKOS.prefLabel: "label", SKOS.altLabel: "synonyms", SKOS.hiddenLabel: "hidden labels",
    SKOS.definition: "definition", SKOS.scopeNote: "scope note", SKOS.example: "example",
    RDFS.label: "label", RDFS.comment: "comment", OWL.deprecated: "deprecated",
    DCTERMS.isReplacedBy: "replaced by", SSSOM.confidence: "confidence",
    PROV.wasDerivedFrom: "derived from", PROV.generatedAtTime: "generated at",
    PROV.wasGeneratedBy: "generated by", PROV.used: "used", EVO.mapsTerm: "maps term",
    PROV.startedAtTime: "started at", PROV.endedAtTime: "ended at",
}.items()}
# Fields listed first, in this order; the rest follow alphabetically by display name.
_FIELD_ORDER = [
    SKOS.prefLabel, RDFS.label, SKOS.altLabel, SKOS.hiddenLabel, SKOS.definition, SKOS.scopeNote,
    EVO.mapsTerm, EVO.source, EVO.table, EVO.column, EVO.filter, EVO.aggregation, EVO.grain,
    EVO.joinPath, SSSOM.confidence, EVO.constrains, EVO.condition, EVO.triggerKeyword, EVO.severity,
    RDFS.comment, EVO.summary, EVO.rowsObserved, EVO.nullFraction, EVO.distinctCount, EVO.minValue,
    EVO.maxValue, EVO.sampleValue, EVO.valueDistribution, EVO.valuePattern, EVO.query,
    PROV.generatedAtTime, OWL.deprecated, DCTERMS.isReplacedBy,
]
_FIELD_RANK = {str(p): i for i, p in enumerate(_FIELD_ORDER)}
# Record predicates are plain ``str`` in the extraction loops: comparing rdflib terms runs Python
# ``__eq__`` and dominated the run time at 5,000 Terms.
# Predicates not listed as record fields (shown otherwise: as kind, title, sections or edges).
_HIDDEN_FIELDS = frozenset(map(str, (RDF.type, SKOS.inScheme, EVO.hasMapping, PROV.wasGeneratedBy)))
_RELATION_NODE_FIELDS = frozenset(map(str, (RDF.type, OWL.annotatedSource, OWL.annotatedTarget,
                                            OWL.annotatedProperty, EVO.relationType)))
_TYPE, _PREF_LABEL, _RDFS_LABEL = str(RDF.type), str(SKOS.prefLabel), str(RDFS.label)
_DEPRECATED, _GENERATED_BY, _DISTRIBUTION = str(OWL.deprecated), str(PROV.wasGeneratedBy), str(EVO.valueDistribution)
_COLUMN, _TABLE, _CONDITION, _COMMENT, _SUMMARY = map(str, (EVO.column, EVO.table, EVO.condition, RDFS.comment,
                                                            EVO.summary))
_LABEL_PROPS = frozenset(map(str, (SKOS.prefLabel, SKOS.altLabel, SKOS.hiddenLabel, RDFS.label)))


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


def graphs_from_dataset(dataset) -> tuple[dict[str, Graph], dict[str, PatchGraphs]]:
    """Split an rdflib ``Dataset`` into the workspace graphs and the patch graphs.

    Args:
        dataset: an ``rdflib.Dataset`` (or ``ConjunctiveGraph``) holding named graphs ``evog:content``,
            ``evog:history``, … and ``evog:patch/{id}/additions|removals/{target}``.

    Returns:
        ``(graphs, patches)``: ``{name: Graph}`` for the six workspace graphs present and
        ``{patch id: PatchGraphs}``. Other named graphs (patch ``meta``, unknown IRIs) are ignored.
    """
    graphs: dict[str, Graph] = {}
    patches: dict[str, PatchGraphs] = {}
    for graph in dataset.graphs():
        name = GRAPH.name_of(graph.identifier)
        if name is not None:
            graphs[name] = graph
            continue
        parsed = parse_patch_graph(graph.identifier)
        if parsed is None or parsed[1] == "meta":
            continue
        patch_id, kind, target = parsed
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
        raise RDFParseError(f"{path}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from exc
    return graphs_from_dataset(dataset)


# ------------------------------------------------------------------------------------------- helpers


def _local_name(iri: str) -> str:
    return re.split(r"[#/]", iri.rstrip("/#"))[-1] or iri


def _humanize(name: str) -> str:
    """``rowsObserved`` -> ``rows observed``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").lower()


def _cut(text: str, limit: int = MAX_LITERAL_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pick_literal(values: Iterable) -> str | None:
    """The English (or untagged) literal among ``values``, else the first one; None if none."""
    best = None
    for value in values:
        if not isinstance(value, Literal):
            continue
        if value.language in (None, "en") or (value.language or "").startswith("en-"):
            return str(value)
        best = best if best is not None else str(value)
    return best


def _literal_text(value: Literal) -> str:
    if value.datatype is not None and str(value.datatype).endswith(("#double", "#float", "#decimal")):
        try:
            return f"{float(value):.6g}"
        except ValueError:
            pass
    return _cut(str(value))


def _number(value) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


class _Namer:
    """Readable names of IRIs: prefixed names, base-relative paths, catalog names."""

    def __init__(self, base: str | None, catalog: Graph | None):
        self.prefixes = sorted(((ns, p) for p, ns in PREFIXES.items()), key=lambda x: -len(x[0]))
        self.base = base
        self.catalog_names: dict[str, str] = {}
        if catalog is not None:
            self._read_catalog(catalog)

    def _read_catalog(self, catalog: Graph) -> None:
        names: dict[str, str] = {}
        parents: dict[str, str] = {}
        for s, o in catalog.subject_objects(CSVW.name):
            names[str(s)] = str(o)
        for s, o in catalog.subject_objects(DCTERMS.identifier):
            names.setdefault(str(s), str(o))
        for s, o in catalog.subject_objects(DCTERMS.title):
            names.setdefault(str(s), str(o))
        for s, o in catalog.subject_objects(DCTERMS.isPartOf):
            parents[str(s)] = str(o)
        columns = {str(s) for s in catalog.subjects(RDF.type, CSVW.Column)}
        for iri, name in names.items():
            parent = parents.get(iri)
            if iri in columns and parent in names:
                name = f"{names[parent]}.{name}"
            self.catalog_names[iri] = name

    def iri(self, iri: str) -> str:
        if iri in self.catalog_names:
            return self.catalog_names[iri]
        for ns, prefix in self.prefixes:
            if iri.startswith(ns) and len(iri) > len(ns):
                return f"{prefix}:{iri[len(ns):]}"
        if self.base and iri.startswith(self.base) and len(iri) > len(self.base):
            return iri[len(self.base):]
        return iri


def _packaged_vocab() -> Graph:
    """The vocabulary shipped with evoonto (used for field names when no vocab graph is given)."""
    from evoonto.resources import vocab_graph

    return vocab_graph()


def _guess_base(content: Graph) -> str | None:
    """The workspace base IRI: the part of a Term IRI before ``term/`` (docs/architecture.md §2)."""
    for term in content.subjects(RDF.type, EVO.Term):
        text = str(term)
        cut = text.rfind("/term/")
        if cut >= 0:
            return text[: cut + 1]
    return None


def _version_number(history: Graph, version) -> int | None:
    if version is None:
        return None
    number = history.value(version, EVO.versionNumber)
    if number is not None:
        try:
            return int(number)
        except ValueError:
            return None
    match = re.search(r"version/(\d+)$", str(version))
    return int(match.group(1)) if match else None


# ---------------------------------------------------------------------------------------- extraction


class _Builder:
    """Builds the model; one instance per call of :func:`build_model`."""

    def __init__(self, graphs: Mapping[str, Graph], *, max_diff_triples: int):
        self.graphs = graphs
        self.content = graphs["content"] if graphs.get("content") is not None else Graph()
        self.vocab = graphs.get("vocab")
        self.history = graphs["history"] if graphs.get("history") is not None else Graph()
        self.max_diff_triples = max_diff_triples
        self.base = _guess_base(self.content)
        self.namer = _Namer(self.base, graphs.get("catalog"))
        self.props: dict[URIRef, list[tuple[str, Any]]] = defaultdict(list)  # subject -> [(predicate, object)]
        for s, p, o in self.content:
            if isinstance(s, URIRef):
                self.props[s].append((str(p), o))
        self.nodes: list[dict] = []
        self.index: dict[URIRef, int] = {}
        self.alias: dict[URIRef, int] = {}  # probe -> its evidence node (for diffs)
        self.edges: list[dict] = []
        self.edge_keys: dict[tuple[int, int, str], int] = {}
        self.edge_of_relation: dict[URIRef, int] = {}
        self.relation_types = self._relation_types()
        self.field_names = dict(_FIELD_NAMES)
        self._read_field_names(self.vocab if self.vocab is not None else _packaged_vocab())

    # -- schema-driven parts
    def _relation_types(self) -> list[dict]:
        found: list[tuple] = []
        if self.vocab is not None:
            for rel_type in sorted(set(self.vocab.subjects(RDF.type, EVO.RelationType)), key=str):
                prop = self.vocab.value(rel_type, EVO.directProperty)
                if prop is None:
                    continue
                label = _pick_literal(self.vocab.objects(rel_type, RDFS.label)) or _humanize(_local_name(str(rel_type)))
                found.append((rel_type, prop, label, None))
        types = []
        seen = set()
        for t, p, key, directed in _BUILTIN_RELATIONS:
            types.append({"key": key, "label": key, "property": str(p), "directed": directed, "iri": str(t)})
            seen.add(str(t))
        for rel_type, prop, label, _ in found:
            if str(rel_type) in seen:
                continue
            key = re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-") or _local_name(str(rel_type)).lower()
            types.append({"key": key, "label": label, "property": str(prop), "directed": True, "iri": str(rel_type)})
        return types

    def _read_field_names(self, vocab: Graph) -> None:
        """Field names of ``evo:`` properties from their ``rdfs:label`` in the vocabulary."""
        ns = str(EVO)
        for prop, label in vocab.subject_objects(RDFS.label):
            text = str(prop)
            if isinstance(prop, URIRef) and text.startswith(ns) and text[len(ns):len(ns) + 1].islower():
                if isinstance(label, Literal) and label.language in (None, "en"):
                    self.field_names.setdefault(text, str(label))

    def field_name(self, prop: str) -> str:
        name = self.field_names.get(prop)
        if name is None:
            name = self.field_names[prop] = _humanize(_local_name(prop))
        return name

    # -- nodes
    def _family(self, types: set) -> tuple[str, str] | None:
        kinds = [_local_name(str(t)) for t in types if str(t).startswith(str(EVO))]
        if EVO.Term in types or any(k in TERM_KINDS for k in kinds):
            specific = [k for k in kinds if k not in ("Term",) and k not in ("Mapping", "Constraint", "Evidence")]
            ordered = sorted(specific, key=lambda k: (TERM_KINDS.index(k) if k in TERM_KINDS else -1, k))
            # the most specific known kind (Category/TimeDimension over Dimension), else a custom kind
            known = [k for k in ordered if k in TERM_KINDS]
            custom = [k for k in ordered if k not in TERM_KINDS]
            kind = custom[0] if custom else (known[-1] if known else "Term")
            return "term", kind
        for cls, family in _FAMILIES.items():
            if cls in types:
                return family, family
        return None

    def collect_nodes(self) -> None:
        found = []
        for subject, pairs in self.props.items():
            family = self._family({o for p, o in pairs if p == _TYPE})
            if family is not None:
                found.append((_FAMILY_ORDER.index(family[0]), str(subject), subject, family))
        for _, text, subject, (family, kind) in sorted(found):
            self.index[subject] = len(self.nodes)
            self.nodes.append({"iri": text, "family": family, "kind": kind})
        for evidence, probe in self.content.subject_objects(PROV.wasGeneratedBy):
            if evidence in self.index and isinstance(probe, URIRef):
                self.alias[probe] = self.index[evidence]

    def _label(self, iri: URIRef, family: str) -> str:
        pairs = self.props[iri]
        label = _pick_literal(o for p, o in pairs if p == _PREF_LABEL) or _pick_literal(
            o for p, o in pairs if p == _RDFS_LABEL)
        if label:
            return _cut(label, 200)
        values = {p: o for p, o in pairs}
        if family == "mapping":
            target = values.get(_COLUMN) or values.get(_TABLE)
            if target is not None:
                return self.namer.iri(str(target))
        if family == "constraint":
            text = values.get(_CONDITION) or values.get(_COMMENT)
            if text is not None:
                return _cut(str(text), 80)
        if family == "evidence" and values.get(_SUMMARY) is not None:
            return _cut(str(values[_SUMMARY]), 80)
        return _cut(_local_name(str(iri)), 200)

    def _value(self, value) -> str | dict:
        if isinstance(value, URIRef):
            ref = self.index.get(value)
            if ref is not None:
                return {"ref": ref}
            return self.namer.iri(str(value))
        if isinstance(value, Literal):
            return _literal_text(value)
        return str(value)

    def _fields(self, pairs: list, extra: list | None = None) -> list:
        grouped: dict[str, list] = defaultdict(list)
        for p, o in pairs:
            if p in _HIDDEN_FIELDS or p in self.direct_props:
                continue
            if p == _DISTRIBUTION and isinstance(o, Literal):
                grouped[p].append(_distribution_text(str(o)))
                continue
            grouped[p].append(self._value(o))
        for p, o in extra or ():
            grouped[p].append(self._value(o))
        keys = sorted(grouped, key=lambda p: (_FIELD_RANK.get(p, len(_FIELD_RANK)), self.field_name(p)))
        return [[self.field_name(p), sorted(grouped[p], key=_sort_key)] for p in keys]

    def fill_nodes(self) -> None:
        self.direct_props = {t["property"] for t in self.relation_types}
        for iri, i in self.index.items():
            node = self.nodes[i]
            pairs = self.props[iri]
            node["label"] = self._label(iri, node["family"])
            node["deprecated"] = any(p == _DEPRECATED and str(o).lower() in ("true", "1") for p, o in pairs)
            node["search"] = sorted({_cut(str(o), 200) for p, o in pairs
                                     if p in _LABEL_PROPS and isinstance(o, Literal)} - {node["label"]})
            extra = []
            if node["family"] == "evidence":  # fold the probe activity into the evidence record
                for probe in (o for p, o in pairs if p == _GENERATED_BY):
                    extra.extend((p, o) for p, o in self.props.get(probe, ()) if p != _TYPE)
            node["fields"] = self._fields(pairs, extra)
            node["sections"] = []

    # -- edges
    def _add_edge(self, source: int, target: int, kind: str) -> int:
        key = (source, target, kind)
        if key in self.edge_keys:
            return self.edge_keys[key]
        self.edge_keys[key] = len(self.edges)
        self.edges.append({"source": source, "target": target, "type": kind, "fields": []})
        return self.edge_keys[key]

    def collect_edges(self) -> None:
        by_property = {URIRef(t["property"]): t["key"] for t in self.relation_types}
        by_type = {URIRef(t["iri"]): t["key"] for t in self.relation_types}
        semantic: list[tuple[int, int, str]] = []
        for prop, key in by_property.items():
            for s, o in self.content.subject_objects(prop):
                if s in self.index and o in self.index and s != o:
                    semantic.append((self.index[s], self.index[o], key))
        qualified: list[tuple[URIRef, int, int, str]] = []
        for rel in set(self.content.subjects(RDF.type, EVO.Relation)):
            s = self.content.value(rel, OWL.annotatedSource)
            o = self.content.value(rel, OWL.annotatedTarget)
            rel_type = self.content.value(rel, EVO.relationType)
            prop = self.content.value(rel, OWL.annotatedProperty)
            key = by_type.get(rel_type) or by_property.get(prop)
            if key and s in self.index and o in self.index:
                qualified.append((rel, self.index[s], self.index[o], key))
                semantic.append((self.index[s], self.index[o], key))
        pairs = {(min(a, b), max(a, b), k) for a, b, k in semantic}
        for a, b, key in semantic:
            specific = _SUBSUMED.get(key)
            if specific and (min(a, b), max(a, b), specific) in pairs:
                continue
            if key in ("association", "equivalence") and (b, a, key) in self.edge_keys:
                continue  # symmetric: one edge per pair
            self._add_edge(a, b, key)
        for rel, a, b, key in qualified:
            edge = self.edge_keys.get((a, b, key))
            if edge is None:
                edge = self.edge_keys.get((b, a, key))
            if edge is None:
                continue
            self.edge_of_relation[rel] = edge
            pairs = [(p, o) for p, o in self.props[rel] if p not in _RELATION_NODE_FIELDS]
            self.edges[edge]["fields"] = self._fields(pairs) + [["relation IRI", [str(rel)]]]
        # structural references: Term -> Mapping, Constraint -> target, node -> Evidence; a reference
        # from or to a qualified relation node is drawn from or to the relation's source Term
        for prop, (kind, forward) in _STRUCTURAL.items():
            for s, o in self.content.subject_objects(prop):
                a, b = self._endpoint(s), self._endpoint(o)
                if a is None or b is None or a == b:
                    continue
                if kind == "evidence" and self.nodes[b]["family"] != "evidence":
                    continue
                self._add_edge(a, b, kind) if forward else self._add_edge(b, a, kind)

    def _endpoint(self, iri) -> int | None:
        node = self.index.get(iri)
        if node is None and iri in self.edge_of_relation:
            node = self.edges[self.edge_of_relation[iri]]["source"]
        return node

    def fill_sections(self) -> None:
        """Linked satellites shown inline in a record: Mappings, Evidence, Constraints."""
        mappings_of: dict[int, set[int]] = defaultdict(set)
        evidence_of: dict[int, set[int]] = defaultdict(set)
        constraints_on: dict[int, set[int]] = defaultdict(set)
        supports: dict[int, set[int]] = defaultdict(set)
        for edge in self.edges:
            kind, source, target = edge["type"], edge["source"], edge["target"]
            if kind == "mapping":
                mappings_of[source].add(target)
            elif kind == "evidence":
                evidence_of[source].add(target)
                supports[target].add(source)
            elif kind == "constrains":
                constraints_on[target].add(source)
        empty: set[int] = set()
        for i, node in enumerate(self.nodes):
            family = node["family"]
            if family == "evidence":
                if i in supports:
                    node["fields"].append(["supports", [{"ref": j} for j in sorted(supports[i])]])
                continue
            mappings = sorted(mappings_of.get(i, empty)) if family == "term" else []
            evidence: set[int] = set(evidence_of.get(i, empty))
            constraints: set[int] = set(constraints_on.get(i, empty)) if family != "constraint" else set()
            for m in mappings:
                evidence |= evidence_of.get(m, empty)
                constraints |= constraints_on.get(m, empty)
            node["sections"] = mappings + sorted(constraints) + sorted(evidence)

    # -- history
    def history_rows(self, patches: Mapping[str, PatchGraphs]) -> list[dict]:
        h = self.history
        rows = []
        gated: set[str] = set()
        for gate in set(h.subjects(RDF.type, EVO.Gate)):
            used = list(h.objects(gate, PROV.used))
            patch = next((u for u in used if (u, RDF.type, EVO.Patch) in h or "/patch/" in str(u)), None)
            parent = next((u for u in used if u != patch and ((u, RDF.type, EVO.Version) in h or "/version/" in str(u))), None)
            generated = h.value(gate, PROV.generated)
            patch_id = _patch_id(h, patch if patch is not None else gate)
            gated.add(patch_id)
            meta = _json_object(h.value(gate, EVO.metadata)) or _json_object(h.value(patch, EVO.metadata) if patch else None)
            time = h.value(gate, PROV.endedAtTime) or h.value(gate, PROV.startedAtTime)
            rows.append({
                "id": patch_id,
                "gate": str(gate),
                "patch": str(patch) if patch is not None else None,
                "round": _int_or_none(meta.get("round")),
                "version": _version_number(h, generated),
                "parentVersion": _version_number(h, parent),
                "level": _str_or_none(h.value(patch, EVO.level)) if patch is not None else None,
                "signature": _str_or_none(h.value(patch, EVO.signature)) if patch is not None else None,
                "intervention": _str_or_none(h.value(patch, EVO.intervention)) if patch is not None else None,
                "fingerprint": _str_or_none(h.value(patch, EVO.fingerprint)) if patch is not None else None,
                "decision": _str_or_none(h.value(gate, EVO.decision)) or "unknown",
                "parentScore": _number(h.value(gate, EVO.parentScore) if h.value(gate, EVO.parentScore) is not None else meta.get("parent_score")),
                "candidateScore": _number(h.value(gate, EVO.candidateScore) if h.value(gate, EVO.candidateScore) is not None else meta.get("candidate_score")),
                "time": str(time) if time is not None else None,
            })
        for patch in set(h.subjects(RDF.type, EVO.Patch)):  # e.g. rollbacks written without a gate
            patch_id = _patch_id(h, patch)
            if patch_id in gated:
                continue
            rows.append({
                "id": patch_id, "gate": None, "patch": str(patch), "round": None, "version": None,
                "parentVersion": None, "level": _str_or_none(h.value(patch, EVO.level)),
                "signature": _str_or_none(h.value(patch, EVO.signature)),
                "intervention": _str_or_none(h.value(patch, EVO.intervention)),
                "fingerprint": _str_or_none(h.value(patch, EVO.fingerprint)),
                "decision": "applied", "parentScore": None, "candidateScore": None, "time": None,
            })
        decision_rank = {"accepted": 1, "applied": 1}
        seqs = {pid: patch.seq for pid, patch in patches.items() if patch.seq is not None}
        rows.sort(key=lambda r: (
            seqs.get(r["id"], float("inf")),
            r["round"] if r["round"] is not None else float("inf"),
            r["parentVersion"] if r["parentVersion"] is not None else -1,
            decision_rank.get(r["decision"], 0), r["time"] or "", r["id"]))
        for seq, row in enumerate(rows, start=1):
            row["seq"] = seq
            if row["round"] is None:
                row["round"] = seq
            row["diff"] = self.diff(patches.get(row["id"]))
        return rows

    def _touched(self, iri) -> tuple[int | None, int | None]:
        """(node index, edge index) a subject/object IRI of a patch triple refers to."""
        if not isinstance(iri, URIRef):
            return None, None
        node = self.index.get(iri)
        if node is None:
            node = self.alias.get(iri)
        return node, self.edge_of_relation.get(iri)

    def diff(self, patch: PatchGraphs | None) -> dict:
        result = {"added": 0, "removed": 0, "byGraph": {}, "triples": [], "nodesAdded": [], "nodesRemoved": [],
                  "edgesAdded": [], "edgesRemoved": []}
        if patch is None:
            return result
        direct = {URIRef(t["property"]): t["key"] for t in self.relation_types}
        for op, graphs, nodes_key, edges_key, count_key in (
                ("+", patch.additions, "nodesAdded", "edgesAdded", "added"),
                ("-", patch.removals, "nodesRemoved", "edgesRemoved", "removed")):
            nodes: set[int] = set()
            edges: set[int] = set()
            for target in GRAPH_NAMES:
                graph = graphs.get(target)
                if graph is None or len(graph) == 0:
                    continue
                counts = result["byGraph"].setdefault(target, [0, 0])
                counts[0 if op == "+" else 1] += len(graph)
                result[count_key] += len(graph)
                for s, p, o in sorted(graph, key=lambda t: (str(t[0]), str(t[1]), str(t[2]))):
                    s_node, s_edge = self._touched(s)
                    o_node, _ = self._touched(o)
                    if s_node is not None:
                        nodes.add(s_node)
                    if s_edge is not None:
                        edges.add(s_edge)
                    kind = direct.get(p) or _STRUCTURAL.get(p, (None,))[0]
                    if kind and s_node is not None and o_node is not None:
                        for key in ((s_node, o_node, kind), (o_node, s_node, kind)):
                            if key in self.edge_keys:
                                edges.add(self.edge_keys[key])
                    if len(result["triples"]) < self.max_diff_triples:
                        result["triples"].append([op, target, self._display(s), self.namer.iri(str(p)),
                                                  self._display(o), s_node, o_node])
            result[nodes_key] = sorted(nodes)
            result[edges_key] = sorted(edges)
        return result

    def _display(self, value) -> str:
        if isinstance(value, URIRef):
            node = self.index.get(value)
            if node is not None:
                return self.nodes[node]["label"]
            return self.namer.iri(str(value))
        if isinstance(value, Literal):
            return json.dumps(_cut(str(value), 300), ensure_ascii=False)
        return str(value)


def _patch_id(history: Graph, patch) -> str:
    """A patch's id: its ``dcterms:identifier``, else the last segment of its IRI (``B patch/{id}``)."""
    identifier = history.value(patch, DCTERMS.identifier)
    return str(identifier) if identifier is not None else _local_name(str(patch))


def _distribution_text(text: str) -> str:
    """``{"France": 4, "Spain": 1}`` -> ``France: 4, Spain: 1`` (the JSON text if it is not an object)."""
    try:
        data = json.loads(text)
    except ValueError:
        return _cut(text)
    if not isinstance(data, dict):
        return _cut(text)
    return _cut(", ".join(f"{k}: {v}" for k, v in data.items()))


def _sort_key(value) -> tuple:
    return (1, str(value["ref"])) if isinstance(value, dict) else (0, value)


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


def _str_or_none(value) -> str | None:
    return _cut(str(value), 500) if value is not None else None


@contextmanager
def _gc_paused():
    """Pause the cyclic garbage collector while building many small acyclic objects.

    Extraction allocates hundreds of thousands of dicts and lists next to large rdflib graphs; the
    collector's repeated full scans cost about two thirds of the run time at 5,000 Terms.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
    with _gc_paused():
        builder = _Builder(graphs, max_diff_triples=max_diff_triples)
        builder.collect_nodes()
        builder.fill_nodes()
        builder.collect_edges()
        builder.fill_sections()
        history = builder.history_rows(patches or {})
    families = defaultdict(int)
    for node in builder.nodes:
        families[node["family"]] += 1
    semantic = {t["key"] for t in builder.relation_types}
    return {
        "format": 1,
        "meta": {
            "title": title or (builder.base.rstrip("/") if builder.base else "evoonto ontology"),
            "base": builder.base,
            "version": version,
            "generated": datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
            "maxVisible": max_visible,
            "counts": {
                "term": families["term"], "mapping": families["mapping"],
                "constraint": families["constraint"], "evidence": families["evidence"],
                "relation": sum(1 for e in builder.edges if e["type"] in semantic),
                "triples": len(builder.content),
            },
        },
        "relationTypes": [{k: t[k] for k in ("key", "label", "property", "directed")} for t in builder.relation_types],
        "nodes": builder.nodes,
        "edges": builder.edges,
        "history": history,
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
