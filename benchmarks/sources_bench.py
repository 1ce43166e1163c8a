"""Benchmark of the source layer: harvest + profile (issue 3 targets), printed in seconds.

1. All 12 Spider databases in ``../shared/data/spider/database`` (target: ≤ 10 s in total).
2. A generated SQLite table of 1,000,000 rows and 8 columns in a temporary folder (target: ≤ 3 s);
   generation time is not counted.

Each case is opened, harvested into a catalog graph (:func:`evoonto.sources.harvest`) and profiled
(:func:`evoonto.sources.profile`, one probe per column, sampled above the row threshold). Join
discovery (:func:`evoonto.sources.discover_joins`) is timed separately and is not part of the target.

Usage::

    /work/venv/bin/python benchmarks/sources_bench.py [--spider DIR] [--rows N]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from evoonto.iris import IriFactory
from evoonto.sources import discover_joins, harvest, open_source, profile

REPO = Path(__file__).resolve().parents[1]
IRIS = IriFactory("https://example.org/evoonto/bench/")


def harvest_and_profile(path) -> tuple[float, int, int, float]:
    """(seconds for open + harvest + profile, triples, profiled columns, seconds for joins)."""
    start = time.perf_counter()
    with open_source(path) as src:
        graph = harvest(src, IRIS)
        profiles = profile(src, IRIS)
        elapsed = time.perf_counter() - start
        joins_start = time.perf_counter()
        discover_joins(src, IRIS)
        joins = time.perf_counter() - joins_start
    return elapsed, len(graph), len(profiles), joins


def generate(path: Path, rows: int) -> None:
    """A SQLite table ``sales`` with ``rows`` rows: ids, codes, dates, categories, amounts, nulls."""
    rng = random.Random(42)
    customers = [f"Customer {i:04d}" for i in range(1000)]
    statuses = ["Paid", "Refunded", "Banned"]
    conn = sqlite3.connect(path)
    conn.execute(
        'CREATE TABLE sales (id INTEGER PRIMARY KEY, "customer name" TEXT, sku TEXT, '
        '"order date" TEXT, status TEXT, quantity INTEGER, "amount (EUR)" REAL, note TEXT)'
    )
    batch = []
    for i in range(1, rows + 1):
        batch.append((
            i, rng.choice(customers), f"SKU{rng.randrange(5000):05d}",
            f"20{rng.randrange(15, 25)}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}",
            rng.choices(statuses, weights=(90, 8, 2))[0], rng.randrange(1, 20),
            round(rng.uniform(1, 500), 2), None if rng.random() < 0.7 else "gift wrap",
        ))
        if len(batch) == 50_000:
            conn.executemany("INSERT INTO sales VALUES (?, ?, ?, ?, ?, ?, ?, ?)", batch)
            batch.clear()
    if batch:
        conn.executemany("INSERT INTO sales VALUES (?, ?, ?, ?, ?, ?, ?, ?)", batch)
    conn.commit()
    conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spider", type=Path, default=REPO.parent / "shared" / "data" / "spider")
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args(argv)

    files = sorted(args.spider.glob("database/*/*.sqlite"))
    if not files:
        print(f"no Spider databases under {args.spider}", file=sys.stderr)
        return 2
    total = joins_total = 0.0
    triples = columns = 0
    for file in files:
        seconds, n_triples, n_columns, joins = harvest_and_profile(file)
        total += seconds
        joins_total += joins
        triples += n_triples
        columns += n_columns
        print(f"  {file.parent.name:<30} {seconds:6.3f} s  ({n_columns} columns, joins {joins:.3f} s)")
    verdict = "OK" if total <= 10 else "MISSED"
    print(f"Spider: {len(files)} databases, {columns} columns, {triples} catalog triples: "
          f"harvest+profile {total:.2f} s (target <= 10 s: {verdict}); join discovery {joins_total:.2f} s")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sales.sqlite"
        gen_start = time.perf_counter()
        generate(path, args.rows)
        generated = time.perf_counter() - gen_start
        seconds, n_triples, n_columns, joins = harvest_and_profile(path)
    verdict = "OK" if seconds <= 3 else "MISSED"
    print(f"{args.rows:,}-row SQLite table ({n_columns} columns, generated in {generated:.1f} s): "
          f"harvest+profile {seconds:.2f} s (target <= 3 s: {verdict}); join discovery {joins:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
