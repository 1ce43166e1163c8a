"""Regression: the catalog was read by four hand-written walks that disagreed.

Defect: the builder (``builder/schema.py``) upper-cased declared types while evolution's
``OntologyView.columns`` kept them as declared, so for a column declared ``varchar(20)`` the builder
wrote "(VARCHAR(20))" into the Term's definition while evolution reported ``varchar(20)``; the
baseline condition, the manifest and the explorer each walked the catalog graph with their own
rules too (nameless nodes: ``"None"`` vs the IRI tail vs ``""``; sources without an identifier: the
full IRI vs the IRI tail).

Now one reader, :func:`evoonto.catalog.read_catalog`, is used by all of them; this test builds a
database with lower-case and missing declared types, a composite key, a view, and names with spaces
and quotes, and checks that every consumer reports the same sources, tables, columns and types.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import rdflib
from rdflib import Literal, URIRef
from rdflib.namespace import DCAT, DCTERMS, RDF

from evoonto.builder import build
from evoonto.evaluation.conditions import build_baseline_ontology
from evoonto.evolution.view import OntologyView
from evoonto.iris import IriFactory
from evoonto.namespaces import CSVW, EVO
from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.sources.catalog import harvest
from evoonto.tools import manifest
from evoonto.viz.names import IriNamer

BASE = "https://example.org/evoonto/regress/"


def _database(tmp_path: Path) -> Path:
    path = tmp_path / "shop.sqlite"
    con = sqlite3.connect(path)
    con.executescript('''
        CREATE TABLE customer (id integer PRIMARY KEY, name varchar(20), note);
        CREATE TABLE "order ""items""" (order_id int, line int, "unit price" decimal(8,2), qty,
                                        customer_id integer REFERENCES customer(id),
                                        PRIMARY KEY (order_id, line));
        CREATE VIEW big_orders AS SELECT order_id, qty FROM "order ""items""" WHERE qty > 5;
        INSERT INTO customer VALUES (1, 'Ann', 'x'), (2, 'Bob', 'y'), (3, 'Cy', NULL);
        INSERT INTO "order ""items""" VALUES (1, 1, 2.5, 7, 1), (1, 2, 3.0, 1, 1), (2, 1, 9.9, 6, 2);
    ''')
    con.commit()
    con.close()
    return path


def _catalog_graph(db: Path) -> tuple[rdflib.Graph, str]:
    with open_source(str(db)) as src:
        return harvest(src, IriFactory(BASE)), src.id


def test_builder_and_evolution_report_the_same_declared_types(tmp_path):
    """Fails on the old code: the view said ``varchar(20)``, the builder's definition ``VARCHAR(20)``."""
    db = _database(tmp_path)
    result = build([db], ["how many customers are there"], base_iri=BASE, validate=False)
    ontology = Ontology.from_graphs(result.graphs, base_iri=BASE)
    view = OntologyView(ontology)
    content = result.graphs["content"]
    checked = 0
    for col in view.columns:
        terms = [t for m in content.subjects(EVO.column, col.iri) if (t := content.value(m, EVO.mapsTerm))]
        definitions = [str(d) for t in terms for d in content.objects(t, rdflib.namespace.SKOS.definition)]
        column_definitions = [d for d in definitions if f" {col.column} of table " in d]
        if col.view_of is not None:  # a view column passing a base column through has no Term of its own
            assert not terms, col
        elif col.declared_type:
            assert column_definitions, col
            assert all(f"({col.declared_type})" in d for d in column_definitions), (col, column_definitions)
            checked += 1
        else:
            assert all("(" not in d.split(" of table ", 1)[1].split(";")[0] for d in column_definitions), col
    assert checked >= 6
    types = {(c.table, c.column): c.declared_type for c in view.columns}
    assert types[("customer", "name")] == "VARCHAR(20)"
    assert types[("customer", "note")] == ""


def test_every_consumer_reads_the_same_catalog(tmp_path):
    from evoonto.catalog import read_catalog

    db = _database(tmp_path)
    graph, src_id = _catalog_graph(db)
    ontology = Ontology.from_graphs({"catalog": graph}, base_iri=BASE)
    from_graph, from_store = read_catalog(graph), read_catalog(ontology)
    assert from_graph == from_store

    source = from_graph.source(src_id)
    assert from_graph.source(IriFactory(BASE).source(src_id)) is source
    names = [t.name for t in source.tables]
    assert names == sorted(names) and 'order "items"' in names and "big_orders" in names
    items = source.table('order "items"')
    assert items.primary_key == ("order_id", "line")  # composite key, in ordinal order
    assert [c.name for c in items.columns] == ["order_id", "line", "unit price", "qty", "customer_id"]
    assert items.column("unit price").declared_type == "DECIMAL(8,2)"
    assert items.column("qty").declared_type == ""
    assert items.column("customer_id").references == (("customer", "id"),)
    assert source.table("customer").row_count == 3

    # evolution
    view = OntologyView(ontology)
    assert view.sources == {src_id: source.iri}
    assert view.columns == from_graph.columns
    assert [(c.source_id, c.table, c.column) for c in view.columns] == sorted(
        (c.source_id, c.table, c.column) for c in view.columns)
    # manifest
    assert manifest.sources(ontology) == [{"id": src_id, "kind": "sqlite", "tables": len(source.tables)}]
    # explorer
    namer = IriNamer(BASE, graph)
    for table in source.tables:
        assert namer(str(table.iri)) == table.name
        for col in table.columns:
            assert namer(str(col.iri)) == f"{table.name}.{col.name}"
    # baseline condition: one Term per table and column, labelled with the catalog's names
    baseline = build_baseline_ontology(db, base_iri=BASE)
    content = baseline.graph("content")
    labels = sorted(str(o) for o in content.objects(None, rdflib.namespace.SKOS.prefLabel)
                    if not str(o).startswith("raw schema"))
    assert labels == sorted([t.name for t in source.tables] + [c.name for t in source.tables for c in t.columns])
    mapped = {o for o in content.objects(None, EVO.column)}
    assert mapped == {c.iri for t in source.tables for c in t.columns}


def test_nameless_nodes_and_unidentified_sources_get_one_name(tmp_path):
    """A hand-written catalog: no dcterms:identifier, a column without csvw:name."""
    from evoonto.catalog import read_catalog

    src, tbl, col = (URIRef(BASE + p) for p in ("source/my%20db", "source/my%20db/table/t",
                                                 "source/my%20db/table/t/column/a%20b"))
    g = rdflib.Graph()
    g.add((src, RDF.type, DCAT.Dataset))
    g.add((tbl, RDF.type, CSVW.Table))
    g.add((tbl, CSVW.name, Literal("t")))
    g.add((tbl, DCTERMS.isPartOf, src))
    g.add((col, RDF.type, CSVW.Column))
    g.add((col, DCTERMS.isPartOf, tbl))
    ontology = Ontology.from_graphs({"catalog": g}, base_iri=BASE)
    catalog = read_catalog(ontology)
    assert [s.id for s in catalog.sources] == ["my db"]
    assert [(c.table, c.name) for c in catalog.columns] == [("t", "a b")]
    view = OntologyView(ontology)
    assert list(view.sources) == ["my db"]
    assert [(c.table, c.column) for c in view.columns] == [("t", "a b")]
    assert [s["id"] for s in manifest.sources(ontology)] == ["my db"]
    assert IriNamer(BASE, g)(str(col)) == "t.a b"
