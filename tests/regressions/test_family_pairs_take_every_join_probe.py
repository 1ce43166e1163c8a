"""The pairs among a table family's members took every join probe.

Join discovery probes at most ``max_probes`` name-suggested candidates, best name score first. In a
schema with a family of per-year tables sharing a key name (``storms_1990.episode_id`` …
``storms_2019.episode_id``), every member names every other member's key exactly: hundreds of
candidates of the top score, found before the other tables' references, so they took every probe and
``orders.customer_id -> customers.customer_id`` was never measured (on the 7,761-column wide_bird
schema: 300 of 300 probes, 204 of them refuted pairs of NOAA years). Equal scores are now probed
round by round over the referencing tables.
"""

from __future__ import annotations

import sqlite3

from evoonto.iris import IriFactory
from evoonto.sources import open_source
from evoonto.sources.joins import probe_joins


def _schema(path):
    with sqlite3.connect(path) as con:
        for year in range(1990, 2020):
            con.execute(f"CREATE TABLE storms_{year} (episode_id INTEGER PRIMARY KEY, damage REAL)")
            con.executemany(f"INSERT INTO storms_{year} VALUES (?, ?)",
                            [(year * 100 + i, 1.0) for i in range(5)])
        con.execute("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT)")
        con.execute("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER, total REAL)")
        con.executemany("INSERT INTO customers VALUES (?, ?)", [(i, f"c{i}") for i in range(1, 6)])
        con.executemany("INSERT INTO orders VALUES (?, ?, ?)", [(i, 1 + i % 5, 2.0) for i in range(1, 11)])
    return path


def test_other_tables_references_are_probed_before_the_family_takes_every_probe(tmp_path):
    with open_source(str(_schema(tmp_path / "wide.sqlite"))) as src:
        found = probe_joins(src, IriFactory("https://example.org/wide/"), max_probes=40)
    kept = {(j.child, j.parent) for j in found.joins if not j.declared}
    assert ("orders", "customers") in kept
    # the family's pairs were probed too, and the data refutes them (no episode of one year in another)
    assert found.refuted and all(j.child.startswith("storms_") for j in found.refuted)
