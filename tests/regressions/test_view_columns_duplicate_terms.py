"""Regression (issue 15 item 4): views were harvested as plain tables and every view column got its own
Term, duplicating the base table's (Northwind: 553 Terms, and ``browse discount`` ranked the Invoices
view above Order Details). Views are now ``evo:isView`` tables linked to what they read
(``evo:readsTable``, ``evo:viewColumnOf``), and pass-through view columns mint no Term."""

from __future__ import annotations

import sqlite3

from rdflib import Literal, URIRef
from rdflib.namespace import RDF

from evoonto.namespaces import EVO

EVO_NS = "https://w3id.org/evoonto/ns#"
IS_VIEW, READS_TABLE, VIEW_COLUMN_OF = (URIRef(EVO_NS + n) for n in ("isView", "readsTable", "viewColumnOf"))
TABLE_NAME = URIRef("http://purl.org/dc/terms/title")  # tables are named by dcterms:title (issue 16)


def _db(tmp_path):
    db = tmp_path / "sales.sqlite"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE "Orders" ("OrderID" INTEGER PRIMARY KEY, "ShipCountry" TEXT);
        CREATE TABLE "Order Details" ("OrderID" INTEGER REFERENCES "Orders"("OrderID"), "ProductID" INTEGER,
                                      "UnitPrice" REAL, "Quantity" INTEGER, "Discount" REAL,
                                      PRIMARY KEY ("OrderID", "ProductID"));
        CREATE VIEW [Invoices] AS SELECT Orders.ShipCountry, [Order Details].Quantity, [Order Details].Discount,
               ([Order Details].UnitPrice * Quantity * (1 - Discount)) AS ExtendedPrice
          FROM Orders JOIN [Order Details] ON Orders.OrderID = [Order Details].OrderID;
    """)
    con.executemany('INSERT INTO "Orders" VALUES (?, ?)', [(i, ["USA", "France", "Peru"][i % 3]) for i in range(1, 31)])
    con.executemany('INSERT INTO "Order Details" VALUES (?, ?, ?, ?, ?)',
                    [(i % 30 + 1, i, 2.5 + i, i % 9 + 1, [0.0, 0.05, 0.1][i % 3]) for i in range(90)])
    con.commit()
    con.close()
    return db


def test_views_are_views_and_mint_no_duplicate_terms(tmp_path):
    from evoonto.builder import build
    from evoonto.ontology import Ontology
    from evoonto.tools.toolkit import OntologyTools

    result = build([_db(tmp_path)], None)
    catalog, content = result.graphs["catalog"], result.graphs["content"]
    views = [t for t in catalog.subjects(IS_VIEW, Literal(True))]
    assert [str(catalog.value(v, TABLE_NAME)) for v in views] == ["Invoices"]
    read = {str(catalog.value(t, TABLE_NAME)) for t in catalog.objects(views[0], READS_TABLE)}
    assert read == {"Orders", "Order Details"}
    assert len(list(catalog.subject_objects(VIEW_COLUMN_OF))) == 3  # ShipCountry, Quantity, Discount

    view_columns = {c for c in catalog.subjects(URIRef("http://purl.org/dc/terms/isPartOf"), views[0])}
    mapped = {col for m in content.subjects(RDF.type, EVO.Mapping) for col in content.objects(m, EVO.column)}
    assert {str(c).rsplit("/", 1)[-1] for c in view_columns & mapped} == {"ExtendedPrice"}

    tools = OntologyTools(Ontology.from_graphs(result.graphs), base_iri=result.base_iri)
    top = tools.browse("discount", n=3, format="verbose")[0]
    assert "[Order Details.Discount]" in top["snippet"]
