"""Regression: the default (compact) answer dropped a metric Term mined from verified queries.

A metric Term maps its table (``Revenue`` over ``InvoiceLine``), and the compact answer grouped every
Term by the table or column it maps, showing the table's own Term for the group: ``browse revenue``
printed the InvoiceLine table and its columns, never ``Revenue = SUM(…)``, which only the verbose
format (not what an agent gets by default) showed. A Term over a table that is not the table's own
Term now gets a line of its own.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools

REVENUE = "SUM(line.unit_price * line.quantity)"


def _shop(path):
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE invoice (invoice_id INTEGER PRIMARY KEY, country TEXT);
            CREATE TABLE line (line_id INTEGER PRIMARY KEY, invoice_id INTEGER REFERENCES invoice(invoice_id),
                               unit_price REAL, quantity INTEGER);
        """)
        con.executemany("INSERT INTO invoice VALUES (?, ?)", [(i, ["USA", "Canada"][i % 2]) for i in range(10)])
        con.executemany("INSERT INTO line VALUES (?, ?, ?, ?)",
                        [(i, i % 10, 0.99 + i % 3, 1 + i % 2) for i in range(40)])
    return path


def test_compact_answer_drops_a_metric_over_a_table(tmp_path):
    verified = [
        {"question": "What is the total revenue?", "sql": f"SELECT {REVENUE} FROM line"},
        {"question": "What is the revenue per country?",
         "sql": f"SELECT invoice.country, {REVENUE} FROM line JOIN invoice ON line.invoice_id = invoice.invoice_id "
                "GROUP BY invoice.country"},
    ]
    result = build([_shop(tmp_path / "shop.sqlite")], verified=verified, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri), base_iri=result.base_iri)
    verbose = tools.browse("revenue", format="verbose")
    assert verbose[0]["label"] == "Revenue"  # the metric was mined (the verbose answer shows it)
    compact = tools.browse("revenue")  # the default answer
    lines = [hit["label"] for hit in compact]
    metric = [line for line in lines if line.startswith("Revenue -- ")]
    assert metric and REVENUE in metric[0], lines
    assert any(line.startswith('"line"') for line in lines)  # its table still ranks


def test_metric_over_one_column_gets_its_line(tmp_path):
    """Review: a measure over a single column (``SUM(line.quantity)``) maps that column and was folded
    into the column's line the same way."""
    verified = [
        {"question": "What is the total sales volume?", "sql": "SELECT SUM(line.quantity) FROM line"},
        {"question": "What is the sales volume per country?",
         "sql": "SELECT invoice.country, SUM(line.quantity) FROM line JOIN invoice "
                "ON line.invoice_id = invoice.invoice_id GROUP BY invoice.country"},
    ]
    result = build([_shop(tmp_path / "shop.sqlite")], verified=verified, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri), base_iri=result.base_iri)
    top = tools.browse("sales volume", format="verbose")[0]
    assert "SUM(line.quantity)" in top["snippet"], top
    lines = [hit["label"] for hit in tools.browse("sales volume")]
    assert any(line.startswith(f"{top['label']} -- ") and "SUM(line.quantity)" in line for line in lines), lines
    assert any(line.startswith('"line"."quantity"') for line in lines)  # the column keeps its line
