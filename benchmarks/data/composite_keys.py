"""A generated database with multi-column keys, and questions with SQL written for it (issue 28).

The shared benchmark data has no join on a multi-column key, so ``benchmarks/sql_check_bench.py``
could not measure whether check_sql catches a join that keeps only half of such a key. This module
makes a small SQLite database whose keys are composite, as they are in operational schemas:

* ``weather`` is keyed by ``(origin, time_hour)``; ``flight`` references it with the same two
  columns (a flight's departure weather), and references ``airport`` twice (``origin``, ``dest``);
* ``order_line`` is keyed by ``(order_id, line_no)``; ``shipment_line`` references it with the same
  two columns.

Every value is generated from a seeded ``random.Random``; nothing is taken from a benchmark. The
questions and their SQL (:data:`QUESTIONS`) were written for this schema by hand, half of them
joining on a whole composite key.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

#: Database id the bench reports these queries under.
DB_ID = "composite_keys"

AIRPORTS = [("ANC", "Ted Stevens Anchorage", "Anchorage"), ("BOS", "Logan", "Boston"),
            ("DEN", "Denver International", "Denver"), ("LAX", "Los Angeles International", "Los Angeles"),
            ("ORD", "O'Hare", "Chicago"), ("SEA", "Seattle-Tacoma", "Seattle")]
CARRIERS = ("AA", "AS", "DL", "UA", "WN")
PRODUCTS = ("bolt", "bracket", "hinge", "panel", "washer", "widget")

#: ``(question, SQL)`` written for this schema (SQLite dialect).
QUESTIONS: list[tuple[str, str]] = [
    ("What was the average temperature at departure of United (UA) flights?",
     "SELECT AVG(w.temp) FROM flight AS f JOIN weather AS w ON f.origin = w.origin AND f.time_hour = w.time_hour "
     "WHERE f.carrier = 'UA'"),
    ("How many flights departed with a wind speed above 20?",
     "SELECT COUNT(*) FROM flight AS f JOIN weather AS w ON f.origin = w.origin AND f.time_hour = w.time_hour "
     "WHERE w.wind_speed > 20"),
    ("What is the average departure delay per origin airport when it was below freezing?",
     "SELECT f.origin, AVG(f.dep_delay) FROM flight AS f JOIN weather AS w "
     "ON f.origin = w.origin AND f.time_hour = w.time_hour WHERE w.temp < 0 GROUP BY f.origin"),
    ("What was the highest departure temperature of flights to Los Angeles (LAX)?",
     "SELECT MAX(w.temp) FROM flight AS f JOIN weather AS w ON f.origin = w.origin AND f.time_hour = w.time_hour "
     "WHERE f.dest = 'LAX'"),
    ("What was the average wind speed at departure of American (AA) flights to Chicago O'Hare (ORD)?",
     "SELECT AVG(w.wind_speed) FROM flight AS f JOIN weather AS w "
     "ON f.origin = w.origin AND f.time_hour = w.time_hour WHERE f.carrier = 'AA' AND f.dest = 'ORD'"),
    ("How many units of each product were shipped?",
     "SELECT l.product, SUM(s.shipped_qty) FROM shipment_line AS s JOIN order_line AS l "
     "ON s.order_id = l.order_id AND s.line_no = l.line_no GROUP BY l.product"),
    ("How many shipment lines carried widgets?",
     "SELECT COUNT(*) FROM shipment_line AS s JOIN order_line AS l "
     "ON s.order_id = l.order_id AND s.line_no = l.line_no WHERE l.product = 'widget'"),
    ("What is the value of the shipped units (shipped quantity times the line's price)?",
     "SELECT SUM(s.shipped_qty * l.price) FROM shipment_line AS s JOIN order_line AS l "
     "ON s.order_id = l.order_id AND s.line_no = l.line_no"),
    ("Which customers had hinges shipped to them?",
     "SELECT DISTINCT o.customer FROM shipment_line AS s JOIN order_line AS l "
     "ON s.order_id = l.order_id AND s.line_no = l.line_no JOIN orders AS o ON o.order_id = l.order_id "
     "WHERE l.product = 'hinge'"),
    ("Which airports had a departure delayed by more than 60 minutes?",
     "SELECT DISTINCT a.name FROM flight AS f JOIN airport AS a ON f.origin = a.faa WHERE f.dep_delay > 60"),
    ("How many order lines does each customer have?",
     "SELECT o.customer, COUNT(*) FROM orders AS o JOIN order_line AS l ON l.order_id = o.order_id "
     "GROUP BY o.customer"),
    ("How many flights left each origin city?",
     "SELECT a.city, COUNT(*) FROM flight AS f JOIN airport AS a ON f.origin = a.faa GROUP BY a.city"),
    ("What is the average temperature recorded at Denver (DEN)?",
     "SELECT AVG(temp) FROM weather WHERE origin = 'DEN'"),
    ("How many units were ordered of each product?",
     "SELECT product, SUM(qty) FROM order_line GROUP BY product"),
]


def make_database(path: str | Path, *, seed: int = 0, hours: int = 240, flights: int = 2400,
                  orders: int = 300) -> Path:
    """Write the database to ``path`` (replaced if it exists) and return its path.

    Args:
        path: the SQLite file to write.
        seed: seed of the generated values.
        hours: hours of weather per airport (rows of ``weather`` = airports × hours).
        flights: rows of ``flight``.
        orders: rows of ``orders`` (1–5 lines each; about half of the lines shipped, some in two parts).
    """
    path = Path(path)
    path.unlink(missing_ok=True)
    rng = random.Random(seed)
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE airport (faa TEXT PRIMARY KEY, name TEXT, city TEXT);
        CREATE TABLE weather (
            origin TEXT REFERENCES airport(faa), time_hour TEXT, temp REAL, wind_speed REAL,
            PRIMARY KEY (origin, time_hour));
        CREATE TABLE flight (
            flight_id INTEGER PRIMARY KEY, carrier TEXT, origin TEXT REFERENCES airport(faa),
            dest TEXT REFERENCES airport(faa), time_hour TEXT, dep_delay INTEGER,
            FOREIGN KEY (origin, time_hour) REFERENCES weather(origin, time_hour));
        CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer TEXT, placed TEXT);
        CREATE TABLE order_line (
            order_id INTEGER REFERENCES orders(order_id), line_no INTEGER, product TEXT, qty INTEGER,
            price REAL, PRIMARY KEY (order_id, line_no));
        CREATE TABLE shipment_line (
            shipment_id INTEGER, order_id INTEGER, line_no INTEGER, shipped_qty INTEGER,
            PRIMARY KEY (shipment_id, order_id, line_no),
            FOREIGN KEY (order_id, line_no) REFERENCES order_line(order_id, line_no));
    """)
    con.executemany("INSERT INTO airport VALUES (?, ?, ?)", AIRPORTS)
    stamps = [f"2024-01-{1 + h // 24:02d} {h % 24:02d}:00" for h in range(hours)]
    con.executemany("INSERT INTO weather VALUES (?, ?, ?, ?)",
                    [(faa, stamp, round(rng.uniform(-15, 30), 1), round(rng.uniform(0, 35), 1))
                     for faa, _name, _city in AIRPORTS for stamp in stamps])
    codes = [a[0] for a in AIRPORTS]
    rows = []
    for flight_id in range(1, flights + 1):
        origin = rng.choice(codes)
        dest = rng.choice([c for c in codes if c != origin])
        rows.append((flight_id, rng.choice(CARRIERS), origin, dest, rng.choice(stamps),
                     int(rng.expovariate(1 / 15)) - 5))
    con.executemany("INSERT INTO flight VALUES (?, ?, ?, ?, ?, ?)", rows)
    customers = [f"customer {k:03d}" for k in range(60)]
    con.executemany("INSERT INTO orders VALUES (?, ?, ?)",
                    [(o, rng.choice(customers), f"2024-02-{1 + o % 28:02d}") for o in range(1, orders + 1)])
    lines, shipments = [], []
    shipment_id = 0
    for o in range(1, orders + 1):
        for line_no in range(1, rng.randint(1, 5) + 1):
            qty = rng.randint(1, 20)
            lines.append((o, line_no, rng.choice(PRODUCTS), qty, round(rng.uniform(0.5, 40), 2)))
            if rng.random() < 0.5:
                parts = [qty] if qty < 4 or rng.random() < 0.7 else [qty // 2, qty - qty // 2]
                for part in parts:
                    shipment_id += 1
                    shipments.append((shipment_id, o, line_no, part))
    con.executemany("INSERT INTO order_line VALUES (?, ?, ?, ?, ?)", lines)
    con.executemany("INSERT INTO shipment_line VALUES (?, ?, ?, ?)", shipments)
    con.commit()
    con.close()
    return path
