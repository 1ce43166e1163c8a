"""The one reader of the catalog graph: sources, tables, columns, keys, row counts, declared types.

The catalog graph (``evog:catalog``, written by :func:`evoonto.sources.catalog.harvest`; model in
docs/architecture.md §3) describes each source as a ``dcat:Dataset`` with ``csvw:Table`` /
``csvw:Column`` nodes (or ``evo:Document`` / ``evo:Passage`` nodes). :func:`read_catalog` reads it
with ONE SPARQL query, generated from the field declarations of the catalog records in
:mod:`evoonto.records` (:class:`~evoonto.records.Source`, :class:`~evoonto.records.Table`,
:class:`~evoonto.records.Column`, :class:`~evoonto.records.Document`,
:class:`~evoonto.records.Passage`), so what is written and what is read back are declared once.
The query runs on Oxigraph through ``Ontology.query`` (or on any object with ``query(sparql)``,
e.g. a remote store); an rdflib ``Graph`` (the builder's in-memory catalogs) is loaded into an
in-memory Oxigraph store first.

The builder, evolution (:class:`evoonto.evolution.view.OntologyView`), the baseline condition, the
manifest and the explorer all read the catalog through it, with the same rules:

- names are ``csvw:name`` for columns, ``dcterms:title`` for tables (``dcterms:identifier`` for
  sources); a node without one (e.g. a table an older evoonto named with ``csvw:name``) is named after
  the last segment of its IRI, percent-decoded; when a node has several values, the smallest wins
  (the rule of :meth:`evoonto.records.Term.from_graph`);
- declared types are upper case, ``""`` when undeclared;
- tables are sorted by name, columns by (ordinal, name); :attr:`Catalog.columns` lists every column
  sorted by (source id, table, column);
- ``references`` are the (table, column) names of the referenced columns of the same source.

Example::

    from evoonto.catalog import read_catalog

    catalog = read_catalog(ontology)            # an Ontology, or an rdflib.Graph of the catalog
    singer = catalog.source("concert_singer").table("singer")
    print(singer.row_count, singer.primary_key, [c.declared_type for c in singer.columns])
"""

from __future__ import annotations

import dataclasses
import functools
import weakref
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable, Protocol, TypeVar
from urllib.parse import unquote

import rdflib
from rdflib import URIRef

from evoonto.errors import SourceError
from evoonto.records import (
    CATALOG_RECORD_TYPES,
    Column,
    Document,
    ForeignKeyDefinition,
    Passage,
    Source,
    Table,
    _python,
    boolean_text,
)
from evoonto.store import OxigraphStore

__all__ = ["Catalog", "SourceSchema", "TableInfo", "ColumnInfo", "DocumentInfo", "Queryable", "CATALOG_QUERY",
           "read_catalog", "foreign_keys"]


_Named = TypeVar("_Named", "ColumnInfo", "TableInfo")


def _named(items: Iterable[_Named], name: str) -> _Named | None:
    """The item whose ``name`` is ``name`` (exact match first, then case-insensitive), or ``None``."""
    items = tuple(items)
    for item in items:
        if item.name == name:
            return item
    lowered = name.casefold()
    return next((i for i in items if i.name.casefold() == lowered), None)


def _tail(iri: Any) -> str:
    """The last path segment of an IRI, percent-decoded (the name of a node without a name)."""
    return unquote(str(iri).rstrip("/#").rsplit("/", 1)[-1].rsplit("#", 1)[-1])


@dataclass(frozen=True)
class ColumnInfo:
    """One catalog column.

    Attributes:
        name: the column name as in the source (``csvw:name``); iri: its catalog IRI.
        table, table_iri: the name and IRI of its table; source_id, source_iri: of its source.
        declared_type: upper case (``"VARCHAR(20)"``), ``""`` when undeclared.
        primary_key: part of the table's primary key; ordinal: 0-based position in the table.
        references: ``(table, column)`` names of the columns it points at (declared or discovered
            foreign keys), sorted; reference_iris: their IRIs, sorted.
        view_of: for a view column passing a column of a table it reads through unchanged, that
            column's ``(table, column)`` names (``evo:viewColumnOf``), else None.
    """

    name: str
    iri: URIRef
    table: str = ""
    table_iri: URIRef | None = None
    source_id: str = ""
    source_iri: URIRef | None = None
    declared_type: str = ""
    primary_key: bool = False
    ordinal: int = 0
    references: tuple[tuple[str, str], ...] = ()
    reference_iris: tuple[URIRef, ...] = ()
    view_of: tuple[str, str] | None = None

    @property
    def column(self) -> str:
        """The column name (same as :attr:`name`; evolution's edits say ``column``)."""
        return self.name


@dataclass(frozen=True, order=True)
class KeyGroup:
    """A declared foreign key as the catalog records it (a ``csvw:ForeignKey``): ``columns``, the
    names of the table's columns that form it, in ordinal order; ``ref_table``, the name of the
    table it references; ``iri``, the record's IRI; ``stale``, whether a drift check found the key
    no longer declared by the source (``prov:invalidatedAtTime`` on the record)."""

    columns: tuple[str, ...]
    ref_table: str
    iri: URIRef
    stale: bool = False


@dataclass(frozen=True)
class TableInfo:
    """One table: ``name``, catalog ``iri``, ``row_count`` (``None`` if unknown), ``columns`` in
    ordinal order, ``source_id`` / ``source_iri`` of its source, ``is_view`` (``evo:isView``), for
    a view ``reads``: the names of the tables it reads (``evo:readsTable``), sorted, and
    ``key_groups``: the declared foreign keys the catalog groups (:class:`KeyGroup`), sorted (empty
    in a catalog written before keys were grouped; see :func:`foreign_keys`)."""

    name: str
    iri: URIRef
    row_count: int | None
    columns: tuple[ColumnInfo, ...] = field(default_factory=tuple)
    source_id: str = ""
    source_iri: URIRef | None = None
    is_view: bool = False
    reads: tuple[str, ...] = ()
    key_groups: tuple[KeyGroup, ...] = ()

    def column(self, name: str) -> ColumnInfo | None:
        """The column called ``name`` (exact match first, then case-insensitive), or ``None``."""
        return _named(self.columns, name)

    @property
    def primary_key(self) -> tuple[str, ...]:
        """Names of the primary-key columns in ordinal order (possibly empty; several for a composite key)."""
        return tuple(c.name for c in self.columns if c.primary_key)


def key_group_pairs(table: TableInfo, group: KeyGroup) -> tuple[tuple[str, str], ...] | None:
    """``((column, referenced column), ...)`` of ``group``, a key of ``table``, in the group's column
    order: each column paired with one of its references (``evo:references``) into the group's
    table, no referenced column twice. A column in two keys to the same table references two of its
    columns (``path(n1, n2)`` and ``path(n2, n3)`` both to ``edge(src, dst)``); the pairing is the
    one way to give every column of the group a distinct referenced column. None when there is no
    such way or more than one (the catalog records which columns form a key, not which column each
    one references)."""
    options: list[list[str]] = []
    for name in group.columns:
        column = table.column(name)
        options.append(sorted({c for t, c in (column.references if column is not None else ())
                               if t == group.ref_table}))
    found: list[tuple[str, ...]] = []

    def assign(i: int, taken: tuple[str, ...]) -> None:
        if len(found) > 1:
            return
        if i == len(options):
            found.append(taken)
            return
        for target in options[i]:
            if target not in taken:
                assign(i + 1, (*taken, target))

    assign(0, ())
    if len(found) != 1 or not group.columns:
        return None
    return tuple(zip(group.columns, found[0], strict=True))


def foreign_keys(table: TableInfo, tables: Iterable[TableInfo]) -> list[tuple[tuple[str, ...], str, tuple[str, ...]]]:
    """The declared foreign keys of one catalog table as ``(columns, referenced table, referenced
    columns)``, a composite key kept whole (same length, pairwise), in column order.

    The catalog records each referencing column's target (``evo:references``) and, for a declared
    key, which columns form it (:attr:`TableInfo.key_groups`): a group whose every column references
    exactly one column of its referenced table is one key (:func:`key_group_pairs`); a group a drift
    check marked stale (the source no longer declares it) is no key, and its references are no keys
    either. The references no group explains (joins the builder discovered, a catalog written before
    keys were grouped) are read as before: the columns of ``table`` that reference distinct columns
    of one table, which together are that table's whole (composite) primary key, are one key; every
    other reference is a key of its own. ``tables``: the tables of the same source (the referenced
    ones are looked up by name, case-insensitively). Raises nothing."""
    keys: list[tuple[tuple[str, ...], str, tuple[str, ...]]] = []
    grouped: set[tuple[str, str, str]] = set()  # (column, referenced table, referenced column) of a group
    for group in table.key_groups:
        paired = key_group_pairs(table, group)
        if paired is None:
            continue
        grouped.update((a, group.ref_table, b) for a, b in paired)
        if not group.stale:
            keys.append((tuple(a for a, _b in paired), group.ref_table, tuple(b for _a, b in paired)))
    by_target: dict[str, list[tuple[str, str]]] = {}
    for column in table.columns:
        for ref_table, ref_column in column.references:
            if (column.name, ref_table, ref_column) not in grouped:
                by_target.setdefault(ref_table, []).append((column.name, ref_column))
    # the tables by name, only for a table with references no group explains (made per call: at
    # 70,000 columns, making it for each of 1,400 tables cost 0.5 CPU s)
    by_name = {t.name.casefold(): t for t in tables} if by_target else {}
    for ref_table, pairs in by_target.items():
        target = by_name.get(ref_table.casefold())
        key = {c.casefold() for c in target.primary_key} if target is not None else set()
        referenced = [b.casefold() for _a, b in pairs]
        if len(key) > 1 and len(pairs) == len(key) and set(referenced) == key:
            keys.append((tuple(a for a, _b in pairs), ref_table, tuple(b for _a, b in pairs)))
            continue
        keys += [((a,), ref_table, (b,)) for a, b in pairs]
    return keys


@dataclass(frozen=True)
class DocumentInfo:
    """One document of a documents source: ``iri``, ``title`` (``""`` when absent) and its passages
    as ``(iri, heading)`` pairs in IRI order (heading ``""`` when absent)."""

    iri: URIRef
    title: str
    passages: tuple[tuple[URIRef, str], ...] = ()


@dataclass(frozen=True)
class SourceSchema:
    """The catalog of one source: ``id`` (``dcterms:identifier``), ``iri``, ``kind``
    (``evo:sourceKind``, ``""`` when absent), ``title``, ``tables`` sorted by name and ``documents``
    sorted by IRI."""

    id: str
    iri: URIRef
    kind: str
    tables: tuple[TableInfo, ...]
    title: str = ""
    documents: tuple[DocumentInfo, ...] = ()

    def table(self, name: str) -> TableInfo | None:
        """The table called ``name`` (exact, then case-insensitive), or ``None``."""
        exact, folded = self._table_index
        found = exact.get(name)
        return found if found is not None else folded.get(name.casefold())

    @functools.cached_property
    def _table_index(self) -> tuple[dict[str, TableInfo], dict[str, TableInfo]]:
        """``(name -> table, case-folded name -> table)``, the first table of each key (as :func:`_named`
        finds it), built once: the builder looks a table up once per Term."""
        exact: dict[str, TableInfo] = {}
        folded: dict[str, TableInfo] = {}
        for table in self.tables:
            exact.setdefault(table.name, table)
            folded.setdefault(table.name.casefold(), table)
        return exact, folded

    def column_iris(self) -> set[URIRef]:
        """The IRIs of every column of every table (used to check that Mappings point at real columns)."""
        return {c.iri for t in self.tables for c in t.columns}


@dataclass(frozen=True)
class Catalog:
    """Every source of a catalog graph, sorted by id (then IRI)."""

    sources: tuple[SourceSchema, ...] = ()

    def source(self, key: Any) -> SourceSchema:
        """The source with this IRI or id.

        Raises:
            SourceError: no ``dcat:Dataset`` of the catalog has this IRI or id.
        """
        found = self.get(key)
        if found is None:
            raise SourceError(f"{key} is not a dcat:Dataset of the catalog graph")
        return found

    def get(self, key: Any) -> SourceSchema | None:
        """The source with this IRI or id, or ``None``."""
        text = str(key)
        return next((s for s in self.sources if str(s.iri) == text), None) or next(
            (s for s in self.sources if s.id == text), None)

    @property
    def tables(self) -> list[TableInfo]:
        """Every table of every source, sorted by (source id, name)."""
        return [t for s in self.sources for t in s.tables]

    @property
    def columns(self) -> list[ColumnInfo]:
        """Every column of every source, sorted by (source id, table, column)."""
        return sorted((c for t in self.tables for c in t.columns), key=lambda c: (c.source_id, c.table, c.name))

    def names(self) -> dict[URIRef, str]:
        """Readable names of the catalog's nodes: source id, table name, ``table.column``, document
        title and passage heading, by IRI (documents and passages without a title are left out)."""
        out: dict[URIRef, str] = {}
        for s in self.sources:
            out[s.iri] = s.id
            for t in s.tables:
                out[t.iri] = t.name
                for c in t.columns:
                    out[c.iri] = f"{t.name}.{c.name}"
            for d in s.documents:
                if d.title:
                    out[d.iri] = d.title
                out.update({iri: heading for iri, heading in d.passages if heading})
        return out


def _query() -> tuple[str, dict[str, str]]:
    """The catalog query and ``{predicate IRI: variable name}``, generated from the records' FIELDS."""
    variables: dict[str, str] = {}
    for cls in CATALOG_RECORD_TYPES.values():
        for spec in cls.FIELDS:
            if not spec.bulky:
                variables.setdefault(str(spec.predicate), f"p{len(variables)}")
    types = " ".join(f"<{t}>" for t in CATALOG_RECORD_TYPES)
    optionals = "\n".join(f"  OPTIONAL {{ ?node <{p}> ?{v} }}" for p, v in variables.items())
    return (f"SELECT ?node ?type {' '.join('?' + v for v in variables.values())} WHERE {{\n"
            f"  VALUES ?type {{ {types} }}\n  ?node a ?type .\n  FILTER(isIRI(?node))\n{optionals}\n}}"), variables


#: The one SPARQL query of the catalog reader (one row per node and combination of multi-valued fields).
CATALOG_QUERY, _VARIABLES = _query()


class Queryable(Protocol):
    """Anything that answers a SPARQL SELECT with rows mapping variable names to RDF nodes
    (:class:`~evoonto.ontology.Ontology`, a store)."""

    def query(self, sparql: str) -> Any: ...


def _rows(source: rdflib.Graph | Queryable) -> list[dict[str, Any]]:
    """Solutions of :data:`CATALOG_QUERY` on an rdflib Graph or an object with ``query(sparql)``."""
    if isinstance(source, rdflib.Graph):  # load into Oxigraph: rdflib's engine is ~20x slower here
        store = OxigraphStore()
        store.add(source, "catalog")
        return store.query(CATALOG_QUERY)
    if not hasattr(source, "query"):
        raise TypeError(f"read_catalog needs an Ontology (or an object with query(sparql)) or an rdflib.Graph, "
                        f"got {type(source).__name__}")
    embedded = getattr(source, "store", None)
    if isinstance(embedded, OxigraphStore):  # plain strings: no rdflib term per value (1 CPU s at 70,000 columns)
        return embedded.select_values(CATALOG_QUERY)
    out = []
    for row in source.query(CATALOG_QUERY):
        items = row.items() if hasattr(row, "items") else row.asdict().items()
        out.append({str(k): v for k, v in items if v is not None})
    return out


def _field_value(kind: str, value: Any) -> Any:
    """A record field's value from a catalog row's value: an RDF node (:func:`_python`) or the plain
    lexical string of an embedded store's row (the same value: an IRI as a ``URIRef``, an
    ``xsd:boolean`` true for ``true`` or ``1``). Raises ValueError on a malformed number."""
    if isinstance(value, rdflib.term.Node):
        return _python(kind, value)
    if kind == "iri":
        return URIRef(value)
    if kind == "int":
        return int(value)
    if kind == "float":
        return float(value)
    if kind == "bool":
        return boolean_text(value)
    return str(value)


def _records(rows: list[dict[str, Any]]) -> dict[URIRef, Any]:
    """One catalog record per node (single-valued fields: the smallest value; malformed nodes skipped)."""
    values: dict[tuple[URIRef, URIRef], dict[str, set]] = defaultdict(lambda: defaultdict(set))
    for row in rows:
        node = URIRef(str(row["node"]))
        per = values[(node, URIRef(str(row["type"])))]
        for var, value in row.items():
            if var not in ("node", "type"):
                per[var].add(value)
    out: dict[URIRef, Any] = {}
    for (node, rdf_type), per in sorted(values.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1]))):
        cls = CATALOG_RECORD_TYPES[rdf_type]
        kwargs: dict[str, Any] = {"iri": node}
        for spec in cls.FIELDS:
            if spec.bulky:
                continue
            found = sorted(per.get(_VARIABLES[str(spec.predicate)], ()), key=str)
            try:
                if spec.many:
                    kwargs[spec.attr] = [_field_value(spec.kind, n) for n in found]
                elif found:
                    kwargs[spec.attr] = _field_value(spec.kind, found[0])
            except (TypeError, ValueError):
                continue  # a malformed literal (e.g. rowCount "many") reads as absent
        if cls in (Table, Column) and "name" not in kwargs:
            kwargs["name"] = _tail(node)
        if all(spec.attr in kwargs for spec in cls.FIELDS if spec.required):
            out.setdefault(node, cls(**kwargs))
    return out


def read_catalog(source: rdflib.Graph | Queryable) -> Catalog:
    """Read every source, table, column and document of a catalog.

    Args:
        source: an :class:`~evoonto.ontology.Ontology` (its ``catalog`` graph is read through
            ``query``; any object with ``query(sparql)`` returning rows of variable -> node works)
            or an rdflib ``Graph`` holding catalog triples (may describe several sources).

    Returns:
        The :class:`Catalog` (rules in the module docstring).

    An Ontology over an embedded store is read once per change of the store: the catalog is kept
    until the store is written to (or swapped), and shared (it is immutable: frozen dataclasses and
    tuples). At 70,000 columns one read costs about 3.5 CPU s.

    Raises:
        TypeError: ``source`` is neither.
    """
    store = getattr(source, "store", None)
    if not isinstance(store, OxigraphStore) or isinstance(source, rdflib.Graph):
        return catalog_from_rows(source)
    # an Ontology over an embedded store: read once per change of the store (its revision moves with
    # every write) or when the Ontology's store was swapped
    try:
        cached = _CATALOGS.get(source)
    except TypeError:  # not weakly referenceable
        return catalog_from_rows(source)
    if cached is not None and cached[0] is store and cached[1] == store.revision:
        return cached[2]
    catalog = catalog_from_rows(source)
    _CATALOGS[source] = (store, store.revision, catalog)
    return catalog


#: Ontology -> (its store, the store's revision, the catalog read then); see :func:`read_catalog`.
_CATALOGS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _key_groups(keys: list[ForeignKeyDefinition], columns: list[ColumnInfo],
                table_names: dict[URIRef, str]) -> tuple[KeyGroup, ...]:
    """:attr:`TableInfo.key_groups` of one table from its ``csvw:ForeignKey`` records: each key whose
    columns are all columns of the table (``columns``, in ordinal order) and whose referenced table is
    a table of the same source (``table_names``: IRI -> name); other keys are left out."""
    position = {c.iri: i for i, c in enumerate(columns)}
    groups = set()
    for fk in keys:
        ref_table = table_names.get(fk.referenced_table)
        if ref_table is None or not fk.columns or any(c not in position for c in fk.columns):
            continue
        groups.add(KeyGroup(tuple(columns[i].name for i in sorted({position[c] for c in fk.columns})), ref_table,
                            fk.iri, stale=fk.invalidated_at is not None))
    return tuple(sorted(groups))


def _without_stale_references(table: TableInfo, iri_of: dict[tuple[str, str], URIRef]) -> TableInfo:
    """``table`` without the references (``ColumnInfo.references`` and ``reference_iris``) that only
    a stale key group (:attr:`KeyGroup.stale`: the source no longer declares it) made: a reference a
    live key also uses stays. ``iri_of``: ``(table, column)`` -> the column's IRI, in the source.
    ``table`` itself when it has no stale group."""
    if not any(g.stale for g in table.key_groups):
        return table
    live = {(column, g.ref_table, target) for g in table.key_groups if not g.stale
            for column, target in (key_group_pairs(table, g) or ())}
    stale = {(column, g.ref_table, target) for g in table.key_groups if g.stale
             for column, target in (key_group_pairs(table, g) or ())} - live
    if not stale:
        return table
    columns = []
    for c in table.columns:
        kept = tuple(ref for ref in c.references if (c.name, *ref) not in stale)
        columns.append(c if kept == c.references else dataclasses.replace(
            c, references=kept, reference_iris=tuple(sorted((iri_of[ref] for ref in kept), key=str))))
    return dataclasses.replace(table, columns=tuple(columns))


def catalog_from_rows(source: rdflib.Graph | Queryable) -> Catalog:
    """:func:`read_catalog` without its memo of an Ontology's catalog: ``source`` is queried every time.

    Raises:
        TypeError: ``source`` is neither an object with ``query(sparql)`` nor an rdflib ``Graph``.
    """
    records = _records(_rows(source))
    by_type: dict[type, list] = defaultdict(list)
    for record in records.values():
        by_type[type(record)].append(record)
    columns_of: dict[URIRef, list[Column]] = defaultdict(list)
    for col in by_type[Column]:
        columns_of[col.table].append(col)
    passages_of: dict[URIRef, list[Passage]] = defaultdict(list)
    for p in by_type[Passage]:
        passages_of[p.document].append(p)
    keys_of: dict[URIRef, list[ForeignKeyDefinition]] = defaultdict(list)
    for fk in by_type[ForeignKeyDefinition]:
        keys_of[fk.table].append(fk)

    sources = []
    for src in by_type[Source]:
        source_id = src.identifier if src.identifier is not None else _tail(src.iri)
        # names of the columns of this source, for references
        tables_here = [t for t in by_type[Table] if t.source == src.iri]
        column_names = {c.iri: (t.name, c.name) for t in tables_here for c in columns_of[t.iri]}
        table_names = {x.iri: x.name for x in tables_here}
        iri_of = {name: iri for iri, name in column_names.items()}
        tables = []
        for t in tables_here:
            cols = [ColumnInfo(
                name=c.name, iri=c.iri, table=t.name, table_iri=t.iri, source_id=source_id, source_iri=src.iri,
                declared_type=(c.declared_type or "").upper(), primary_key=bool(c.primary_key),
                ordinal=c.ordinal or 0,
                references=tuple(sorted(column_names[r] for r in c.references if r in column_names)),
                reference_iris=tuple(sorted((r for r in c.references if r in column_names), key=str)),
                view_of=column_names.get(c.view_of) if c.view_of is not None else None,
            ) for c in columns_of[t.iri]]
            cols.sort(key=lambda c: (c.ordinal, c.name))
            table = TableInfo(name=t.name, iri=t.iri, row_count=t.row_count, columns=tuple(cols),
                              source_id=source_id, source_iri=src.iri, is_view=bool(t.is_view),
                              reads=tuple(sorted(table_names[r] for r in t.reads if r in table_names)),
                              key_groups=_key_groups(keys_of[t.iri], cols, table_names))
            tables.append(_without_stale_references(table, iri_of))
        tables.sort(key=lambda t: (t.name, str(t.iri)))
        documents = tuple(sorted((
            DocumentInfo(d.iri, d.title or "",
                         tuple(sorted(((p.iri, p.title or "") for p in passages_of[d.iri]), key=lambda x: str(x[0]))))
            for d in by_type[Document] if d.source == src.iri), key=lambda d: str(d.iri)))
        sources.append(SourceSchema(id=source_id, iri=src.iri, kind=src.kind or "", tables=tuple(tables),
                                    title=src.title or "", documents=documents))
    sources.sort(key=lambda s: (s.id, str(s.iri)))
    return Catalog(tuple(sources))
