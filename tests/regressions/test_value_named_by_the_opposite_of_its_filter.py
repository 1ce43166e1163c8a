"""Regression: a value was named by the question's phrase for its opposite.

Review of the value names mined from verified queries: "How many law-abiding heroes are there?" with
``… EXCEPT SELECT id FROM hero WHERE alignment = 'Bad'`` gave 'Bad' the label "law abiding"; "How many
orders from non-British customers?" with ``NOT IN (SELECT … WHERE Country = 'UK')`` gave 'UK' the
label "non british". A value filtered inside a subquery or a set operation (the rows it names may be
the ones the answer drops) names nothing; only the top SELECT's own, unnegated ``column = 'text'``
conditions do.
"""

from __future__ import annotations

import sqlite3

import pytest
from rdflib.namespace import SKOS

from evoonto.builder import build


@pytest.mark.parametrize("question, sql", [
    ("How many law-abiding heroes are there?",
     "SELECT COUNT(*) FROM (SELECT id FROM hero EXCEPT SELECT id FROM hero WHERE alignment = 'Bad')"),
    ("How many non-villain heroes fly?",
     "SELECT COUNT(*) FROM hero WHERE id NOT IN (SELECT id FROM hero WHERE alignment = 'Bad') AND skin = 'Blue'"),
    ("Which heroes are decent?",
     "SELECT name FROM hero h WHERE NOT EXISTS (SELECT 1 FROM hero x WHERE x.id = h.id AND x.alignment = 'Bad')"),
])
def test_value_named_by_the_opposite_of_its_filter(tmp_path, question, sql):
    db = tmp_path / "heroes.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE hero (id INTEGER PRIMARY KEY, name TEXT, alignment TEXT, skin TEXT)")
        con.executemany("INSERT INTO hero VALUES (?, ?, ?, ?)",
                        [(i, f"Hero {i}", ("Good", "Bad", "Neutral")[i % 3], ("Blue", "Green")[i % 2])
                         for i in range(30)])
    result = build([db], None, verified=[{"id": "q", "question": question, "sql": sql}], validate=False)
    graph = result.graphs["content"]
    bad = next(s for s, _p, o in graph.triples((None, SKOS.prefLabel, None)) if str(o) == "Bad")
    labels = {str(o) for o in graph.objects(bad, SKOS.altLabel)}
    assert not labels & {"law abiding", "non villain", "decent", "heroes decent"}, labels
