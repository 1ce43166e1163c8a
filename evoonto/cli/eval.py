"""``evoonto eval``: score conditions on a benchmark with the reciprocal k-fold protocol."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

from evoonto.tools.settings import DEFAULT_ANSWER_POLICY

HELP = "evaluate baseline / full-schema / evoonto on Spider or BIRD (schema-linking recall or EX)"

DESCRIPTION = """\
Evaluate on a benchmark with the reciprocal k-fold protocol: the questions of every database are split
(seeded) into folds; each fold's ontology is built from the *other* folds' construction questions and
tested on the held-out fold; then the folds swap. Gold SQL is read only by the scorers.

Scorers:
  linking  offline schema-linking recall of a deterministic retrieval policy (default scorer); the
           default policy is what an agent gets from browse(q) by default: one compact answer within
           {budget:,} characters (--budget changes the budget, --format verbose: browse n hits, then
           resolve them within the budget); the summary names the policy and its budget
  ex       execution accuracy and VES of a Claude ReAct agent (needs --agent and ANTHROPIC_API_KEY),
           or, with --predictions FILE, of an existing prediction file (no agent, no folds)

EX rules (--ex-mode; default: the benchmark's own, named in the output):
  spider   the Spider test-suite evaluator's exec match with its default options: DISTINCT removed
           from both queries (--keep-distinct keeps it), bag of rows, column permutations allowed,
           row order counts iff the gold SQL has ORDER BY
  bird     BIRD's evaluator: the set of result rows (row order and duplicates ignored, column order
           counts); VES and R-VES on BIRD's scale (sqrt(time ratio) x 100, mini-dev rewards)

Prediction files (--predictions): one SQL per line in question-file order (a line may end with
TAB db_id or BIRD's TAB----- bird -----TAB db_id), or BIRD's predict_dev.json. The summary line
starts with EX and gives the accuracy and the rules; per-question results go to RUNS/.

Conditions:
  baseline  raw schema only (bare table/column terms) behind browse/resolve
  full      schema DDL + the whole ontology layer pasted into the prompt (size reference)
  evoonto   manifest + browse/resolve over the built ontology (scored with the linking policy)

Writes per-question results (JSON Lines), summary.json and config.json under RUNS/<run id>/; the
splits are stored once (WORKSPACE/splits.json, or RUNS/splits-<benchmark>.json) and reused.

Example:
  evoonto eval --benchmark spider --data ../shared/data/spider --scorer linking
  evoonto eval --benchmark spider --data DIR --scorer ex --agent anthropic:claude-sonnet-5-5 --db concert_singer
  evoonto eval --benchmark spider --data ../shared/data/spider --scorer ex --predictions pred.sql
  evoonto eval --benchmark bird --data minidev/ --scorer ex --predictions predict_dev.json --ves-iterations 100
""".replace("{budget:,}", f"{DEFAULT_ANSWER_POLICY.budget:,}")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``eval`` sub-parser."""
    parser = subparsers.add_parser("eval", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("--benchmark", choices=("spider", "bird"), default="spider",
                        help="question file format (default spider)")
    parser.add_argument("--data", required=True, metavar="DIR",
                        help="benchmark folder (dev.json + database/ or dev_databases/) or its question file")
    parser.add_argument("--scorer", choices=("linking", "ex"), default="linking", help="default linking")
    parser.add_argument("--agent", default=None, metavar="anthropic:MODEL", help="agent backbone for --scorer ex")
    parser.add_argument("--condition", action="append", choices=("baseline", "full", "evoonto"), default=None,
                        help="condition to run (repeatable; default all three)")
    parser.add_argument("--folds", type=int, default=2, metavar="K", help="number of folds (default 2)")
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="split seed (default 0)")
    parser.add_argument("--db", action="append", default=None, metavar="DB_ID",
                        help="only this database (repeatable; default all)")
    parser.add_argument("--max-questions", type=int, default=None, metavar="N",
                        help="at most N held-out questions per database and round (quick runs)")
    parser.add_argument("--runs", default=None, metavar="DIR",
                        help="folder for run outputs (default WORKSPACE/runs with --workspace, else ./runs)")
    parser.add_argument("--budget", type=int, default=None, metavar="CHARS",
                        help="linking policy: characters read per question (default "
                             f"{DEFAULT_ANSWER_POLICY.budget}, the default answer's budget)")
    parser.add_argument("--format", choices=("compact", "verbose"), default=None,
                        help=f"linking policy: browse answer format (default {DEFAULT_ANSWER_POLICY.format}, the "
                             "default answer; verbose: browse hits, then resolve them within the budget)")
    parser.add_argument("-n", type=int, default=None, metavar="N",
                        help="linking policy: browse hits (verbose; default the browse tool's default, 8 unless "
                             "patched) or full lines at most (compact; default: the budget decides)")
    parser.add_argument("--resolve", choices=("each", "batch"), default=None,
                        help="linking policy, verbose format: resolve each hit separately (default) or all hits "
                             "in one call")
    parser.add_argument("--max-turns", type=int, default=None, metavar="N", help="agent turns per question")
    parser.add_argument("--max-tokens", type=int, default=None, metavar="N",
                        help="agent input+output token budget per question")
    parser.add_argument("--ex-mode", choices=("bird", "spider"), default=None,
                        help="EX rules: spider (test-suite exec match) or bird (set of rows); "
                             "default: the benchmark's own")
    parser.add_argument("--keep-distinct", action="store_true",
                        help="spider rules: keep DISTINCT (the official evaluator's --keep_distinct)")
    parser.add_argument("--predictions", default=None, metavar="FILE",
                        help="score this prediction file with --scorer ex instead of running an agent")
    parser.add_argument("--ves-iterations", type=int, default=1, metavar="N",
                        help="timed runs per correct query for VES / R-VES (default 1; BIRD uses 100)")
    parser.add_argument("--timeout-ms", type=int, default=30_000, metavar="MS",
                        help="EX per-query time limit in milliseconds (default 30000)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the evaluation and print the summary table; returns 0."""
    import dataclasses
    import os
    import sys
    import warnings
    from pathlib import Path

    from evoonto.errors import ConfigurationError
    from evoonto.evaluation.conditions import CONDITIONS
    from evoonto.evaluation.linking import DEFAULT_POLICY
    from evoonto.evaluation.runner import EvalConfig, format_summary
    from evoonto.experiment import run_evaluation

    data = Path(args.data)
    mode = args.ex_mode or ("bird" if args.benchmark == "bird" else "spider")
    if args.keep_distinct and mode != "spider":
        raise ConfigurationError("--keep-distinct applies to the spider rules only")
    if args.predictions is not None:
        return _score_predictions(args, data, mode)
    agent = None
    if args.agent:
        from evoonto.evaluation.agent import make_client, parse_agent_spec

        agent = parse_agent_spec(args.agent)
        changes = {k: v for k, v in (("max_turns", args.max_turns), ("max_tokens", args.max_tokens)) if v is not None}
        agent = dataclasses.replace(agent, **changes)
        make_client()  # fail fast with a one-line message when ANTHROPIC_API_KEY is missing
    elif args.scorer == "ex":
        raise ConfigurationError("--scorer ex needs --agent anthropic:MODEL")
    if not data.exists():
        raise ConfigurationError(f"--data {data} does not exist")
    if args.folds < 2:
        raise ConfigurationError("--folds must be at least 2")
    chosen_policy = (("budget_chars", args.budget), ("n", args.n), ("resolve", args.resolve), ("format", args.format))
    policy = dataclasses.replace(DEFAULT_POLICY, **{k: v for k, v in chosen_policy if v is not None})
    if (policy.n is not None and policy.n < 1) or policy.budget_chars < 1:
        raise ConfigurationError("-n and --budget must be positive")
    chosen = args.workspace or os.environ.get("EVOONTO_WORKSPACE")
    workspace = Path(chosen) if chosen else None
    runs = Path(args.runs) if args.runs else (workspace / "runs" if workspace else Path("runs"))
    config = EvalConfig(
        benchmark=args.benchmark, data=data, scorer=args.scorer,
        conditions=tuple(dict.fromkeys(args.condition or CONDITIONS)), folds=args.folds, seed=args.seed,
        splits_path=(workspace / "splits.json") if workspace else None, out=runs,
        databases=args.db, max_questions=args.max_questions, policy=policy, agent=agent,
        ex_mode=("spider-keep-distinct" if args.keep_distinct else mode),
        ves_iterations=args.ves_iterations, timeout_ms=args.timeout_ms,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *rest, **kw: print(f"evoonto: warning: {message}", file=sys.stderr)
        result = run_evaluation(config, progress=not args.no_progress)
    print(format_summary(result, args.scorer, policy=policy if args.scorer == "linking" else None))
    if args.scorer == "ex":
        from evoonto.evaluation.execution import rules_for

        print(f"EX rules: {rules_for(config.ex_mode).describe()}")
    return 0


def _score_predictions(args: argparse.Namespace, data, mode: str) -> int:
    """``--predictions FILE``: score a prediction file, print the EX line, write per-question results."""
    import datetime as dt
    import json
    import sys
    import warnings
    from pathlib import Path

    from evoonto.errors import ConfigurationError
    from evoonto.evaluation.benchmarks import load_benchmark
    from evoonto.evaluation.execution import Rules, read_predictions, score_predictions

    if args.scorer != "ex":
        raise ConfigurationError("--predictions needs --scorer ex")
    if args.agent:
        raise ConfigurationError("--predictions scores a file; leave out --agent")
    if not data.exists():
        raise ConfigurationError(f"--data {data} does not exist")
    if args.ves_iterations < 1 or args.timeout_ms < 1:
        raise ConfigurationError("--ves-iterations and --timeout-ms must be positive")
    predictions = read_predictions(args.predictions)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *rest, **kw: print(f"evoonto: warning: {message}", file=sys.stderr)
        bench = load_benchmark(args.benchmark, data)
    rules = Rules(mode, keep_distinct=args.keep_distinct)  # type: ignore[arg-type]
    scores = score_predictions(bench, predictions, rules, databases=args.db, max_questions=args.max_questions,
                               timeout_ms=args.timeout_ms, ves_iterations=args.ves_iterations,
                               progress=not args.no_progress)
    runs = Path(args.runs) if args.runs else (Path(args.workspace) / "runs" if args.workspace else Path("runs"))
    folder = runs / f"predictions-{dt.datetime.now(dt.timezone.utc).strftime('%Y%m%dT%H%M%SZ')}"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "results.jsonl", "w", encoding="utf-8") as out:
        for result in scores.results:
            out.write(json.dumps({"id": result.question_id, **result.to_json()}) + "\n")
    summary = {"rules": rules.name, "questions": len(scores.results), "ex": scores.ex, "ves": scores.ves,
               "r_ves": scores.r_ves, "predictions": str(args.predictions), "data": str(data)}
    (folder / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(scores.summary())
    print(f"per-question results: {folder / 'results.jsonl'}")
    return 0
