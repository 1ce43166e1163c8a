"""Defect (issue 28): the ``COUNT(*)`` fan trap warned on correct counts of the table at the join's
grain. ``SELECT COUNT(*) FROM makers JOIN countries … WHERE countries.name = 'france'`` counts makers
(no join repeats them; the join to countries only filters), yet the rule said it "counts countries
rows once per matching makers row" because only countries' columns were used; the same for a join
through a bridge table whose far side is used (students -> has_pet -> pets, counting dog pets of
female students). Seven correct Spider gold queries drew it. A join repeats the counted rows for
nothing only when nothing across it is used (the bridge and everything reached through it) and the
first table of FROM is not there unrepeated."""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.tools.sqlcheck import check_sql

DDL = """
CREATE TABLE countries (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE makers (id INTEGER PRIMARY KEY, country_id INTEGER REFERENCES countries(id), maker TEXT);
CREATE TABLE models (id INTEGER PRIMARY KEY, maker_id INTEGER REFERENCES makers(id), model TEXT);
CREATE TABLE students (id INTEGER PRIMARY KEY, sex TEXT);
CREATE TABLE pets (id INTEGER PRIMARY KEY, kind TEXT);
CREATE TABLE has_pet (student_id INTEGER REFERENCES students(id), pet_id INTEGER REFERENCES pets(id));
"""


def _fan_traps(tmp_path, sqls):
    db = tmp_path / "shop.sqlite"
    con = sqlite3.connect(db)
    con.executescript(DDL)
    con.executemany("INSERT INTO countries VALUES (?, ?)", [(1, "france"), (2, "usa"), (3, "japan")])
    con.executemany("INSERT INTO makers VALUES (?, ?, ?)", [(i, 1 + i % 3, f"maker {i}") for i in range(1, 13)])
    con.executemany("INSERT INTO models VALUES (?, ?, ?)", [(i, 1 + i % 12, f"model {i}") for i in range(1, 40)])
    con.executemany("INSERT INTO students VALUES (?, ?)", [(i, "FM"[i % 2]) for i in range(1, 9)])
    con.executemany("INSERT INTO pets VALUES (?, ?)", [(i, ["dog", "cat"][i % 2]) for i in range(1, 17)])
    con.executemany("INSERT INTO has_pet VALUES (?, ?)", [(1 + i % 8, i) for i in range(1, 17)])
    con.commit()
    con.close()
    onto = Ontology.from_graphs(build([db], None, validate=False).graphs)
    with open_source(db, source_id="shop") as src:
        return [[f.subject for f in check_sql(onto, sql, sources={"shop": src}) if f.kind == "fan_trap"]
                for sql in sqls]


def test_count_star_of_the_joins_grain_is_no_fan_trap(tmp_path):
    found = _fan_traps(tmp_path, [
        # makers counted: no join repeats them, countries only filters
        "SELECT COUNT(*) FROM makers AS t1 JOIN countries AS t2 ON t1.country_id = t2.id WHERE t2.name = 'france'",
        # models counted through makers to countries
        "SELECT COUNT(*) FROM models AS t1 JOIN makers AS t2 ON t1.maker_id = t2.id "
        "JOIN countries AS t3 ON t2.country_id = t3.id WHERE t3.name = 'usa'",
        # pets of female students: has_pet is a bridge to pets, whose column is used
        "SELECT COUNT(*) FROM students AS t1 JOIN has_pet AS t2 ON t1.id = t2.student_id "
        "JOIN pets AS t3 ON t2.pet_id = t3.id WHERE t1.sex = 'F' AND t3.kind = 'dog'",
        # still a trap: countries (FROM's first table) counted once per maker, nothing of makers used
        "SELECT COUNT(*) FROM countries AS c JOIN makers AS m ON m.country_id = c.id WHERE c.name = 'france'",
    ])
    assert found == [[], [], [], ["countries"]]
