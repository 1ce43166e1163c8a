"""Regression: ``evoonto evolve`` refused a workspace that holds verified queries.

``evoonto build --verified FILE`` and ``evoonto verified add FILE`` keep the queries as
``evo:VerifiedQuery`` records (``evoonto verified list`` shows them), but ``evoonto evolve`` looked
only for ``--verified FILE`` or ``<workspace>/verified.jsonl`` and stopped with "no benchmark recorded
in this workspace and no verified queries". It now uses the recorded ones (one reader,
:func:`evoonto.builder.verified.recorded_verified`, which ``verified list`` uses too).
"""

from __future__ import annotations

import json
import sqlite3

from evoonto.builder.verified import recorded_verified
from evoonto.cli import main
from evoonto.workspace import Workspace


def _shop(path):
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, name TEXT, country TEXT);
            CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(customer_id),
                                 amount REAL, status TEXT);
        """)
        con.executemany("INSERT INTO customer VALUES (?, ?, ?)",
                        [(i, f"name {i}", ["USA", "Canada", "France"][i % 3]) for i in range(30)])
        con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?)",
                        [(i, i % 30, 5.0 * i, ["open", "shipped"][i % 2]) for i in range(90)])
    return path


QUERIES = [
    ("How many customers are there in Canada?", "SELECT COUNT(*) FROM customer WHERE country = 'Canada'"),
    ("What is the total amount of shipped orders?", "SELECT SUM(amount) FROM orders WHERE status = 'shipped'"),
    ("Which customers have open orders?",
     "SELECT DISTINCT c.name FROM customer c JOIN orders o ON o.customer_id = c.customer_id WHERE o.status = 'open'"),
    ("What is the average order amount per country?",
     "SELECT c.country, AVG(o.amount) FROM orders o JOIN customer c ON o.customer_id = c.customer_id "
     "GROUP BY c.country"),
    ("How many orders does each customer have?",
     "SELECT c.name, COUNT(*) FROM orders o JOIN customer c ON o.customer_id = c.customer_id GROUP BY c.name"),
]


def test_evolve_ignores_the_verified_queries_it_holds(tmp_path, capsys):
    db, ws = _shop(tmp_path / "shop.sqlite"), tmp_path / "ws"
    file = tmp_path / "verified.jsonl"
    file.write_text("".join(json.dumps({"question": q, "sql": s}) + "\n" for q, s in QUERIES), encoding="utf-8")
    assert main(["build", "--source", str(db), "-w", str(ws), "--verified", str(file), "--no-progress"]) == 0
    held = recorded_verified(Workspace.open(ws).ontology)
    assert sorted(v.question for v in held) == sorted(q for q, _ in QUERIES) and {v.db_id for v in held} == {"shop"}
    capsys.readouterr()
    assert main(["evolve", "-w", str(ws), "--rounds", "1", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert "the 5 verified queries this workspace holds for 'shop'" in captured.err
    assert "no verified queries" not in captured.err + captured.out
