"""Regression: a column's Mapping listed, as its ``evo:joinPath``, the joins to its table's child
tables too (Chinook: ``Invoice.Total`` → ``InvoiceLine.InvoiceId = Invoice.InvoiceId``), so an agent
following it summed the invoice total once per invoice line (a fan trap). A column's join path now
holds only the joins that keep its table's rows (its table as the many side); the one-to-many joins
stay on the Entity's Mapping and in the Association Relations."""

from __future__ import annotations

import sqlite3

from rdflib import URIRef

from evoonto.builder.pipeline import build
from evoonto.namespaces import EVO


def _db(path):
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE Customer (CustomerId INTEGER PRIMARY KEY, Name TEXT);
        CREATE TABLE Invoice (InvoiceId INTEGER PRIMARY KEY, CustomerId INTEGER REFERENCES Customer(CustomerId),
                              Total REAL);
        CREATE TABLE InvoiceLine (InvoiceLineId INTEGER PRIMARY KEY,
                                  InvoiceId INTEGER REFERENCES Invoice(InvoiceId), UnitPrice REAL, Quantity INTEGER);
        INSERT INTO Customer VALUES (1, 'Ann'), (2, 'Bo');
        INSERT INTO Invoice VALUES (10, 1, 3.0), (11, 2, 1.5), (12, 1, 2.0);
        INSERT INTO InvoiceLine VALUES (1, 10, 1.0, 1), (2, 10, 2.0, 1), (3, 11, 1.5, 1), (4, 12, 2.0, 1);
    """)
    con.commit()
    con.close()
    return path


def test_a_measure_join_path_has_no_one_to_many_hop(tmp_path):
    result = build([_db(tmp_path / "shop.sqlite")])
    content = result.graphs["content"]
    paths = {}
    for mapping, path in content.subject_objects(EVO.joinPath):
        column = content.value(mapping, EVO.column)
        table = content.value(mapping, EVO.table)
        key = (str(table).rsplit("/", 1)[-1], None if column is None else str(column).rsplit("/", 1)[-1])
        paths.setdefault(key, set()).add(str(path))
    total = paths[("Invoice", "Total")]
    assert total == {'"Invoice"."CustomerId" = "Customer"."CustomerId"'}
    assert all("InvoiceLine" not in p for p in total)
    entity = " ".join(paths[("Invoice", None)])
    assert '"InvoiceLine"."InvoiceId" = "Invoice"."InvoiceId"' in entity
    assert isinstance(next(iter(content.subjects(EVO.joinPath, None))), URIRef)
