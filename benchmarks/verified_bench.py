"""Benchmark of verified-query intake (issue 18.2) on the Spider dev databases.

Builds each Spider database with its ``dev.json`` question/gold-SQL pairs given as verified queries
(``build(..., verified=[{"question", "sql", "db_id"}])``, the ``verified`` condition's intake), and
prints per database: queries given, kept and skipped (with the first reasons), the mined metric
Terms, named filters, date grains, synonyms and new joins, and the build time in seconds; then the
totals. No target: it shows that intake keeps every well-formed query and what mining yields.

Usage::

    python benchmarks/verified_bench.py [--data ../shared/data/spider] [DB ...]
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings
from pathlib import Path

KEYS = ("verified_queries", "metrics", "filters", "grains", "synonyms", "joins")


def main(argv: list[str] | None = None) -> int:
    from evoonto.builder import build
    from evoonto.sources.base import SourceWarning

    default = Path(os.environ.get("EVOONTO_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=default / "spider", help="the Spider folder")
    parser.add_argument("databases", nargs="*", help="database ids (default: all)")
    args = parser.parse_args(argv)
    questions = json.loads((args.data / "dev.json").read_text(encoding="utf-8"))
    dbs = args.databases or sorted({q["db_id"] for q in questions})
    totals = {k: 0 for k in (*KEYS, "given", "skipped")}
    elapsed = 0.0
    for db in dbs:
        items = [{"question": q["question"], "sql": q["query"], "db_id": db} for q in questions if q["db_id"] == db]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            started = time.perf_counter()
            result = build([args.data / "database" / db / f"{db}.sqlite"], verified=items)
            seconds = time.perf_counter() - started
        skipped = [str(w.message) for w in caught
                   if issubclass(w.category, SourceWarning) and "verified query" in str(w.message)]
        c = result.counts
        print(f"{db:<30} {len(items):>4} given {c.get('verified_queries', 0):>4} kept {len(skipped):>3} skipped  "
              + "  ".join(f"{k} {c.get(k, 0)}" for k in KEYS[1:]) + f"  {seconds:.1f} s")
        for message in skipped[:2]:
            print("    " + message[:160])
        for k in KEYS:
            totals[k] += c.get(k, 0)
        totals["given"] += len(items)
        totals["skipped"] += len(skipped)
        elapsed += seconds
    print(f"{'TOTAL':<30} {totals['given']:>4} given {totals['verified_queries']:>4} kept {totals['skipped']:>3} "
          f"skipped  " + "  ".join(f"{k} {totals[k]}" for k in KEYS[1:]) + f"  {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
