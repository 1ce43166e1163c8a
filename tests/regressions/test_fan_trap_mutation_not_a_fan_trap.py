"""Defect: benchmarks/sql_check_bench.py generated "fan_trap" mutations that were no fan trap (a join
to a child whose referencing column is its own key, 1:1) or were invalid SQL (an unqualified column
that the joined child also has became ambiguous). Fan traps must be extra 1:N joins under an
aggregate, 1:N decided from declared keys and probe Evidence, and must run."""

from __future__ import annotations

import importlib.util
import random
import sqlite3
from pathlib import Path

import sqlglot

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_facts

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "sql_check_bench.py"
DDL = """
CREATE TABLE "Parent" ("id" INTEGER PRIMARY KEY, "name" TEXT, "amount" REAL);
CREATE TABLE "Profile" ("parent_id" INTEGER PRIMARY KEY REFERENCES "Parent"("id"), "name" TEXT);
CREATE TABLE "Child" ("id" INTEGER PRIMARY KEY, "parent_id" INTEGER REFERENCES "Parent"("id"), "name" TEXT);
"""


def test_fan_trap_mutations_are_valid_one_to_many_joins(tmp_path):
    spec = importlib.util.spec_from_file_location("sql_check_bench", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    db = tmp_path / "family.sqlite"
    con = sqlite3.connect(db)
    con.executescript(DDL)
    con.executemany('INSERT INTO "Parent" VALUES (?, ?, ?)', [(i, f"p{i}", 1.5 * i) for i in range(20)])
    con.executemany('INSERT INTO "Profile" VALUES (?, ?)', [(i, f"profile {i}") for i in range(20)])
    con.executemany('INSERT INTO "Child" VALUES (?, ?, ?)', [(i, i % 20, f"c{i}") for i in range(60)])
    con.commit()
    onto = Ontology.from_graphs(build([db], None, validate=False).graphs)
    facts = check_facts(onto)
    schema = next(iter(facts.sources.values()))
    joined = set()
    for seed in range(12):
        for kind, sql, _ in bench.mutations("SELECT COUNT(name), SUM(amount) FROM Parent WHERE id > 3", schema,
                                            "sqlite", random.Random(seed), facts.joins):
            if kind != "fan_trap":
                continue
            joined |= {t.name for t in sqlglot.parse_one(sql, read="sqlite").find_all(sqlglot.exp.Table)}
            con.execute(sql).fetchall()  # valid SQL: no ambiguous column
    con.close()
    assert joined == {"Parent", "Child"}  # never the 1:1 Profile
