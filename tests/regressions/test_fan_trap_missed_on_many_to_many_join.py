"""Defect: check_sql raised no fan_trap when an aggregate's table was joined to another on columns
unique on neither side (a foreign key whose referenced column holds duplicates in the data, N:M by
Evidence): the join repeats the aggregated rows, but the detector only looked at 1:N joins."""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_sql

DDL = """
CREATE TABLE "Sets" ("id" INTEGER PRIMARY KEY, "code" TEXT, "size" INTEGER);
CREATE TABLE "Cards" ("id" INTEGER PRIMARY KEY, "setCode" TEXT REFERENCES "Sets"("code"), "power" INTEGER);
"""


def test_fan_trap_flagged_over_many_to_many_join(tmp_path):
    db = tmp_path / "cards.sqlite"
    con = sqlite3.connect(db)
    con.executescript(DDL)
    codes = ["AAA", "BBB", "CCC", "DDD"]
    con.executemany('INSERT INTO "Sets" VALUES (?, ?, ?)', [(i, codes[i % 4], 10 + i) for i in range(40)])
    con.executemany('INSERT INTO "Cards" VALUES (?, ?, ?)', [(i, codes[i % 4], i % 7) for i in range(60)])
    con.commit()
    con.close()
    onto = Ontology.from_graphs(build([db], None, validate=False).graphs)
    findings = check_sql(onto, 'SELECT SUM(c.power) FROM Cards AS c JOIN Sets AS s ON c.setCode = s.code')
    assert [(f.kind, f.subject) for f in findings if f.kind == "fan_trap"] == [("fan_trap", "Cards")]
    # DISTINCT inside the aggregate is the documented way out
    findings = check_sql(onto, 'SELECT COUNT(DISTINCT c.id) FROM Cards AS c JOIN Sets AS s ON c.setCode = s.code')
    assert not [f for f in findings if f.kind == "fan_trap"]
