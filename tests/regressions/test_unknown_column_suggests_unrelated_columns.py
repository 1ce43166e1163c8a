"""An unknown column was given unrelated columns as its suggestion: ``SUM(total) FROM invoice_line``
suggested ``customer.postal_code``, ``employee.postal_code``, ``invoice.billing_postal_code`` (WRatio's
partial match of "tal"), and ``SUM(amount) FROM sale_return`` suggested ``customer.country`` (PostgreSQL
review). Names are now compared whole (a misspelling) or by a shared word."""

from __future__ import annotations

import sqlite3

import pytest

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_sql
from evoonto.tools.sqlcheck.context import _nearest


def test_nearest_names_are_misspellings_or_share_a_word():
    assert _nearest("total", ["postal_code", "billing_postal_code", "unit_price", "total_price"]) == ["total_price"]
    assert _nearest("amount", ["name", "country"]) == []
    assert _nearest("custmer", ["customer", "country"]) == ["customer"]
    assert _nearest("singers", ["singer", "stadium"]) == ["singer"]


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    path = tmp_path_factory.mktemp("shop") / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, postal_code TEXT, country TEXT);
            CREATE TABLE invoice (invoice_id INTEGER PRIMARY KEY, customer_id INTEGER, billing_postal_code TEXT,
                                  total REAL);
            CREATE TABLE invoice_line (invoice_line_id INTEGER PRIMARY KEY, invoice_id INTEGER, unit_price REAL,
                                       quantity INTEGER);
            INSERT INTO customer VALUES (1, '0150', 'Norway');
            INSERT INTO invoice VALUES (1, 1, '0150', 3.96);
            INSERT INTO invoice_line VALUES (1, 1, 0.99, 4);
        """)
    return Ontology.from_graphs(build([path], None, validate=False).graphs)


def test_unknown_total_suggests_no_postal_code(shop):
    [found] = [f for f in check_sql(shop, "SELECT SUM(total) FROM invoice_line") if f.kind == "unknown_column"]
    assert "postal_code" not in (found.suggestion or ""), found
    assert found.suggestion == "invoice.total", found


def test_generic_shared_word_does_not_outrank_a_misspelling():
    """Review of the first fix: a shared ``id`` scored like a shared meaningful word, so ``cust_id``
    suggested ``invoice_id`` before ``customer_id``; and suggestions were listed in schema order."""
    assert _nearest("cust_id", ["invoice_id", "customer_id"]) == ["customer_id"]
    assert _nearest("trk_id", ["invoice_line_id", "invoice_id", "track_id"]) == ["track_id"]
    assert _nearest("billing_cty", ["billing_address", "billing_city"])[0] == "billing_city"


def test_suggestions_listed_nearest_first(shop):
    [found] = [f for f in check_sql(shop, "SELECT invoice_idd FROM invoice_line") if f.kind == "unknown_column"]
    assert (found.suggestion or "").startswith("invoice_line.invoice_id"), found
