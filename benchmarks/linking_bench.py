"""Schema-linking recall on Spider- or BIRD-layout data, reciprocal two-fold, offline builder.

For each fold pair (build on fold A's construction pool, test on fold B; swap), every held-out
question is scored under each condition; the numbers are means over all held-out questions (each
question is held out exactly once, so this is the average of the two rounds weighted by size).

``--data`` takes the Spider layout (``dev.json`` with ``query``) or the BIRD layout (``dev.json``
with ``evidence`` and ``SQL``/``query``; databases under ``database/`` or ``dev_databases/``); the
layout is detected from the rows unless ``--benchmark`` names it. On BIRD the run is repeated with
the question's ``evidence`` appended to the query (``--evidence both``, the default there).

Conditions (``--conditions``, default all; see :mod:`evoonto.evaluation.conditions`): baseline,
evoonto (built as ``evoonto build`` builds by default: the documentation beside the database, such as
a BIRD ``database_description/`` data dictionary, is read; ``--documentation off`` builds from the
data alone), evoonto+dictionary (``documentation=True``; the same build as evoonto unless
``--documentation off``),
evoonto+verified (the construction fold's gold SQL as verified queries, never the held-out
fold's), full (whole schema + layer pasted), bm25 (``"table"."column"`` names ranked by BM25 at the
same character budget as evoonto's answer), ddl (bare ``CREATE TABLE`` text), ddl+rows (DDL + 3
sample rows per table). A condition whose builder keyword this checkout lacks is skipped with a note.

Prints per condition: strict recall, table, column and value recall, average surfaced characters
and estimated tokens (chars / 4); per database for evoonto; gold columns surfaced by evoonto and by
the BM25 list at equal characters; the most often missing columns and values.

Usage::

    python benchmarks/linking_bench.py [--data ../shared/data/spider] [--conditions evoonto,bm25]
        [--evidence off|on|both] [--databases a,b] [--max-questions N] [--budget 1500,6000,8000]
        [--format compact|verbose] [-n N] [--resolve each|batch] [--seed 0] [--build-cache DIR]
        [--documentation on|off]

Without ``--budget``/``--format``/``--kind`` the evoonto condition is THE default answer
(:data:`evoonto.evaluation.linking.DEFAULT_POLICY`, what ``browse(q)`` serves by default); every
printed block names its policy and budget.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import inspect
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ALL = ("baseline", "evoonto", "evoonto+dictionary", "evoonto+verified", "full", "bm25", "ddl", "ddl+rows")
NEEDS_KEYWORD = {"evoonto+dictionary": "documentation", "evoonto+verified": "verified"}


def detect_benchmark(data: Path) -> str:
    """``bird`` when the question file's rows carry ``evidence`` or ``SQL``, else ``spider``."""
    path = data / "dev.json" if data.is_dir() else data
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "spider"
    first = rows[0] if isinstance(rows, list) and rows and isinstance(rows[0], dict) else {}
    return "bird" if ("evidence" in first or "SQL" in first) else "spider"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "spider"))
    parser.add_argument("--benchmark", choices=("auto", "spider", "bird"), default="auto")
    parser.add_argument("--questions", default=None, metavar="FILE",
                        help="a Spider-layout question file (db_id, question, query) asked of the databases of "
                             "--data, e.g. benchmarks/data/wide_schema_questions.json with ../shared/data/wide_schema")
    parser.add_argument("--conditions", default=",".join(ALL), help=f"comma-separated subset of {', '.join(ALL)}")
    parser.add_argument("--evidence", choices=("off", "on", "both"), default=None,
                        help="append BIRD evidence to the query (default: both on BIRD, off on Spider)")
    parser.add_argument("--databases", default=None, help="comma-separated db ids (default: all)")
    parser.add_argument("--max-questions", type=int, default=None, help="held-out questions per round and database")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", default=None,
                        help="characters read per question (browse + resolve answers; the BM25 list's size); a "
                             "comma-separated list (1500,6000,8000) runs each budget on the same builds (default: "
                             "the default answer's budget, DEFAULT_ANSWER_POLICY)")
    parser.add_argument("--format", choices=("compact", "verbose"), default=None,
                        help="browse answer format (default: the default answer's, DEFAULT_ANSWER_POLICY)")
    parser.add_argument("--build-cache", default=None, metavar="DIR",
                        help="keep built ontologies in DIR and reuse them while the database, the construction "
                             "questions and the builder's code are unchanged (evaluation.conditions.BuildCache)")
    parser.add_argument("-n", type=int, default=None,
                        help="browse hits (default: the tool's default; compact: the budget decides)")
    parser.add_argument("--kind", default=None, help="browse kind (default: the default answer's, term)")
    parser.add_argument("--resolve", choices=("each", "batch"), default="each")
    parser.add_argument("--runs", default=None, help="output folder (default: a temporary folder)")
    parser.add_argument("--documentation", choices=("on", "off"), default="on",
                        help="whether the evoonto condition reads the documentation beside each database "
                             "(table comments, a BIRD database_description/ data dictionary) as `evoonto build` "
                             "does by default (on), or builds from the data alone (off, an ablation; "
                             "evoonto+dictionary then adds it)")
    args = parser.parse_args(argv)

    from evoonto.builder.pipeline import build
    from evoonto.evaluation.benchmarks import find_database, load_benchmark, schema_ddl
    from evoonto.evaluation.conditions import Conditions
    from evoonto.evaluation.linking import DEFAULT_POLICY
    from evoonto.evaluation.runner import EvalConfig, format_summary
    from evoonto.experiment import run_evaluation

    data = Path(args.data)
    if args.questions:
        data = with_questions(Path(args.questions), data)
    benchmark = detect_benchmark(data) if args.benchmark == "auto" else args.benchmark
    conditions = [c.strip() for c in args.conditions.split(",") if c.strip()]
    unknown = [c for c in conditions if c not in ALL]
    if unknown:
        parser.error(f"unknown condition {unknown[0]!r}; choose from {', '.join(ALL)}")
    keywords = set(inspect.signature(build).parameters)
    for name, keyword in NEEDS_KEYWORD.items():
        if name in conditions and keyword not in keywords:
            print(f"note: skipping {name}: build() of this checkout has no {keyword}= keyword")
            conditions.remove(name)
    documentation = args.documentation == "on"
    if documentation and "evoonto+dictionary" in conditions and "evoonto" in conditions:
        # the same build: evoonto reads the documentation as `evoonto build` does
        print("note: skipping evoonto+dictionary: with --documentation on it is the evoonto condition")
        conditions.remove("evoonto+dictionary")
    evidence = args.evidence or ("both" if benchmark == "bird" else "off")
    settings = {"off": [False], "on": [True], "both": [False, True]}[evidence]

    bench = load_benchmark(benchmark, data)
    # plain "evoonto" is what `evoonto build` makes by default (documentation read) unless
    # --documentation off, where "evoonto+dictionary" is the condition that adds it
    # a question the benchmark repeats with the same SQL (wide_bird_dev's 137 and 137_2) is one verified
    # query: the builder refuses a duplicate id
    shared = Conditions(verified_of=lambda questions: [{"question": text, "sql": sql} for text, sql in dict.fromkeys(
                            (q.text, bench.gold[q.id].sql) for q in questions)], documentation=documentation,
                        build_cache=Path(args.build_cache) if args.build_cache else None)
    budgets = [int(b) for b in str(args.budget).split(",")] if args.budget else [DEFAULT_POLICY.budget_chars]
    runs = Path(args.runs) if args.runs else Path(tempfile.mkdtemp(prefix="evoonto-linking-"))
    databases = args.databases.split(",") if args.databases else None
    ddl: dict[str, int] = {}
    for budget, with_evidence in ((b, e) for b in budgets for e in settings):
        policy = dataclasses.replace(DEFAULT_POLICY, n=args.n, budget_chars=budget,
                                     kind=args.kind or DEFAULT_POLICY.kind, resolve=args.resolve,
                                     format=args.format or DEFAULT_POLICY.format, evidence=with_evidence)
        config = EvalConfig(benchmark=benchmark, data=data, scorer="linking", seed=args.seed, out=runs,
                            conditions=tuple(conditions), databases=databases, max_questions=args.max_questions,
                            policy=policy)
        started = time.perf_counter()
        result = run_evaluation(config, progress=sys.stderr.isatty(), conditions=shared)
        elapsed = time.perf_counter() - started
        label = "with evidence" if with_evidence else "question only"
        print(f"\n=== {data.name} ({benchmark}), {label}, reciprocal two-fold (seed {args.seed}), "
              f"{policy.describe()}: {policy.to_json()}")
        print(format_summary(result, "linking", policy=policy))
        for r in result.rows:
            if r["db_id"] not in ddl:
                ddl[r["db_id"]] = len(schema_ddl(find_database(data, r["db_id"])))
        for name in result.summary:
            rows = [r for r in result.rows if r["condition"] == name]
            mean_ddl = sum(ddl[r["db_id"]] for r in rows) / len(rows)
            print(f"{name}: avg surfaced chars / schema DDL alone ({mean_ddl:.0f} chars per question on average): "
                  f"{result.summary[name]['all']['avg_chars'] / mean_ddl:.2f}x; strict per round: "
                  + ", ".join(f"{r['strict_recall']:.3f}" for r in result.summary[name]["rounds"]))
        for name in ("baseline", "evoonto"):
            if name in result.sizes:
                print(f"{name} manifest: {result.sizes[name].get('manifest', 0):.0f} chars on average")
        by_condition = {name: {r["question_id"]: r for r in result.rows if r["condition"] == name}
                        for name in result.summary}
        if "evoonto" in by_condition and "bm25" in by_condition:
            mine, theirs = by_condition["evoonto"], by_condition["bm25"]
            common = sorted(set(mine) & set(theirs))
            found = {n: sum(len(analysis_columns(bench, q)) - len(rows[q]["missing_columns"]) for q in common)
                     for n, rows in (("evoonto", mine), ("bm25", theirs))}
            total = sum(len(analysis_columns(bench, q)) for q in common)
            print(f"gold columns surfaced at equal characters ({budget} per answer): evoonto {found['evoonto']} "
                  f"/ {total}, BM25 table.column list {found['bm25']} / {total}")
        rows = [r for r in result.rows if r["condition"] == "evoonto"]
        if rows:
            print("evoonto per database: db (questions) strict / column / value / avg chars")
            for db_id in sorted({r["db_id"] for r in rows}):
                own = [r for r in rows if r["db_id"] == db_id]
                values = [r["value_recall"] for r in own if r["value_recall"] is not None]
                value = f"{sum(values) / len(values):.3f}" if values else "  -  "
                print(f"  {db_id:<30} ({len(own):>3}) {sum(r['strict'] for r in own) / len(own):.3f} / "
                      f"{sum(r['column_recall'] for r in own) / len(own):.3f} / {value} / "
                      f"{sum(r['chars'] for r in own) / len(own):.0f}")
            missing_cols = collections.Counter(c for r in rows for c in r["missing_columns"])
            missing_vals = collections.Counter(v for r in rows for v in r["missing_values"])
            failed = [r for r in rows if not r["strict"]]
            print(f"evoonto failures: {len(failed)} of {len(rows)} questions miss at least one gold column; "
                  f"{sum(1 for r in rows if r['missing_values'])} miss a value")
            print("most often missing columns:", ", ".join(f"{c} ({n})" for c, n in missing_cols.most_common(12)))
            print("most often missing values:", ", ".join(f"{v!r} ({n})" for v, n in missing_vals.most_common(12)))
        print(f"elapsed {elapsed:.1f} s; results in {result.folder}")
    return 0


def with_questions(questions: Path, data: Path) -> Path:
    """A temporary benchmark folder: ``questions`` as its ``dev.json`` and, for each ``db_id`` it
    names, a link ``<db_id>.sqlite`` to that database under ``data`` (any layout
    :func:`evoonto.evaluation.benchmarks.find_database` reads)."""
    from evoonto.evaluation.benchmarks import find_database

    rows = json.loads(questions.read_text(encoding="utf-8"))
    folder = Path(tempfile.mkdtemp(prefix="evoonto-questions-"))
    (folder / "dev.json").write_text(json.dumps(rows), encoding="utf-8")
    for db_id in sorted({r["db_id"] for r in rows}):
        found = find_database(data, db_id)
        if found is None:
            sys.exit(f"linking_bench: database {db_id!r} of {questions} not found under {data}")
        (folder / f"{db_id}.sqlite").symlink_to(found.resolve())
    return folder


def analysis_columns(bench, question_id: str) -> frozenset:
    """The gold columns of one question (scorer side only: reports, never the builder)."""
    from evoonto.evaluation.benchmarks import analysis_of

    return analysis_of(bench.gold[question_id], bench).columns


if __name__ == "__main__":
    sys.exit(main())
