"""Catalog harvesting: a source's tables, columns and keys as an RDF graph (graph ``evog:catalog``).

The model follows docs/architecture.md §3 (W3C DCAT 3 for the source, W3C CSVW for tables and
columns, DCTERMS for names and containment, ``evo:`` for what those lack)::

    <src> a dcat:Dataset ; dcterms:identifier "concert_singer" ; dcterms:title "concert_singer" ;
          evo:sourceKind "sqlite" .
    <tbl> a csvw:Table ; csvw:name "singer" ; dcterms:isPartOf <src> ; evo:rowCount 6 .
    <col> a csvw:Column ; csvw:name "Singer_ID" ; dcterms:isPartOf <tbl> ;
          evo:declaredType "INT" ; evo:primaryKey true ; evo:references <other col> ; evo:ordinal 0 .

Documents sources give ``evo:Document`` nodes (``dcterms:isPartOf <src>``, ``dcterms:title``) and
``evo:Passage`` nodes (``<doc>/passage/{n}``, ``dcterms:isPartOf <doc>``, ``dcterms:title`` = the
heading path, ``evo:text``). IRIs come from :class:`evoonto.iris.IriFactory` (percent-encoded
segments, so ``Free Meal Count (K-12)`` is safe); there are no blank nodes.

A declared foreign key whose target table or column does not exist is skipped with a
:class:`~evoonto.sources.base.SourceWarning`; unreadable tables were already skipped by
``source.tables()``. Discovered joins (:mod:`evoonto.sources.joins`) can be added as
``evo:references`` too (``joins=``).

Example::

    from evoonto.iris import IriFactory
    from evoonto.sources import harvest, open_source

    iris = IriFactory("https://example.org/evoonto/demo/")
    with open_source("concert_singer.sqlite") as src:
        graph = harvest(src, iris)
    print(graph.serialize(format="turtle")[:400])
"""

from __future__ import annotations

from typing import Iterable

import rdflib
from rdflib import Literal
from rdflib.namespace import DCAT, DCTERMS, RDF, XSD

from evoonto.namespaces import CSVW, EVO, bind_prefixes
from evoonto.sources.base import BaseSource, resolve_foreign_key, warn

__all__ = ["harvest"]


def harvest(source: BaseSource, iris, *, graph: rdflib.Graph | None = None, joins: Iterable = ()) -> rdflib.Graph:
    """Describe ``source`` as catalog triples.

    Args:
        source: an open :class:`~evoonto.sources.base.Source`.
        iris: an :class:`evoonto.iris.IriFactory` (the workspace base).
        graph: add to this graph instead of a new one (several sources in one catalog).
        joins: :class:`~evoonto.sources.joins.JoinCandidate` objects to record as
            ``evo:references`` (declared keys are always recorded).

    Returns:
        The graph (prefixes bound), with the source, its tables and columns (or documents and
        passages).

    Raises:
        SourceError: the source is closed or cannot list its tables at all.
    """
    g = bind_prefixes(rdflib.Graph()) if graph is None else graph
    src = iris.source(source.id)
    g.add((src, RDF.type, DCAT.Dataset))
    g.add((src, DCTERMS.identifier, Literal(source.id)))
    g.add((src, DCTERMS.title, Literal(source.id)))
    g.add((src, EVO.sourceKind, Literal(source.kind)))
    if source.kind == "documents":
        _add_documents(g, source, iris, src)
        return g
    tables = source.tables()
    for table in tables:
        tbl = iris.table(source.id, table.name)
        g.add((tbl, RDF.type, CSVW.Table))
        g.add((tbl, CSVW.name, Literal(table.name)))
        g.add((tbl, DCTERMS.isPartOf, src))
        if table.row_count is not None:
            g.add((tbl, EVO.rowCount, Literal(table.row_count, datatype=XSD.integer)))
        for column in table.columns:
            col = iris.column(source.id, table.name, column.name)
            g.add((col, RDF.type, CSVW.Column))
            g.add((col, CSVW.name, Literal(column.name)))
            g.add((col, DCTERMS.isPartOf, tbl))
            if column.declared_type:
                g.add((col, EVO.declaredType, Literal(column.declared_type)))
            g.add((col, EVO.primaryKey, Literal(column.primary_key)))
            g.add((col, EVO.ordinal, Literal(column.ordinal, datatype=XSD.integer)))
        for fk in table.foreign_keys:
            pairs = resolve_foreign_key(table, fk, tables)
            if pairs is None:
                warn(
                    f"source {source.id!r}: foreign key {table.name}({', '.join(fk.columns)}) -> "
                    f"{fk.ref_table} names a missing table or column; skipped"
                )
                continue
            for column_name, ref_table, ref_column in pairs:
                g.add((
                    iris.column(source.id, table.name, column_name),
                    EVO.references,
                    iris.column(source.id, ref_table, ref_column),
                ))
    for join in joins:
        g.add((
            iris.column(source.id, join.left_table, join.left_column),
            EVO.references,
            iris.column(source.id, join.right_table, join.right_column),
        ))
    return g


def _add_documents(g: rdflib.Graph, source, iris, src) -> None:
    for document in source.documents():
        doc = iris.document(source.id, document.name)
        g.add((doc, RDF.type, EVO.Document))
        g.add((doc, DCTERMS.isPartOf, src))
        g.add((doc, DCTERMS.title, Literal(document.title)))
        for passage in document.passages:
            node = iris.passage(doc, passage.n)
            g.add((node, RDF.type, EVO.Passage))
            g.add((node, DCTERMS.isPartOf, doc))
            if passage.heading:
                g.add((node, DCTERMS.title, Literal(passage.heading)))
            g.add((node, EVO.text, Literal(passage.text)))
