"""Regression: the verified-query miner named a row count after the question's filter phrase.

Evolution on bird_synth_dev with verified queries proposed "metric Term 'Villains' =
COUNT(superhero.id)" from "How many green-skinned villains are there?": ``COUNT`` of a key column
counts rows like ``COUNT(*)``, and the leftover phrase "villains" names the query's filter (an
alignment value), not a measure. Likewise "Chose monthly statement" = ``COUNT(account.account_id)``.
``COUNT(column)`` is no longer mined as a metric (``COUNT(DISTINCT column)`` still is).
"""

from __future__ import annotations

import sqlite3

from rdflib import RDF

from evoonto.builder import build
from evoonto.namespaces import EVO


def _database(tmp_path):
    db = tmp_path / "heroes.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE alignment (id INTEGER PRIMARY KEY, alignment TEXT)")
        con.execute("CREATE TABLE superhero (id INTEGER PRIMARY KEY, name TEXT, skin TEXT, "
                    "alignment_id INTEGER REFERENCES alignment(id))")
        con.executemany("INSERT INTO alignment VALUES (?, ?)", [(1, "Good"), (2, "Bad"), (3, "Neutral")])
        con.executemany("INSERT INTO superhero VALUES (?, ?, ?, ?)",
                        [(i, f"Hero {i}", ("Green", "Blue", "Red")[i % 3], 1 + i % 3) for i in range(30)])
    return db


def test_verified_row_count_named_by_its_filter_phrase(tmp_path):
    verified = [{"id": "v", "question": "How many green-skinned villains are there?",
                 "sql": "SELECT COUNT(s.id) FROM superhero s JOIN alignment a ON s.alignment_id = a.id "
                        "WHERE a.alignment = 'Bad' AND s.skin = 'Green'"}]
    result = build([_database(tmp_path)], None, verified=verified, validate=False)
    assert result.counts["metrics"] == 0, result.counts
    assert not list(result.graphs["content"].subjects(RDF.type, EVO.Metric))


def test_verified_distinct_count_is_still_a_metric(tmp_path):
    verified = [{"id": "v", "question": "How many skin tones do heroes show?",
                 "sql": "SELECT COUNT(DISTINCT skin) FROM superhero"}]
    result = build([_database(tmp_path)], None, verified=verified, validate=False)
    assert result.counts["metrics"] == 1, result.counts
