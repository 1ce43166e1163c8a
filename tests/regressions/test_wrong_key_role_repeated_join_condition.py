"""Defect (issue 28, wrong key role): ``ON T1.eye_colour_id = T2.id AND T1.hair_colour_id = T2.id``
with the eye role replaced by the hair role became ``ON T1.hair_colour_id = T2.id AND
T1.hair_colour_id = T2.id`` and drew no finding, though the SQL itself shows the slip: one clause
states the same comparison twice. ``repeated_condition`` (Warning, no suggestion) reports it; a
condition stated once, the same column compared in two clauses, or two aliases of one table are not
repeats."""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_sql
from evoonto.tools.sqlcheck.statement import check_repeated_conditions

DDL = """
CREATE TABLE colour (id INTEGER PRIMARY KEY, colour TEXT);
CREATE TABLE hero (id INTEGER PRIMARY KEY, name TEXT, eye_colour_id INTEGER REFERENCES colour(id),
                   hair_colour_id INTEGER REFERENCES colour(id));
"""


def test_a_join_condition_stated_twice_is_warned(tmp_path):
    db = tmp_path / "heroes.sqlite"
    con = sqlite3.connect(db)
    con.executescript(DDL)
    con.executemany("INSERT INTO colour VALUES (?, ?)", [(1, "Black"), (2, "Blue"), (3, "Brown")])
    con.executemany("INSERT INTO hero VALUES (?, ?, ?, ?)", [(i, f"h{i}", 1 + i % 3, 1 + i % 2) for i in range(9)])
    con.commit()
    con.close()
    onto = Ontology.from_graphs(build([db], None, validate=False).graphs)

    def repeats(sql):
        return [(f.severity, f.suggestion) for f in check_sql(onto, sql, rules=[check_repeated_conditions])]

    slip = ("SELECT T1.name FROM hero AS T1 JOIN colour AS T2 ON T1.hair_colour_id = T2.id "
            "AND T2.id = T1.hair_colour_id WHERE T2.colour = 'Black'")
    assert repeats(slip) == [("Warning", None)]
    assert repeats("SELECT name FROM hero WHERE eye_colour_id = 1 AND eye_colour_id = 1") == [("Warning", None)]
    assert repeats("SELECT T1.name FROM hero AS T1 JOIN colour AS T2 ON T1.eye_colour_id = T2.id "
                   "AND T1.hair_colour_id = T2.id WHERE T2.colour = 'Black'") == []
    assert repeats("SELECT T1.name FROM hero AS T1 JOIN colour AS T2 ON T1.eye_colour_id = T2.id "
                   "JOIN colour AS T3 ON T1.hair_colour_id = T3.id "
                   "WHERE T2.colour = 'Blue' AND T3.colour = 'Blue'") == []
    assert repeats("SELECT name FROM hero WHERE eye_colour_id > 1 AND 1 > eye_colour_id") == []
