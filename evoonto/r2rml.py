"""R2RML export: the ontology's Mappings as a W3C R2RML mapping (https://www.w3.org/TR/r2rml/), so an
R2RML engine (Ontop, morph-kgc, D2RQ) serves the source data as a virtual knowledge graph whose
classes and properties are evoonto's Terms.

What is mapped (tables and views of SQL sources; documents are not):

- **TriplesMap per entity Term** (``evo:Entity`` with a Mapping to a whole table, no column and no
  filter): ``rr:logicalTable [ rr:tableName "…" ]``, a subject IRI template from the table's primary
  key, ``<B data/{source}/{table}/{key}[/{key2}…]>``, and ``rr:class`` the entity Term. A table without
  a primary key gets no TriplesMap (listed in a comment at the top).
- **predicate-object map per attribute Mapping** (a Term mapped to one column of that table without a
  filter; value-filtered Category Terms are classes of rows, not attributes, and are skipped): predicate
  the Term, object ``rr:column`` with ``rr:datatype`` from the column's declared SQL type (R2RML's
  natural mapping: integers -> ``xsd:integer``, DECIMAL/NUMERIC -> ``xsd:decimal``, FLOAT/REAL/DOUBLE
  -> ``xsd:double``, BOOLEAN, DATE, TIME, DATETIME/TIMESTAMP; text stays a plain literal).
- **aggregates are not row properties**: a Term whose Mapping aggregates the column (``evo:aggregation``
  SUM, COUNT, AVG … other than NONE: a Metric such as "lifetime spend" = SUM(Invoice.Total)) or
  computes it from an ``evo:expression`` is *left out* of the row mapping, named in a comment at the
  top of the export: its value belongs to a group of rows (whose grouping the Mapping does not fix),
  and mapping it per row would make each invoice's total its "lifetime spend". A column whose every
  Term was left out keeps its values under the W3C Direct Mapping property ``<B data/{source}/
  {table}#{column}>`` (:func:`direct_property`).
- **binary columns are left out** (BLOB, BINARY, VARBINARY, BYTEA; named in a comment): R2RML's natural
  mapping makes them ``xsd:hexBinary``, but morph-kgc 2.3.1 stops with a UnicodeDecodeError on the
  first non-UTF-8 byte and 2.10.0 writes Python's ``b'\\x00\\xff'`` as the lexical form (observed on a
  three-row SQLite table), so the whole export would fail or hold ill-typed literals.
- **join**: each join Relation (a qualified ``evo:Relation`` with an ``evo:joinCondition`` whose
  source and target Terms map to columns of two mapped tables) becomes, on the child table's map, a
  predicate-object map with predicate the child column's Term and a ``rr:RefObjectMap`` to the parent
  table's TriplesMap with ``rr:joinCondition [ rr:child …; rr:parent … ]``. A join on a column of a
  composite key (the child table's columns referencing the parent's whole multi-column primary key)
  is one ``rr:RefObjectMap`` with one ``rr:joinCondition`` per key column: never half a key.

Example::

    from evoonto.r2rml import to_r2rml
    Path("mapping.r2rml.ttl").write_bytes(to_r2rml(Workspace.open(".evoonto").ontology))
    # morph-kgc:  [DataSource1] mappings=mapping.r2rml.ttl  db_url=sqlite:///db.sqlite

The export is read from the ontology only; it never connects to a source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import rdflib
from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF, XSD

from evoonto.catalog import TableInfo, foreign_keys, read_catalog

if TYPE_CHECKING:
    from evoonto.ontology import Ontology

RR = rdflib.Namespace("http://www.w3.org/ns/r2rml#")

#: SQL type name (upper case, without length/precision) -> XSD datatype (R2RML §10.2 natural mapping).
SQL_XSD: dict[str, URIRef] = {
    **{t: XSD.integer for t in ("INTEGER", "INT", "SMALLINT", "BIGINT", "TINYINT", "MEDIUMINT", "INT2", "INT4",
                                "INT8", "SERIAL", "BIGSERIAL", "HUGEINT", "UBIGINT", "UINTEGER")},
    **{t: XSD.decimal for t in ("DECIMAL", "NUMERIC", "NUMBER", "MONEY")},
    **{t: XSD.double for t in ("FLOAT", "REAL", "DOUBLE", "DOUBLE PRECISION", "FLOAT4", "FLOAT8")},
    "BOOLEAN": XSD.boolean, "BOOL": XSD.boolean,
    "DATE": XSD.date, "TIME": XSD.time,
    **{t: XSD.dateTime for t in ("DATETIME", "TIMESTAMP", "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE")},
    **{t: XSD.hexBinary for t in ("BLOB", "BINARY", "VARBINARY", "BYTEA")},
}

_SIMPLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def xsd_type(declared_type: str) -> URIRef | None:
    """The XSD datatype of a declared SQL type (``"NUMERIC(10,2)"`` -> ``xsd:decimal``), None for text/unknown."""
    name = re.sub(r"\(.*$", "", declared_type or "").strip().upper()
    return SQL_XSD.get(name)


def sql_identifier(name: str) -> str:
    """``name`` as R2RML expects a column/table name: bare when a simple identifier, else double-quoted."""
    return name if _SIMPLE.match(name) else '"' + name.replace('"', '""') + '"'


def direct_property(base: str, table: TableInfo, column: str) -> URIRef:
    """The property a column's values get when no Term is that column's row value (every Term mapped to
    it aggregates or computes): ``<B data/{source}/{table}#{column}>``, the W3C Direct Mapping's
    literal property IRI (https://www.w3.org/TR/rdb-direct-mapping/) under the export's data IRIs."""
    return URIRef(f"{base}data/{quote(table.source_id, safe='')}/{quote(table.name, safe='')}#{quote(column, safe='')}")


def _template_text(text: str) -> str:
    """Literal text inside an R2RML string template: ``{``, ``}`` and ``\\`` escaped with ``\\``."""
    return re.sub(r"([{}\\])", r"\\\1", text)


@dataclass
class _TableMap:
    node: URIRef
    entity: URIRef
    table: TableInfo
    attributes: list[tuple[URIRef, str]] = field(default_factory=list)  # (term, column)
    # (term, child columns, parent map, parent columns): a composite key is one join of several conditions
    joins: list[tuple[URIRef, tuple[str, ...], URIRef, tuple[str, ...]]] = field(default_factory=list)


def r2rml_graph(ontology: Ontology) -> tuple[rdflib.Graph, list[str]]:
    """The R2RML mapping of ``ontology`` as an rdflib Graph, and the notes on what was left out.

    Returns:
        ``(graph, notes)``: ``notes`` are one-line strings (tables without a primary key, …).
    """
    catalog = read_catalog(ontology)
    tables = {t.iri: t for t in catalog.tables}
    columns = {c.iri: c for c in catalog.columns}
    base = ontology.base_iri
    maps: dict[URIRef, _TableMap] = {}
    notes: list[str] = []
    entity_rows = ontology.query(
        "SELECT ?t ?tbl WHERE { ?t a evo:Entity ; evo:hasMapping ?m . ?m evo:table ?tbl "
        "FILTER NOT EXISTS { ?m evo:column ?c } FILTER NOT EXISTS { ?m evo:filter ?f } "
        "FILTER NOT EXISTS { ?t owl:deprecated true } } ORDER BY ?tbl ?t")
    for row in entity_rows:
        table = tables.get(row["tbl"])
        if table is None or row["tbl"] in maps:
            continue
        if not table.primary_key:
            notes.append(f"no TriplesMap for table {table.source_id}.{table.name}: it has no primary key")
            continue
        node = URIRef(f"{base}r2rml/{quote(table.source_id, safe='')}/{quote(table.name, safe='')}")
        maps[row["tbl"]] = _TableMap(node, URIRef(row["t"]), table)
    column_terms: dict[URIRef, list[URIRef]] = {}
    aggregates: dict[URIRef, list[tuple[URIRef, str]]] = {}  # column -> (Term, why it is no row value)
    for row in ontology.query(
            "SELECT ?t ?col ?agg ?expr WHERE { ?t a evo:Term ; evo:hasMapping ?m . ?m evo:column ?col "
            "OPTIONAL { ?m evo:aggregation ?agg } OPTIONAL { ?m evo:expression ?expr } "
            "FILTER NOT EXISTS { ?m evo:filter ?f } FILTER NOT EXISTS { ?t owl:deprecated true } } ORDER BY ?t"):
        agg = str(row.get("agg") or "").strip().upper()
        if agg and agg != "NONE":
            aggregates.setdefault(row["col"], []).append((URIRef(row["t"]), f"the {agg} of the column"))
        elif row.get("expr") is not None:
            aggregates.setdefault(row["col"], []).append((URIRef(row["t"]), "computed by an SQL expression"))
        else:
            column_terms.setdefault(row["col"], []).append(URIRef(row["t"]))
    join_columns: set[tuple[URIRef, URIRef]] = set()
    keys_of: dict = {}  # table IRI -> its foreign keys (see _whole_keys)
    for row in ontology.query(
            "SELECT ?a ?b ?ca ?cb WHERE { ?r a evo:Relation ; evo:joinCondition ?jc ; owl:annotatedSource ?a ; "
            "owl:annotatedTarget ?b . ?a evo:hasMapping ?ma . ?ma evo:column ?ca . "
            "?b evo:hasMapping ?mb . ?mb evo:column ?cb } ORDER BY ?a ?b"):
        child, parent = columns.get(row["ca"]), columns.get(row["cb"])
        if child is None or parent is None or child.table_iri not in maps or parent.table_iri not in maps:
            continue
        if (row["a"], row["cb"]) in join_columns:
            continue
        join_columns.add((row["a"], row["cb"]))
        keys = _whole_keys(child, parent, tables, keys_of)
        if not keys:
            maps[child.table_iri].joins.append((URIRef(row["a"]), (child.name,), maps[parent.table_iri].node,
                                                (parent.name,)))
            continue
        # part of a composite key: the whole key is one join (once per key; a column in two keys to
        # the same table, such as a season in both home and away keys, is part of both joins)
        for key in keys:
            entry = (URIRef(row["a"]), key[0], maps[parent.table_iri].node, key[1])
            known = [j for j in maps[child.table_iri].joins if j[1:] == entry[1:]]
            if not known:
                maps[child.table_iri].joins.append(entry)
            elif child.name == key[0][0]:  # the key's first column names the predicate
                joins = maps[child.table_iri].joins
                joins[joins.index(known[0])] = entry
    joined_terms = {(term, child) for m in maps.values() for term, cols, _, _ in m.joins for child in cols}
    joined_columns = {(m.table.iri, child) for m in maps.values() for _, cols, _, _ in m.joins for child in cols}
    for col_iri, terms in column_terms.items():
        column = columns.get(col_iri)
        if column is None or column.table_iri not in maps:
            continue
        for term in terms:
            if (term, column.name) not in joined_terms:
                maps[column.table_iri].attributes.append((term, column.name))
    for col_iri, left_out in sorted(aggregates.items()):
        column = columns.get(col_iri)
        if column is None or column.table_iri not in maps:
            continue
        table = maps[column.table_iri].table
        for term, why in left_out:
            notes.append(f"<{term}> is not mapped as a row property of {table.source_id}.{table.name}: it is "
                         f"{why} {column.name} (an aggregate or computed value, not each row's value)")
        if col_iri not in column_terms and (column.table_iri, column.name) not in joined_columns:
            # the column's values stay in the graph under the W3C Direct Mapping's property IRI
            maps[column.table_iri].attributes.append((direct_property(base, table, column.name), column.name))

    for m in maps.values():
        for name in sorted({c for _t, c in m.attributes}):
            column = m.table.column(name)
            if column is not None and xsd_type(column.declared_type) == XSD.hexBinary:
                notes.append(f"binary column {m.table.source_id}.{m.table.name}.{name} ({column.declared_type}) "
                             f"is not mapped: R2RML engines do not turn its bytes into xsd:hexBinary reliably")
    graph = rdflib.Graph()
    graph.bind("rr", RR)
    graph.bind("xsd", XSD)
    for m in sorted(maps.values(), key=lambda m: str(m.node)):
        _triples_map(graph, m, base)
    return graph, notes


def _triples_map(graph: rdflib.Graph, m: _TableMap, base: str) -> None:
    table = m.table
    graph.add((m.node, RDF.type, RR.TriplesMap))
    logical = BNode()
    graph.add((m.node, RR.logicalTable, logical))
    graph.add((logical, RR.tableName, Literal(sql_identifier(table.name))))
    prefix = f"{base}data/{quote(table.source_id, safe='')}/{quote(table.name, safe='')}/"
    keys = "/".join("{" + _template_text(sql_identifier(k)) + "}" for k in table.primary_key)
    subject = BNode()
    graph.add((m.node, RR.subjectMap, subject))
    graph.add((subject, RR.template, Literal(_template_text(prefix) + keys)))
    graph.add((subject, RR["class"], m.entity))
    for term, column_name in sorted(m.attributes):
        column = table.column(column_name)
        if column is not None and xsd_type(column.declared_type) == XSD.hexBinary:
            continue  # binary: left out (r2rml_graph's notes say so)
        pom, obj = BNode(), BNode()
        graph.add((m.node, RR.predicateObjectMap, pom))
        graph.add((pom, RR.predicate, term))
        graph.add((pom, RR.objectMap, obj))
        graph.add((obj, RR.column, Literal(sql_identifier(column_name))))
        datatype = xsd_type(column.declared_type if column else "")
        if datatype is not None:
            graph.add((obj, RR.datatype, datatype))
    for term, children, parent_map, parents in sorted(m.joins):
        pom, ref = BNode(), BNode()
        graph.add((m.node, RR.predicateObjectMap, pom))
        graph.add((pom, RR.predicate, term))
        graph.add((pom, RR.objectMap, ref))
        graph.add((ref, RR.parentTriplesMap, parent_map))
        for child, parent in zip(children, parents, strict=True):
            cond = BNode()
            graph.add((ref, RR.joinCondition, cond))
            graph.add((cond, RR.child, Literal(sql_identifier(child))))
            graph.add((cond, RR.parent, Literal(sql_identifier(parent))))


def _whole_keys(child: Any, parent: Any, tables: dict, keys_of: dict) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """``(child columns, parent columns)`` of each composite key ``child`` -> ``parent`` belongs to:
    the multi-column foreign keys of the child's table (:func:`evoonto.catalog.foreign_keys`, which
    keeps each declared key whole) that pair ``child`` with ``parent``; empty for a join on a
    single-column key. ``tables``: catalog tables by IRI; ``keys_of``: the foreign keys found so
    far, by table IRI (filled here: each table's keys are read once per export)."""
    child_table, parent_table = tables.get(child.table_iri), tables.get(parent.table_iri)
    if child_table is None or parent_table is None:
        return []
    if child_table.iri not in keys_of:
        same_source = [t for t in tables.values() if t.source_iri == child_table.source_iri]
        keys_of[child_table.iri] = foreign_keys(child_table, same_source)
    return [(columns, ref_columns) for columns, ref_table, ref_columns in keys_of[child_table.iri]
            if len(columns) > 1 and ref_table == parent_table.name
            and (child.name, parent.name) in zip(columns, ref_columns, strict=True)]


def to_r2rml(ontology: Ontology) -> bytes:
    """The R2RML mapping of ``ontology`` (see the module docstring) as Turtle, UTF-8 bytes, with the
    notes on what was left out as ``#`` comment lines at the top."""
    graph, notes = r2rml_graph(ontology)
    head = "".join(f"# {note}\n" for note in notes)
    return head.encode("utf-8") + graph.serialize(format="turtle", encoding="utf-8")


__all__ = ["RR", "SQL_XSD", "direct_property", "r2rml_graph", "sql_identifier", "to_r2rml", "xsd_type"]
