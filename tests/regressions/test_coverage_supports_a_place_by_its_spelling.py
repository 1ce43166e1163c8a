"""Regression: ``coverage`` said a made-up place was supported because a real one is spelled alike.

On Northwind ``coverage("customers in Atlantis")`` answered ``supported`` with the territory 'Atlanta':
the word was counted as covered through browse's spelling tolerance. The tool exists so an agent can
abstain, and it told the agent the data covers a place it does not hold. A word a hit holds only a
close spelling of is now ``approximate`` and leaves its phrase ``partial`` (ask or abstain), never
``supported``; a word a hit holds itself still supports it.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools


def test_coverage_supports_a_place_by_its_spelling(tmp_path):
    db = tmp_path / "sales.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE territories (id INTEGER PRIMARY KEY, description TEXT)")
        con.executemany("INSERT INTO territories VALUES (?, ?)",
                        list(enumerate(["Atlanta", "Boston", "Denver", "Seattle", "Orlando", "Chicago"])))
    result = build([db], None, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    made_up = tools.coverage("territories in Atlantis")
    place = next(p for p in made_up["phrases"] if p["phrase"] == "Atlantis")
    assert place["status"] != "supported" and place["approximate"] == ["Atlantis"], made_up
    assert made_up["status"] != "supported"
    real = tools.coverage("territories in Atlanta")
    assert real["status"] == "supported", real
