"""Regression (found trying check-sql as a new user): a fan_trap finding's span ended before the
aggregate's closing parenthesis (``sql[start:end] == 'SUM(c.power'``), because sqlglot records no
position for ``)``. Spans of every finding are completed over the parentheses they leave open, and
the span helper exists once (evoonto.tools.findings.node_span)."""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.findings import balanced_span
from evoonto.tools.sqlcheck import check_sql


def test_fan_trap_span_covers_the_whole_aggregate(tmp_path):
    db = tmp_path / "cards.sqlite"
    con = sqlite3.connect(db)
    con.executescript('CREATE TABLE "Sets" ("id" INTEGER PRIMARY KEY, "code" TEXT, "size" INTEGER);'
                      'CREATE TABLE "Cards" ("id" INTEGER PRIMARY KEY, "setCode" TEXT REFERENCES "Sets"("code"), '
                      '"power" INTEGER);')
    con.executemany('INSERT INTO "Sets" VALUES (?, ?, ?)', [(i, "ABCD"[i % 4], i) for i in range(40)])
    con.executemany('INSERT INTO "Cards" VALUES (?, ?, ?)', [(i, "ABCD"[i % 4], i % 7) for i in range(60)])
    con.commit()
    con.close()
    onto = Ontology.from_graphs(build([db], None, validate=False).graphs)
    sql = "SELECT SUM( c.power ) FROM Cards AS c JOIN Sets AS s ON c.setCode = s.code"
    [trap] = [f for f in check_sql(onto, sql) if f.kind == "fan_trap"]
    assert sql[trap.start:trap.end] == "SUM( c.power )"


def test_balanced_span_stops_at_what_is_not_a_closing_parenthesis():
    sql = "SELECT COUNT(DISTINCT (a) , b"
    assert balanced_span(sql, 7, 24) == (7, 25)  # one ')' closes '(a'; ' , b' closes nothing more
    assert balanced_span(sql, None, None) == (None, None)
