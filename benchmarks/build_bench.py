"""Benchmark of the cold-start builder on the Spider databases (issue 4).

Builds each Spider database in ``<shared data>/spider/database`` with its ``dev.json`` questions as
the workload (question text only), validates the result with the SHACL shapes, and prints per
database the build time (seconds) and the counts of Terms, Mappings, Evidence, Constraints and
relations, then the total. Target: all 12 databases ≤ 30 s in total.

Usage::

    python benchmarks/build_bench.py [--data ../shared/data/spider] [--no-validate] [DB ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from evoonto.builder import build

    default = Path(os.environ.get("EVOONTO_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=default / "spider", help="the Spider folder")
    parser.add_argument("--no-validate", action="store_true", help="skip the SHACL validation")
    parser.add_argument("databases", nargs="*", help="database ids (default: all)")
    args = parser.parse_args(argv)
    db_root = args.data / "database"
    dbs = args.databases or sorted(p.name for p in db_root.iterdir() if (p / f"{p.name}.sqlite").is_file())
    header = (f"{'database':30} {'seconds':>8} {'terms':>6} {'maps':>6} {'evid':>6} {'cons':>5} {'rels':>5} "
              f"{'rejected':>8} {'questions':>9}")
    print(header)
    print("-" * len(header))
    total = 0.0
    sums = [0] * 6
    for db in dbs:
        t0 = time.perf_counter()
        result = build([db_root / db / f"{db}.sqlite"], args.data / "dev.json", validate=not args.no_validate)
        seconds = time.perf_counter() - t0
        total += seconds
        c = result.counts
        row = [c["terms"], c["mappings"], c["evidence"], c["constraints"], c["relations"], len(result.rejected)]
        sums = [a + b for a, b in zip(sums, row, strict=True)]
        print(f"{db:30} {seconds:8.2f} {row[0]:6} {row[1]:6} {row[2]:6} {row[3]:5} {row[4]:5} {row[5]:8} "
              f"{result.sources[0].questions:9}")
    print("-" * len(header))
    print(f"{'TOTAL (' + str(len(dbs)) + ' databases)':30} {total:8.2f} {sums[0]:6} {sums[1]:6} {sums[2]:6} "
          f"{sums[3]:5} {sums[4]:5} {sums[5]:8}")
    print(f"target: all 12 Spider databases <= 30 s in total -> {'met' if total <= 30 else 'NOT met'} ({total:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
