"""Semantic queries: metrics × dimensions × filters over the ontology, compiled to dialect SQL.

An agent (or a person) asks for *what* it wants in terms of ontology records and the compiler writes
the SQL, along the join paths the ontology knows, with the required Constraints applied and each
measure aggregated at its own grain (the approach of dbt MetricFlow). What the query cannot express
comes back as ``unavailable`` with the missing piece; what it cannot decide (two join paths, a Term
mapped to two columns) comes back as a ``question``. Nothing is guessed.

The semantic query (JSON; :data:`SEMANTIC_QUERY_SCHEMA` is its JSON Schema)::

    {
      "metrics":    [M, ...],   # aggregated values
      "dimensions": [D, ...],   # GROUP BY keys (with metrics) or the listed columns (without metrics)
      "filters":    [F, ...],   # AND-joined
      "order":      [{"term": REF | "metric": M, "grain": G, "desc": true}, ...],
      "limit":      10,
      "distinct":   false,      # without metrics: distinct rows (default: every row)
      "joins":      ["a.x = b.y", ...],  # the join to use where the ontology knows several
      "source":     "id",       # when the workspace has several sources
      "question":   "text"      # optional: trigger keywords of Constraints are looked up in it
    }
    M   = REF (a metric Term: its Mapping's aggregation or expression)
        | {"term": REF, "aggregate": "count|count_distinct|sum|avg|min|max"}
        | {"aggregate": "count", "of": REF}     # COUNT(*) of the table of REF (an Entity Term, a table)
        | {..., "filters": [F, ...]}             # over the rows these filters keep: AGG(CASE WHEN ... END)
        | {"formula": "100 * a / b", "inputs": {"a": M, "b": M}}   # derived (inputs cast to floating point)
    D   = REF | {"term": REF, "grain": "year|month|day", "hidden": true}   # hidden: grouped, not shown
    F   = {"term": REF, "op": OP, "value": V}   # a comparison on a column
        | {"term": REF}                          # a value Term (a Mapping with evo:filter) or a filter Term
        | {"constraint": REF}                    # a named filter Constraint (evo:condition)
        | {"metric": M, "op": OP, "value": V}    # on an aggregate (HAVING)
        | {"any": [F, ...]}                      # OR
        | {"not": F}
    OP  = "=", "!=", "<", "<=", ">", ">=", "in", "not in", "like", "not like", "between",
          "is null", "is not null"
    V   = a string, number, boolean, a list (in, not in, between), or {"query": Q} (a semantic query
          returning one column: IN (SELECT ...) or a scalar comparison)
    REF = a record id: a Term, a catalog column or a catalog table (as browse/resolve return them), or
          a Term's preferred or alternative label (a label several Terms carry comes back as a question)

A top-level ``{"set": "union|union all|intersect|except", "queries": [Q, Q]}`` combines two queries.

The answer (:func:`compile_semantic`)::

    {"status": "ok", "sql": "...", "dialect": "sqlite", "source": "id",
     "joins": [{from, to, condition, cardinality, origin, evidence}],   # every hop used
     "grain": [{"measure": table, "fan_out": [hops], "method": "..."}],  # measures pre-aggregated
     "constraints": [{id, condition, comment}], "value_checks": [...], "notes": [...]}
    {"status": "question", "question": "...", "choices": [...]}
    {"status": "unavailable", "missing": "...", "detail": "..."}

Joins follow :class:`~evoonto.tools.joinpaths.JoinGraph` (declared keys, probed and verified joins;
a multi-column key is one join). Where two known joins link two tables, or two cheapest routes link a
needed table to the tables joined so far through different tables or columns (an account's client
through the district or through disp), the answer is a question listing each choice's joins.
When a join from a measure's table fans out (a hop whose far side
is not unique), the measure's rows are first reduced to distinct (key, dimension values) pairs and
aggregated once per row of the measure's table: a SUM or COUNT is never multiplied by the join.
Several measure tables are aggregated separately and joined on the dimensions.
"""

from __future__ import annotations

import heapq
import math
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from sqlglot import exp
import sqlglot

from evoonto.errors import EvoontoError, ToolArgumentError

__all__ = ["SEMANTIC_QUERY_SCHEMA", "SEMANTIC_ANSWER_OUTPUT", "SemanticAnswer", "SemanticVocabulary",
           "compile_semantic", "semantic_vocabulary", "AGGREGATES", "OPERATORS", "GRAINS"]

AGGREGATES = ("count", "count_distinct", "sum", "avg", "min", "max")
OPERATORS = ("=", "!=", "<", "<=", ">", ">=", "in", "not in", "like", "not like", "between",
             "is null", "is not null")
GRAINS = ("year", "month", "day")
SET_OPERATIONS = ("union", "union all", "intersect", "except")
#: Largest semantic query accepted, in characters of its JSON text.
MAX_QUERY_CHARS = 20_000
#: Deepest nesting of semantic queries (filter values and set operations).
MAX_DEPTH = 4
#: Deepest nesting of filters (any / not) and of derived metrics (formula inputs) within one query.
MAX_NESTING = 8
#: Most metric and filter nodes one query may hold, a derived metric counted as the metrics it expands to.
MAX_NODES = 200
_GRAIN_FORMAT = {"year": "%Y", "month": "%Y-%m", "day": "%Y-%m-%d"}

_REF = {"type": "string", "minLength": 1, "maxLength": 500,
        "description": "a record id (Term, catalog column or table) as browse/resolve return it"}
_METRIC = {"description": "a metric Term id, {term, aggregate} or {aggregate: count, of}",
           "anyOf": [_REF, {"type": "object", "properties": {
               "term": _REF, "of": _REF, "aggregate": {"type": "string", "enum": list(AGGREGATES)},
               "filters": {"type": "array", "items": {"type": "object"},
                           "description": "row filters of this metric only (AGG(CASE WHEN ... END))"},
               "formula": {"type": "string", "maxLength": 500,
                           "description": "a derived metric: + - * / over the names of inputs"},
               "inputs": {"type": "object", "description": "name -> metric, for formula"}},
               "additionalProperties": False}]}
_DIMENSION = {"description": "a Term/column id, or {term, grain, hidden}",
              "anyOf": [_REF, {"type": "object", "properties": {
                  "term": _REF, "grain": {"type": "string", "enum": list(GRAINS)}, "hidden": {"type": "boolean"}},
                  "required": ["term"], "additionalProperties": False}]}

#: The JSON Schema of a semantic query (the ``query`` argument of the ``semantic_query`` tool).
SEMANTIC_QUERY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "metrics, dimensions, filters, order and limit over ontology records (see the tool description)",
    "properties": {
        "metrics": {"type": "array", "maxItems": 20, "items": _METRIC},
        "dimensions": {"type": "array", "maxItems": 20, "items": _DIMENSION},
        "filters": {"type": "array", "maxItems": 30, "items": {"type": "object"},
                    "description": "{term, op, value} | {term} | {constraint} | {metric, op, value} | {any: [...]} "
                                   "| {not: F}"},
        "order": {"type": "array", "maxItems": 10, "items": {"type": "object"},
                  "description": "{term | metric, grain?, desc?}"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 1_000_000},
        "distinct": {"type": "boolean"},
        "joins": {"type": "array", "maxItems": 20, "items": {"type": "string", "maxLength": 500},
                  "description": "join conditions chosen where the ontology knows several (as a question lists them)"},
        "source": {"type": "string", "maxLength": 200},
        "question": {"type": "string", "maxLength": 20_000},
        "output": {"type": "array", "maxItems": 40, "items": {"type": "string", "pattern": "^[dm][0-9]+$"},
                   "description": "order of the answer's columns: d<i> = dimensions[i], m<i> = metrics[i] "
                                  "(default: the dimensions, then the metrics)"},
        "set": {"type": "string", "enum": list(SET_OPERATIONS)},
        "queries": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "object"}},
    },
    "additionalProperties": False,
}


#: JSON Schema of the answer (the tool's structured result).
SEMANTIC_ANSWER_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"status": {"type": "string", "enum": ["ok", "question", "unavailable"]},
                   "sql": {"type": "string"}, "dialect": {"type": ["string", "null"]},
                   "source": {"type": ["string", "null"]}, "joins": {"type": "array", "items": {"type": "object"}},
                   "grain": {"type": "array", "items": {"type": "object"}},
                   "constraints": {"type": "array", "items": {"type": "object"}},
                   "value_checks": {"type": "array", "items": {"type": "object"}},
                   "notes": {"type": "array", "items": {"type": "string"}}, "result": {"type": "object"},
                   "question": {"type": "string"}, "choices": {"type": "array"},
                   "missing": {"type": "string"}, "detail": {"type": "string"}},
    "required": ["status"],
}


class _Unavailable(Exception):
    """Raised inside the compiler: the query cannot be expressed (``missing`` names the piece)."""

    def __init__(self, missing: str, detail: str = ""):
        super().__init__(missing)
        self.missing, self.detail = missing, detail


class _Question(Exception):
    """Raised inside the compiler: the query is ambiguous; ``choices`` are the readings."""

    def __init__(self, question: str, choices: list[Any]):
        super().__init__(question)
        self.question, self.choices = question, choices


SemanticAnswer = dict  # {"status": "ok" | "question" | "unavailable", ...} (see the module docstring)


# -- what the ontology offers -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Place:
    """Where a record lives: a column (``column`` set), a table (``column`` None) or an expression."""

    source: str
    table: str
    column: str | None = None
    filter: str | None = None        # the Mapping's evo:filter (a value Term)
    aggregation: str | None = None   # the Mapping's evo:aggregation (a metric Term over a column)
    expression: str | None = None    # the Mapping's evo:expression (a mined metric or grain)


@dataclass
class SemanticVocabulary:
    """The records a semantic query may name, read once per ontology version.

    Attributes:
        places: record IRI (Term, catalog column or table) -> where it lives (:class:`_Place`: source id,
            table, column or None, the Mapping's filter, aggregation and expression).
        kinds: Term IRI -> kind local names (``Metric``, ``Dimension`` …); labels: Term IRI -> prefLabel.
        by_label: case-folded preferred/alternative label -> the Term IRIs carrying it.
        constraints: Constraint IRI -> (its ``evo:condition``, the places it constrains).
        dialects: source id -> sqlglot dialect; kinds_of_source: source id -> ``evo:sourceKind``.
    """

    places: dict[str, list[_Place]] = field(default_factory=dict)   # record IRI -> places
    kinds: dict[str, set[str]] = field(default_factory=dict)        # Term IRI -> kind local names
    labels: dict[str, str] = field(default_factory=dict)
    by_label: dict[str, set[str]] = field(default_factory=dict)     # pref/alt label casefolded -> Term IRIs
    constraints: dict[str, tuple[str, list[_Place]]] = field(default_factory=dict)  # IRI -> (condition, targets)
    dialects: dict[str, str | None] = field(default_factory=dict)   # source id -> sqlglot dialect
    kinds_of_source: dict[str, str] = field(default_factory=dict)


_VOCAB: "weakref.WeakKeyDictionary[Any, tuple[Any, SemanticVocabulary]]" = weakref.WeakKeyDictionary()
_VOCAB_LOCK = threading.Lock()


def semantic_vocabulary(ontology: Any) -> SemanticVocabulary:
    """The Terms, Mappings, catalog columns/tables and Constraints of ``ontology`` a semantic query
    may name (a few SPARQL queries on first use, then cached per ontology object and version)."""
    from evoonto.ontology import Ontology

    version = ontology.version if isinstance(ontology, Ontology) else None
    with _VOCAB_LOCK:
        try:
            cached = _VOCAB.get(ontology)
        except TypeError:
            cached = None
    if cached is not None and cached[0] == version:
        return cached[1]
    vocab = _read_vocabulary(ontology)
    with _VOCAB_LOCK:
        try:
            _VOCAB[ontology] = (version, vocab)
        except TypeError:
            pass
    return vocab


def _read_vocabulary(ontology: Any) -> SemanticVocabulary:
    from evoonto.catalog import read_catalog
    from evoonto.tools.joinpaths import DIALECT_OF_KIND
    from evoonto.tools.sparql import select

    vocab = SemanticVocabulary()
    tables: dict[str, tuple[str, str]] = {}
    columns: dict[str, tuple[str, str, str]] = {}
    for src in read_catalog(ontology).sources:
        vocab.dialects[src.id] = DIALECT_OF_KIND.get(src.kind)
        vocab.kinds_of_source[src.id] = src.kind
        for table in src.tables:
            tables[str(table.iri)] = (src.id, table.name)
            vocab.places[str(table.iri)] = [_Place(src.id, table.name)]
            for col in table.columns:
                columns[str(col.iri)] = (src.id, table.name, col.name)
                vocab.places[str(col.iri)] = [_Place(src.id, table.name, col.name)]
    for row in select(ontology, """SELECT ?term ?m ?tbl ?col ?flt ?agg ?expr WHERE {
            ?term evo:hasMapping ?m . ?m evo:table ?tbl .
            FILTER NOT EXISTS { ?term owl:deprecated true } FILTER NOT EXISTS { ?m owl:deprecated true }
            OPTIONAL { ?m evo:column ?col } OPTIONAL { ?m evo:filter ?flt }
            OPTIONAL { ?m evo:aggregation ?agg } OPTIONAL { ?m evo:expression ?expr } } ORDER BY ?term ?m"""):
        where = tables.get(row["tbl"])
        if where is None:
            continue
        column = columns.get(row.get("col", ""))
        place = _Place(where[0], where[1], column[2] if column else None, row.get("flt"), row.get("agg"),
                       row.get("expr"))
        places = vocab.places.setdefault(row["term"], [])
        if place not in places:
            places.append(place)
    for row in select(ontology, """SELECT ?term ?kind ?label WHERE { ?term a evo:Term .
            OPTIONAL { ?term a ?kind FILTER(STRSTARTS(STR(?kind), STR(evo:))) }
            OPTIONAL { ?term skos:prefLabel ?label } }"""):
        if "kind" in row:
            vocab.kinds.setdefault(row["term"], set()).add(row["kind"].rsplit("#", 1)[-1])
        if "label" in row:
            vocab.labels.setdefault(row["term"], row["label"])
    for row in select(ontology, """SELECT ?term ?label WHERE { ?term a evo:Term ; skos:prefLabel|skos:altLabel ?label .
            FILTER NOT EXISTS { ?term owl:deprecated true } }"""):
        if row["term"] in vocab.places:
            vocab.by_label.setdefault(" ".join(row["label"].casefold().split()), set()).add(row["term"])
    for row in select(ontology, """SELECT ?c ?cond ?target WHERE { ?c a evo:Constraint ; evo:condition ?cond .
            FILTER NOT EXISTS { ?c owl:deprecated true } OPTIONAL { ?c evo:constrains ?target } } ORDER BY ?c"""):
        condition, targets = vocab.constraints.setdefault(row["c"], (row["cond"], []))
        for place in vocab.places.get(row.get("target", ""), []):
            if place not in targets:
                targets.append(place)
    return vocab


# -- resolved pieces of a query ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Metric:
    key: str                          # canonical text (to match order/having references)
    table: str                        # the measure's table ("" for a derived metric)
    make: Callable[[], exp.Expression]   # the aggregate expression (fresh AST each call)
    label: str
    inputs: tuple["_Metric", ...] = ()   # a derived metric: the metrics its formula combines
    combine: Callable[[list[exp.Expression]], exp.Expression] | None = None
    tables: frozenset[str] = frozenset()  # tables its own filters need (a filtered metric)
    size: int = 1                         # aggregated metrics it expands to (a derived metric: its inputs')

    def base(self) -> list["_Metric"]:
        """The aggregated metrics this one is made of (itself unless derived)."""
        return [b for i in self.inputs for b in i.base()] if self.inputs else [self]


@dataclass(frozen=True)
class _Dim:
    key: str
    table: str
    make: Callable[[], exp.Expression]
    hidden: bool = False


class _Compiler:
    def __init__(self, ontology: Any, vocab: SemanticVocabulary, graph: Any, codec: Any, *, dialect: str | None,
                 source: str | None, probe: Callable[[str, str], Any] | None, facts: Any):
        self.ontology, self.vocab, self.graph, self.codec = ontology, vocab, graph, codec
        self.dialect_override, self.source, self.probe, self.facts = dialect, source, probe, facts
        self.hops: list[Any] = []
        self.grain: list[dict[str, Any]] = []
        self.constraints: list[dict[str, Any]] = []
        self.value_checks: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.literals: set[str] = set()
        self.question = ""
        self.nodes = 0
        # filters whose meaning needs every row of a table present (any / not / is null): (what, tables)
        self.guards: list[tuple[str, set[str]]] = []
        # row filters (by position) whose guards need their tables' every row, and the compiled output
        # columns, both set while a query compiles
        self._guarded: dict[int, range] = {}
        self._output: Any = None

    def _count_node(self, size: int = 1) -> None:
        self.nodes += size
        if self.nodes > MAX_NODES:
            raise ToolArgumentError(f"semantic_query: a query holds at most {MAX_NODES} metric and filter nodes "
                                    "(a derived metric counted as the metrics it expands to)")

    # -- references ---------------------------------------------------------------------------------

    @property
    def dialect(self) -> str | None:
        if self.dialect_override is not None:
            return self.dialect_override
        return self.vocab.dialects.get(self.source or "")

    def _iri(self, ref: Any, what: str) -> str:
        if not isinstance(ref, str) or not ref.strip():
            raise ToolArgumentError(f"semantic_query: {what} must be a record id (a non-empty string)")
        return self.codec.to_iri(ref) if self.codec is not None else ref.strip()

    def _id(self, iri: str) -> str:
        return self.codec.to_id(iri) if self.codec is not None else iri

    def place(self, ref: Any, what: str, *, want: str = "column") -> _Place:
        """The one place of ``ref`` (want: ``column``, ``table`` or ``any``)."""
        iri = self._lookup(ref, what)
        places = [p for p in self.vocab.places.get(iri, []) if self.source in (None, p.source)]
        if not places:
            if iri in self.vocab.places:
                raise _Unavailable(f"{ref} is not in source {self.source}", "every record of one query must be "
                                   "in one source")
            raise _Unavailable(f"no record {ref!r}", f"{what}: browse for the record's id first")
        if want == "table":
            tables = sorted({(p.source, p.table) for p in places})
            if len(tables) > 1:
                raise _Question(f"{ref} is mapped to several tables: which one is meant?",
                                [f"{s}.{t}" for s, t in tables])
            return _Place(tables[0][0], tables[0][1])
        if want == "column":
            with_column = [p for p in places if p.column is not None or p.expression is not None]
            if not with_column:
                raise _Unavailable(f"no column for {ref}", f"{what}: {ref} is mapped to a table, not a column")
            distinct = sorted({(p.source, p.table, p.column, p.expression) for p in with_column},
                              key=lambda t: tuple(x or "" for x in t))
            if len(distinct) > 1:
                raise _Question(f"{ref} is mapped to several columns: which one is meant?",
                                [self._column_choice(p) for p in with_column])
            places = with_column
        place = places[0]
        self._use_source(place.source)
        return place

    def _lookup(self, ref: Any, what: str) -> str:
        """The IRI of a record id, or of the one Term whose preferred or alternative label ``ref`` is
        (several: a question listing their ids)."""
        try:
            iri = self._iri(ref, what)
        except ToolArgumentError:
            iri = ""
        if iri in self.vocab.places or not isinstance(ref, str):
            return iri or self._iri(ref, what)
        named = sorted(t for t in self.vocab.by_label.get(" ".join(ref.casefold().split()), set())
                       if any(self.source in (None, p.source) for p in self.vocab.places[t]))
        if len(named) > 1:
            raise _Question(f"{ref!r} names several Terms: which one is meant?", [self._id(t) for t in named])
        if named:
            return named[0]
        return iri or self._iri(ref, what)

    def _column_choice(self, place: _Place) -> str:
        return f"{place.table}.{place.column}" if place.column else str(place.expression)

    def _use_source(self, source: str) -> None:
        if self.source is None:
            self.source = source
        elif source != self.source:
            raise _Unavailable(f"a query over two sources ({self.source}, {source})",
                               "a semantic query runs on one source")

    def column_expr(self, place: _Place) -> exp.Expression:
        """The place's value: its expression when that aggregates nothing (a date grain Term), else its column."""
        if place.expression is not None:
            node = self._parse_fragment(place.expression, place.table)
            if place.column is None or not any(isinstance(n, exp.AggFunc) for n in node.walk()):
                return node
        if place.column is not None:
            return exp.column(place.column, table=place.table, quoted=True)
        raise _Unavailable(f"no column for {place.table}")

    def _parse_fragment(self, text: str, table: str) -> exp.Expression:
        """An SQL fragment of a Mapping/Constraint (source dialect), its bare columns qualified with ``table``
        and every identifier quoted."""
        try:
            node = sqlglot.parse_one(text, read=self.vocab.dialects.get(self.source or ""))
        except sqlglot.errors.SqlglotError as exc:
            raise _Unavailable(f"an SQL fragment that does not parse: {text[:120]!r}", str(exc)[:200]) from None
        for col in node.find_all(exp.Column):
            if not col.table:
                col.set("table", exp.to_identifier(table))
            ref = self._table_ref(col.table)
            known = {c.casefold(): c for c in self.graph.columns.get(ref, [])}
            if col.name.casefold() not in known:
                raise _Unavailable(f"no column {ref.name}.{col.name}", f"the SQL fragment {text[:120]!r} names a "
                                   "column the catalog lacks")
            col.set("this", exp.to_identifier(known[col.name.casefold()], quoted=True))
            col.set("table", exp.to_identifier(ref.name, quoted=True))
        return node  # type: ignore[return-value]  # sqlglot types parse_one as Expr

    def _table_ref(self, name: str) -> Any:
        try:
            return self.graph.table(name, source=self.source)
        except EvoontoError:
            raise _Unavailable(f"no table {name!r}", "an SQL fragment names a table the catalog lacks") from None

    def tables_in(self, node: exp.Expression) -> set[str]:
        return {c.table for c in node.find_all(exp.Column) if c.table}

    # -- metrics and dimensions ---------------------------------------------------------------------

    def metric(self, spec: Any, level: int = 0) -> _Metric:
        """One metric (see the module docstring); ``level`` is its nesting in formula inputs."""
        if level > MAX_NESTING:
            raise ToolArgumentError(f"semantic_query: metrics and filters nest at most {MAX_NESTING} deep")
        self._count_node()
        if isinstance(spec, str):
            place = self.place(spec, "metric", want="any")
            if place.expression is not None and place.column is None:
                node = self._parse_fragment(place.expression, place.table)
                if not any(isinstance(n, exp.AggFunc) for n in node.walk()):
                    raise _Unavailable(f"no metric {spec!r}", "its expression aggregates nothing; give "
                                       "{term, aggregate}")
                tables = self.tables_in(node)
                if len(tables) > 1:
                    raise _Unavailable(f"a metric over several tables ({', '.join(sorted(tables))})")
                return self._mapping_filter(
                    _Metric(f"m:{spec}", next(iter(tables), place.table), lambda: node.copy(), spec), place)
            agg = (place.aggregation or "").strip().lower().replace("count distinct", "count_distinct")
            if agg == "count" and (place.column is None or place.filter):  # an Entity's or a value Term's rows
                rows = _Metric(f"count:{place.table}", place.table, lambda: exp.Count(this=exp.Star()),
                               f"count of {place.table}")
                return self._mapping_filter(rows, place)
            if agg in AGGREGATES and place.column:
                return self._mapping_filter(self._aggregate(spec, agg, place), place)
            raise _Unavailable(f"no metric {spec!r}", "the record has no aggregation; give {term, aggregate}")
        if not isinstance(spec, Mapping):
            raise ToolArgumentError("semantic_query: a metric is a record id or {term, aggregate} / {aggregate, of}")
        if "formula" in spec:
            return self._derived(spec, level)
        if "filters" in spec:
            return self._filtered(spec)
        unknown = set(spec) - {"term", "aggregate", "of"}
        if unknown:
            raise ToolArgumentError(f"semantic_query: unknown metric field(s) {', '.join(sorted(unknown))}")
        agg = str(spec.get("aggregate"))
        if agg not in AGGREGATES:
            raise ToolArgumentError(f"semantic_query: aggregate must be one of {', '.join(AGGREGATES)}")
        if "of" in spec:
            if agg != "count" or "term" in spec:
                raise ToolArgumentError("semantic_query: {aggregate: count, of: REF} counts rows; no term with it")
            place = self.place(spec["of"], "metric", want="table")
            return _Metric(f"count:{place.table}", place.table, lambda: exp.Count(this=exp.Star()),
                           f"count of {place.table}")
        if "term" not in spec:
            raise ToolArgumentError("semantic_query: a metric needs a term (or 'of' for a row count)")
        place = self.place(spec["term"], "metric")
        return self._mapping_filter(self._aggregate(spec["term"], agg, place), place)

    def _filtered(self, spec: Mapping[str, Any]) -> _Metric:
        """A metric over the rows its own filters keep: AGG(CASE WHEN conditions THEN value END)."""
        filters = spec["filters"]
        if not isinstance(filters, list) or not filters:
            raise ToolArgumentError("semantic_query: a metric's filters must be a non-empty list")
        inner = self.metric({k: v for k, v in spec.items() if k != "filters"})
        if inner.inputs or not isinstance(inner.make(), exp.AggFunc):
            raise _Unavailable("filters on a metric Term with an expression", "give {term, aggregate, filters}")
        conditions = []
        for item in filters:
            condition, tables, on_metrics = self.filter(item, 0)
            if on_metrics:
                raise ToolArgumentError("semantic_query: a metric's own filters compare columns, not metrics")
            conditions.append((condition, tables))
        return self._conditioned(inner, conditions)

    def _mapping_filter(self, inner: _Metric, place: _Place) -> _Metric:
        """``inner`` restricted to the rows the Mapping's ``evo:filter`` keeps (a value or filtered metric Term)."""
        if not place.filter:
            return inner
        node = self._parse_fragment(place.filter, place.table)
        self.notes.append(f"metric over the rows where {node.sql(self.dialect)} (its Mapping's filter)")
        return self._conditioned(inner, [((lambda: node.copy()), self.tables_in(node) or {place.table})])

    def _conditioned(self, inner: _Metric, conditions: list) -> _Metric:
        """AGG(CASE WHEN all conditions THEN value END) (ELSE 0 for SUM): the metric over the rows kept."""
        if inner.inputs or not isinstance(inner.make(), exp.AggFunc):
            raise _Unavailable("filters on a metric Term with an expression", "give {term, aggregate, filters}")
        agg_type = type(inner.make())

        def make() -> exp.Expression:
            node = inner.make()
            cond = exp.and_(*(m() for m, _t in conditions))
            value = node.this
            if isinstance(value, exp.Star):
                value = exp.Literal.number(1)
            if isinstance(value, exp.Distinct):
                value = value.expressions[0]
                case = exp.Case(ifs=[exp.If(this=cond, true=value)])
                return exp.Count(this=exp.Distinct(expressions=[case]))
            case = exp.Case(ifs=[exp.If(this=cond, true=value)],
                            default=exp.Literal.number(0) if agg_type is exp.Sum else None)
            return agg_type(this=case)

        key = f"{inner.key}|" + " AND ".join(m().sql() for m, _t in conditions)
        needed = frozenset(t for _m, ts in conditions for t in ts) | inner.tables
        return _Metric(key, inner.table, make, f"{inner.label} where ...", tables=needed)

    def _derived(self, spec: Mapping[str, Any], level: int) -> _Metric:
        """A formula over named metrics (+ - * / numbers parentheses); every input is cast to a floating
        type so that / divides the same way in every dialect."""
        unknown = set(spec) - {"formula", "inputs"}
        if unknown:
            raise ToolArgumentError(f"semantic_query: unknown derived metric field(s) {', '.join(sorted(unknown))}")
        formula, named = spec.get("formula"), spec.get("inputs")
        if not isinstance(formula, str) or not isinstance(named, Mapping) or not named:
            raise ToolArgumentError("semantic_query: a derived metric is {formula: TEXT, inputs: {name: metric}}")
        try:
            tree = sqlglot.parse_one(formula)
        except sqlglot.errors.SqlglotError:
            raise ToolArgumentError(f"semantic_query: formula {formula[:80]!r} does not parse") from None
        allowed = (exp.Column, exp.Identifier, exp.Literal, exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Paren, exp.Neg)
        for node in tree.walk():
            if not isinstance(node, allowed):
                raise ToolArgumentError(f"semantic_query: formulas use + - * / numbers and input names, not "
                                        f"{type(node).__name__}")
            if isinstance(node, exp.Column) and (node.table or node.name not in named):
                raise ToolArgumentError(f"semantic_query: formula names {node.sql()!r}, not one of its inputs")
        inputs = {name: self.metric(m, level + 1) for name, m in named.items()}
        order = list(inputs)
        uses = [n.name for n in tree.find_all(exp.Column)]
        size = sum(inputs[n].size for n in uses) or 1
        self._count_node(size - 1)  # the expansion beyond the one node counted for this metric

        def combine(values: list[exp.Expression]) -> exp.Expression:
            by_name = dict(zip(order, values, strict=True))
            return tree.copy().transform(
                lambda n: exp.cast(by_name[n.name].copy(), "double") if isinstance(n, exp.Column) else n)

        def make() -> exp.Expression:
            return combine([inputs[n].make() for n in order])

        key = "formula:" + tree.transform(
            lambda n: exp.column(inputs[n.name].key) if isinstance(n, exp.Column) else n).sql()
        return _Metric(key, "", make, f"formula {formula[:60]}", inputs=tuple(inputs[n] for n in order),
                       combine=combine, size=size)

    def _aggregate(self, ref: str, agg: str, place: _Place) -> _Metric:
        column = self.column_expr(place)

        def make() -> exp.Expression:
            col = column.copy()
            if agg == "count":
                return exp.Count(this=col)
            if agg == "count_distinct":
                return exp.Count(this=exp.Distinct(expressions=[col]))
            func: Any = {"sum": exp.Sum, "avg": exp.Avg, "min": exp.Min, "max": exp.Max}[agg]
            return func(this=col)

        tables = self.tables_in(column) or {place.table}
        if len(tables) > 1:
            raise _Unavailable(f"a metric over several tables ({', '.join(sorted(tables))})")
        return _Metric(f"{agg}:{column.sql()}", next(iter(tables)), make, f"{agg} of {ref}")

    def dimension(self, spec: Any, *, allow_hidden: bool = True) -> _Dim:
        grain, hidden = None, False
        ref = spec
        if isinstance(spec, Mapping):
            unknown = set(spec) - {"term", "grain", "hidden", "desc", "metric"}
            if unknown:
                raise ToolArgumentError(f"semantic_query: unknown dimension field(s) {', '.join(sorted(unknown))}")
            ref, grain, hidden = spec.get("term"), spec.get("grain"), bool(spec.get("hidden", False))
            if grain is not None and grain not in GRAINS:
                raise ToolArgumentError(f"semantic_query: grain must be one of {', '.join(GRAINS)}")
        place = self.place(ref, "dimension")
        column = self.column_expr(place)
        tables = self.tables_in(column) or {place.table}
        if len(tables) > 1:
            raise _Unavailable(f"a dimension over several tables ({', '.join(sorted(tables))})")
        dialect = self.dialect

        def make() -> exp.Expression:
            col = column.copy()
            if grain is None:
                return col
            if dialect not in (None, "sqlite"):
                col = exp.cast(col, "timestamp")
            return exp.TimeToStr(this=col, format=exp.Literal.string(_GRAIN_FORMAT[grain]))

        return _Dim(f"{grain or ''}:{column.sql()}", next(iter(tables)), make, hidden and allow_hidden)

    # -- filters ------------------------------------------------------------------------------------

    def filter(self, spec: Any, depth: int,
               level: int = 0) -> tuple[Callable[[], exp.Expression], set[str], list[Any]]:
        """(make condition, tables it needs, metrics it compares) of one filter; ``depth`` is the nesting of
        queries, ``level`` the nesting of any / not (at most :data:`MAX_NESTING`)."""
        if level > MAX_NESTING:
            raise ToolArgumentError(f"semantic_query: metrics and filters nest at most {MAX_NESTING} deep")
        self._count_node()
        if not isinstance(spec, Mapping):
            raise ToolArgumentError("semantic_query: a filter is an object")
        if "any" in spec or "not" in spec:
            if "not" in spec:
                inner = self.filter(spec["not"], depth, level + 1)
                if not inner[2]:
                    self.guards.append(("not", set(inner[1])))
                return (lambda: exp.Not(this=exp.Paren(this=inner[0]()))), inner[1], inner[2]
            items = spec["any"]
            if not isinstance(items, list) or not items:
                raise ToolArgumentError("semantic_query: any must be a non-empty list of filters")
            parts = [self.filter(item, depth, level + 1) for item in items]
            tables = set().union(*(p[1] for p in parts))
            metrics = [m for p in parts for m in p[2]]
            if metrics and len(metrics) != len(parts):
                raise _Unavailable("an OR between a row filter and a metric filter")
            if not metrics and len(tables) > 1:
                self.guards.append(("any", set(tables)))
            return (lambda: exp.Paren(this=exp.or_(*(p[0]() for p in parts)))), tables, metrics
        if "constraint" in spec:
            iri = self._iri(spec["constraint"], "constraint")
            found = self.vocab.constraints.get(iri)
            if found is None:
                raise _Unavailable(f"no Constraint {spec['constraint']!r}")
            condition, targets = found
            table = targets[0].table if targets else None
            if targets:
                self._use_source(targets[0].source)
            node = self._parse_fragment(condition, table or "")
            return (lambda: node.copy()), self.tables_in(node), []
        op = spec.get("op")
        if "metric" in spec:
            metric = self.metric(spec["metric"])
            return self._comparison(metric.make, op, spec.get("value"), depth), set(), [metric]
        if "term" not in spec:
            raise ToolArgumentError("semantic_query: a filter needs term, metric, constraint, any or not")
        if op is None:
            iri = self._iri(spec["term"], "filter")
            places = [p for p in self.vocab.places.get(iri, []) if p.filter and self.source in (None, p.source)]
            if not places:
                raise _Unavailable(f"no filter for {spec['term']!r}", "a filter without op needs a value Term "
                                   "(a Mapping with evo:filter); else give op and value")
            place = places[0]
            self._use_source(place.source)
            node = self._parse_fragment(place.filter or "", place.table)
            self.literals.update(str(v.this).casefold() for v in node.find_all(exp.Literal) if v.is_string)
            return (lambda: node.copy()), self.tables_in(node) or {place.table}, []
        dim = self.dimension({"term": spec["term"], **({"grain": spec["grain"]} if "grain" in spec else {})})
        place = self.place(spec["term"], "filter")
        self._check_value(spec["term"], place, op, spec.get("value"))
        if op == "is null":
            self.guards.append(("is null", {dim.table}))
        return self._comparison(dim.make, op, spec.get("value"), depth), {dim.table}, []

    def _comparison(self, make: Callable[[], exp.Expression], op: Any, value: Any,
                    depth: int) -> Callable[[], exp.Expression]:
        if op not in OPERATORS:
            raise ToolArgumentError(f"semantic_query: op must be one of {', '.join(OPERATORS)}")
        if op in ("is null", "is not null"):
            return lambda: (exp.Is(this=make(), expression=exp.Null()) if op == "is null"
                            else exp.Not(this=exp.Is(this=make(), expression=exp.Null())))
        if isinstance(value, Mapping) and "query" in value:
            sub = self.subquery(value["query"], depth + 1)
            if op in ("in", "not in"):
                return lambda: (exp.In(this=make(), query=exp.Subquery(this=sub.copy())) if op == "in"
                                else exp.Not(this=exp.In(this=make(), query=exp.Subquery(this=sub.copy()))))
            if op in ("=", "!=", "<", "<=", ">", ">="):
                return lambda: _BINARY[op](this=make(), expression=exp.Subquery(this=sub.copy()))
            raise ToolArgumentError(f"semantic_query: op {op!r} does not take a query")
        if op in ("in", "not in"):
            if not isinstance(value, list) or not value:
                raise ToolArgumentError("semantic_query: in / not in need a non-empty list value")
            literals = [_literal(v) for v in value]
            return lambda: (exp.In(this=make(), expressions=[v.copy() for v in literals]) if op == "in"
                            else exp.Not(this=exp.In(this=make(), expressions=[v.copy() for v in literals])))
        if op == "between":
            if not isinstance(value, list) or len(value) != 2:
                raise ToolArgumentError("semantic_query: between needs a [low, high] value")
            low, high = _literal(value[0]), _literal(value[1])
            return lambda: exp.Between(this=make(), low=low.copy(), high=high.copy())
        literal = _literal(value)
        if op in ("like", "not like"):
            return lambda: (exp.Like(this=make(), expression=literal.copy()) if op == "like"
                            else exp.Not(this=exp.Like(this=make(), expression=literal.copy())))
        return lambda: _BINARY[op](this=make(), expression=literal.copy())

    def _check_value(self, ref: str, place: _Place, op: str, value: Any) -> None:
        """Record how a compared string value was observed (Evidence sample, bounded probe)."""
        if op in ("=", "in") and place.column is not None:
            values = value if isinstance(value, list) else [value]
            for v in values:
                if not isinstance(v, str):
                    continue
                self.literals.add(v.casefold())
                facts = self.facts.columns.get((place.source, place.table.casefold(), place.column.casefold())) \
                    if self.facts is not None else None
                check: dict[str, Any] = {"term": ref, "value": v}
                if facts is not None and v in facts.values:
                    check["observed"] = "in the column's Evidence"
                elif self.probe is not None:
                    col = exp.column(place.column, table=place.table, quoted=True)
                    sql = exp.select(exp.Literal.number(1)).from_(exp.table_(place.table, quoted=True)).where(
                        exp.EQ(this=col, expression=_literal(v))).limit(1).sql(self.dialect)
                    try:
                        found = self.probe(place.source, sql)
                    except EvoontoError as exc:
                        check["observed"] = f"unchecked: the probe failed ({str(exc)[:120]})"
                    else:
                        check["observed"] = ("confirmed by a probe (LIMIT 1)" if found else
                                             "no row holds it (probe over the whole table)")
                        if not found:
                            near = [x for x in (facts.values if facts else ()) if x.casefold() == v.casefold()]
                            if near:
                                check["did_you_mean"] = near[0]
                else:
                    check["observed"] = "unchecked (not in the sampled Evidence; no source to probe)"
                self.value_checks.append(check)
        elif isinstance(value, str):
            self.literals.add(value.casefold())

    # -- compile ------------------------------------------------------------------------------------

    def subquery(self, query: Any, depth: int, *, columns: int | None = 1) -> exp.Query:
        """A nested query (a filter value: ``columns`` 1; a set operand: any number)."""
        if depth > MAX_DEPTH:
            raise ToolArgumentError(f"semantic_query: queries nest at most {MAX_DEPTH} deep")
        if not isinstance(query, Mapping):
            raise ToolArgumentError("semantic_query: a nested query is an object")
        node = self.compile(query, depth)
        if columns is not None and len(node.selects) != columns:
            raise _Unavailable("a nested query with several columns",
                               f"IN and comparisons need one column: {node.sql(self.dialect)[:200]}")
        return node

    def compile(self, query: Mapping[str, Any], depth: int = 0) -> exp.Query:
        """One (possibly nested) semantic query as a sqlglot query; its any / not / is null filters are
        checked against its own joins only."""
        outer = self.guards, self._guarded
        self.guards = []
        try:
            return self._compile(query, depth)
        finally:
            self.guards, self._guarded = outer

    def _check_guards(self, start: str, hops: list[Any], handled: frozenset[int] = frozenset()) -> None:
        """Refuse an any / not / is null filter on a table reached from ``start`` across a one-to-many hop:
        the inner join keeps only the rows that have a match there, so OR, NOT and IS NULL would be read
        row by joined row, not per row of ``start`` (a wrong count). Raises _Question (not) / _Unavailable."""
        beyond = _beyond_fan_out(start, hops)
        for i, (what, tables) in enumerate(self.guards):
            if i in handled:
                continue
            across = sorted(tables & beyond)
            if not across:
                continue
            where = ", ".join(across)
            if what == "not":
                raise _Question(
                    f"'not' on {where}, which holds several rows per {start} row: which is meant?",
                    [f"{start} rows with at least one {where} row not meeting the condition: put the negation "
                     "in the comparison (op '!=', 'not in', 'not like') instead of 'not'",
                     f"{start} rows with no {where} row meeting the condition (NOT EXISTS): not expressible "
                     "as a semantic query; write the SQL and check it with check_sql"])
            raise _Unavailable(
                f"'{what}' on {where} across a one-to-many join from {start}",
                f"{where} holds several rows per {start} row (or none); the compiler joins it, so '{what}' "
                f"would be read per joined row, not per {start} row (EXISTS / NOT EXISTS is not compiled); "
                "write the SQL and check it with check_sql")

    def _compile(self, query: Mapping[str, Any], depth: int) -> exp.Query:
        unknown = set(query) - set(SEMANTIC_QUERY_SCHEMA["properties"])
        if unknown:
            raise ToolArgumentError(f"semantic_query: unknown field(s) {', '.join(sorted(map(str, unknown)))[:200]}; "
                                    f"accepted: {', '.join(SEMANTIC_QUERY_SCHEMA['properties'])}")
        if depth == 0:
            self.question = str(query.get("question") or "")
        if "set" in query:
            op, parts = query.get("set"), query.get("queries")
            if op not in SET_OPERATIONS or not isinstance(parts, list) or len(parts) != 2:
                raise ToolArgumentError("semantic_query: set needs one of "
                                        f"{', '.join(SET_OPERATIONS)} and two queries")
            left, right = (_operand(self.subquery(q, depth + 1, columns=None), f"s{i}")
                           for i, q in enumerate(parts))
            if len(left.selects) != len(right.selects):
                raise _Unavailable(f"a {op} of queries with {len(left.selects)} and {len(right.selects)} columns")
            if op == "intersect":
                return exp.Intersect(this=left, expression=right, distinct=True)
            if op == "except":
                return exp.Except(this=left, expression=right, distinct=True)
            return exp.Union(this=left, expression=right, distinct=op == "union")
        for key in ("metrics", "dimensions", "filters", "order", "joins"):
            if key in query and not isinstance(query[key], list):
                raise ToolArgumentError(f"semantic_query: {key} must be a list")
        if isinstance(query.get("source"), str) and depth == 0:
            if query["source"] not in self.vocab.dialects:
                raise ToolArgumentError(f"semantic_query: unknown source {query['source'][:60]!r}")
            self.source = query["source"]
        limit = query.get("limit")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise ToolArgumentError("semantic_query: limit must be a positive integer")
        metrics = [self.metric(m) for m in query.get("metrics", [])]
        dims = [self.dimension(d) for d in query.get("dimensions", [])]
        if not metrics and not dims:
            raise ToolArgumentError("semantic_query: name at least one metric or dimension")
        row_filters: list[tuple[Callable[[], exp.Expression], set[str]]] = []
        having: list[tuple[Callable[[], exp.Expression], list[_Metric]]] = []
        self._guarded = {}
        for spec in query.get("filters", []):
            first_guard = len(self.guards)
            make, tables, on_metrics = self.filter(spec, depth)
            if on_metrics:
                having.append((make, on_metrics))
            else:
                if len(self.guards) > first_guard:
                    self._guarded[len(row_filters)] = range(first_guard, len(self.guards))
                row_filters.append((make, tables))
        order: list[tuple[Any, bool]] = []
        for item in query.get("order", []):
            if not isinstance(item, Mapping) or not ("term" in item) ^ ("metric" in item):
                raise ToolArgumentError("semantic_query: an order item is {term | metric, desc?}")
            desc = item.get("desc", False)
            if not isinstance(desc, bool):
                raise ToolArgumentError("semantic_query: desc must be true or false")
            order.append((self.metric(item["metric"]) if "metric" in item else self.dimension(
                {k: v for k, v in item.items() if k in ("term", "grain")}), desc))
        choices = [c for c in query.get("joins", []) if isinstance(c, str)]
        self._apply_constraints(row_filters, metrics, dims, order)
        output = query.get("output")
        if output is not None and (not isinstance(output, list) or not all(isinstance(o, str) for o in output)):
            raise ToolArgumentError("semantic_query: output must be a list like [\"d0\", \"m0\"]")
        self._output = output
        aggregated = bool(metrics) or bool(having) or any(isinstance(o, _Metric) for o, _ in order)
        if not aggregated:
            return self._listing(dims, row_filters, order, limit, bool(query.get("distinct")), choices)
        return self._aggregate_query(metrics, dims, row_filters, having, order, limit, choices)

    def _apply_constraints(self, row_filters: list, metrics: list[_Metric], dims: list[_Dim], order: list) -> None:
        """Add the Violation-severity Constraints that apply to the columns used (check_sql's rule)."""
        if self.facts is None or self.source is None:
            return
        used: set[tuple[str, str]] = set()
        for make in [m.make for m in metrics] + [d.make for d in dims] + [f[0] for f in row_filters] + [
                o.make for o, _ in order]:
            for col in make().find_all(exp.Column):
                used.add((col.table.casefold(), col.name.casefold()))
        used_tables = {t for t, _ in used} | {m.table.casefold() for m in metrics}
        restricted = set()
        for make, _tables in row_filters:
            for col in make().find_all(exp.Column):
                restricted.add(col.name.casefold())
        for constraint in self.facts.constraints:
            applies = any(s == self.source and ((t.casefold(), c.casefold()) in used if c
                                                else t.casefold() in used_tables)
                          for s, t, c in constraint.targets)
            if not applies:
                continue
            words = self.literals | ({self.question.casefold()} if self.question else set())
            if constraint.triggers and not any(trigger in text for trigger in constraint.triggers for text in words):
                continue
            table = next(t for s, t, c in sorted(constraint.targets) if s == self.source)
            node = self._parse_fragment(constraint.condition, table)
            needed = {c.name.casefold() for c in node.find_all(exp.Column)}
            if needed and needed <= restricted:
                continue
            row_filters.append(((lambda n=node: n.copy()), self.tables_in(node)))
            self.constraints.append({"id": self._id(constraint.iri), "condition": node.sql(self.dialect),
                                     "comment": constraint.comment})

    # -- joins --------------------------------------------------------------------------------------

    def join_tree(self, start: str, others: set[str], choices: list[str]) -> list[Any]:
        """The hops joining ``start`` to ``others`` and to the tables of the chosen joins, read outward
        from ``start``: the chosen joins first (each must be a known join, whole keys), then the
        shortest known paths. Raises _Unavailable / _Question (two known joins, none chosen)."""
        from evoonto.tools.joinpaths import TableRef

        chosen = [self._known_join(c) for c in choices]
        needed = {start} | set(others) | {t for e in chosen for t in (e.left, e.right)}
        joined, hops = {start}, []
        progress = True
        used: set[int] = set()
        while progress:
            progress = False
            for i, edge in enumerate(chosen):
                if edge.left in joined and edge.right not in joined:
                    hops.append(edge)
                elif edge.right in joined and edge.left not in joined:
                    hops.append(edge.reversed())
                else:
                    continue
                used.add(i)
                joined.add(hops[-1].right)
                progress = True
        for table in sorted(needed - joined):  # before any path is taken, so the table order decides nothing
            self._one_route(set(joined), table, hops)
        for table in sorted(needed - joined):
            if table in joined:
                continue
            best = None
            for origin in sorted(joined):
                path = self.graph.path(TableRef(self.source or "", origin), TableRef(self.source or "", table))
                if path is not None and (best is None or len(path.hops) < len(best.hops)):
                    best = path
            if best is None:
                raise _Unavailable(f"no join path between {start} and {table}",
                                   f"no known join connects {table} to {', '.join(sorted(joined))}")
            for hop in best.hops:
                if hop.right in joined:
                    continue
                alternatives = self.graph.between(TableRef(hop.source, hop.left), TableRef(hop.source, hop.right))
                if len(alternatives) > 1:
                    raise _Question(f"{hop.left} and {hop.right} join in several ways: which join is meant? "
                                    "(pass it in joins)", [e.condition(self.dialect) for e in alternatives])
                hops.append(hop)
                joined.add(hop.right)
        # a chosen join between two tables already joined (a cycle) still holds: it is one more condition
        hops += [chosen[i] for i in range(len(chosen)) if i not in used and chosen[i] not in hops]
        return hops

    def _one_route(self, joined: set[str], table: str, taken: list[Any]) -> None:
        """Raise _Question when the tables joined so far reach ``table`` by two cheapest join routes that
        relate the rows differently: through different tables (``account`` to ``client`` through
        ``district`` or through ``disp``), or from two joined tables whose join columns the joins
        ``taken`` do not equate (``district`` from ``account`` or from ``client``). The compiler does not
        pick one. ``joined`` are the tables joined before any path is searched (the start and the chosen
        joins, ``taken``). Routes are read without the shared-key shortcuts (a shared-key hop stands for
        the two hops through the key it shares); routes that differ only in which of two known joins
        between the same two tables they take are left to the two-joins question."""
        from evoonto.tools.joinpaths import ORIGIN_COST, SHORTCUT_ORIGINS, TableRef

        src = self.source or ""
        goal = TableRef(src, table)
        parent: dict[tuple[str, str], tuple[str, str]] = {}

        def find(col: tuple[str, str]) -> tuple[str, str]:
            while parent.get(col, col) != col:
                col = parent[col]
            return col

        for hop in taken:  # columns the joins taken already equate
            for a, b in zip(hop.left_columns, hop.right_columns, strict=True):
                x, y = find((hop.left.casefold(), a.casefold())), find((hop.right.casefold(), b.casefold()))
                if x != y:
                    parent[max(x, y)] = min(x, y)
        cost: dict[Any, float] = {TableRef(src, t): 0.0 for t in joined}
        before: dict[Any, list[tuple[Any, Any]]] = {}
        heap = [(0.0, ref) for ref in cost]
        heapq.heapify(heap)
        done: set[Any] = set()
        while heap:  # Dijkstra from every joined table, keeping every cheapest predecessor
            here_cost, here = heapq.heappop(heap)
            if here in done:
                continue
            done.add(here)
            if here == goal:
                break
            for edge in self.graph.adjacent(here):
                there = TableRef(src, edge.right)
                if edge.origin in SHORTCUT_ORIGINS or there in done:
                    continue
                c = here_cost + ORIGIN_COST.get(edge.origin, 1.0)
                if c < cost.get(there, math.inf) - 1e-9:
                    cost[there], before[there] = c, [(here, edge)]
                    heapq.heappush(heap, (c, there))
                elif abs(c - cost.get(there, math.inf)) <= 1e-9:
                    before[there].append((here, edge))
        kinds: dict[Any, list[Any]] = {}
        for route in self._routes_to(goal, set(cost) - set(before), before, limit=8):
            first = route[0]
            origin = first.left
            if (origin, tuple(h.right for h in route)) in {(r[0].left, tuple(h.right for h in r))
                                                          for rs in kinds.values() for r in rs}:
                continue  # the same tables, another join between two of them: the two-joins question
            kind = (frozenset(find((origin.casefold(), c.casefold())) for c in first.left_columns),
                    first.right_columns, tuple((h.right, h.left_columns, h.right_columns) for h in route))
            kinds.setdefault(kind, []).append(route)
        if len(kinds) > 1:
            routes = [rs[0] for rs in kinds.values()]
            origins = sorted({r[0].left for r in routes})
            choices = [[h.condition(self.dialect) for h in r] for r in routes]
            if len(origins) == 1:
                raise _Question(f"{origins[0]} and {table} join through different tables: which route is "
                                "meant? (pass its joins in joins)", choices)
            raise _Question(f"{table} joins {' and '.join(origins)} in different ways: which join is meant? "
                            "(pass its joins in joins)", choices)

    def _routes_to(self, goal: Any, sources: set[Any], before: dict, limit: int) -> list[list[Any]]:
        """Up to ``limit`` cheapest routes from one of ``sources`` to ``goal``, each its hops in order."""
        if goal in sources:
            return [[]]
        out: list[list[Any]] = []
        for here, edge in before.get(goal, []):
            for route in self._routes_to(here, sources, before, limit):
                out.append(route + [edge])
                if len(out) >= limit:
                    return out
        return out

    def _known_join(self, condition: str) -> Any:
        """The known join edge a condition ``a.x = b.y [AND ...]`` names (all of its key columns)."""
        from evoonto.tools.joinpaths import TableRef

        try:
            node = sqlglot.parse_one(condition, read=self.dialect)
        except sqlglot.errors.SqlglotError:
            raise ToolArgumentError(f"semantic_query: join {condition[:80]!r} does not parse") from None
        pairs, tables = set(), set()
        for eq in node.find_all(exp.EQ):
            if not (isinstance(eq.this, exp.Column) and isinstance(eq.expression, exp.Column)
                    and eq.this.table and eq.expression.table):
                raise ToolArgumentError(f"semantic_query: join {condition[:80]!r} must be table.column = table.column")
            a = (eq.this.table.casefold(), eq.this.name.casefold())
            b = (eq.expression.table.casefold(), eq.expression.name.casefold())
            pairs.add((a, b) if a <= b else (b, a))
            tables.add(frozenset({a[0], b[0]}))
        if len(tables) != 1 or len(next(iter(tables))) != 2:
            raise _Unavailable(f"the join {condition[:120]!r}", "a join names two different tables")
        left, right = sorted(next(iter(tables)))
        try:
            a, b = (self.graph.table(t, source=self.source) for t in (left, right))
        except EvoontoError:
            raise _Unavailable(f"a table of the join {condition[:120]!r}") from None
        for edge in self.graph.between(TableRef(a.source, a.name), TableRef(b.source, b.name)):
            if edge.pairs == frozenset(pairs):
                return edge
        raise _Unavailable(f"a known join {condition[:120]!r}", "joins follow known paths with whole keys; "
                           "use join_path to see the known ones")

    def _from(self, start: str, hops: list[Any]) -> exp.Select:
        select = exp.select().from_(exp.table_(start, quoted=True))
        joined = {start}
        for hop in hops:
            on = exp.and_(*(exp.EQ(this=exp.column(a, table=hop.left, quoted=True),
                                   expression=exp.column(b, table=hop.right, quoted=True))
                            for a, b in zip(hop.left_columns, hop.right_columns, strict=True)))
            if hop.right in joined and hop.left in joined:  # closes a cycle of chosen joins
                select = select.where(on)
            else:
                select = select.join(exp.table_(hop.right, quoted=True), on=on)
                joined.add(hop.right)
            self._record_hop(hop)
        return select

    def _semi_joins(self, start: str, hops: list[Any], row_filters: list,
                    elsewhere: set[str]) -> tuple[list, frozenset[int]]:
        """``row_filters`` for the measure table ``start``, each ``any`` filter that reaches across a
        one-to-many hop rewritten so that its pieces on the far side are correlated ``EXISTS`` semi-joins on
        the hop's whole key (an OR is then read per row of ``start``). Only a filter of ``any`` alone, with no
        nested query, whose far tables nothing else uses, is rewritten. Returns (filters, guards handled)."""
        beyond = _beyond_fan_out(start, hops)
        if not beyond:
            return row_filters, frozenset()
        used_elsewhere = set(elsewhere) | {t for i, (_m, ts) in enumerate(row_filters) if i not in self._guarded
                                           for t in ts}
        out, handled = list(row_filters), set[int]()
        for i, guards in self._guarded.items():
            make, tables = row_filters[i]
            far = tables & beyond
            if not far or {self.guards[g][0] for g in guards} != {"any"} or far & used_elsewhere:
                continue
            cond = make()
            if any(isinstance(n, (exp.Subquery, exp.Select)) for n in cond.walk()):
                continue
            try:
                rewritten = self._exists(cond, start, beyond)
            except _Unavailable:
                continue
            out[i] = ((lambda n=rewritten: n.copy()), (tables - beyond) | {start})
            handled.update(guards)
        return out, frozenset(handled)

    def _exists(self, cond: exp.Expression, start: str, beyond: set[str]) -> exp.Expression:
        """``cond`` with each piece over one far table T replaced by EXISTS (SELECT 1 FROM T ... WHERE the
        one-to-many hop's whole key matches ``start``'s AND piece). T must be reached from ``start`` by one
        known one-to-many hop followed only by many-to-one hops; else raises _Unavailable."""
        from evoonto.tools.joinpaths import TableRef

        tables = {c.table for c in cond.find_all(exp.Column)}
        if not tables & beyond:
            return cond
        if isinstance(cond, (exp.Or, exp.And)):
            return cond.__class__(this=self._exists(cond.this, start, beyond),
                                  expression=self._exists(cond.expression, start, beyond))
        if isinstance(cond, exp.Paren):
            return exp.Paren(this=self._exists(cond.this, start, beyond))
        if len(tables) != 1:
            raise _Unavailable("a condition over both sides of a one-to-many join")
        far = next(iter(tables))
        path = self.graph.path(TableRef(self.source or "", start), TableRef(self.source or "", far))
        if path is None or not path.hops or path.hops[0].right_unique or not all(
                h.right_unique for h in path.hops[1:]):
            raise _Unavailable(f"a semi-join from {start} to {far}")
        for hop in path.hops:
            if len(self.graph.between(TableRef(hop.source, hop.left), TableRef(hop.source, hop.right))) > 1:
                raise _Unavailable(f"a semi-join from {start} to {far}", "two known joins")
        root, rest = path.hops[0], path.hops[1:]
        sub = exp.select(exp.Literal.number(1)).from_(exp.table_(root.right, quoted=True))
        for hop in rest:
            sub = sub.join(exp.table_(hop.right, quoted=True), on=exp.and_(*(
                exp.EQ(this=exp.column(x, table=hop.left, quoted=True),
                       expression=exp.column(y, table=hop.right, quoted=True))
                for x, y in zip(hop.left_columns, hop.right_columns, strict=True))))
        key = [exp.EQ(this=exp.column(y, table=root.right, quoted=True),
                      expression=exp.column(x, table=root.left, quoted=True))
               for x, y in zip(root.left_columns, root.right_columns, strict=True)]
        for hop in path.hops:
            self._record_hop(hop)
        self.notes.append(f"a condition on {far} inside 'any' is read per {start} row: EXISTS a matching "
                          f"{root.right} row (on the whole key {', '.join(root.right_columns)})")
        return exp.Exists(this=sub.where(exp.and_(*key, cond.copy())))

    def _record_hop(self, hop: Any) -> None:
        item = hop.to_dict(self.dialect, self._id)
        if item not in self.hops:
            self.hops.append(item)

    # -- shapes of SQL ------------------------------------------------------------------------------

    def _listing(self, dims: list[_Dim], row_filters: list, order: list, limit: int | None, distinct: bool,
                 choices: list[str]) -> exp.Select:
        tables = [d.table for d in dims] + [t for _m, ts in row_filters for t in ts] + [o.table for o, _ in order]
        start = tables[0]
        hops = self.join_tree(start, set(tables), choices)
        self._check_guards(start, hops)
        select = self._from(start, hops).select(*self._columns(dims, [d.make() for d in dims], []))
        for make, _tables in row_filters:
            select = select.where(make())
        if distinct:
            shown = {d.key for d in dims if not d.hidden}
            if any(item.key not in shown for item, _desc in order):
                raise _Unavailable("an order by a column a distinct listing does not show",
                                   "each distinct row can hold several of its values; add it to dimensions")
            select = select.distinct()
        for item, desc in order:
            select = select.order_by(exp.Ordered(this=item.make(), desc=desc))
        if limit is not None:
            select = select.limit(limit)
        if any(not h["cardinality"].startswith(("N:1", "1:1")) for h in self.hops) and not distinct:
            self.notes.append("a listing across a one-to-many join repeats rows of the 'one' side (set distinct "
                              "for distinct rows)")
        return select

    def _aggregate_query(self, metrics: list[_Metric], dims: list[_Dim], row_filters: list, having: list,
                         order: list, limit: int | None, choices: list[str]) -> exp.Query:
        all_metrics: list[_Metric] = []  # the aggregated (base) metrics, derived ones by their inputs
        for m in metrics + [m for _h, ms in having for m in ms] + [o for o, _ in order if isinstance(o, _Metric)]:
            for b in m.base():
                if b.key not in {x.key for x in all_metrics}:
                    all_metrics.append(b)
        shown = {m.key for m in metrics}
        for item, _desc in order:
            if isinstance(item, _Dim) and item.key not in {d.key for d in dims}:
                raise _Unavailable("an order by a column that is not a dimension of an aggregated query",
                                   "add it to dimensions (hidden: true keeps it out of the answer)")
        dim_tables = {d.table for d in dims}
        filter_tables = {t for _m, ts in row_filters for t in ts}
        groups: dict[str, list[_Metric]] = {}
        for m in all_metrics:
            groups.setdefault(m.table, []).append(m)
        parts = []
        for table, group in groups.items():
            own = set().union(*(m.tables for m in group))
            hops = self.join_tree(table, dim_tables | filter_tables | own, choices)
            part_filters, handled = self._semi_joins(table, hops, row_filters, dim_tables | own)
            if handled:
                hops = self.join_tree(table, dim_tables | {t for _m, ts in part_filters for t in ts} | own,
                                      choices)
            fan = _fan_out(table, hops)
            self._check_guards(table, hops, handled)
            if fan and any(t != table for m in group for t in m.tables):
                raise _Unavailable(f"a filtered {table} metric whose filter needs a join that repeats its rows",
                                   "filter the query instead, or filter on columns of the measure's table")
            parts.append((table, group, hops, fan, part_filters))
        if len(parts) == 1 and not parts[0][3]:
            table, group, hops, _fan, row_filters = parts[0]
            self.grain.append({"measure": table, "fan_out": [], "method": "joined many-to-one only: aggregated "
                               "after joining"})
            select = self._from(table, hops)
            select = select.select(*self._columns(dims, [d.make() for d in dims], [m.make() for m in metrics]))
            for make, _t in row_filters:
                select = select.where(make())
            if dims:
                select = select.group_by(*(d.make() for d in dims))
            for make, _ms in having:
                select = select.having(make())
            for item, desc in order:
                select = select.order_by(exp.Ordered(this=item.make(), desc=desc))
            if limit is not None:
                select = select.limit(limit)
            return select
        # each measure table aggregated at its own grain, then joined on the dimensions
        names = {m.key: f"m{i}" for i, m in enumerate(all_metrics)}
        dim_names = [f"d{i}" for i in range(len(dims))]
        ctes = []
        for i, (table, group, hops, fan, part_filters) in enumerate(parts):
            ctes.append((f"g{i}", self._group(table, group, hops, fan, dims, dim_names, part_filters, names)))
        if dims:
            spine: exp.Query = exp.select(*(exp.column(n, table=ctes[0][0]) for n in dim_names)).from_(ctes[0][0])
            for name, _q in ctes[1:]:
                spine = exp.union(spine, exp.select(*(exp.column(n, table=name) for n in dim_names)).from_(name),
                                  distinct=True)
            final = exp.select().from_(exp.Subquery(this=spine, alias=exp.TableAlias(this=exp.to_identifier("k"))))
            for name, _q in ctes:
                on = exp.and_(*(exp.NullSafeEQ(this=exp.column(n, table="k"), expression=exp.column(n, table=name))
                                for n in dim_names))
                final = final.join(exp.table_(name), on=on, join_type="left")
            dim_cols = [exp.column(n, table="k") for n in dim_names]
        else:
            final = exp.select().from_(ctes[0][0])
            for name, _q in ctes[1:]:
                final = final.join(exp.table_(name), join_type="cross")
            dim_cols = []
        where_of = {m.key: exp.column(names[m.key], table=f"g{i}") for i, p in enumerate(parts) for m in p[1]}

        def value_of(m: _Metric) -> exp.Expression:
            if m.combine is not None:
                return m.combine([value_of(i) for i in m.inputs])
            return where_of[m.key].copy()

        final = final.select(*self._columns(dims, [c.copy() for c in dim_cols],
                                            [value_of(m) for m in metrics if m.key in shown]))
        for make, ms in having:
            cond = make()
            for m in ms:  # the compared aggregate becomes the pre-aggregated column
                target = m.make().sql()
                cond = cond.transform(lambda n, t=target, m=m: value_of(m) if n.sql() == t else n)
            final = final.where(cond)
        for item, desc in order:
            node = value_of(item) if isinstance(item, _Metric) else \
                dim_cols[[d.key for d in dims].index(item.key)].copy()
            final = final.order_by(exp.Ordered(this=node, desc=desc))
        if limit is not None:
            final = final.limit(limit)
        for name, q in ctes:
            final = final.with_(name, as_=q)
        return final

    def _columns(self, dims: list[_Dim], dim_exprs: list[exp.Expression],
                 metric_exprs: list[exp.Expression]) -> list[exp.Expression]:
        """The answer's columns in the order ``output`` asks (default: dimensions, then metrics)."""
        by = {f"d{i}": e for i, (d, e) in enumerate(zip(dims, dim_exprs, strict=True)) if not d.hidden}
        by.update({f"m{i}": e for i, e in enumerate(metric_exprs)})
        output = self._output
        if not output:
            return list(by.values())
        if sorted(output) != sorted(by) or len(set(output)) != len(output):
            raise ToolArgumentError(f"semantic_query: output must name each shown column once: {', '.join(by)}")
        return [by[k] for k in output]

    def _group(self, table: str, group: list[_Metric], hops: list[Any], fan: list[Any], dims: list[_Dim],
               dim_names: list[str], row_filters: list, names: dict[str, str]) -> exp.Select:
        """One measure table's metrics, one row per dimension values, each row of ``table`` counted once."""
        from evoonto.tools.joinpaths import TableRef

        ref = TableRef(self.source or "", table)
        if not fan:
            select = self._from(table, hops)
            select = select.select(*(d.make().as_(n) for d, n in zip(dims, dim_names, strict=True)),
                                   *(m.make().as_(names[m.key]) for m in group))
            for make, _t in row_filters:
                select = select.where(make())
            if dims:
                select = select.group_by(*(d.make() for d in dims))
            self.grain.append({"measure": table, "fan_out": [], "method": "joined many-to-one only: aggregated "
                               "after joining"})
            return select
        key = _unique_key(self.graph, ref)
        if key is None:
            raise _Unavailable(f"a unique key of {table}",
                               f"joining {table} to {', '.join(h.right for h in fan)} repeats its rows and no "
                               f"unique key of {table} is known to count each row once")
        inner = self._from(table, hops).select(
            *(exp.column(c, table=table, quoted=True).as_(f"k{i}") for i, c in enumerate(key)),
            *(d.make().as_(n) for d, n in zip(dims, dim_names, strict=True))).distinct()
        for make, _t in row_filters:
            inner = inner.where(make())
        on = exp.and_(*(exp.EQ(this=exp.column(c, table=table, quoted=True), expression=exp.column(f"k{i}", table="r"))
                        for i, c in enumerate(key)))
        select = exp.select(*(exp.column(n, table="r").as_(n) for n in dim_names),
                            *(m.make().as_(names[m.key]) for m in group)).from_(
            exp.table_(table, quoted=True)).join(
            exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("r"))), on=on)
        if dims:
            select = select.group_by(*(exp.column(n, table="r") for n in dim_names))
        self.grain.append({"measure": table, "fan_out": [h.to_dict(self.dialect, self._id) for h in fan],
                           "method": f"each {table} row counted once: distinct ({', '.join(key)}, dimensions) "
                                     "pairs joined back before aggregating"})
        return select


_BINARY: dict[str, type[exp.Expression]] = {"=": exp.EQ, "!=": exp.NEQ, "<": exp.LT, "<=": exp.LTE,
                                            ">": exp.GT, ">=": exp.GTE}


def _fan_out(start: str, hops: list[Any]) -> list[Any]:
    """The hops (read outward from ``start``) that can repeat rows of the tables before them; a hop that
    closes a cycle only adds a condition and repeats nothing."""
    joined, fan = {start}, []
    for hop in hops:
        if hop.left in joined and hop.right in joined:
            continue
        joined.add(hop.right)
        if not hop.right_unique:
            fan.append(hop)
    return fan


def _beyond_fan_out(start: str, hops: list[Any]) -> set[str]:
    """The tables (of ``hops``, read outward from ``start``) that a one-to-many hop lies before: each row of
    ``start`` can meet several of their rows, or none."""
    joined, beyond = {start}, set()
    for hop in hops:
        if hop.left in joined and hop.right in joined:
            continue
        joined.add(hop.right)
        if hop.left in beyond or not hop.right_unique:
            beyond.add(hop.right)
    return beyond


def _operand(query: exp.Query, alias: str) -> exp.Query:
    """A set operation's operand: a query with its own WITH, ORDER BY or LIMIT becomes
    ``SELECT * FROM (query) AS alias`` (no dialect accepts those clauses on a bare operand)."""
    if not any(query.args.get(k) for k in ("with", "with_", "order", "limit")):
        return query
    return exp.select(exp.Star()).from_(exp.Subquery(this=query, alias=exp.TableAlias(this=exp.to_identifier(alias))))


def _literal(value: Any) -> exp.Expression:
    """The SQL literal of a JSON value (string, finite number, boolean). Raises ToolArgumentError for null
    (a comparison with NULL holds for no row: use op 'is null') and for a non-finite number."""
    if isinstance(value, bool):
        return exp.Literal.number(int(value))
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolArgumentError(f"semantic_query: a value must be a finite number, not {value}")
    if isinstance(value, (int, float)):
        return exp.Literal.number(value)
    if isinstance(value, str):
        return exp.Literal.string(value)
    if value is None:
        raise ToolArgumentError("semantic_query: a value is never null (a comparison with NULL holds for no row); "
                                "use op 'is null' or 'is not null'")
    raise ToolArgumentError(f"semantic_query: a value must be a string, number or boolean, not {type(value).__name__}")


def _unique_key(graph: Any, table: Any) -> tuple[str, ...] | None:
    """The smallest known unique column set of ``table`` (declared primary key first), in column order."""
    keys = sorted(graph.primary_keys.get(table, set()), key=len) + sorted(graph.unique.get(table, set()), key=len)
    for key in keys:
        if key:
            return tuple(c for c in graph.columns[table] if c.casefold() in key)
    return None


def compile_semantic(ontology: Any, query: Any, *, codec: Any = None, dialect: str | None = None,
                     probe: Callable[[str, str], Any] | None = None) -> SemanticAnswer:
    """Compile a semantic query (see the module docstring) against one ontology version.

    Args:
        ontology: an :class:`~evoonto.ontology.Ontology` (anything ``select`` can query).
        query: the semantic query, a dict (or its JSON text, at most :data:`MAX_QUERY_CHARS` characters).
        codec: an :class:`~evoonto.tools.resolve.IdCodec` turning agent ids into IRIs (None: ids are IRIs).
        dialect: sqlglot dialect of the SQL (default: the source's, from its kind).
        probe: ``probe(source_id, sql) -> bool`` runs a bounded read-only query (``LIMIT 1``) and says
            whether it returned a row; it confirms compared values the Evidence did not show (None: no probes).

    Returns:
        ``{"status": "ok", "sql", "dialect", "source", "joins", "grain", "constraints", "value_checks",
        "notes"}``, or ``{"status": "question", "question", "choices"}``, or ``{"status": "unavailable",
        "missing", "detail"}``.
    Raises:
        ToolArgumentError: malformed query (not an object, unknown field, bad operator, aggregate, grain,
            limit or value, text over :data:`MAX_QUERY_CHARS` characters).
    """
    import json

    from evoonto.tools.joinpaths import join_graph_of
    from evoonto.tools.sqlcheck import check_facts

    if isinstance(query, str):
        if len(query) > MAX_QUERY_CHARS:
            raise ToolArgumentError(f"semantic_query: the query is longer than {MAX_QUERY_CHARS} characters")
        try:
            query = json.loads(query)
        except json.JSONDecodeError as exc:
            raise ToolArgumentError(f"semantic_query: not JSON ({exc.msg} at character {exc.pos})") from None
        except RecursionError:
            raise ToolArgumentError("semantic_query: the JSON nests too deep") from None
    if not isinstance(query, Mapping):
        raise ToolArgumentError("semantic_query: the query must be a JSON object")
    compiler = _Compiler(ontology, semantic_vocabulary(ontology), join_graph_of(ontology), codec,
                         dialect=dialect, source=None, probe=probe, facts=check_facts(ontology))
    try:
        node = compiler.compile(query)
    except _Unavailable as exc:
        return {"status": "unavailable", "missing": exc.missing, "detail": exc.detail}
    except _Question as exc:
        return {"status": "question", "question": exc.question, "choices": exc.choices}
    answer: dict[str, Any] = {"status": "ok", "sql": node.sql(compiler.dialect), "dialect": compiler.dialect,
                              "source": compiler.source, "joins": compiler.hops, "grain": compiler.grain,
                              "constraints": compiler.constraints, "value_checks": compiler.value_checks}
    if compiler.notes:
        answer["notes"] = list(dict.fromkeys(compiler.notes))
    return answer
