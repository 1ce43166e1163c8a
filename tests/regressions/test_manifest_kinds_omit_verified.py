"""Regression: the manifest never told an agent that verified queries can be searched.

Northwind review: ``browse`` takes ``kind='verified'`` (a team's question + SQL pairs, found by their
question), and its MCP input schema lists it, but the manifest an agent reads first said ``kind =
term|mapping|constraint|evidence|relation|any`` and counted no verified query. It now lists every
kind browse takes and counts the verified queries when there are any.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.browse import KIND_CHOICES
from evoonto.tools.manifest import build_manifest


def test_manifest_kinds_omit_verified(tmp_path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE customer (id INTEGER PRIMARY KEY, country TEXT)")
        con.executemany("INSERT INTO customer VALUES (?, ?)", [(i, ("UK", "France")[i % 2]) for i in range(10)])
    verified = [{"id": "uk", "question": "How many customers are in the UK?",
                 "sql": "SELECT COUNT(*) FROM customer WHERE country = 'UK'"}]
    result = build([db], None, verified=verified, validate=False)
    text = build_manifest(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    assert "verified" in KIND_CHOICES
    assert f"kind = {'|'.join(KIND_CHOICES)}." in text, text
    assert "and 1 verified query (question + SQL" in text, text
    plain = build_manifest(Ontology.from_graphs(build([db], None, validate=False).graphs))
    assert "verified quer" not in plain.split("Tools:")[0], plain
