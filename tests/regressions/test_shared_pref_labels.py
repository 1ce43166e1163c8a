"""Issue 17, item 4: prefLabels shared by many concepts (Chinook: 24 labels shared by 48 Terms, the
value Terms of Customer.Country and Invoice.BillingCountry). A Term's preferred label is now unique
within its source; the shared form stays an altLabel so searches still find it."""

from __future__ import annotations

import collections

from fixtures.sources_support import sqlite_db
from rdflib import Literal
from rdflib.namespace import RDF, SKOS

from evoonto.builder import build
from evoonto.namespaces import EVO


def test_pref_labels_are_unique_and_value_terms_name_their_column(tmp_path):
    countries = ["Brazil", "Chile", "France", "Brazil", "Chile", "France", "Brazil", "Chile"]
    customers = ", ".join(f"({i}, '{c}')" for i, c in enumerate(countries, 1))
    invoices = ", ".join(f"({i}, {i}, '{c}')" for i, c in enumerate(countries, 1))
    db = sqlite_db(tmp_path / "crm.sqlite", f"""
        CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, country TEXT);
        CREATE TABLE invoice (invoice_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer,
                              billing_country TEXT);
        INSERT INTO customer VALUES {customers};
        INSERT INTO invoice VALUES {invoices};
    """)
    g = build([str(db)]).graphs["content"]
    prefs = collections.Counter(str(g.value(t, SKOS.prefLabel)).lower() for t in g.subjects(RDF.type, EVO.Term))
    assert [label for label, n in prefs.items() if n > 1] == []
    brazil = {str(g.value(t, SKOS.prefLabel)) for t in g.subjects(RDF.type, EVO.Term)
              if (t, SKOS.altLabel, Literal("Brazil", lang="en")) in g}
    assert brazil == {"Brazil (Customer country)", "Brazil (Invoice billing country)"}, brazil
