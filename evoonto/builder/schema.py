"""A typed, read-only view of one source's catalog graph, as the builder needs it.

The catalog graph (``evog:catalog``, written by :func:`evoonto.sources.catalog.harvest`) describes a
source as ``dcat:Dataset`` with ``csvw:Table`` / ``csvw:Column`` nodes (W3C DCAT 3, CSVW; see
docs/architecture.md §3). The builder reads it back into small frozen dataclasses so proposal and
probing never depend on a connector's Python types, only on the RDF contract.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar

from rdflib import Graph, URIRef
from rdflib.namespace import DCAT, DCTERMS, RDF

from evoonto.errors import SourceError
from evoonto.namespaces import CSVW, EVO

__all__ = ["ColumnInfo", "TableInfo", "SourceSchema", "read_schema"]


_Named = TypeVar("_Named", "ColumnInfo", "TableInfo")


def _named(items: tuple[_Named, ...], name: str) -> _Named | None:
    """The item whose ``name`` is ``name`` (exact match first, then case-insensitive), or ``None``."""
    for item in items:
        if item.name == name:
            return item
    lowered = name.casefold()
    return next((i for i in items if i.name.casefold() == lowered), None)


@dataclass(frozen=True)
class ColumnInfo:
    """One column: ``name`` as in the source, its catalog ``iri``, ``declared_type`` (upper case,
    ``""`` when undeclared), ``primary_key``, ``ordinal`` (0-based) and ``references``: the
    ``(table, column)`` pairs this column points at (declared or discovered foreign keys)."""

    name: str
    iri: URIRef
    declared_type: str = ""
    primary_key: bool = False
    ordinal: int = 0
    references: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class TableInfo:
    """One table: ``name``, catalog ``iri``, ``row_count`` (``None`` if unknown), ``columns`` in
    ordinal order."""

    name: str
    iri: URIRef
    row_count: int | None
    columns: tuple[ColumnInfo, ...] = field(default_factory=tuple)

    def column(self, name: str) -> ColumnInfo | None:
        """The column called ``name`` (exact match first, then case-insensitive), or ``None``."""
        return _named(self.columns, name)

    @property
    def primary_key(self) -> tuple[str, ...]:
        """Names of the primary-key columns (possibly empty)."""
        return tuple(c.name for c in self.columns if c.primary_key)


@dataclass(frozen=True)
class SourceSchema:
    """The catalog of one source: ``id`` (``dcterms:identifier``), ``iri``, ``kind`` and ``tables``
    sorted by name."""

    id: str
    iri: URIRef
    kind: str
    tables: tuple[TableInfo, ...]

    def table(self, name: str) -> TableInfo | None:
        """The table called ``name`` (exact, then case-insensitive), or ``None``."""
        return _named(self.tables, name)

    def column_iris(self) -> set[URIRef]:
        """The IRIs of every column of every table (used to check that Mappings point at real columns)."""
        return {c.iri for t in self.tables for c in t.columns}


def _literal(graph: Graph, node, predicate, default=None):
    value = graph.value(node, predicate)
    return default if value is None else value.toPython()


def read_schema(catalog: Graph, source_iri: URIRef) -> SourceSchema:
    """Read the tables and columns of the source ``source_iri`` from a catalog graph.

    Args:
        catalog: the catalog graph (may describe several sources).
        source_iri: the ``dcat:Dataset`` node of the source.

    Returns:
        The :class:`SourceSchema`, tables sorted by name and columns by ordinal.

    Raises:
        SourceError: ``source_iri`` is not a ``dcat:Dataset`` of the graph.
    """
    if (source_iri, RDF.type, DCAT.Dataset) not in catalog:
        raise SourceError(f"{source_iri} is not a dcat:Dataset of the catalog graph")
    source_id = str(_literal(catalog, source_iri, DCTERMS.identifier, str(source_iri)))
    kind = str(_literal(catalog, source_iri, EVO.sourceKind, ""))
    column_names: dict[URIRef, tuple[str, str]] = {}
    table_nodes = sorted(
        (t for t in catalog.subjects(DCTERMS.isPartOf, source_iri) if (t, RDF.type, CSVW.Table) in catalog),
        key=str,
    )
    raw_columns: dict[URIRef, list[URIRef]] = {}
    for table in table_nodes:
        cols = [c for c in catalog.subjects(DCTERMS.isPartOf, table) if (c, RDF.type, CSVW.Column) in catalog]
        raw_columns[table] = cols
        table_name = str(_literal(catalog, table, CSVW.name, ""))
        for col in cols:
            column_names[col] = (table_name, str(_literal(catalog, col, CSVW.name, "")))
    tables = []
    for table in table_nodes:
        columns = []
        for col in raw_columns[table]:
            refs = tuple(sorted(column_names[r] for r in catalog.objects(col, EVO.references) if r in column_names))
            columns.append(ColumnInfo(
                name=column_names[col][1], iri=col,
                declared_type=str(_literal(catalog, col, EVO.declaredType, "")).upper(),
                primary_key=bool(_literal(catalog, col, EVO.primaryKey, False)),
                ordinal=int(_literal(catalog, col, EVO.ordinal, 0)),
                references=refs,
            ))
        columns.sort(key=lambda c: (c.ordinal, c.name))
        rows = _literal(catalog, table, EVO.rowCount)
        tables.append(TableInfo(
            name=str(_literal(catalog, table, CSVW.name, "")), iri=table,
            row_count=None if rows is None else int(rows), columns=tuple(columns),
        ))
    tables.sort(key=lambda t: t.name)
    return SourceSchema(id=source_id, iri=source_iri, kind=kind, tables=tuple(tables))
