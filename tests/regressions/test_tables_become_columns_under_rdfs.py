"""Regression (issue 16, item 6): RDFS inference turned every table into a column.

Tables carried ``csvw:name``, whose domain in the CSVW vocabulary is ``csvw:Column``, so an RDFS
reasoner typed every ``csvw:Table`` a ``csvw:Column`` too; sources had no ``dcat:Distribution`` and
tables no table schema. Tables are now named by ``dcterms:title`` and list their columns through a
``csvw:tableSchema`` (``csvw:Schema`` / ``csvw:column``), and each source has a distribution. The
RDFS closure is computed by owlrl (not ours) over the catalog plus the CSVW axioms it meets.
"""

from __future__ import annotations

import sqlite3

import owlrl
import rdflib
from rdflib.namespace import DCAT, DCTERMS, RDF, RDFS

from evoonto.builder import build
from evoonto.namespaces import CSVW

# Domains and ranges the W3C CSVW namespace document (http://www.w3.org/ns/csvw) declares for the
# terms the catalog uses.
CSVW_AXIOMS = [
    (CSVW.name, RDFS.domain, CSVW.Column),
    (CSVW.tableSchema, RDFS.domain, CSVW.Table), (CSVW.tableSchema, RDFS.range, CSVW.Schema),
    (CSVW.column, RDFS.domain, CSVW.Schema), (CSVW.column, RDFS.range, CSVW.Column),
]


def _catalog(tmp_path) -> rdflib.Graph:
    db = tmp_path / "shop.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT)")
    con.execute("CREATE TABLE purchase (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id), "
                "amount REAL)")
    con.executemany("INSERT INTO customer VALUES (?, ?)", [(1, "Ada"), (2, "Bo")])
    con.executemany("INSERT INTO purchase VALUES (?, ?, ?)", [(1, 1, 9.5), (2, 2, 3.0), (3, 1, 1.25)])
    con.commit()
    con.close()
    return build([db]).graphs["catalog"]


def test_rdfs_closure_keeps_tables_and_columns_apart(tmp_path):
    catalog = _catalog(tmp_path)
    tables = set(catalog.subjects(RDF.type, CSVW.Table))
    columns = set(catalog.subjects(RDF.type, CSVW.Column))
    assert len(tables) == 2 and len(columns) == 5
    closure = rdflib.Graph()
    for triple in catalog:
        closure.add(triple)
    for triple in CSVW_AXIOMS:
        closure.add(triple)
    owlrl.DeductiveClosure(owlrl.RDFS_Semantics).expand(closure)
    assert set(closure.subjects(RDF.type, CSVW.Column)) & set(catalog.subjects()) == columns
    assert set(closure.subjects(RDF.type, CSVW.Table)) & set(catalog.subjects()) == tables


def test_tables_have_a_title_and_a_schema_sources_a_distribution(tmp_path):
    catalog = _catalog(tmp_path)
    for table in catalog.subjects(RDF.type, CSVW.Table):
        assert (table, CSVW.name, None) not in catalog
        assert catalog.value(table, DCTERMS.title) is not None
        schema = catalog.value(table, CSVW.tableSchema)
        assert (schema, RDF.type, CSVW.Schema) in catalog
        assert set(catalog.objects(schema, CSVW.column)) == set(catalog.subjects(DCTERMS.isPartOf, table))
    for source in catalog.subjects(RDF.type, DCAT.Dataset):
        assert (catalog.value(source, DCAT.distribution), RDF.type, DCAT.Distribution) in catalog
