"""Join paths: how the tables of an ontology version join, hop by hop, with evidence and cardinality.

A :class:`JoinGraph` is read from one ontology version (:meth:`JoinGraph.from_ontology`):

- **declared foreign keys** of the catalog (``evo:references`` between ``csvw:Column`` nodes);
- the builder's **association Relations** (``evo:Relation`` of type ``evo:Association`` with an
  ``evo:joinCondition``), backed by their inclusion-probe Evidence (``prov:wasDerivedFrom``);
- any other source of joins through :meth:`JoinGraph.add_edge` (e.g. joins mined from verified
  queries later): an edge's ``origin`` is an open string (``"foreign_key"``, ``"probe"``,
  ``"verified_query"`` …), and edges over the same column pair merge their evidence.

Each :class:`JoinEdge` knows which of its sides is unique (a whole primary key, or a column whose
Evidence saw as many distinct values as the table has rows), hence its cardinality (``1:1``,
``N:1``, ``1:N``, ``N:M``, read from left to right). :meth:`JoinGraph.path` finds the shortest
multi-hop path between two tables or Terms (fewest hops; among those, declared keys and many-to-one
hops first), and :meth:`JoinGraph.connect` a join tree over several. A :class:`JoinPath` warns when
an aggregate over the start table would be multiplied (a hop that goes from a "one" side to a "many"
side: fan-out). Join conditions are quoted for the source's dialect with
:mod:`evoonto.sources.quoting`, e.g. Northwind's ``"Order Details"."OrderID" = "Orders"."OrderID"``.

:func:`check_joins` checks the joins of a parsed SQL statement against the graph and returns
:class:`~evoonto.tools.findings.Finding` records (``unknown_join``, ``mismatched_join_keys``,
``fan_trap``); the ``check_sql`` tool calls it.

Example::

    graph = JoinGraph.from_ontology(ontology)
    path = graph.path("Order Details", "Customers")
    print([hop.condition() for hop in path.hops], path.fan_out)
    check_joins(graph, sqlglot.parse_one(sql, read="sqlite"), dialect="sqlite")
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import json
import re
import threading
import weakref
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Literal

from sqlglot import exp
from sqlglot.optimizer.scope import Scope, traverse_scope

from evoonto.catalog import foreign_keys
from evoonto.errors import ToolArgumentError
from evoonto.ontology import Ontology
from evoonto.sources.quoting import DIALECT_OF_KIND, quote_identifier
from evoonto.sources.joins import _ID_LIKE  # the id-like name rule of join discovery, shared
from evoonto.tools.findings import Finding
from evoonto.tools.findings import node_span as _span

__all__ = ["Cardinality", "JoinEdge", "JoinPath", "JoinGraph", "TableRef", "check_joins", "join_path_tool",
           "joins_section", "tables_of", "table_joins", "table_joins_file", "read_table_joins",
           "write_table_joins", "written_joins", "WrittenJoins", "ORIGIN_RANK", "ORIGIN_COST",
           "DIALECT_OF_KIND"]

Cardinality = Literal["1:1", "N:1", "1:N", "N:M"]

#: Preference between edges of equal hop count: declared keys first, then probed, then anything else.
ORIGIN_RANK: dict[str, int] = {"foreign_key": 0, "probe": 1, "verified_query": 2, "shared_key": 3, "name": 4,
                               "shared_name": 5}
#: Cost of one hop by origin in path search (default 1): an unverified name match counts as one and a
#: half hops, so among paths of equal length the verified one wins, but one name hop beats two verified ones.
ORIGIN_COST: dict[str, float] = {"name": 1.5, "shared_name": 1.5}
#: Origins of the shortcut edges :meth:`JoinGraph.add_shared_key_edges` derives (one hop standing for
#: the two through the key both columns share): ``shared_key`` when both references are known joins,
#: ``shared_name`` when one of them is only a name match (a shortcut is no surer than its references).
SHORTCUT_ORIGINS = ("shared_key", "shared_name")
#: sqlglot dialect of each catalog source kind (``evo:sourceKind``) when none is given.


@dataclass(frozen=True, order=True)
class TableRef:
    """A table of one source: ``source`` id and ``name`` as in the catalog."""

    source: str
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class JoinEdge:
    """One way two tables join: ``left.left_columns = right.right_columns`` (pairwise, AND-joined).

    Attributes:
        source: the source id both tables belong to.
        left, right: table names; left_columns, right_columns: the joined columns, same length.
        origin: where the edge comes from (``"foreign_key"``: a declared key, left references
            right; ``"probe"``: a builder association backed by an inclusion probe;
            ``"shared_key"``: both columns reference the same key; ``"name"``: named like a key of
            the other table, not verified; ``"shared_name"``: both columns reference the same key,
            at least one of them only by its name, not verified; ``"verified_query"`` or any other
            name for later sources of joins). :data:`ORIGIN_RANK` orders them.
        left_unique, right_unique: whether the columns are unique on that side (a whole primary
            key, or Evidence of as many distinct values as rows).
        evidence: ids (IRIs) of the Evidence records backing the edge, sorted.
        relation: the IRI of the ``evo:Relation`` that states it, or None.
    """

    source: str
    left: str
    left_columns: tuple[str, ...]
    right: str
    right_columns: tuple[str, ...]
    origin: str = "foreign_key"
    left_unique: bool = False
    right_unique: bool = False
    evidence: tuple[str, ...] = ()
    relation: str | None = None

    @property
    def cardinality(self) -> Cardinality:
        """Rows of ``left`` per row of ``right`` and back: ``1:1``, ``N:1``, ``1:N`` or ``N:M``."""
        if self.left_unique and self.right_unique:
            return "1:1"
        if self.right_unique:
            return "N:1"
        if self.left_unique:
            return "1:N"
        return "N:M"

    @property
    def pairs(self) -> frozenset[tuple[tuple[str, str], tuple[str, str]]]:
        """The column pairs, direction-free and case-folded (to compare edges and SQL joins)."""
        return frozenset(_pair((self.left, a), (self.right, b))
                         for a, b in zip(self.left_columns, self.right_columns, strict=True))

    def reversed(self) -> "JoinEdge":
        """The same edge read from right to left."""
        return replace(self, left=self.right, left_columns=self.right_columns, right=self.left,
                       right_columns=self.left_columns, left_unique=self.right_unique,
                       right_unique=self.left_unique)

    def condition(self, dialect: str | None = None, *, left_alias: str | None = None,
                  right_alias: str | None = None) -> str:
        """The SQL join condition with every identifier quoted for ``dialect`` (a sqlglot name),
        e.g. ``"Order Details"."OrderID" = "Orders"."OrderID"``; aliases replace the table names."""
        lq = quote_identifier(left_alias or self.left, dialect)
        rq = quote_identifier(right_alias or self.right, dialect)
        return " AND ".join(f"{lq}.{quote_identifier(a, dialect)} = {rq}.{quote_identifier(b, dialect)}"
                            for a, b in zip(self.left_columns, self.right_columns, strict=True))

    def to_dict(self, dialect: str | None = None, id_of: Any = None) -> dict[str, Any]:
        """A JSON-ready hop: ``{from, to, condition, cardinality, origin, evidence}`` (evidence ids
        through ``id_of`` when given)."""
        ids = [id_of(e) if id_of else e for e in self.evidence]
        return {"from": self.left, "to": self.right, "condition": self.condition(dialect),
                "cardinality": self.cardinality, "origin": self.origin, "evidence": ids}


def _foreign_key_edges(source: str, table: Any, tables: dict[str, Any]) -> list[JoinEdge]:
    """The declared foreign keys of one catalog table as edges, a composite key kept whole (one
    edge, AND-joined; see :func:`evoonto.catalog.foreign_keys`)."""
    return [JoinEdge(source, table.name, columns, ref_table, ref_columns, origin="foreign_key")
            for columns, ref_table, ref_columns in foreign_keys(table, tables.values())]


def _pair(a: tuple[str, str], b: tuple[str, str]) -> tuple[tuple[str, str], tuple[str, str]]:
    return _ordered_pair((a[0].casefold(), a[1].casefold()), (b[0].casefold(), b[1].casefold()))


def _ordered_pair(fa: tuple[str, str], fb: tuple[str, str]) -> tuple[tuple[str, str], tuple[str, str]]:
    """Two case-folded ``(table, column)`` ends in the one order :func:`_pair` keys an edge by."""
    return (fa, fb) if fa <= fb else (fb, fa)


@dataclass(frozen=True)
class JoinPath:
    """A path of joins from ``start`` to ``end`` (tables of one source).

    Attributes:
        start, end: table names; source: their source id; dialect: sqlglot dialect of the source.
        hops: the edges in path order, each read from the previous table to the next.
    """

    source: str
    start: str
    end: str
    hops: tuple[JoinEdge, ...] = ()
    dialect: str | None = None

    @property
    def tables(self) -> list[str]:
        """The tables visited, ``start`` first."""
        return [self.start] + [h.right for h in self.hops]

    @property
    def fan_out(self) -> list[JoinEdge]:
        """The hops that can repeat rows of the tables before them (the left side is unique but the
        right is not: ``1:N`` or ``N:M``): an aggregate over ``start`` (SUM, COUNT, AVG) after
        these joins is multiplied."""
        return [h for h in self.hops if not h.right_unique]

    def warnings(self) -> list[str]:
        """Readable fan-out warnings, one per multiplying hop: the tables whose columns an aggregate
        would multiply are every table joined before that hop (the start's and the later ones')."""
        out = []
        for i, h in enumerate(self.hops):
            if h.right_unique:
                continue
            before = ", ".join(dict.fromkeys([self.start] + [x.right for x in self.hops[:i]]))
            out.append(f"joining {h.left} to {h.right} is {h.cardinality}: each {h.left} row can appear several "
                       f"times, so SUM/COUNT/AVG over {before} columns would be multiplied (aggregate before "
                       f"joining, or use COUNT(DISTINCT ...))")
        return out

    def sql(self, dialect: str | None = None) -> str:
        """``FROM start JOIN t1 ON ... JOIN t2 ON ...`` with quoted names."""
        d = self.dialect if dialect is None else dialect
        text = f"FROM {quote_identifier(self.start, d)}"
        for hop in self.hops:
            text += f" JOIN {quote_identifier(hop.right, d)} ON {hop.condition(d)}"
        return text

    def to_dict(self, id_of: Any = None, graph: "JoinGraph | None" = None) -> dict[str, Any]:
        """JSON-ready: ``{from, to, tables, hops: [...], sql, warnings}``; with ``graph``, a hop
        whose two tables also join on other columns lists those conditions as ``alternatives``
        (e.g. ``eye_colour_id`` and ``hair_colour_id`` both joining ``colour``: the question decides)."""
        hops = []
        for hop in self.hops:
            item = hop.to_dict(self.dialect, id_of)
            if graph is not None:
                others = [e.condition(self.dialect) for e in graph.between(TableRef(hop.source, hop.left),
                                                                           TableRef(hop.source, hop.right))
                          if e.pairs != hop.pairs]
                if others:
                    item["alternatives"] = others
            hops.append(item)
        out: dict[str, Any] = {"from": self.start, "to": self.end, "tables": self.tables,
                               "hops": hops, "sql": self.sql()}
        warnings = self.warnings()
        if warnings:
            out["warnings"] = warnings
        return out


@dataclass
class JoinGraph:
    """The join edges of one ontology version, per source (see the module docstring).

    Attributes:
        columns: ``{TableRef: [column names in order]}`` of every table known.
        unique: ``{TableRef: set of frozensets of case-folded column names that are unique}``.
        views: the tables that are views.
        primary_keys: ``{TableRef: set of frozensets of case-folded declared primary-key columns}``.
        dialects: ``{source id: sqlglot dialect}``.
        refuted: ``{(source id, pairs)}`` of the joins an inclusion probe contradicted (Evidence with
            ``evo:refutesJoin``; ``pairs`` as :attr:`JoinEdge.pairs`): never guessed from names.
    """

    columns: dict[TableRef, list[str]] = field(default_factory=dict)
    unique: dict[TableRef, set[frozenset[str]]] = field(default_factory=dict)
    views: set[TableRef] = field(default_factory=set)
    primary_keys: dict[TableRef, set[frozenset[str]]] = field(default_factory=dict)
    dialects: dict[str, str | None] = field(default_factory=dict)
    refuted: set[tuple[str, frozenset]] = field(default_factory=set)
    _edges: dict[tuple[str, frozenset], JoinEdge] = field(default_factory=dict, init=False, repr=False)
    _adjacent: dict[TableRef, list[JoinEdge]] = field(default_factory=dict, init=False, repr=False)
    _names: Any = field(default=None, init=False, repr=False, compare=False)  # see _table_names

    # -- construction -------------------------------------------------------------------------------

    @classmethod
    def from_catalog(cls, catalog: Any, *, dialects: dict[str, str | None] | None = None) -> "JoinGraph":
        """Tables, primary keys and declared foreign keys of a :class:`evoonto.catalog.Catalog`.

        Args:
            catalog: a Catalog (:func:`evoonto.catalog.read_catalog`).
            dialects: sqlglot dialect per source id (default from the source kind, :data:`DIALECT_OF_KIND`).
        """
        graph = cls()
        for src in catalog.sources:
            graph.dialects[src.id] = (dialects or {}).get(src.id, DIALECT_OF_KIND.get(src.kind))
            for table in src.tables:
                ref = TableRef(src.id, table.name)
                graph.columns[ref] = [c.name for c in table.columns]
                if table.is_view:
                    graph.views.add(ref)
                if table.primary_key:
                    graph.mark_unique(ref, table.primary_key)
                    graph.primary_keys.setdefault(ref, set()).add(frozenset(c.casefold() for c in table.primary_key))
            by_name = {t.name.casefold(): t for t in src.tables}  # once per source, not per table
            for table in src.tables:
                for edge in _foreign_key_edges(src.id, table, by_name):
                    graph.add_edge(edge)
        return graph

    @classmethod
    def from_ontology(cls, ontology: Any, *, dialects: dict[str, str | None] | None = None,
                      name_guesses: bool = True) -> "JoinGraph":
        """The join graph of an ontology version (anything with ``query(sparql)``).

        Reads the catalog (:func:`evoonto.catalog.read_catalog`, views by ``evo:isView``), column
        uniqueness from Evidence (``evo:distinctCount`` equal to the table's ``evo:rowCount``), and
        every non-deprecated, non-stale (no ``prov:invalidatedAtTime``) ``evo:Relation`` with an
        ``evo:joinCondition`` whose condition names
        catalog columns (``table.column = table.column``, AND-joined), with its Evidence, and the
        joins of verified queries (``evo:joinUsed``, origin ``verified_query``, the query as evidence).
        The joins a probe refuted (Evidence with ``evo:refutesJoin``, neither stale nor deprecated, in
        the source its probe used) are :attr:`refuted`.

        ``name_guesses=False`` leaves out the joins guessed from names alone (:meth:`add_name_edges`
        and the ``shared_name`` shortcuts made from them): every other edge is the same as in the
        whole graph (a guess is added only between tables no other edge links, and a shortcut of two
        known references replaces a guess over the same columns), so :func:`table_joins` of either
        graph is the same (but for a table with two columns whose names differ only in case, whose
        joins may be listed under either spelling); at 70,000 columns the guesses cost about 2 of
        the graph's 6 CPU s.
        """
        from evoonto.catalog import read_catalog
        from evoonto.tools.sparql import select

        graph = cls.from_catalog(read_catalog(ontology), dialects=dialects)
        for row in select(ontology, """
                SELECT ?id ?table ?column WHERE {
                  ?m a evo:Mapping ; evo:column ?c ; evo:table ?t ; evo:mapsTerm ?term .
                  FILTER NOT EXISTS { ?m evo:filter ?f }
                  ?term prov:wasDerivedFrom ?e . ?e evo:distinctCount ?n .
                  FILTER(?n > 1)
                  ?t evo:rowCount ?n ; dcterms:title|csvw:name ?table ; dcterms:isPartOf ?s .
                  ?s dcterms:identifier ?id .
                  ?c csvw:name ?column .
                  FILTER NOT EXISTS { ?e evo:nullFraction ?z FILTER(?z > 0) }
                  FILTER NOT EXISTS { ?e prov:invalidatedAtTime ?stale } }"""):
            graph.mark_unique(TableRef(row["id"], row["table"]), (row["column"],))
        rows = select(ontology, """
            SELECT ?rel ?cond ?ev WHERE {
              ?rel a evo:Relation ; evo:joinCondition ?cond .
              OPTIONAL { ?rel prov:wasDerivedFrom ?ev }
              FILTER NOT EXISTS { ?rel owl:deprecated true }
              FILTER NOT EXISTS { ?rel prov:invalidatedAtTime ?stale } } ORDER BY ?rel ?ev""")
        names = graph._condition_names()  # (read once for every condition below)
        for row in rows:
            for edge in graph._parse_condition(row["cond"], names):
                graph.add_edge(replace(edge, origin="probe", evidence=(row["ev"],) if row.get("ev") else (),
                                       relation=row["rel"]))
        for row in select(ontology, """
                SELECT ?q ?cond WHERE { ?q a evo:VerifiedQuery ; evo:joinUsed ?cond .
                  FILTER NOT EXISTS { ?q owl:deprecated true } } ORDER BY ?q ?cond"""):
            for edge in graph._parse_condition(row["cond"], names):  # joins verified queries write
                graph.add_edge(replace(edge, origin="verified_query", evidence=(row["q"],)))
        for row in select(ontology, """
                SELECT DISTINCT ?cond ?id WHERE { ?e a evo:Evidence ; evo:refutesJoin ?cond .
                  OPTIONAL { ?e prov:wasGeneratedBy/prov:used/dcterms:identifier ?id }
                  FILTER NOT EXISTS { ?e prov:invalidatedAtTime ?stale }
                  FILTER NOT EXISTS { ?e owl:deprecated true } }"""):
            # of the probed source only (two sources may have tables of the same names)
            graph.refuted.update((edge.source, edge.pairs) for edge in graph._parse_condition(row["cond"], names)
                                 if row.get("id") in (None, edge.source))
        if name_guesses:
            graph.add_name_edges()
        graph.add_shared_key_edges()
        graph.drop_partial_keys()
        return graph

    def drop_partial_keys(self) -> int:
        """Remove every edge that is part of a multi-column edge between the same two tables (a
        composite key of a declared key, a probe or a verified query's join) and is unique on
        neither side by itself: joining on it alone repeats rows, and no tool may offer half a key.
        Returns how many edges were removed."""
        wide = [e for e in self._edges.values() if len(e.pairs) > 1]
        removed = 0
        for key, edge in list(self._edges.items()):
            if edge.left_unique or edge.right_unique:
                continue
            if any(edge.pairs < w.pairs and {edge.left.casefold(), edge.right.casefold()}
                   == {w.left.casefold(), w.right.casefold()} and edge.source == w.source for w in wide):
                del self._edges[key]
                removed += 1
        if removed:
            self._adjacent = {}
        return removed

    def add_name_edges(self) -> int:
        """Add ``origin="name"`` edges (no evidence, ranked last; views left out): a column named
        exactly like the single-column primary key of another table (or, when it declares none, an
        id-like unique column) (``name_score`` 1.0 of
        :func:`evoonto.sources.joins.name_score`: same non-generic name, or ``<table><key>``), when no
        edge joins the two tables yet. Returns how many were added."""
        from evoonto.sources.joins import exact_reference_names, normalized_name

        linked = {(e.source, frozenset({e.left.casefold(), e.right.casefold()})) for e in self._edges.values()}
        # tables by the normalized names of their columns: a key is compared only with the tables holding a
        # column of one of its exact reference names (name_score 1.0), not with every column of the schema
        tables_with: dict[str, set] = {}
        for table, columns in self.columns.items():
            for column in columns:
                tables_with.setdefault(normalized_name(column), set()).add(table)
        added = 0
        for right, keys in sorted(self.unique.items()):
            # by the key's column name: frozensets compare by inclusion, so sorting them kept the
            # set's hash order, and which key linked a table first changed from process to process
            for key in sorted((k for k in keys if len(k) == 1), key=sorted):
                (key_column,) = key
                right_column = self._column(right, key_column)
                is_pk = key in self.primary_keys.get(right, ())
                if right in self.views or (not is_pk and (right in self.primary_keys or not _ID_LIKE.search(
                        re.sub(r"[^0-9a-z]", "", key_column)))):
                    continue  # the key rule of join discovery: the declared PK, else an id-like unique column
                targets = exact_reference_names(right.name, right_column, right_is_key=is_pk)
                candidates = set().union(*(tables_with.get(name, ()) for name in targets)) if targets else set()
                for left in sorted(candidates):
                    pair = (left.source, frozenset({left.name.casefold(), right.name.casefold()}))
                    if left.source != right.source or left == right or pair in linked or left in self.views:
                        continue
                    for column in self.columns[left]:
                        if normalized_name(column) not in targets:
                            continue
                        if self.is_unique(left, (column,)) and not right_column.casefold() == column.casefold():
                            continue
                        guess = JoinEdge(left.source, left.name, (column,), right.name, (right_column,), origin="name")
                        if (guess.source, guess.pairs) in self.refuted:
                            continue  # the data contradicts the names (a probe found the values missing)
                        self.add_edge(guess)
                        linked.add(pair)
                        added += 1
                        break
        return added

    def add_shared_key_edges(self) -> int:
        """Add ``origin="shared_key"`` edges between two columns that reference the same unique key
        (``city.CountryCode`` and ``countrylanguage.CountryCode`` both join ``country.Code``): joining
        them directly gives the rows the two-hop join through the key gives. Evidence is that of the
        two references. When either reference is only a name match (``origin="name"``), the edge is
        ``origin="shared_name"``, ranked below the name matches it comes from: two guesses do not
        make a known join; a shortcut of two known references over the same columns as a name match
        or a ``shared_name`` shortcut replaces it (a ``shared_key`` with the two references' evidence). Not when one of
        the two is a column of the key's own table (a self-reference
        such as ``Employee.ReportsTo``): ``Customer.SupportRepId = Employee.ReportsTo`` pairs a
        customer with the employees reporting to their rep, a relation nobody declared, next to the
        declared ``Customer.SupportRepId = Employee.EmployeeId`` between the same two tables.
        Returns how many were added."""
        by_target: dict[tuple[str, str, str], list[JoinEdge]] = {}
        for edge in list(self._edges.values()):
            if edge.origin in SHORTCUT_ORIGINS or len(edge.left_columns) != 1:
                continue
            for e in (edge, edge.reversed()):
                if e.right_unique and not e.left_unique or e.right_unique and e.origin == "foreign_key":
                    by_target.setdefault((e.source, e.right, e.right_columns[0]), []).append(e)
        added = 0
        for group in by_target.values():
            # a reference from a view, or from the key's own table (see above), pairs with none: left
            # out once here, not per pair (every reference of a group has the same right side)
            refs = [r for r in group if r.left != r.right and TableRef(r.source, r.left) not in self.views]
            ends = [(r.left.casefold(), r.left_columns[0].casefold()) for r in refs]
            for i, a in enumerate(refs):
                for j in range(i + 1, len(refs)):
                    b = refs[j]
                    if a.left == b.left:
                        continue
                    key = (a.source, frozenset({_ordered_pair(ends[i], ends[j])}))  # as _pair makes it
                    origin = "shared_name" if "name" in (a.origin, b.origin) else "shared_key"
                    known = self._edges.get(key)
                    if known is not None and ORIGIN_RANK.get(known.origin, len(ORIGIN_RANK)) <= ORIGIN_RANK[origin]:
                        continue
                    if known is not None:  # a shortcut of two known references replaces a guess over the same
                        del self._edges[key]  # columns (its direction and evidence are the references')
                    self.add_edge(JoinEdge(a.source, a.left, a.left_columns, b.left, b.left_columns,
                                           origin=origin, evidence=a.evidence + b.evidence))
                    added += 1
        return added

    def mark_unique(self, table: TableRef, columns: Iterable[str]) -> None:
        """Record that ``columns`` (together) are unique in ``table`` (re-derives edge cardinalities)."""
        key = frozenset(c.casefold() for c in columns)
        self.unique.setdefault(table, set()).add(key)
        for k, edge in list(self._edges.items()):
            if TableRef(edge.source, edge.left) == table or TableRef(edge.source, edge.right) == table:
                self._store(k, self._with_uniqueness(edge))

    def is_unique(self, table: TableRef, columns: Iterable[str]) -> bool:
        """Whether ``columns`` hold a unique key of ``table`` (contain a known unique column set)."""
        cols = frozenset(c.casefold() for c in columns)
        return any(key and key <= cols for key in self.unique.get(table, ()))

    def _with_uniqueness(self, edge: JoinEdge) -> JoinEdge:
        return replace(edge, left_unique=self.is_unique(TableRef(edge.source, edge.left), edge.left_columns),
                       right_unique=self.is_unique(TableRef(edge.source, edge.right), edge.right_columns))

    def add_edge(self, edge: JoinEdge) -> JoinEdge:
        """Add ``edge`` (tables must be known; names are matched case-insensitively). An edge over the
        same column pairs as a known one merges into it: evidence is united, the better-ranked origin
        (:data:`ORIGIN_RANK`) and the first relation are kept, the direction of the first is kept.

        Returns:
            The stored edge.
        Raises:
            ToolArgumentError: a table or column of the edge is not in the graph.
        """
        left, right = self.table(edge.left, source=edge.source), self.table(edge.right, source=edge.source)
        lcols = tuple(self._column(left, c) for c in edge.left_columns)
        rcols = tuple(self._column(right, c) for c in edge.right_columns)
        edge = self._with_uniqueness(replace(edge, left=left.name, right=right.name, left_columns=lcols,
                                             right_columns=rcols, evidence=tuple(sorted(set(edge.evidence)))))
        key = (edge.source, edge.pairs)
        old = self._edges.get(key)
        if old is not None:
            best = min((old, edge), key=lambda e: ORIGIN_RANK.get(e.origin, len(ORIGIN_RANK)))
            edge = replace(old, origin=best.origin, evidence=tuple(sorted(set(old.evidence) | set(edge.evidence))),
                           relation=old.relation or edge.relation)
        self._store(key, edge)
        return edge

    def _store(self, key: tuple[str, frozenset], edge: JoinEdge) -> None:
        self._edges[key] = edge
        self._adjacent = {}

    def _column(self, table: TableRef, name: str) -> str:
        for col in self.columns[table]:
            if col == name:
                return col
        for col in self.columns[table]:
            if col.casefold() == name.casefold():
                return col
        raise ToolArgumentError(f"table {table.name!r} has no column {name!r}")

    def _condition_names(self) -> dict[str, dict[str, tuple[str, str]]]:
        """``{source id: {"table.column": (table, column)}}`` of every catalog column, by which
        :meth:`_parse_condition` reads a condition (made once for many conditions: at 70,000 columns
        making it costs about 20 ms)."""
        names: dict[str, dict[str, tuple[str, str]]] = {source: {} for source in self.dialects}
        for table, columns in self.columns.items():
            if table.source in names:
                names[table.source].update((f"{table.name}.{c}", (table.name, c)) for c in columns)
        return names

    def _parse_condition(self, text: str, names: dict[str, dict[str, tuple[str, str]]] | None = None) -> list[JoinEdge]:
        """Edges of a ``t.c = t.c [AND ...]`` condition whose names are catalog columns (else []).

        Both the builder's readable form (``Order Details.OrderID = Orders.OrderID``) and quoted SQL
        (``"Order Details"."OrderID" = "Orders"."OrderID"``, read with sqlglot) are accepted.
        ``names``: :meth:`_condition_names` of this graph when the caller parses many conditions."""
        found = []
        by_source = self._condition_names() if names is None else names
        for source in sorted(self.dialects):
            names_here = by_source.get(source, {})
            left_cols, right_cols, tables = [], [], set()
            for part in _condition_parts(text, self.dialects[source]):
                sides = part.split(" = ")
                ends = [names_here.get(s.strip()) for s in sides] if len(sides) == 2 else [None]
                if any(e is None for e in ends):
                    break
                (lt, lc), (rt, rc) = ends  # type: ignore[misc]
                tables.add((lt, rt))
                left_cols.append(lc)
                right_cols.append(rc)
            else:
                if len(tables) == 1:
                    lt, rt = tables.pop()
                    found.append(JoinEdge(source, lt, tuple(left_cols), rt, tuple(right_cols)))
        return found

    # -- lookups ------------------------------------------------------------------------------------

    @property
    def edges(self) -> list[JoinEdge]:
        """Every edge, sorted by (source, left, right)."""
        return sorted(self._edges.values(), key=lambda e: (e.source, e.left, e.right, e.left_columns))

    def table(self, name: str, *, source: str | None = None) -> TableRef:
        """The table called ``name`` (exact, then case-insensitive; ``source.table`` accepted).

        Raises:
            ToolArgumentError: no such table, or the name is ambiguous across sources.
        """
        by_exact, by_folded, by_qualified = self._table_names()
        folded = name.casefold()
        for found in (by_exact.get(name, []), by_folded.get(folded, []), by_qualified.get(folded, [])):
            found = [t for t in found if source in (None, t.source)]
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                raise ToolArgumentError(f"table {name!r} is in several sources ({', '.join(t.source for t in found)}); "
                                        "write source.table")
        raise ToolArgumentError(f"unknown table {name[:80]!r}")

    def _table_names(self) -> tuple[dict[str, list[TableRef]], dict[str, list[TableRef]], dict[str, list[TableRef]]]:
        """The tables by exact name, by case-folded name and by case-folded ``source.name``, each list in
        :attr:`columns` order (what :meth:`table` matches in turn); rebuilt when tables were added, so a
        lookup costs a dictionary read, not a scan of every table (75,000 scans of 1,400 tables took
        about 20 CPU s when a 70,000-column graph was built)."""
        cached = self._names
        if cached is not None and cached[0] == len(self.columns):
            return cached[1]
        exact: dict[str, list[TableRef]] = {}
        folded: dict[str, list[TableRef]] = {}
        qualified: dict[str, list[TableRef]] = {}
        for t in self.columns:
            exact.setdefault(t.name, []).append(t)
            folded.setdefault(t.name.casefold(), []).append(t)
            qualified.setdefault(f"{t.source}.{t.name}".casefold(), []).append(t)
        self._names = (len(self.columns), (exact, folded, qualified))
        return exact, folded, qualified

    def adjacent(self, table: TableRef) -> list[JoinEdge]:
        """The edges touching ``table``, each read from ``table`` outwards."""
        if not self._adjacent:
            adj: dict[TableRef, list[JoinEdge]] = {}
            for edge in self.edges:
                adj.setdefault(TableRef(edge.source, edge.left), []).append(edge)
                if edge.left != edge.right:
                    adj.setdefault(TableRef(edge.source, edge.right), []).append(edge.reversed())
            for out in adj.values():
                out.sort(key=_edge_rank)
            self._adjacent = adj
        return self._adjacent.get(table, [])

    def between(self, a: TableRef, b: TableRef) -> list[JoinEdge]:
        """The edges joining ``a`` and ``b`` directly, read from ``a`` to ``b`` (best first)."""
        return [e for e in self.adjacent(a) if e.right == b.name]

    # -- paths --------------------------------------------------------------------------------------

    def path(self, start: str | TableRef, end: str | TableRef, *, source: str | None = None) -> JoinPath | None:
        """The shortest join path from ``start`` to ``end`` (table names or refs), or None when they do
        not connect. Ties between equally short paths go to declared keys, then many-to-one hops.

        Raises:
            ToolArgumentError: an unknown or ambiguous table.
        """
        a = start if isinstance(start, TableRef) else self.table(start, source=source)
        b = end if isinstance(end, TableRef) else self.table(end, source=a.source)
        if a.source != b.source:
            return None
        hops = self._bfs(a, {b})
        if hops is None:
            return None
        return JoinPath(a.source, a.name, b.name, tuple(hops), self.dialects.get(a.source))

    def _bfs(self, start: TableRef, goals: set[TableRef]) -> list[JoinEdge] | None:
        """Cheapest path from ``start`` to the nearest of ``goals`` (Dijkstra over :data:`ORIGIN_COST`
        per hop, ties broken by edge rank), or None."""
        if start in goals:
            return []
        best: dict[TableRef, float] = {start: 0.0}
        heap: list[tuple[float, int, TableRef, tuple[JoinEdge, ...]]] = [(0.0, 0, start, ())]
        counter = 0
        done: set[TableRef] = set()
        while heap:
            cost, _, node, hops = heapq.heappop(heap)
            if node in done:
                continue
            done.add(node)
            if node in goals:
                return list(hops)
            for edge in self.adjacent(node):
                nxt = TableRef(edge.source, edge.right)
                new = cost + ORIGIN_COST.get(edge.origin, 1.0)
                if nxt in done or new >= best.get(nxt, float("inf")):
                    continue
                best[nxt] = new
                counter += 1
                heapq.heappush(heap, (new, counter, nxt, hops + (edge,)))
        return None

    def connect(self, tables: Iterable[str | TableRef], *, source: str | None = None) -> list[JoinEdge] | None:
        """A join tree over ``tables``: starting from the first, repeatedly the shortest path from the
        tables joined so far to the nearest table not joined yet. Returns the hops in join order (each
        read from a joined table to a new one), ``[]`` for one table, None when they do not connect."""
        refs = [t if isinstance(t, TableRef) else self.table(t, source=source) for t in tables]
        refs = list(dict.fromkeys(refs))
        if not refs:
            return []
        if len({r.source for r in refs}) > 1:
            return None
        joined, todo, hops = {refs[0]}, set(refs[1:]), []
        while todo:
            best: list[JoinEdge] | None = None
            for origin in sorted(joined):
                found = self._bfs(origin, todo)
                if found is not None and (best is None or _path_rank(found) < _path_rank(best)):
                    best = found
            if best is None:
                return None
            for hop in best:
                joined.add(TableRef(hop.source, hop.right))
            todo -= joined
            hops += best
        return hops


def _condition_parts(text: str, dialect: str | None) -> list[str]:
    """``["t.c = t.c", ...]`` (unquoted) for an AND-joined equality condition; quoted SQL is read with
    sqlglot, anything else is split on `` AND `` as written."""
    if not any(q in text for q in '"`['):
        return text.split(" AND ")
    import sqlglot

    try:
        tree = sqlglot.parse_one(text, read=dialect)
    except sqlglot.errors.ParseError:
        return []
    parts = []
    for eq in tree.find_all(exp.EQ):
        if not (isinstance(eq.left, exp.Column) and isinstance(eq.right, exp.Column)):
            return []
        parts.append(f"{eq.left.table}.{eq.left.name} = {eq.right.table}.{eq.right.name}")
    return parts


def _path_rank(hops: list[JoinEdge]) -> tuple[float, int]:
    return (sum(ORIGIN_COST.get(h.origin, 1.0) for h in hops),
            sum(ORIGIN_RANK.get(h.origin, len(ORIGIN_RANK)) for h in hops))


def _edge_rank(edge: JoinEdge) -> tuple:
    return (ORIGIN_RANK.get(edge.origin, len(ORIGIN_RANK)), not edge.right_unique, edge.right, edge.right_columns)


# -- the tool --------------------------------------------------------------------------------------------


def join_path_tool(graph: JoinGraph, start: str, end: str, *, table_of: Any = None,
                   id_of: Any = None) -> dict[str, Any]:
    """The ``join_path(from, to)`` tool's answer.

    Args:
        graph: the version's join graph.
        start, end: table names (``source.table`` when ambiguous) or record ids of Terms, Mappings,
            tables or columns (mapped to their table by ``table_of(id) -> TableRef | None``).
        table_of: resolves an id to its table (the toolkit passes one reading the ontology).
        id_of: IRI -> agent-facing id (for evidence ids).

    Returns:
        ``{"from", "to", "tables", "hops": [{from, to, condition, cardinality, origin, evidence}],
        "sql", "warnings"?}``, or ``{"from", "to", "hops": [], "error": ...}`` when they do not connect.
    Raises:
        ToolArgumentError: empty, too long, unknown or ambiguous table or id.
    """
    refs = []
    for value in (start, end):
        if not isinstance(value, str) or not value.strip() or len(value) > 500:
            raise ToolArgumentError("join_path: from and to must be table names or record ids (1-500 characters)")
        ref = table_of(value) if table_of is not None else None
        refs.append(ref if ref is not None else graph.table(value.strip()))
    path = graph.path(refs[0], refs[1])
    if path is None:
        return {"from": refs[0].name, "to": refs[1].name, "hops": [],
                "error": f"no known join path between {refs[0].name} and {refs[1].name}"}
    return path.to_dict(id_of, graph)


# -- SQL check ---------------------------------------------------------------------------------------------


@dataclass
class _Equality:
    node: exp.Expression
    left: tuple[TableRef, str, str]   # (table, column, alias as written)
    right: tuple[TableRef, str, str]


_GRAPHS: "weakref.WeakKeyDictionary[Any, tuple[Any, JoinGraph]]" = weakref.WeakKeyDictionary()
_GRAPHS_LOCK = threading.Lock()


def join_graph_of(ontology: Any) -> JoinGraph:
    """The :class:`JoinGraph` of an ontology version, built on first use and cached per ontology
    object and version, so ``join_path``, resolve's ``joins`` and ``check_sql`` share one graph."""
    graph = cached_join_graph(ontology)
    if graph is not None:
        return graph
    version = ontology.version if isinstance(ontology, Ontology) else None
    graph = JoinGraph.from_ontology(ontology)
    with _GRAPHS_LOCK:
        _GRAPHS[ontology] = (version, graph)
    return graph


def cached_join_graph(ontology: Any) -> JoinGraph | None:
    """The :class:`JoinGraph` :func:`join_graph_of` built for this ontology object at its current
    version, or None (not built yet: nothing is built here)."""
    version = ontology.version if isinstance(ontology, Ontology) else None
    with _GRAPHS_LOCK:
        cached = _GRAPHS.get(ontology)
    return cached[1] if cached is not None and cached[0] == version else None


def known_table_joins(ontology: Any) -> TableJoins:
    """:func:`table_joins` of an ontology version: of the graph :func:`join_graph_of` keeps when it
    was built already, else of a graph built without the name guesses (``name_guesses=False``:
    the same known joins, a third less work, and not cached: the caller keeps the joins)."""
    graph = cached_join_graph(ontology)
    return table_joins(graph if graph is not None else JoinGraph.from_ontology(ontology, name_guesses=False))


def check_joins(graph: JoinGraph, statement: exp.Expression | exp.Query, *,
                dialect: str | None, probe: Any = None) -> list[Finding]:
    """Findings about the joins of ``statement`` (parsed by sqlglot) against ``graph``.

    Per SELECT scope, table names are matched to the graph as written (aliases resolved per scope),
    unqualified columns to the one table of the scope that has them. Column equalities between two
    tables (``JOIN ... ON`` or ``WHERE``) are the scope's joins. Kinds:

    - ``mismatched_join_keys``: the two tables have known joins, but these columns are none of them: a
      Violation only when ``probe`` (a :class:`~evoonto.tools.sqlcheck.probes.DataProbe`) confirms
      that no pair of rows joins on them; else a Warning naming the known joins, never offered as a
      drop-in fix (a second role of a key joins other rows);
    - ``unknown_join`` (Warning): a table of the scope joined to the others by no condition at all (a
      Cartesian product: sometimes meant, so never a Violation), or two tables joined on columns no
      known edge relates while the graph knows no direct join between them (saying so when a probe
      refuted that join: :attr:`JoinGraph.refuted`);
    - ``partial_key_join`` (Warning): two tables joined on part of a multi-column key they join on;
      the whole key is named in the message, never offered as a suggestion (it changes the answer);
    - ``fan_trap`` (Warning): SUM/COUNT/AVG (not DISTINCT) over a column of a table whose rows a join
      of the scope repeats, directly or through a chain of joins (the other side's join columns are
      not unique: 1:N from the unique side, or N:M where neither side is unique by declared keys or
      Evidence), and ``COUNT(*)`` over such joins (see :func:`_fan_traps`); with ``probe``, only when
      the data under the statement's conditions repeats a row.

    Args:
        graph: the join graph of the version.
        statement: a parsed statement (any sqlglot expression or query, e.g. ``exp.Select``; non-SELECT
            parts are ignored).
        dialect: the sqlglot dialect of the SQL (used for quoted suggestions).

    Returns:
        Findings per SELECT, innermost SELECT first; ``start``/``end`` are character offsets when
        sqlglot kept positions.
    """
    findings: list[Finding] = []
    try:
        scopes = traverse_scope(statement)
    except Exception:  # sqlglot cannot scope some statements; nothing to say about their joins
        return []
    for scope in scopes:
        findings += _check_scope(graph, scope, dialect, probe)
    return findings


@dataclass(frozen=True)
class WrittenJoins:
    """The joins one SELECT of a statement writes: its distinct ``tables`` (in FROM order) and the
    column ``pairs`` its equalities join (direction-free and case-folded, as :attr:`JoinEdge.pairs`)."""

    tables: tuple[TableRef, ...]
    pairs: frozenset


def written_joins(graph: JoinGraph, statement: exp.Expression | exp.Query) -> list[WrittenJoins]:
    """Per SELECT of ``statement`` with two or more distinct known tables and a column equality
    between two of them: what it joins (aliases resolved per SELECT; self-joins left out, as a table
    joined to itself has no path to choose). Used to compare written joins with :meth:`JoinGraph.connect`."""
    out = []
    for scope in traverse_scope(statement):
        if not isinstance(scope.expression, exp.Select):
            continue
        tables = _scope_tables(graph, scope)
        refs = tuple(dict.fromkeys(tables.values()))
        if len(refs) < 2 or len(refs) != len(tables):
            continue
        pairs = frozenset(_pair((e.left[0].name, e.left[1]), (e.right[0].name, e.right[1]))
                          for e in _equalities(graph, scope, tables) if e.left[0] != e.right[0])
        if pairs:
            out.append(WrittenJoins(refs, pairs))
    return out


def _scope_tables(graph: JoinGraph, scope: Scope) -> dict[str, TableRef]:
    tables: dict[str, TableRef] = {}
    for alias, source in scope.sources.items():
        if isinstance(source, exp.Table) and source.name:
            try:
                tables[alias.casefold()] = graph.table(source.name)
            except ToolArgumentError:
                continue
    return tables


def _resolve_column(graph: JoinGraph, tables: dict[str, TableRef],
                    column: exp.Column) -> tuple[TableRef, str, str] | None:
    name = column.name
    if column.table:
        ref = tables.get(column.table.casefold())
        if ref is None:
            return None
        try:
            return ref, graph._column(ref, name), column.table
        except ToolArgumentError:
            return None
    owners = [(alias, ref) for alias, ref in tables.items()
              if any(c.casefold() == name.casefold() for c in graph.columns.get(ref, ()))]
    if len({ref for _, ref in owners}) != 1:
        return None
    alias, ref = owners[0]
    return ref, graph._column(ref, name), alias


def _own_conditions(scope: Scope) -> list[exp.Expression]:
    select = scope.expression
    conditions: list[exp.Expression] = []
    for join in select.args.get("joins") or ():
        on = join.args.get("on")
        if on is not None:
            conditions.append(on)
    where = select.args.get("where")
    if where is not None:
        conditions.append(where.this)
    return conditions


def _merged_equalities(graph: JoinGraph, scope: Scope, tables: dict[str, TableRef]) -> list[_Equality]:
    """The equalities a ``NATURAL JOIN`` (every column name the joined table shares with the tables
    before it) or ``JOIN … USING (c)`` writes implicitly: the joined table's column equals the same
    column of the first earlier table that has it, as the database resolves it."""
    select = scope.expression
    from_ = select.args.get("from_") or select.args.get("from")  # sqlglot renamed the key
    first = from_.this if from_ is not None else None
    written: dict[str, str] = {}  # alias casefolded -> as written
    before = [first.alias_or_name.casefold()] if isinstance(first, exp.Table) else []
    if isinstance(first, exp.Table):
        written[before[0]] = first.alias_or_name
    out = []
    for join in select.args.get("joins") or ():
        target = join.this
        alias = target.alias_or_name.casefold() if isinstance(target, exp.Table) else None
        natural = str(join.args.get("method") or "").upper() == "NATURAL"
        using = [u.name for u in join.args.get("using") or () if isinstance(u, (exp.Identifier, exp.Column))]
        if alias in tables and (natural or using):
            ref = tables[alias]
            own = {c.casefold(): c for c in graph.columns.get(ref, ())}
            names = using or [c for c in graph.columns.get(ref, ())
                              if any(c.casefold() in {o.casefold() for o in graph.columns.get(tables[b], ())}
                                     for b in before if b in tables)]
            for name in names:
                holder = next((b for b in before if b in tables and any(
                    c.casefold() == name.casefold() for c in graph.columns.get(tables[b], ()))), None)
                if holder is None or name.casefold() not in own:
                    continue
                left = (tables[holder], graph._column(tables[holder], name), written[holder])
                right = (ref, own[name.casefold()], target.alias_or_name)
                node = exp.EQ(this=exp.column(left[1], table=left[2]), expression=exp.column(right[1], table=right[2]))
                out.append(_Equality(node, left, right))
        if alias is not None:
            before.append(alias)
            written[alias] = target.alias_or_name
    return out


def _equalities(graph: JoinGraph, scope: Scope, tables: dict[str, TableRef]) -> list[_Equality]:
    out = _merged_equalities(graph, scope, tables)
    for condition in _own_conditions(scope):
        for eq in condition.find_all(exp.EQ):
            if eq.find_ancestor(exp.Select) is not scope.expression:
                continue
            if not (isinstance(eq.left, exp.Column) and isinstance(eq.right, exp.Column)):
                continue
            a, b = _resolve_column(graph, tables, eq.left), _resolve_column(graph, tables, eq.right)
            if a is None or b is None or a[2].casefold() == b[2].casefold():
                continue
            out.append(_Equality(eq, a, b))
    return out


def _check_scope(graph: JoinGraph, scope: Scope, dialect: str | None, probe: Any = None) -> list[Finding]:
    if not isinstance(scope.expression, exp.Select):
        return []
    tables = _scope_tables(graph, scope)
    if not tables:
        return []
    findings: list[Finding] = []
    equalities = _equalities(graph, scope, tables)
    # tables per alias whose rows a join repeats (the other side's join columns are not unique)
    repeated: dict[str, tuple[TableRef, str]] = {}
    hops: dict[str, dict[str, bool]] = {}  # alias -> {joined alias: its join columns are unique}
    linked: dict[str, set[str]] = {alias: set() for alias in tables}
    grouped: dict[tuple[str, str], list[_Equality]] = {}
    for eq in equalities:
        la, ra = eq.left[2].casefold(), eq.right[2].casefold()
        grouped.setdefault((la, ra) if la <= ra else (ra, la), []).append(eq)
    for (la, ra), eqs in grouped.items():
        linked[la].add(ra)
        linked[ra].add(la)
        first = eqs[0]
        lt, rt = first.left[0], first.right[0]
        sides = {first.left[2].casefold(): [], first.right[2].casefold(): []}  # type: dict[str, list[str]]
        pairs = set()
        for eq in eqs:
            for side in (eq.left, eq.right):
                sides.setdefault(side[2].casefold(), []).append(side[1])
            pairs.add(_pair((eq.left[0].name, eq.left[1]), (eq.right[0].name, eq.right[1])))
        left_alias, right_alias = first.left[2], first.right[2]
        known = graph.between(lt, rt) if lt != rt else [e for e in graph.adjacent(lt) if e.right == rt.name]
        matching = [e for e in known if e.pairs <= pairs]
        partial = [e for e in known if pairs < e.pairs]
        start, end = _span(first.node)
        written = " AND ".join(e.node.sql(dialect=dialect) for e in eqs)
        if not matching and partial:
            whole = partial[0]
            findings.append(Finding(
                "partial_key_join", "Warning",
                f"{lt.name} and {rt.name} are joined on {written}, part of their key "
                f"({whole.condition(dialect, left_alias=left_alias, right_alias=right_alias)}): each row meets every "
                "row that shares only this part (the whole key can join fewer rows, so joining on it can change the "
                "answer: it is no drop-in fix; not checked against the data)",
                suggestion=None,
                start=start, end=end, subject=f"{lt.name}-{rt.name}"))
        elif not matching:
            if known:
                findings.append(_mismatched(known, eqs, lt, rt, left_alias, right_alias, written, dialect, probe,
                                            start, end, graph=graph))
            elif lt != rt:
                path = graph.path(lt, rt)
                hint = (f"known path: {path.sql(dialect)}" if path is not None and path.hops
                        else None)
                refuted = (lt.source, frozenset(pairs)) in graph.refuted
                findings.append(Finding(
                    "unknown_join", "Warning",
                    f"no known join relates {lt.name} and {rt.name} on {written}"
                    + ("; the builder's inclusion probe found none of the one side's values on the other "
                       "(Evidence with evo:refutesJoin): the join may match no row" if refuted else ""),
                    suggestion=hint, start=start, end=end, subject=f"{lt.name}-{rt.name}"))
        fl, fr = left_alias.casefold(), right_alias.casefold()
        l_unique = graph.is_unique(lt, sides.get(fl, ()))
        r_unique = graph.is_unique(rt, sides.get(fr, ()))
        # a side's rows are repeated when the other side's join columns are not unique: 1:N repeats
        # the one side, N:M (neither side unique, e.g. a referenced key whose Evidence shows
        # duplicates) repeats both
        if not r_unique:
            repeated[fl] = (lt, fr)
        if not l_unique:
            repeated[fr] = (rt, fl)
        hops.setdefault(fl, {})[fr] = r_unique
        hops.setdefault(fr, {})[fl] = l_unique
    findings += _cartesian(graph, scope, tables, linked, dialect)
    findings += _fan_traps(graph, scope, tables, repeated, dialect, hops,
                           {id(eq.node) for eq in equalities}, probe)
    return findings


def _cartesian(graph: JoinGraph, scope: Scope, tables: dict[str, TableRef], linked: dict[str, set[str]],
               dialect: str | None) -> list[Finding]:
    """Tables of the scope joined to the others by no condition (a Cartesian product)."""
    if len(tables) < 2:
        return []
    has_other_condition = _non_equi_links(scope)
    aliases = list(tables)
    component, todo = {aliases[0]}, [aliases[0]]
    while todo:
        for nxt in linked.get(todo.pop(), ()):
            if nxt not in component:
                component.add(nxt)
                todo.append(nxt)
    findings = []
    for alias in aliases[1:]:
        if alias in component or alias in has_other_condition:
            continue
        ref = tables[alias]
        hops = graph.connect([tables[a] for a in sorted(component)] + [ref])
        hint = None
        if hops:
            last = [h for h in hops if h.right == ref.name or h.left == ref.name]
            hint = (last or hops)[-1].condition(dialect)
        findings.append(Finding(
            "unknown_join", "Warning",
            f"{ref.name} is joined to the other tables by no condition (every row pairs with every row: a "
            "Cartesian product, wanted only when every combination is meant)",
            suggestion=hint, subject=ref.name))
    return findings


def _non_equi_links(scope: Scope) -> set[str]:
    """Aliases that appear in some non-equality condition together with another alias (e.g. ``a.x < b.y``,
    ``USING``), so they are not Cartesian even without a column equality."""
    out: set[str] = set()
    select = scope.expression
    for join in select.args.get("joins") or ():
        if join.args.get("using"):
            out.add(join.this.alias_or_name.casefold())
            for source in scope.sources:
                out.add(source.casefold())
    for condition in _own_conditions(scope):
        for pred in condition.find_all(exp.Predicate):
            if isinstance(pred, exp.EQ) and isinstance(pred.left, exp.Column) and isinstance(pred.right, exp.Column):
                continue
            if pred.find_ancestor(exp.Select) is not select:
                continue
            owners = {c.table.casefold() for c in pred.find_all(exp.Column)
                      if c.table and c.find_ancestor(exp.Select) is select}
            if len(owners) > 1:
                out |= owners
    return out


def _mismatched(known: list[JoinEdge], eqs: list["_Equality"], lt: TableRef, rt: TableRef, left_alias: str,
                right_alias: str, written: str, dialect: str | None, probe: Any,
                start: int | None, end: int | None, graph: "JoinGraph | None" = None) -> Finding:
    """The finding for two tables joined on columns none of their known joins uses.

    With ``graph``, a written side whose columns are a declared foreign key to a third table is
    named (``Products.SupplierID references Suppliers.SupplierID``): values shared with the other
    table's key are then a coincidence of numbering, not a second role of a key.

    A Violation only when a probe of the data (``probe.overlap``) ran and found no pair of rows
    that the written columns join (the join is empty: provably wrong), still without a suggestion
    (a known join pairs other rows: callers are not assignees). When the columns do share
    values (a second role of a key, e.g. ``dest = faa`` where ``origin = faa`` is known) or nothing
    could be probed, a Warning; the known joins are named in the message and never offered as a
    drop-in fix: they join other rows."""
    left_cols = [e.left[1] if e.left[0] == lt else e.right[1] for e in eqs]
    right_cols = [e.right[1] if e.left[0] == lt else e.left[1] for e in eqs]
    overlap = probe.overlap(lt.name, left_cols, rt.name, right_cols) if probe is not None else None
    others = "; ".join(e.condition(dialect, left_alias=left_alias, right_alias=right_alias) for e in known[:3])
    subject = f"{lt.name}-{rt.name}"
    if overlap is False:
        # no drop-in fix: a known join pairs other rows (assignees for callers), so replacing the
        # written one would answer another question; the known joins are named for the writer to choose
        return Finding("mismatched_join_keys", "Violation",
                       f"{lt.name} and {rt.name} are joined on {written}, which no row of the two satisfies (a probe "
                       f"of the data found no matching pair); they join on {others}. Each joins other rows than the "
                       "written join means: use one only if it is what the question means",
                       suggestion=None, start=start, end=end, subject=subject)
    declared = (_declared_elsewhere(graph, ((lt, left_cols, rt, right_cols), (rt, right_cols, lt, left_cols)))
                if graph is not None else [])
    if declared:
        seen = ("; ".join(declared) + " (a declared foreign key)"
                + (": the rows the data pairs on it (a probe found some) pair ids of different tables"
                   if overlap else "; not checked against the data"))
    else:
        seen = ("the columns share values in the data (a probe found matching rows), so this may be another role "
                "of the key" if overlap else "not checked against the data")
    return Finding("mismatched_join_keys", "Warning",
                   f"{lt.name} and {rt.name} are joined on {written}, which is none of their known joins ({others}); "
                   f"{seen}. A known join would join other rows and change the answer: use it only if it is the "
                   "role the question means", suggestion=None, start=start, end=end, subject=subject)


def _declared_elsewhere(graph: "JoinGraph",
                        sides: Iterable[tuple[TableRef, list[str], TableRef, list[str]]]) -> list[str]:
    """``"Products.SupplierID references Suppliers.SupplierID, not Categories"`` for each ``(table,
    columns, other, other columns)`` whose columns are, as a whole, a declared foreign key of
    ``table`` to a third table, when the other columns hold ids of another table too: they identify
    ``other``'s rows (a key, or unique by Evidence) or are a declared foreign key to yet another
    table. Otherwise nothing is claimed (``project.billing_account_id`` may hold account ids)."""
    def reference(table: TableRef, columns: list[str]) -> "JoinEdge | None":
        wanted = {c.casefold() for c in columns}
        return next((e for e in graph.edges if e.origin == "foreign_key" and e.source == table.source
                     and e.left == table.name and {c.casefold() for c in e.left_columns} == wanted), None)

    out = []
    for table, columns, other, other_columns in sides:
        edge = reference(table, columns)
        if edge is None or edge.right == other.name:
            continue
        theirs = reference(other, other_columns)
        if graph.is_unique(other, other_columns) or (theirs is not None and theirs.right != edge.right):
            out.append(f"{table.name}.{', '.join(edge.left_columns)} references "
                       f"{edge.right}.{', '.join(edge.right_columns)}, not {other.name}")
    return out


def _fan_traps(graph: JoinGraph, scope: Scope, tables: dict[str, TableRef],
               repeated: dict[str, tuple[TableRef, str]], dialect: str | None,
               hops: dict[str, dict[str, bool]] | None = None,
               joins: set[int] | None = None, probe: Any = None) -> list[Finding]:
    """``fan_trap`` (Warning) for aggregates over rows a join repeats.

    ``hops``: alias -> {neighbour alias: whether the neighbour's join columns are unique} for the
    scope's column-equality joins. A table's rows are repeated when some join reachable from it,
    read away from it, reaches a side whose join columns are not unique (one hop or several:
    ``a -> b`` N:1 then ``b -> c`` 1:N repeats ``a``). SUM/AVG/COUNT of a column of a repeated
    table is reported, and ``COUNT(*)`` when every table of the scope is repeated (no table's rows
    are the result's rows: two 1:N branches, a chasm) or when it counts the rows of a table that a
    join repeats while nothing of the table across that join is used but the join itself, and the
    statement does not group by the counted table (``joins``: ids of the join equality nodes).
    The aggregated value counts, not the columns of a condition: ``SUM(CASE WHEN p.x THEN c.amount
    END)`` aggregates ``c``'s rows, ``COUNT(CASE WHEN p.x THEN 1 END)`` counts the join's rows; a
    value that also reads a table the joins do not repeat (``SUM(line.qty * product.price)``) is
    computed per row of that table and is not reported. With
    a ``probe``, a trap is reported only when the data, under the statement's own FROM and WHERE,
    holds a row of the aggregated table more than once (:func:`_repeats`).
    The advice is to aggregate at the table's
    own grain before joining, or ``COUNT(DISTINCT key)`` for a count; never ``SUM(DISTINCT ...)``,
    which drops equal amounts."""
    reached = _repeated_through(hops or {}, tables)
    for alias, cause in repeated.items():
        reached.setdefault(alias, cause)
    if not reached:
        return []
    findings = []
    for agg in scope.expression.find_all(exp.Sum, exp.Count, exp.Avg):
        if agg.find_ancestor(exp.Select) is not scope.expression:
            continue
        arg = agg.this
        if isinstance(arg, exp.Distinct) or arg is None:
            continue
        start, end = _span(agg)
        if isinstance(arg, exp.Star):
            if len(tables) > 1 and all(a in reached for a in tables) and _has_one_to_many(hops or {}):
                names = ", ".join(sorted({tables[a].name for a in tables}))
                findings.append(Finding(
                    "fan_trap", "Warning",
                    f"{agg.sql(dialect=dialect)} counts the rows of a join of {names} in which every table's rows "
                    "repeat (two or more one-to-many joins): it counts combinations, not rows of one table",
                    suggestion="count at one table's grain: COUNT(DISTINCT <its key>), or aggregate each table in a "
                               "subquery before joining",
                    start=start, end=end, subject=names))
                continue
            counted = _count_multiplied(graph, scope, tables, reached, joins or set(), hops or {})
            if counted is not None and probe is not None and _repeats(
                    graph, scope, tables, next(a for a in tables if tables[a] == counted[0]), probe, dialect) is False:
                counted = None  # under the statement's own conditions the data repeats no row of it
            if counted is not None and counted[2]:
                ref, other, by = counted
                joined = tables[other].name
                findings.append(Finding(
                    "fan_trap", "Warning",
                    f"{agg.sql(dialect=dialect)} per group of {', '.join(f'{ref.name}.{c}' for c in by)} counts "
                    f"{ref.name} rows once per matching {joined} row (the statement uses nothing of {joined} but "
                    f"the join): right if the question counts {joined} rows per group; {ref.name} rows are counted "
                    f"by COUNT(DISTINCT <a key of {ref.name}>), which can give another answer",
                    suggestion=None, start=start, end=end, subject=ref.name))
            elif counted is not None:
                ref, other, _by = counted
                joined = tables[other].name
                # which count is meant is the question's: no rewrite is offered as a fix (counting
                # the Orders of German customers this way is right; COUNT(DISTINCT) would count customers)
                findings.append(Finding(
                    "fan_trap", "Warning",
                    f"{agg.sql(dialect=dialect)} counts {ref.name} rows once per matching {joined} row (the join to "
                    f"{joined} repeats them and the statement uses nothing of {joined} but the join): right if the "
                    f"question counts {joined} rows; {ref.name} rows are counted by COUNT(DISTINCT <a key of "
                    f"{ref.name}>) or an EXISTS filter, which can give another answer",
                    suggestion=None, start=start, end=end, subject=ref.name))
            continue
        columns = _value_columns(arg)
        if not columns:
            continue  # a conditional count (COUNT(CASE WHEN … THEN 1 END)): it counts the join's rows
        resolved = [_resolve_column(graph, tables, c) for c in columns]
        aliases = {r[2].casefold() for r in resolved if r is not None}
        if aliases - set(reached):
            # the value also reads a table whose rows the joins do not repeat (SUM(line.qty *
            # product.price)): it is computed once per row of that table, the grain the join is at
            continue
        for alias in sorted(aliases & set(reached)):
            ref, other = reached[alias]
            if probe is not None and _repeats(graph, scope, tables, alias, probe, dialect) is False:
                continue  # under the statement's own conditions the data repeats no row of it
            advice = ("COUNT(DISTINCT <a key of " + ref.name + ">)" if isinstance(agg, exp.Count)
                      else f"aggregate {ref.name} at its own grain in a subquery, then join")
            findings.append(Finding(
                "fan_trap", "Warning",
                f"{agg.sql(dialect=dialect)} aggregates {ref.name} rows that the join to {tables[other].name} repeats "
                f"(one {ref.name} row per matching {tables[other].name} row)",
                suggestion=f"{advice} (not SUM(DISTINCT ...): it drops equal amounts)",
                start=start, end=end, subject=ref.name))
    return findings


def _value_columns(arg: exp.Expression) -> list[exp.Column]:
    """The columns whose values an aggregate's argument passes on: for ``CASE``/``IF`` the columns of
    the branches' results, not of their conditions; for anything else every column."""
    if isinstance(arg, exp.Case):
        results = [i.args.get("true") for i in arg.args.get("ifs") or ()] + [arg.args.get("default")]
        return [c for r in results if isinstance(r, exp.Expression) for c in _value_columns(r)]
    if isinstance(arg, exp.If):
        results = [arg.args.get("true"), arg.args.get("false")]
        return [c for r in results if isinstance(r, exp.Expression) for c in _value_columns(r)]
    if isinstance(arg, exp.Column):
        return [arg]
    return [c for child in arg.iter_expressions() for c in _value_columns(child)]


def _repeats(graph: JoinGraph, scope: Scope, tables: dict[str, TableRef], alias: str, probe: Any,
             dialect: str | None) -> bool | None:
    """Whether, under the scope's own FROM, joins and WHERE, some row of ``alias``'s table appears
    more than once (a bounded probe: ``SELECT 1 FROM … WHERE … GROUP BY <its unique key> HAVING
    COUNT(*) > 1 LIMIT 1``). None when the table has no known unique key, the scope reads an outer
    query's columns, or the probe failed."""
    select = scope.expression
    if not isinstance(select, exp.Select) or scope.is_correlated_subquery or scope.external_columns:
        return None
    ref = tables[alias]
    key = next((sorted(k) for k in sorted(graph.unique.get(ref, ()), key=len) if k), None)
    if key is None or not hasattr(probe, "any_row"):
        return None
    columns = [graph._column(ref, k) for k in key]
    test = select.copy()
    for arg in ("group", "having", "order", "limit", "offset", "distinct", "qualify", "windows"):
        test.set(arg, None)
    test.set("expressions", [exp.Literal.number(1)])
    test = test.group_by(*[exp.column(c, table=alias, quoted=True) for c in columns], copy=False)
    test = test.having("COUNT(*) > 1", copy=False).limit(1, copy=False)
    return probe.any_row(test.sql(dialect=dialect))


def _count_multiplied(graph: JoinGraph, scope: Scope, tables: dict[str, TableRef],
                      reached: dict[str, tuple[TableRef, str]], joins: set[int],
                      hops: dict[str, dict[str, bool]] | None = None) -> tuple[TableRef, str, list[str]] | None:
    """(counted table, alias of the table whose join repeats it, the counted table's grouped columns)
    when a ``COUNT(*)`` of the scope counts a table's rows multiplied by a join that contributes
    nothing else: the repeated table is the first of FROM or has columns used outside join
    conditions; across the repeating join (the repeating table and every table reached through it,
    ``hops``) no column is used outside join conditions and the first table of FROM is not there
    unrepeated (``FROM car_makers JOIN countries … WHERE countries.name = 'france'`` counts car
    makers: no join repeats them, the join only filters); and the statement does not group by a
    unique key or a join column of the repeated table (each group is one of its rows: the joined
    rows per row are meant). Grouped by other columns of it (``customers.country``), the count is
    reported with its grouped columns: it may mean the joined rows per group (orders per country)
    or the table's rows (customers per country), which only the question tells. Else None."""
    select = scope.expression
    used: set[str] = set()
    join_columns: dict[str, set[str]] = {}
    for col in select.find_all(exp.Column):
        if col.find_ancestor(exp.Select) is not select:
            continue
        if id(col.parent) in joins:
            resolved = _resolve_column(graph, tables, col)
            if resolved is not None:
                join_columns.setdefault(resolved[2].casefold(), set()).add(resolved[1].casefold())
            continue
        resolved = _resolve_column(graph, tables, col)
        if resolved is not None:
            used.add(resolved[2].casefold())
    from_ = select.args.get("from_") or select.args.get("from")
    first = from_.this.alias_or_name.casefold() if from_ is not None and isinstance(from_.this, exp.Table) else None
    grouped: dict[str, list[str]] = {}
    group = select.args.get("group")
    for g in group.expressions if group is not None else ():
        resolved = _resolve_column(graph, tables, g) if isinstance(g, exp.Column) else None
        if resolved is not None:
            grouped.setdefault(resolved[2].casefold(), []).append(resolved[1])
    for alias, (ref, other) in sorted(reached.items()):
        if not (alias in used or alias == first):
            continue
        beyond = _across(hops or {other.casefold(): {}}, alias, other.casefold())
        if beyond & used or (first in beyond and first not in reached):
            continue  # the join reaches a table the statement uses, or the counted FROM table
        by = grouped.get(alias, [])
        if by and (graph.is_unique(ref, by) or {c.casefold() for c in by} & join_columns.get(alias, set())):
            continue  # one group per row of the table (orders per customer): the joined rows are meant
        return ref, other, by
    return None


def _across(hops: dict[str, dict[str, bool]], alias: str, other: str) -> set[str]:
    """The aliases on ``other``'s side of the join ``alias``–``other``: ``other`` and every alias
    reached from it through the scope's joins (``hops``) without passing through ``alias``."""
    seen, todo = {alias, other}, [other]
    while todo:
        for nxt in hops.get(todo.pop(), {}):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen - {alias}


def _repeated_through(hops: dict[str, dict[str, bool]], tables: dict[str, TableRef]) -> dict[str, tuple[TableRef, str]]:
    """alias -> (its table, the alias of a table across the first repeating join reached from it),
    following joins away from each alias (a tree walk; each alias visited once per start)."""
    out: dict[str, tuple[TableRef, str]] = {}
    for start in hops:
        seen, todo = {start}, [start]
        while todo and start not in out:
            here = todo.pop(0)
            for nxt, unique in sorted(hops.get(here, {}).items()):
                if nxt in seen:
                    continue
                if not unique:
                    out[start] = (tables[start], nxt)
                    break
                seen.add(nxt)
                todo.append(nxt)
    return out


def _has_one_to_many(hops: dict[str, dict[str, bool]]) -> bool:
    """True when some join has exactly one unique side (a known 1:N, not an N:M of unknowns)."""
    return any(unique != hops.get(b, {}).get(a, unique) for a, near in hops.items() for b, unique in near.items())


# -- ids to tables, and resolve's "joins" section ----------------------------------------------------------


def tables_of(ontology: Any, iris: Iterable[str]) -> dict[str, TableRef]:
    """The table of each record IRI that has one: a Term (through its Mappings; the first table by
    name when it maps to several), a Mapping, a ``csvw:Table`` or a ``csvw:Column``. One SELECT."""
    from evoonto.tools.sparql import iri_ref, select

    todo = sorted(set(iris))
    if not todo:
        return {}
    rows = select(ontology, f"""
        SELECT ?x ?table ?id WHERE {{
          VALUES ?x {{ {' '.join(iri_ref(i) for i in todo)} }}
          {{ ?x evo:hasMapping ?m . ?m evo:table ?t }} UNION {{ ?m evo:mapsTerm ?x ; evo:table ?t }}
          UNION {{ ?x evo:table ?t }} UNION {{ ?x a csvw:Table . BIND(?x AS ?t) }}
          UNION {{ ?x a csvw:Column ; dcterms:isPartOf ?t }}
          ?t dcterms:title|csvw:name ?table ; dcterms:isPartOf ?s . ?s dcterms:identifier ?id }}
        ORDER BY ?x ?id ?table""")
    out: dict[str, TableRef] = {}
    for row in rows:
        out.setdefault(row["x"], TableRef(row["id"], row["table"]))
    return out


def joins_section(graph: JoinGraph, tables: Iterable[TableRef], id_of: Any = None) -> list[dict[str, Any]] | None:
    """Resolve's compact ``joins`` section for records resolved together: the join tree over their
    tables (per source, tables in first-seen order) as ``[{from, to, condition, cardinality,
    evidence}]`` plus a ``warning`` on hops that repeat rows (fan-out); None when fewer than two
    tables, ``[]`` when they do not connect."""
    refs = list(dict.fromkeys(tables))
    if len(refs) < 2:
        return None
    out: list[dict[str, Any]] = []
    for source in dict.fromkeys(r.source for r in refs):
        group = [r for r in refs if r.source == source]
        if len(group) < 2:
            continue
        hops = graph.connect(group) or []
        dialect = graph.dialects.get(source)
        for hop in hops:
            item = hop.to_dict(dialect, id_of)
            item.pop("origin", None)
            if not item["evidence"]:
                item.pop("evidence")
            if not hop.right_unique:
                item["warning"] = f"{hop.cardinality}: aggregates over {hop.left} are multiplied by this join"
            out.append(item)
    return out


# -- table joins, persisted per version --------------------------------------------------------------


#: What :func:`table_joins` returns: table -> {a table it joins -> the names of its own columns in
#: those joins}.
TableJoins = dict[str, dict[str, set[str]]]


def table_joins(graph: JoinGraph) -> TableJoins:
    """Table name -> the tables it joins by a declared, probed, verified or shared key, each with the
    names of the table's own columns in those joins (both directions; joins guessed from names
    alone and self-joins are left out): what compact browse uses to bring join keys and bridge
    tables forward.

    Args:
        graph: the version's :class:`JoinGraph`.
    Returns:
        ``{table: {joined table: {own column, ...}}}`` over the tables with at least one such join
        (a dict, so ``joined in joins[table]`` and ``set(joins[table])`` read the joined tables).
    """
    joins: TableJoins = {}
    for edge in graph.edges:
        if ORIGIN_RANK.get(edge.origin, len(ORIGIN_RANK)) < ORIGIN_RANK["name"] and edge.left != edge.right:
            joins.setdefault(edge.left, {}).setdefault(edge.right, set()).update(edge.left_columns)
            joins.setdefault(edge.right, {}).setdefault(edge.left, set()).update(edge.right_columns)
    return joins


#: The layout of a table-joins file (bumped when it changes; files of another layout are rebuilt).
TABLE_JOINS_FORMAT = 2


@functools.lru_cache(maxsize=1)
def _joins_code_stamp() -> str:
    """What the table joins depend on besides the content: the code that reads the catalog, the
    Evidence and the Relations and derives the edges (this module, :mod:`evoonto.catalog`,
    :mod:`evoonto.sources.joins`)."""
    import evoonto.catalog as catalog_module
    import evoonto.sources.joins as joins_module

    digest = hashlib.sha256(f"table joins {TABLE_JOINS_FORMAT}".encode())
    for module_file in (__file__, catalog_module.__file__, joins_module.__file__):
        digest.update(Path(str(module_file)).read_bytes())
    return digest.hexdigest()


def table_joins_file(folder: Path, fingerprint: str) -> Path:
    """The file of the table joins of the version whose content ``fingerprint`` identifies (the
    :attr:`~evoonto.tools.index.IndexCache.fingerprint` of the workspace version), under ``folder``
    (``<workspace>/cache/joins``); the name also covers the code that derives the joins."""
    key = hashlib.sha256(f"{fingerprint}\0{_joins_code_stamp()}".encode()).hexdigest()[:32]
    return folder / f"{key}.json"


def read_table_joins(path: Path) -> TableJoins | None:
    """The table joins a :func:`write_table_joins` file holds, or None (missing, unreadable, another
    format or a malformed file: the caller derives them again; a cache is never trusted blindly)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != TABLE_JOINS_FORMAT:
        return None
    if not isinstance(data.get("joins"), dict):
        return None
    joins: TableJoins = {}
    for table, others in data["joins"].items():
        if not isinstance(others, dict):
            return None
        for other, columns in others.items():
            if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
                return None
            joins.setdefault(str(table), {})[str(other)] = set(columns)
    return joins


def write_table_joins(path: Path, joins: TableJoins, *, keep: int = 4) -> None:
    """Write ``joins`` (see :func:`table_joins`) atomically to ``path`` (sorted JSON, a few KB to a few
    MB) and delete the oldest files of its folder beyond ``keep``. A folder that cannot be written is
    skipped (the cache is an optimisation; nothing is raised)."""
    from evoonto.errors import EvoontoError
    from evoonto.fileio import atomic_write, make_dirs

    listed = {t: {o: sorted(c) for o, c in sorted(others.items())} for t, others in sorted(joins.items())}
    text = json.dumps({"format": TABLE_JOINS_FORMAT, "joins": listed}, ensure_ascii=False, separators=(",", ":"))
    try:
        make_dirs(path.parent)
        atomic_write(path, text.encode("utf-8"))
        files = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in files[keep:]:
            old.unlink(missing_ok=True)
    except (OSError, EvoontoError):
        return
