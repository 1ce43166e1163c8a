"""Issue 28 item 6: ``evoonto evolve`` on a ``postgresql://`` workspace failed with "SQLite database not
found": the verified-query benchmark turned the source URL into a file path (``Path`` folds ``//``).
A URL now stays a URL, and the schema of a URL is read through the source layer. (The end-to-end run
on a real PostgreSQL server is tests/test_facts_postgres.py.)"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from evoonto.evaluation.benchmarks import database_location, database_schema
from evoonto.evaluation.sessions import verified_benchmark
from evoonto.evolution.outcomes import VerifiedQuery


def test_a_database_url_stays_a_url(tmp_path: Path):
    url = "postgresql://analyst@db.example.org:5432/shop"
    assert database_location(url) == url
    assert database_location(str(tmp_path / "shop.sqlite")) == tmp_path / "shop.sqlite"
    bench = verified_benchmark([VerifiedQuery("How many orders?", "SELECT COUNT(*) FROM orders", id="q1")],
                               {"shop": url}, "shop")
    assert bench.databases["shop"] == url


def test_the_schema_of_a_url_is_read_through_the_source_layer(tmp_path: Path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT)")
    assert database_schema(f"sqlite:///{db}") == {"orders": ["id", "status"]} == database_schema(db)
