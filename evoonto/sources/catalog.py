"""Catalog harvesting: a source's tables, columns and keys as an RDF graph (graph ``evog:catalog``).

The model follows docs/architecture.md §3 (W3C DCAT 3 for the source, W3C CSVW for tables and
columns, DCTERMS for names and containment, ``evo:`` for what those lack)::

    <src> a dcat:Dataset ; dcterms:identifier "concert_singer" ; dcterms:title "concert_singer" ;
          evo:sourceKind "sqlite" .
    <tbl> a csvw:Table ; dcterms:title "singer" ; dcterms:isPartOf <src> ; evo:rowCount 6 ;
          csvw:tableSchema <tbl/schema> .   # <tbl/schema> a csvw:Schema ; csvw:column <col> …
    <col> a csvw:Column ; csvw:name "Singer_ID" ; dcterms:isPartOf <tbl> ;
          evo:declaredType "INT" ; evo:primaryKey true ; evo:references <other col> ; evo:ordinal 0 .
    <tbl/schema> csvw:foreignKey <fk> .   # each declared key: which columns form it
    <fk> a csvw:ForeignKey ; evo:foreignKeyOf <tbl> ; evo:referencedTable <other tbl> ;
         evo:keyColumn <col>, … .

A view is a ``csvw:Table`` with ``evo:isView true``, ``evo:readsTable`` for each table or view its
defining query reads, and ``evo:viewColumnOf`` from each view column that passes a column of those
tables through unchanged (``SELECT o."OrderID", ...``) to that column; both come from parsing the view's
SQL with sqlglot (:func:`view_lineage`; a view whose SQL cannot be read or parsed is still marked as a
view, without links).

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
from evoonto.records import ForeignKeyDefinition, distribution_triples, table_schema_triples
from evoonto.sources.base import BaseSource, resolve_foreign_key, warn

__all__ = ["harvest", "view_lineage", "view_sql"]


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
    for triple in distribution_triples(src, source.id, source.kind):  # dcat:Distribution
        g.add(triple)
    if source.kind == "documents":
        _add_documents(g, source, iris, src)
        return g
    tables = source.tables()
    for table in tables:
        tbl = iris.table(source.id, table.name)
        g.add((tbl, RDF.type, CSVW.Table))
        # the table's name is its dcterms:title: csvw:name has the domain csvw:Column (CSVW namespace),
        # so under RDFS inference a table with a csvw:name would become a column
        g.add((tbl, DCTERMS.title, Literal(table.name)))
        g.add((tbl, DCTERMS.isPartOf, src))
        for triple in table_schema_triples(tbl):  # csvw:tableSchema -> csvw:Schema
            g.add(triple)
        schema = iris.table_schema(source.id, table.name)
        if table.row_count is not None:
            g.add((tbl, EVO.rowCount, Literal(table.row_count, datatype=XSD.integer)))
        if table.kind == "view":
            _add_view(g, source, iris, table, tables)
        for column in table.columns:
            col = iris.column(source.id, table.name, column.name)
            g.add((col, RDF.type, CSVW.Column))
            g.add((col, CSVW.name, Literal(column.name)))
            g.add((col, DCTERMS.isPartOf, tbl))
            g.add((schema, CSVW.column, col))
            if column.declared_type:
                g.add((col, EVO.declaredType, Literal(column.declared_type)))
            g.add((col, EVO.primaryKey, Literal(column.primary_key)))
            g.add((col, EVO.ordinal, Literal(column.ordinal, datatype=XSD.integer)))
        for fk in table.foreign_keys:
            pairs = resolve_foreign_key(table, fk, tables)
            if not pairs:
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
            # which columns form this one key (their references alone cannot tell two composite keys
            # into the same table apart)
            key_columns = [column_name for column_name, _ref_table, _ref_column in pairs]
            ForeignKeyDefinition(
                iri=iris.foreign_key(source.id, table.name, pairs[0][1], key_columns),
                table=tbl, referenced_table=iris.table(source.id, pairs[0][1]),
                columns=[iris.column(source.id, table.name, name) for name in key_columns],
            ).to_graph(g)
    for join in joins:
        for child_column, parent_column in join.pairs():
            g.add((
                iris.column(source.id, join.child, child_column),
                EVO.references,
                iris.column(source.id, join.parent, parent_column),
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


def view_sql(source: BaseSource, name: str) -> str | None:
    """The defining SQL of view ``name`` (``sqlite_master`` on SQLite, ``information_schema.views``
    elsewhere), or None when the source does not tell."""
    from evoonto.errors import SourceError
    from evoonto.sources.quoting import quote_literal

    literal = quote_literal(name, source.dialect)
    if source.dialect == "sqlite":
        sql = f"SELECT sql FROM sqlite_master WHERE type = 'view' AND name = {literal}"
    else:
        sql = f"SELECT view_definition FROM information_schema.views WHERE table_name = {literal}"
    try:
        value = source.run(sql, limit=1).scalar()
    except SourceError:
        return None
    return str(value) if value else None


def view_lineage(sql: str, dialect: str | None, tables: Iterable[str]) -> tuple[list[str], dict[str, tuple[str, str]]]:
    """What a view reads, from its SQL (``CREATE VIEW ... AS SELECT ...`` or the bare query).

    Args:
        sql: the view's SQL; dialect: sqlglot dialect; tables: the names of the source's tables and
            views (references to anything else, e.g. CTE names, are ignored).

    Returns:
        ``(tables read, {view column: (table, column)})``: the tables in order of appearance, and the
        view columns whose expression is a plain column of one of them (pass-through columns; ``t.*``
        gives the entry ``"*t": (t, "*")``; for a UNION or an unparsable query the map is empty).
        Raises nothing: unparsable SQL gives ``([], {})``.
    """
    import sqlglot
    from sqlglot import exp

    known = {t.casefold(): t for t in tables}
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.ParseError:
        return [], {}
    query = tree.expression if isinstance(tree, exp.Create) else tree
    if query is None:
        return [], {}
    ctes = {c.alias_or_name.casefold() for c in query.find_all(exp.CTE)}
    reads = list(dict.fromkeys(known[t.name.casefold()] for t in query.find_all(exp.Table)
                               if t.name.casefold() in known and t.name.casefold() not in ctes))
    columns: dict[str, tuple[str, str]] = {}
    if not isinstance(query, exp.Select):
        return reads, columns
    aliases = {}
    from_clause = query.args.get("from_") or query.args.get("from")  # the key's name differs across sqlglot versions
    for source in [from_clause] + list(query.args.get("joins") or []):
        table = source.this if source is not None else None
        if isinstance(table, exp.Table) and table.name.casefold() in known:
            aliases[table.alias_or_name.casefold()] = known[table.name.casefold()]
    for projection in query.expressions:
        inner = projection.this if isinstance(projection, exp.Alias) else projection
        star = isinstance(inner, exp.Star) or (isinstance(inner, exp.Column) and isinstance(inner.this, exp.Star))
        if not isinstance(inner, (exp.Column, exp.Star)):
            continue
        if isinstance(inner, exp.Column) and inner.table:
            owner = aliases.get(inner.table.casefold())
        else:
            owner = next(iter(aliases.values())) if len(set(aliases.values())) == 1 else None
        if owner is None:
            continue
        if star:  # t.*: every column of t, under its own name (filled in by the caller's catalog)
            columns.setdefault("*" + owner, (owner, "*"))
        else:
            columns[projection.alias_or_name] = (owner, inner.name)
    return reads, columns


def _add_view(g: rdflib.Graph, source: BaseSource, iris, table, tables) -> None:
    tbl = iris.table(source.id, table.name)
    g.add((tbl, EVO.isView, Literal(True)))
    sql = view_sql(source, table.name)
    if sql is None:
        return
    by_name = {t.name: t for t in tables}
    reads, columns = view_lineage(sql, source.dialect, by_name)
    for name in reads:
        g.add((tbl, EVO.readsTable, iris.table(source.id, name)))
    own = {c.name.casefold(): c.name for c in table.columns}
    expanded: dict[str, tuple[str, str]] = {}
    for view_column, (base_table, base_column) in columns.items():
        if base_column == "*":
            for c in by_name[base_table].columns:
                expanded.setdefault(c.name, (base_table, c.name))
        else:
            expanded[view_column] = (base_table, base_column)
    for view_column, (base_table, base_column) in expanded.items():
        base = {c.name.casefold(): c.name for c in by_name[base_table].columns}
        if view_column.casefold() in own and base_column.casefold() in base:
            g.add((iris.column(source.id, table.name, own[view_column.casefold()]), EVO.viewColumnOf,
                   iris.column(source.id, base_table, base[base_column.casefold()])))
