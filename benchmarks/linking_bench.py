"""Schema-linking recall on the 12 Spider databases, reciprocal two-fold, offline builder.

For each fold pair (build on fold A's construction pool, test on fold B; swap), every held-out
question is scored under the three conditions; the numbers are means over all held-out questions
(each question is held out exactly once, so this is the average of the two rounds weighted by size).

Prints per condition: strict recall, column recall, table recall, value recall (over questions whose
gold SQL has a string value), average surfaced characters and estimated tokens (chars / 4), and the
ratio of surfaced size to the full-schema prompt. Also prints the failure causes for evoonto: the
most frequent missing columns / values by kind. Targets for evoonto (issue 5): strict ≥ 0.90 and
value ≥ 0.85 at ≤ 40% of the full-schema prompt.

Usage::

    python benchmarks/linking_bench.py [--data ../shared/data/spider] [--seed 0] [--budget 8000] [-n N] \
        [--resolve each|batch]
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "spider"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=int, default=8000,
                        help="characters read per question (browse + resolve answers)")
    parser.add_argument("-n", type=int, default=None,
                        help="browse hits (default: the browse tool's default of each version, 8 unless patched)")
    parser.add_argument("--kind", default="term")
    parser.add_argument("--resolve", choices=("each", "batch"), default="each")
    parser.add_argument("--runs", default=None, help="output folder (default: a temporary folder)")
    args = parser.parse_args(argv)

    from evoonto.evaluation.linking import LinkingPolicy
    from evoonto.evaluation.runner import EvalConfig, format_summary
    from evoonto.experiment import run_evaluation

    runs = Path(args.runs) if args.runs else Path(tempfile.mkdtemp(prefix="evoonto-linking-"))
    config = EvalConfig(benchmark="spider", data=Path(args.data), scorer="linking", seed=args.seed,
                        out=runs, policy=LinkingPolicy(n=args.n, budget_chars=args.budget, kind=args.kind,
                                                         resolve=args.resolve))
    started = time.perf_counter()
    result = run_evaluation(config, progress=sys.stderr.isatty())
    elapsed = time.perf_counter() - started

    print(f"Spider dev, 12 databases, reciprocal two-fold (seed {args.seed}), policy {config.policy.to_json()}")
    print(format_summary(result, "linking"))
    sizes = result.sizes
    if "full" in sizes:
        print("full-schema prompt parts (mean chars per database and round): "
              + ", ".join(f"{k} {v:.0f}" for k, v in sizes["full"].items()))
    from evoonto.evaluation.benchmarks import find_database, schema_ddl

    ddl = {}
    for r in result.rows:
        if r["db_id"] not in ddl:
            ddl[r["db_id"]] = len(schema_ddl(find_database(Path(args.data), r["db_id"])))
    for name in result.summary:
        rows = [r for r in result.rows if r["condition"] == name]
        mean_ddl = sum(ddl[r["db_id"]] for r in rows) / len(rows)
        print(f"{name}: avg surfaced chars / schema DDL alone ({mean_ddl:.0f} chars per question on average): "
              f"{result.summary[name]['all']['avg_chars'] / mean_ddl:.2f}x")
    for name in ("baseline", "evoonto"):
        if name in sizes:
            print(f"{name} manifest: {sizes[name].get('manifest', 0):.0f} chars on average")
    for name in result.summary:
        rounds = result.summary[name]["rounds"]
        print(f"{name} per round (strict recall): " + ", ".join(f"{r['strict_recall']:.3f}" for r in rounds))

    rows = [r for r in result.rows if r["condition"] == "evoonto"]
    print("\nevoonto per database: db (questions) strict / column / value / avg chars")
    for db_id in sorted({r["db_id"] for r in rows}):
        mine = [r for r in rows if r["db_id"] == db_id]
        values = [r["value_recall"] for r in mine if r["value_recall"] is not None]
        value = f"{sum(values) / len(values):.3f}" if values else "  -  "
        print(f"  {db_id:<30} ({len(mine):>3}) {sum(r['strict'] for r in mine) / len(mine):.3f} / "
              f"{sum(r['column_recall'] for r in mine) / len(mine):.3f} / {value} / "
              f"{sum(r['chars'] for r in mine) / len(mine):.0f}")
    missing_cols = collections.Counter(c for r in rows for c in r["missing_columns"])
    missing_vals = collections.Counter(v for r in rows for v in r["missing_values"])
    failed = [r for r in rows if not r["strict"]]
    print(f"\nevoonto failures: {len(failed)} of {len(rows)} questions miss at least one gold column; "
          f"{sum(1 for r in rows if r['missing_values'])} miss a value")
    print("most often missing columns:", ", ".join(f"{c} ({n})" for c, n in missing_cols.most_common(12)))
    print("most often missing values:", ", ".join(f"{v!r} ({n})" for v, n in missing_vals.most_common(12)))
    print(f"\nelapsed {elapsed:.1f} s; results in {result.folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
