"""``resolve(ids, expand, depth)``: records with their linked objects (paper §3, Tool layer; DESIGN.md §5).

A handful of SPARQL SELECTs over the records' neighbourhood (focus nodes, incoming links, linked
nodes, then names/labels of everything referenced) build compact JSON:

- a Term with its Mappings (table/column/source by name, filter, aggregation, grain, join path,
  confidence), Relations (type, direction, the other end's id and label, join condition/formula),
  Constraints on the Term *and* on its Mappings, Evidence (summary, trimmed value distribution,
  samples, probe query), and ``examples``: the verified queries that use it (question and SQL,
  at most :data:`MAX_EXAMPLES`);
- a Mapping, Constraint, Evidence or Relation with its own links; any other node as its properties.

Each Evidence body is printed once per answer; later occurrences are ``{"id": ...}`` references
(an agent can resolve them). Ids that are malformed or unknown are reported per id in ``errors``.
The answer is kept within the response budget (characters of compact JSON, a hard cap) by trimming
records level by level (:data:`TRIM_LEVELS`: probe query texts and statistics repeated by a summary
first, then long strings and relation details, value lists last), spread over all records, then by
omitting the lowest-ranked records (listed in ``omitted``), so a response never approaches prompt
limits.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass
from collections.abc import Set as AbstractSet
from typing import Any, Iterable

from evoonto.errors import ToolArgumentError
from evoonto.records import boolean_text
from evoonto.tools.results import ResolveAnswer, ResolveError
from evoonto.tools.settings import ResolveSettings
from evoonto.tools.sparql import KIND_CLASSES, RDF_TYPE, XSD, check_iri, iri_ref, local_name, select

EXPANSIONS = ("mappings", "relations", "constraints", "evidence")
MAX_IDS = 50
MAX_DEPTH = 2
EVIDENCE_TEXT_CHARS = 300
EVIDENCE_VALUES = 10
#: Verified queries listed as examples of a Term (``evo:exercises``; the rest are counted).
MAX_EXAMPLES = 3

_MULTI = {"altLabel", "hiddenLabel", "sampleValue", "triggerKeyword", "types"}
# Links rendered structurally, not as plain properties.
_STRUCTURAL = {"hasMapping", "wasDerivedFrom", "mapsTerm", "constrains", "annotatedSource",
               "annotatedTarget", "annotatedProperty", "inScheme", "wasGeneratedBy", "type",
               # direct relation triples: shown through their qualified evo:Relation nodes
               "related", "broader", "narrower", "exactMatch", "derivedFrom", "partOf"}
# PROV invalidation (drift): shown as one "status" line instead
_STATUS = {"wasInvalidatedBy", "invalidatedAtTime", "changeNote"}
_FIRST_KEYS = ("prefLabel", "altLabel", "hiddenLabel", "definition", "table", "column", "source", "filter",
               "aggregation", "grain", "joinPath", "condition", "triggerKeyword", "severity", "comment", "summary")
_KIND_OF_CLASS = {iri: kind for kind, iri in KIND_CLASSES.items()}
_CATALOG_KINDS = {"Table": "table", "Column": "column", "Dataset": "source", "Probe": "probe"}


class IdCodec:
    """Short ids for the agent: IRIs under the workspace base lose the base.

    ``https://example.org/evoonto/ws/term/src/age`` <-> ``term/src/age``; other IRIs are kept whole.

    Args:
        base: the workspace base IRI (ending in ``/`` or ``#``), or None to use full IRIs.
    """

    def __init__(self, base: str | None):
        self.base = base or None

    def to_id(self, iri: str) -> str:
        """The agent-facing id of an IRI."""
        if self.base and iri.startswith(self.base) and len(iri) > len(self.base):
            return iri[len(self.base):]
        return iri

    def to_iri(self, ident: Any) -> str:
        """The IRI of an id (compact or absolute). The path under the base is normalised with
        :func:`normalize_id`, so ``term/s/t.c=v`` and ``term/s/t.c%3Dv`` name the same record.

        Raises:
            ToolArgumentError: not a string, empty, too long, or not a valid IRI once expanded.
        """
        if not isinstance(ident, str):
            raise ToolArgumentError(f"malformed id of type {type(ident).__name__}; ids are strings")
        ident = ident.strip()
        try:
            if re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", ident) or not self.base:
                iri = check_iri(ident)
                if self.base and iri.startswith(self.base) and len(iri) > len(self.base):
                    return check_iri(self.base + normalize_id(iri[len(self.base):]))
                return iri
            if not ident or ident.startswith("/"):
                raise ToolArgumentError("malformed")
            check_iri(self.base + ident)  # characters no IRI may hold make the id malformed
            return check_iri(self.base + normalize_id(ident))
        except ToolArgumentError:
            raise ToolArgumentError(f"malformed id {ident[:80]!r}") from None


def normalize_id(ident: str) -> str:
    """A compact id with every ``/``-separated segment percent-encoded as :mod:`evoonto.iris` mints
    it (``urllib.parse.quote(segment, safe="")`` after decoding any existing escapes), so the
    unencoded and the encoded spelling of an id are the same: ``term/csvs/flag-1.state=Resolved``
    -> ``term/csvs/flag-1.state%3DResolved``. Callers reject ids holding characters no IRI may
    hold (``<``, ``>``, ``"``, spaces …) before normalising (:meth:`IdCodec.to_iri`).
    """
    from urllib.parse import quote, unquote

    return "/".join(quote(unquote(segment), safe="") for segment in ident.split("/"))


def check_resolve_args(ids: Any, expand: Any, depth: Any) -> tuple[list[str], tuple[str, ...], int]:
    """Validate resolve arguments; a single string id is accepted as a one-element list.

    Raises:
        ToolArgumentError: no ids or more than 50; unknown expansion; depth not 0, 1 or 2.
    """
    if isinstance(ids, str):
        ids = [ids]
    if not isinstance(ids, (list, tuple)) or not ids:
        raise ToolArgumentError("resolve: ids must be a non-empty list of record ids")
    if len(ids) > MAX_IDS:
        raise ToolArgumentError(f"resolve: {len(ids)} ids given; at most {MAX_IDS} per call")
    if expand is None:
        expand = EXPANSIONS
    if isinstance(expand, str):
        expand = [expand]
    if not isinstance(expand, (list, tuple)):
        raise ToolArgumentError(f"resolve: expand must be a list drawn from {', '.join(EXPANSIONS)}")
    for item in expand:
        if item not in EXPANSIONS:
            shown = item[:40] if isinstance(item, str) else type(item).__name__
            raise ToolArgumentError(f"resolve: unknown expansion {shown!r}; use {', '.join(EXPANSIONS)}")
    if isinstance(depth, bool) or not isinstance(depth, int) or not 0 <= depth <= MAX_DEPTH:
        raise ToolArgumentError(f"resolve: depth must be an integer from 0 to {MAX_DEPTH}")
    return list(ids), tuple(dict.fromkeys(expand)), depth


_INTEGER = {XSD + t for t in ("integer", "int", "long", "short", "nonNegativeInteger", "positiveInteger")}
_REAL = {XSD + t for t in ("decimal", "double", "float")}


def _typed(lexical: str, datatype: str | None) -> Any:
    """A JSON-friendly value of a literal: numbers and booleans typed, anything else the string."""
    try:
        if datatype in _INTEGER:
            return int(lexical)
        if datatype in _REAL:
            return float(lexical)
    except ValueError:
        return lexical
    if datatype == XSD + "boolean":
        return boolean_text(lexical)
    return lexical


def _values(iris: Iterable[str]) -> str:
    return " ".join(iri_ref(i) for i in iris)


class _Graph:
    """Properties of the nodes fetched so far: ``props[iri][local predicate] -> [(value, is_iri)]``.

    Values are de-duplicated with a set per node and predicate. An Evidence's ``evo:sampleValue``
    list is fetched only up to what an answer shows (the first :data:`EVIDENCE_VALUES` in string
    order): the limit runs in SPARQL, so a high-cardinality Evidence costs 10 rows, not thousands.
    """

    def __init__(self, ontology: Any):
        self.ontology = ontology
        self.props: dict[str, dict[str, list[tuple[str, bool]]]] = {}
        self._seen: dict[str, set[tuple[str, tuple[Any, bool]]]] = {}

    def fetch(self, iris: Iterable[str]) -> None:
        """Fetch every property of the nodes in ``iris`` not fetched yet (two SELECTs at most)."""
        todo = sorted({i for i in iris if i not in self.props})
        if not todo:
            return
        for iri in todo:
            self.props[iri] = defaultdict(list)
            self._seen[iri] = set()
        rows = select(self.ontology, f"""
            SELECT ?s ?p ?o (isIRI(?o) AS ?iri) (DATATYPE(?o) AS ?dt)
            WHERE {{ VALUES ?s {{ {_values(todo)} }} ?s ?p ?o
                     FILTER(?p != evo:sampleValue || NOT EXISTS {{ ?s a evo:Evidence }}) }}""")
        self._add(rows)
        evidence = [row["s"] for row in rows if row["p"] == RDF_TYPE and row["o"] == KIND_CLASSES["evidence"]]
        if evidence:
            self._add(select(self.ontology, "SELECT ?s ?p ?o ?iri ?dt WHERE { " + " UNION ".join(
                f"{{ SELECT ?s ?p ?o (isIRI(?o) AS ?iri) (DATATYPE(?o) AS ?dt) WHERE {{ "
                f"VALUES ?s {{ {iri_ref(e)} }} VALUES ?p {{ evo:sampleValue }} ?s ?p ?o }} "
                f"ORDER BY STR(?o) LIMIT {EVIDENCE_VALUES} }}" for e in sorted(set(evidence))) + " }"))

    def _add(self, rows: list[dict[str, str]]) -> None:
        for row in rows:
            pred = "types" if row["p"] == RDF_TYPE else local_name(row["p"])
            is_iri = boolean_text(str(row.get("iri") or ""))
            entry = (row["o"] if is_iri else _typed(row["o"], row.get("dt")), is_iri)
            seen = self._seen[row["s"]]
            if (pred, entry) not in seen:
                seen.add((pred, entry))
                self.props[row["s"]][pred].append(entry)

    def incoming(self, iris: Iterable[str], predicates: str) -> list[dict[str, str]]:
        iris = sorted(set(iris))
        if not iris:
            return []
        return select(self.ontology, f"""
            SELECT ?s ?p ?x WHERE {{ VALUES ?s {{ {_values(iris)} }} VALUES ?p {{ {predicates} }} ?x ?p ?s }}""")

    def objects(self, iri: str, pred: str) -> list[str]:
        return [v for v, is_iri in self.props.get(iri, {}).get(pred, ()) if is_iri]

    def literals(self, iri: str, pred: str) -> list[str]:
        return [str(v) for v, is_iri in self.props.get(iri, {}).get(pred, ()) if not is_iri]

    def kind(self, iri: str) -> str:
        types = [v for v, _ in self.props.get(iri, {}).get("types", ())]
        for t in types:
            if t in _KIND_OF_CLASS:
                return _KIND_OF_CLASS[t]
        for t in types:
            if local_name(t) in _CATALOG_KINDS:
                return _CATALOG_KINDS[local_name(t)]
        return "node"

    def label(self, iri: str) -> str:
        if self.kind(iri) == "mapping":
            parts = [self.label(o) for p in ("table", "column") for o in self.objects(iri, p)[:1]]
            if parts:
                return ".".join(parts)
        for pred in ("prefLabel", "label", "name", "identifier", "title", "altLabel"):
            values = self.literals(iri, pred)
            if values:
                return values[0]
        return local_name(iri)


class Resolver:
    """Builds resolve answers for one ontology version.

    Args:
        ontology: the Ontology (``query()`` over the active graphs).
        settings: response budget (characters) and evidence records per record.
        codec: id <-> IRI conversion.
    """

    def __init__(self, ontology: Any, settings: ResolveSettings, codec: IdCodec, joins: Any = None):
        self.ontology = ontology
        self.settings = settings
        self.codec = codec
        self.joins = joins  # () -> JoinGraph of the version, for the "joins" section (None: none)

    # -- public -----------------------------------------------------------------------------------

    def resolve(self, ids: Any, *, expand: Any = EXPANSIONS, depth: Any = 1) -> ResolveAnswer:
        """Resolve ``ids`` (see module docstring).

        Returns:
            ``{"records": [...], "errors": [{"id", "error"}], "truncated": bool}`` plus ``omitted``
            (ids left out to respect the budget) when needed, and ``joins`` (the join tree between
            the tables of the resolved records, :func:`evoonto.tools.joinpaths.joins_section`) when
            several records on two or more tables are resolved together and a join graph is given;
            compact JSON of the whole dict is at
            most ``settings.response_budget`` characters.
        Raises:
            ToolArgumentError: see :func:`check_resolve_args`.
        """
        ids, expand, depth = check_resolve_args(ids, expand, depth)
        errors: list[ResolveError] = []
        wanted: list[tuple[str, str]] = []
        for ident in ids:
            try:
                wanted.append((ident, self.codec.to_iri(ident)))
            except ToolArgumentError as exc:
                shown = ident[:80] if isinstance(ident, str) else repr(ident)[:80]
                errors.append({"id": shown, "error": str(exc)})
        graph = _Graph(self.ontology)
        graph.fetch(iri for _, iri in wanted)
        records = []
        for ident, iri in dict.fromkeys(wanted):
            if not graph.props.get(iri):
                errors.append({"id": ident[:200], "error": "unknown id (browse first to find ids)"})
        found = [iri for _, iri in dict.fromkeys(wanted) if graph.props.get(iri)]
        records = self._records(graph, found, expand, depth)
        _strip_private(records)
        _share_evidence(records)
        answer: ResolveAnswer = {"records": records, "errors": errors, "truncated": False}
        if self.joins is not None and len(found) > 1:
            from evoonto.tools.joinpaths import joins_section, tables_of

            located = tables_of(self.ontology, found)
            section = joins_section(self.joins(), [located[i] for i in found if i in located], self.codec.to_id)
            if section is not None:
                answer["joins"] = section
        return self._fit(answer)

    # -- building ---------------------------------------------------------------------------------

    def _records(self, graph: _Graph, focus: list[str], expand: tuple[str, ...], depth: int) -> list[dict]:
        links = self._collect_links(graph, focus, expand if depth >= 1 else ())
        records = [self._record(graph, iri, links, expand if depth >= 1 else ()) for iri in focus]
        if depth >= 2 and "relations" in expand:
            ends = sorted({rel["other"]["iri"] for rec in records for rel in rec.get("relations", ())
                           if "iri" in rel["other"]})
            if ends:
                nested = {r["_iri"]: r for r in self._records(graph, ends, ("mappings",), 1)}
                for rec in records:
                    for rel in rec.get("relations", ()):
                        other = nested.get(rel["other"].get("iri"))
                        if other and other.get("mappings"):
                            rel["other"]["mappings"] = [
                                {k: m[k] for k in ("table", "column") if k in m} for m in other["mappings"]
                            ]
        return records

    def _collect_links(self, graph: _Graph, focus: list[str], expand: tuple[str, ...]) -> dict:
        links: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        if not expand:
            return links
        incoming = graph.incoming(focus, "evo:mapsTerm owl:annotatedSource owl:annotatedTarget evo:constrains "
                                         "evo:exercises")
        for row in incoming:
            links[row["s"]][local_name(row["p"])].append(row["x"])
        # the verified queries that use a Term (its examples), first MAX_EXAMPLES by IRI
        graph.fetch(q for iri in focus for q in sorted(set(links[iri]["exercises"]))[:MAX_EXAMPLES])
        mappings = {m for iri in focus for m in graph.objects(iri, "hasMapping") + links[iri]["mapsTerm"]}
        if "constraints" in expand and mappings:
            for row in graph.incoming(mappings, "evo:constrains"):
                links[row["s"]]["constrains"].append(row["x"])
        nodes = set(mappings)
        for iri in focus:
            nodes.update(links[iri]["annotatedSource"] + links[iri]["annotatedTarget"] + links[iri]["constrains"])
            nodes.update(graph.objects(iri, "mapsTerm") + graph.objects(iri, "constrains"))
            nodes.update(graph.objects(iri, "annotatedSource") + graph.objects(iri, "annotatedTarget"))
        for m in mappings:
            nodes.update(links[m]["constrains"])
        graph.fetch(nodes)
        # evidence of everything shown, the probe behind each evidence, names of referenced nodes
        evidence = {e for n in list(nodes) + focus for e in graph.objects(n, "wasDerivedFrom")}
        graph.fetch(evidence)
        refs = set()
        for n in list(graph.props):
            for pred in ("table", "column", "source", "wasGeneratedBy", "annotatedSource", "annotatedTarget",
                         "mapsTerm", "constrains", "relationType", "severity", "isReplacedBy", "used"):
                refs.update(graph.objects(n, pred))
        graph.fetch(refs)
        return links

    def _record(self, graph: _Graph, iri: str, links: dict, expand: tuple[str, ...]) -> dict[str, Any]:
        kind = graph.kind(iri)
        rec = self._properties(graph, iri, kind)
        if kind == "term":
            mappings = sorted(dict.fromkeys(graph.objects(iri, "hasMapping") + links[iri]["mapsTerm"]))
            if "mappings" in expand:
                rec["mappings"] = [self._mapping(graph, m, links, expand) for m in mappings]
            elif mappings:
                rec["mappingIds"] = [self.codec.to_id(m) for m in mappings]
            if "relations" in expand:
                rels = sorted(set(links[iri]["annotatedSource"] + links[iri]["annotatedTarget"]))
                rec["relations"] = [self._relation(graph, r, focus=iri) for r in rels]
            if "constraints" in expand:
                rec["constraints"] = [self._constraint(graph, c) for c in sorted(set(links[iri]["constrains"]))]
            examples = sorted(set(links[iri]["exercises"]))
            if examples:
                rec["examples"] = [{"id": self.codec.to_id(q), "question": (graph.literals(q, "question") or [""])[0],
                                    "sql": (graph.literals(q, "sql") or [""])[0]} for q in examples[:MAX_EXAMPLES]]
                if len(examples) > MAX_EXAMPLES:
                    rec["more_examples"] = len(examples) - MAX_EXAMPLES
        elif kind == "mapping":
            terms = graph.objects(iri, "mapsTerm")
            if terms:
                rec["term"] = self._ref(graph, terms[0])
            if "constraints" in expand:
                rec["constraints"] = [self._constraint(graph, c) for c in sorted(set(links[iri]["constrains"]))]
        elif kind == "constraint":
            rec["on"] = [self._ref(graph, t) for t in graph.objects(iri, "constrains")]
        elif kind == "relation":
            rec.update(self._relation(graph, iri, focus=None))
            rec.pop("id", None)
            rec["id"] = self.codec.to_id(iri)
        if kind != "evidence" and "evidence" in expand:
            # a Term's evidence that one of its Mappings already shows is not repeated
            shown = {e["id"] for m in rec.get("mappings", ()) for e in m.get("evidence", ())}
            rec["evidence"] = self._evidence_list(graph, iri, exclude=shown)
        rec["_iri"] = iri
        return rec

    def _properties(self, graph: _Graph, iri: str, kind: str) -> dict[str, Any]:
        rec: dict[str, Any] = {"id": self.codec.to_id(iri), "kind": kind}
        stale = graph.literals(iri, "invalidatedAtTime")
        if stale:  # marked by a drift check (evoonto.drift): PROV invalidation shown as a status
            notes = graph.literals(iri, "changeNote")
            rec["status"] = f"stale since {min(stale)}" + (f": {_cut(notes[-1], EVIDENCE_TEXT_CHARS)}" if notes else "")
        types = [local_name(t) for t, _ in graph.props.get(iri, {}).get("types", ())]
        subtypes = [t for t in types if t.lower() != kind and t not in ("Concept", "Entity_", "Thing")]
        if subtypes:
            rec["types"] = subtypes
        props = graph.props.get(iri, {})
        order = [k for k in _FIRST_KEYS if k in props] + sorted(k for k in props if k not in _FIRST_KEYS)
        for pred in order:
            values = sorted(props[pred], key=lambda entry: (str(entry[0]), entry[1]))
            if pred in _STRUCTURAL or pred in _STATUS or pred == "types":
                continue
            if pred in ("table", "column", "source", "severity", "relationType", "isReplacedBy"):
                shown = [graph.label(v) if pred != "isReplacedBy" else self.codec.to_id(v) for v, _ in values]
            elif pred == "valueDistribution":
                rec[pred] = _trim_distribution(values[0][0])
                continue
            else:
                shown = [self.codec.to_id(v) if is_iri else v for v, is_iri in values]
            if kind == "evidence" and pred == "sampleValue":
                shown = shown[:EVIDENCE_VALUES]
            rec[pred] = shown if (pred in _MULTI or len(shown) > 1) else shown[0]
        if kind == "evidence":
            for probe in graph.objects(iri, "wasGeneratedBy"):
                query = graph.literals(probe, "query")
                if query:
                    rec["query"] = _cut(query[0], EVIDENCE_TEXT_CHARS)
            for key in ("summary", "query"):
                if isinstance(rec.get(key), str):
                    rec[key] = _cut(rec[key], EVIDENCE_TEXT_CHARS)
        return rec

    def _ref(self, graph: _Graph, iri: str) -> dict[str, str]:
        return {"id": self.codec.to_id(iri), "label": graph.label(iri)}

    def _mapping(self, graph: _Graph, iri: str, links: dict, expand: tuple[str, ...]) -> dict[str, Any]:
        rec = self._properties(graph, iri, "mapping")
        rec.pop("kind", None)
        if "constraints" in expand:
            constraints = sorted(set(links[iri]["constrains"]))
            if constraints:
                rec["constraints"] = [self._constraint(graph, c) for c in constraints]
        if "evidence" in expand:
            evidence = self._evidence_list(graph, iri)
            if evidence:
                rec["evidence"] = evidence
        return rec

    def _constraint(self, graph: _Graph, iri: str) -> dict[str, Any]:
        rec = self._properties(graph, iri, "constraint")
        rec.pop("kind", None)
        return rec

    def _relation(self, graph: _Graph, iri: str, focus: str | None) -> dict[str, Any]:
        sources, targets = graph.objects(iri, "annotatedSource"), graph.objects(iri, "annotatedTarget")
        rel_type = graph.objects(iri, "relationType")
        rec: dict[str, Any] = {"id": self.codec.to_id(iri),
                               "type": local_name(rel_type[0]) if rel_type else "Relation"}
        if focus is not None:
            outgoing = focus in sources
            other = (targets if outgoing else sources) or [""]
            rec["direction"] = "out" if outgoing else "in"
            rec["other"] = {**self._ref(graph, other[0]), "iri": other[0]} if other[0] else {}
        else:
            if sources:
                rec["source"] = self._ref(graph, sources[0])
            if targets:
                rec["target"] = self._ref(graph, targets[0])
        for pred in ("joinCondition", "formula", "comment"):
            values = graph.literals(iri, pred)
            if values:
                rec[pred] = values[0]
        return rec

    def _evidence_list(self, graph: _Graph, iri: str,
                       exclude: AbstractSet[str] = frozenset()) -> list[dict[str, Any]]:
        """Up to ``evidence_budget`` Evidence records of ``iri`` (sorted by IRI), skipping ids in ``exclude``."""
        out = []
        chosen = [e for e in sorted(graph.objects(iri, "wasDerivedFrom"))
                  if graph.kind(e) == "evidence" and self.codec.to_id(e) not in exclude]
        for e in chosen[: max(self.settings.evidence_budget, 0)]:
            rec = self._properties(graph, e, "evidence")
            rec.pop("kind", None)
            for key in ("generatedAtTime",):
                rec.pop(key, None)
            out.append(rec)
        return out

    # -- budget -----------------------------------------------------------------------------------

    def _fit(self, answer: ResolveAnswer) -> ResolveAnswer:
        """Keep ``answer`` within the response budget (a hard cap, characters of compact JSON).

        Records are trimmed through :data:`TRIM_LEVELS` one record and one level at a time (see
        :func:`_spread`), so the budget is spread over the records instead of the first ones keeping
        everything and the later ones being dropped. Value lists (sample values,
        value distributions) are shortened only after probe texts, repeated statistics, long strings
        and relation details. When every record is at the last level and the answer is still too
        large, the lowest-ranked record is listed in ``omitted`` and the trimming starts over.
        """
        budget = self.settings.response_budget
        if _size(answer) <= budget:
            return answer
        records = list(answer["records"])
        omitted: list[str] = []
        shell: ResolveAnswer = {**answer, "records": [], "truncated": True}
        while True:
            if omitted:
                shell["omitted"] = omitted
            fitted = _spread(records, budget - _size(shell))
            if fitted is not None or not records:
                break
            omitted.insert(0, records.pop()["id"])
        result: ResolveAnswer = {**shell, "records": fitted or []}
        while _size(result) > budget and result["errors"]:
            result["errors"].pop()
        return result


@dataclass(frozen=True)
class Trim:
    """One trimming level of a record (None = no limit).

    Attributes:
        drop_probe: drop Evidence probe query texts and the counts its summary repeats.
        drop_keys: keys left out of Mappings (``source``, ``confidence``) and ``types`` anywhere.
        max_str: characters per string (ids are never cut).
        max_relations: Relations kept per record; ``relation_ids`` keeps their ids.
        max_labels: alternative/hidden labels kept.
        max_list: items of any other list (mappings, constraints, evidence, keywords).
        max_values: sample values and value-distribution entries kept.
    """

    drop_probe: bool = True
    drop_keys: tuple[str, ...] = ()
    max_str: int | None = None
    max_relations: int | None = None
    relation_ids: bool = True
    max_labels: int | None = None
    max_list: int | None = None
    max_values: int | None = None


_MINOR = ("source", "confidence", "types")
#: Trimming levels, mildest first: value vocabularies are shortened last because they are what lets
#: an agent find literal values (e.g. 'Virginia', 'usa') for filters.
TRIM_LEVELS = (
    Trim(),
    Trim(max_str=160, max_relations=6, relation_ids=False, max_labels=3),
    Trim(drop_keys=_MINOR, max_str=100, max_relations=3, relation_ids=False, max_labels=2, max_list=4),
    Trim(drop_keys=_MINOR, max_str=60, max_relations=1, relation_ids=False, max_labels=1, max_list=3),
    Trim(drop_keys=_MINOR, max_str=60, max_relations=0, relation_ids=False, max_labels=1, max_list=2,
         max_values=5),
    Trim(drop_keys=_MINOR, max_str=40, max_relations=0, relation_ids=False, max_labels=1, max_list=1,
         max_values=2),
    Trim(drop_keys=_MINOR, max_str=40, max_relations=0, relation_ids=False, max_labels=1, max_list=1,
         max_values=1),
)
_FIRST_VALUE_LEVEL = next(i for i, t in enumerate(TRIM_LEVELS) if t.max_values is not None)
# Evidence statistics that the builder's summary sentence already states (minValue/maxValue are kept:
# they are values an agent may filter on, and a long summary may later be cut).
_SUMMARISED = ("distinctCount", "nullFraction", "rowsObserved", "valuePattern")
_LABELS = ("altLabel", "hiddenLabel")
_VALUES = ("sampleValue", "valueDistribution")
_UNCUT = ("id", "isReplacedBy", "mappingIds", "omitted")


def _spread(records: list[dict], room: int) -> list[dict] | None:
    """Trimmed copies of ``records`` whose compact JSON list fits in ``room`` characters, or None.

    Repeatedly moves one record to its next level of :data:`TRIM_LEVELS` until the list fits. Up to
    the levels that shorten value lists, the record at the mildest level goes first (ties: the
    lowest-ranked), so no record loses detail while another still shows probe texts; from there on
    the lowest-ranked record is trimmed all the way before the next one, so the best hits keep their
    value vocabularies while lower hits still show their tables and columns.
    """
    if not records:
        return [] if room >= 0 else None
    levels = [-1] * len(records)
    shown = list(records)
    sizes = [_size(r) for r in records]
    while sum(sizes) + len(sizes) - 1 > room:
        candidates = [i for i, lvl in enumerate(levels) if lvl + 1 < len(TRIM_LEVELS)]
        if not candidates:
            return None
        i = max(candidates, key=lambda j: (1, -levels[j], j) if levels[j] + 1 < _FIRST_VALUE_LEVEL else (0, 0, j))
        levels[i] += 1
        shown[i] = _trim(records[i], TRIM_LEVELS[levels[i]])
        sizes[i] = _size(shown[i])
    return shown


def _trim(obj: Any, trim: Trim, key: str | None = None) -> Any:
    """A trimmed copy of a record (or part of one) under ``trim``; ``more_<key>`` counts what was cut."""
    if isinstance(obj, dict):
        evidence = key == "evidence" or obj.get("kind") == "evidence"
        relation = key == "relations"
        mapping = key == "mappings" or obj.get("kind") == "mapping"
        out: dict[str, Any] = {}
        for k, value in obj.items():
            if evidence and trim.drop_probe and (k == "query" or (k in _SUMMARISED and "summary" in obj)):
                continue
            if relation and k == "id" and not trim.relation_ids:
                continue
            if k in trim.drop_keys and (k == "types" or mapping):
                continue
            limit = (trim.max_relations if k == "relations" else trim.max_labels if k in _LABELS
                     else trim.max_values if k in _VALUES else trim.max_list)
            if isinstance(value, dict) and k == "valueDistribution" and limit is not None and len(value) > limit:
                out[f"more_{k}"] = len(value) - limit
                value = dict(list(value.items())[:limit])
            elif isinstance(value, list) and limit is not None and len(value) > limit and k not in _UNCUT:
                out[f"more_{k}"] = len(value) - limit
                value = value[:limit]
            if k in _UNCUT:
                out[k] = value
            else:
                out[k] = _trim(value, trim, k)
        return out
    if isinstance(obj, list):
        return [_trim(v, trim, key) for v in obj]
    if isinstance(obj, str) and trim.max_str is not None and len(obj) > trim.max_str:
        return _cut(obj, trim.max_str)
    return obj


def _size(obj: Any) -> int:
    return len(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _trim_distribution(text: str, limit: int = EVIDENCE_VALUES) -> Any:
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        return _cut(text, EVIDENCE_TEXT_CHARS)
    if isinstance(data, dict):
        return {str(k)[:80]: v for k, v in list(data.items())[:limit]}
    return [str(x)[:80] for x in data[:limit]] if isinstance(data, list) else _cut(text, EVIDENCE_TEXT_CHARS)


def _share_evidence(records: list[dict]) -> None:
    """Print each Evidence body once per answer, in place.

    The first occurrence (in record order, depth first) keeps the body; later ones under an
    ``evidence`` list become ``{"id": ...}`` references to it. An Evidence resolved as a record of
    its own always keeps its body, so nested copies of it become references.
    """
    seen = {r["id"] for r in records if r.get("kind") == "evidence"}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "evidence" and isinstance(value, list):
                    for i, item in enumerate(value):
                        if isinstance(item, dict) and "id" in item:
                            if item["id"] in seen:
                                value[i] = {"id": item["id"]}
                            else:
                                seen.add(item["id"])
                                walk(item)
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(records)


def _strip_private(obj: Any) -> None:
    """Remove internal keys and empty lists, in place."""
    if isinstance(obj, dict):
        obj.pop("_iri", None)
        for key in [k for k, v in obj.items() if v == []]:
            del obj[key]
        for value in obj.values():
            _strip_private(value)
        other = obj.get("other")
        if isinstance(other, dict):
            other.pop("iri", None)
    elif isinstance(obj, list):
        for value in obj:
            _strip_private(value)

