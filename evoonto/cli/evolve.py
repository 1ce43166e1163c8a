"""``evoonto evolve``: run the gated evolution loop (diagnose → attribute → patch → gate) on a workspace."""

from __future__ import annotations

import argparse
from typing import Any

from evoonto.cli import add_workspace_option

HELP = "evolve the workspace's ontology with the gated loop (diagnose → attribute → patch → gate)"

DESCRIPTION = """\
Evolve the active version of a workspace built for one database of a benchmark.

Each round the backbone runs the construction-pool questions of the training fold (trajectories with
pass/fail only), the evolver diagnoses recurrent failure signatures, attributes them to a level
(content / tool / schema) and writes a typed patch; the patch is checked with SHACL on the nodes it
touches (an invalid patch is logged and never scored) and then gated: scored on the fold's validation
set V against the parent, same backbone and budgets, accepted iff the mean gain is ≥ --tau and the
paired test (--test, --alpha; default the Bayesian rule with a regression budget) supports it.
Accepted patches become versions; rejected ones stay in the history (`evoonto log`) and are never
proposed again. Stops after --patience consecutive rejections, when no signature is left, or after
--rounds. Ctrl-C at any moment leaves the last accepted version.

Gold SQL is read only by the scorer; the evolver sees questions, tool results and pass/fail.

Without --data the benchmark recorded in the workspace is used (`evoonto demo` records the bundled
data). --data accepts the Spider/BIRD layouts (dev.json + databases) and the JSON Lines layout
(questions.jsonl + gold.jsonl + <db>.sqlite), detected automatically. The fold assignment is stored in
<workspace>/splits.json and reused; splits are made per database, so a file made on a larger
benchmark (same seed) serves any of its databases.

Examples:
  evoonto demo -w demo && evoonto evolve -w demo --rounds 2     # the benchmark the demo recorded
  evoonto evolve --data ../shared/data/spider --rounds 5
  evoonto evolve --data DIR --db concert_singer --tau 0.01 --test bootstrap
  evoonto evolve --data DIR --evolver anthropic:claude-sonnet-5-5      # Claude proposes patches
  evoonto evolve --data DIR --no-gate                                   # ablation: accept every valid patch
  evoonto evolve --trajectories ws/trajectories/S.jsonl --outcomes verdicts.jsonl   # an agent's MCP log

On your own database (a workspace built with `evoonto build`, no benchmark): serve it, let agents
work (`evoonto serve`), give outcomes (`evoonto feedback TASK pass|fail`, verified queries, or
`serve --accept-feedback`), then
  evoonto evolve --verified verified.jsonl            # trajectories default to <workspace>/trajectories/
Every verified query is in the gate's V and judges every candidate it did not produce (leave-the-source-
out: a candidate written from a verified query's failure is gated on the others, and its screen replays
the query it came from); with no served session yet, the served answers to the verified questions are
diagnosed. --validation-share F holds back a seeded share as V instead. With fewer than
--min-validation verified queries the command stops and says how many it needs.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``evolve`` sub-parser."""
    parser = subparsers.add_parser("evolve", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("--data", default=None, metavar="DIR",
                        help="benchmark folder (Spider/BIRD or JSON Lines layout) with questions, gold and "
                             "databases (default: the benchmark recorded in the workspace)")
    parser.add_argument("--benchmark", choices=("spider", "bird", "jsonl"), default=None,
                        help="layout of --data (default: JSON Lines when DIR holds questions.jsonl, else spider)")
    parser.add_argument("--db", default=None, metavar="DB_ID",
                        help="database of this workspace (default: the workspace's only source)")
    parser.add_argument("--fold", default=None, metavar="NAME",
                        help="training fold: its construction pool gives trajectories, its V the gate (default: "
                             "the fold the workspace was built from when recorded, as `evoonto demo` does; else A)")
    parser.add_argument("--seed", type=int, default=None, metavar="N",
                        help="split seed (default: the workspace's recorded seed, else 0)")
    parser.add_argument("--rounds", type=int, default=10, metavar="N", help="round budget (default 10)")
    parser.add_argument("--patience", type=int, default=4, metavar="K",
                        help="stop after K consecutive rejected/invalid candidates (default 4)")
    parser.add_argument("--batch", type=int, default=8, metavar="B",
                        help="signatures bundled into one candidate; rejected batches are bisected (default 8)")
    parser.add_argument("--tau", type=float, default=0.0, metavar="T",
                        help="minimum mean gain on V for acceptance (default 0.0)")
    from evoonto.evolution.gate import TESTS, GateConfig

    default = GateConfig()  # the library's defaults are the command's (and the demo's)
    parser.add_argument("--test", choices=TESTS, default=default.test,
                        help=f"paired decision on per-question outcomes (default {default.test}: accept when the "
                             "Beta-binomial posterior of a net gain on V is ≥ 1 − α and V shows no evidence, at "
                             "level α, of more regressions than --regression-budget; a candidate that changes no "
                             "question of V is accepted on a net fix of the failures it was written for); sign: "
                             "exact sign test at α")
    parser.add_argument("--alpha", type=float, default=default.alpha, metavar="P",
                        help=f"the paired test supports a gain when p ≤ P (bayes: posterior ≥ 1 − P) "
                             f"(default {default.alpha})")
    parser.add_argument("--regression-budget", type=float, default=default.regression_budget, metavar="SHARE",
                        help="--test bayes: share of questions a patch may make worse; vetoed when V shows at "
                             f"level α that it breaks more (default {default.regression_budget})")
    parser.add_argument("--scorer", choices=("linking", "ex"), default="linking",
                        help="backbone: offline schema-linking recall (default) or EX of a Claude agent")
    parser.add_argument("--metric", choices=("strict", "column", "answer"), default="answer",
                        help="linking outcome per question the gate compares (default answer: column recall "
                             "averaged with value recall when the SQL compares values; strict; column)")
    parser.add_argument("--agent", default=None, metavar="anthropic:MODEL", help="agent backbone for --scorer ex")
    parser.add_argument("--evolver", default="offline", metavar="offline|anthropic:MODEL",
                        help="who proposes diagnoses and patches (default offline heuristics)")
    parser.add_argument("--trajectories", default=None, metavar="LOG",
                        help="diagnose an agent's recorded tool calls instead of re-running the construction "
                             "questions: a JSON Lines trajectory log or a folder of them (`evoonto serve` writes "
                             "one per session under <workspace>/trajectories/); needs --outcomes. Events of other "
                             "versions, and tasks of the gate's V or of other folds, are left out. Recorded tasks "
                             "are not replayed, so their patches are not screened before the gate")
    parser.add_argument("--outcomes", default=None, metavar="FILE",
                        help="the evaluator's verdict per task of --trajectories, keyed by the events' task id or, "
                             "for MCP sessions (which set no task), the session id: JSON Lines "
                             '{"task": ID, "passed": true|false} (or "score": 0..1), or one JSON object {ID: verdict} '
                             "(whose ids must not be task/id/passed/score)")
    parser.add_argument("--verified", default=None, metavar="FILE",
                        help="on a workspace without a benchmark: verified queries (JSON Lines "
                             '{"question", "sql", "id"?, "db_id"?, "verified_by"?, "verified_at"?}; default '
                             "<workspace>/verified.jsonl, else those the workspace holds: evoonto verified list). "
                             "They form the gate's V (leave-the-source-out, see "
                             "--validation-share) and decide the outcome of served tasks that asked the same question")
    parser.add_argument("--judge", default=None, metavar="anthropic:MODEL",
                        help="on a workspace without a benchmark: Claude judges served tasks that no verified "
                             "query or feedback decided, from their question, final SQL and rows (least trusted)")
    parser.add_argument("--validation-share", type=float, default=0.0, metavar="F",
                        help="0 (default): leave-the-source-out, every verified query is in V and judges every "
                             "candidate it did not produce (a team's 10-30 verified queries all count); F in (0, 1): "
                             "hold back that share of them as V instead (stored the first time)")
    parser.add_argument("--min-validation", type=int, default=5, metavar="N",
                        help="refuse to gate on fewer than N verified queries in V (default 5); the command says "
                             "what it needs instead")
    parser.add_argument("--no-gate", action="store_true",
                        help="ablation: accept every valid candidate (still scored and logged)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def _database_id(ws, requested: str | None) -> str:
    from evoonto.errors import ConfigurationError
    from evoonto.evolution.view import OntologyView

    sources = sorted(OntologyView(ws.ontology).sources)
    if requested:
        if requested not in sources:
            raise ConfigurationError(f"the workspace has no source {requested!r} "
                                     f"(sources: {', '.join(sources) or 'none'})")
        return requested
    if len(sources) != 1:
        raise ConfigurationError(f"the workspace has {len(sources)} sources; choose one with --db")
    return sources[0]


def check_credentials(*specs: str | None) -> None:
    """Fail fast when an ``anthropic:MODEL`` spec (``--evolver``, ``--agent``) has no API key to use.

    Called before the workspace, the data or the splits are touched, so a missing key is the first
    and only error.

    Raises:
        ConfigurationError: a spec starts with ``anthropic:`` and ``$ANTHROPIC_API_KEY`` is unset or empty.
    """
    import os

    from evoonto.errors import ConfigurationError

    for spec in specs:
        if spec and spec.partition(":")[0] == "anthropic" and not os.environ.get("ANTHROPIC_API_KEY", "").strip():
            raise ConfigurationError(f"ANTHROPIC_API_KEY is not set; export it to use {spec}")


def recorded_benchmark(ws) -> dict:
    """The ``benchmark`` setting of a workspace: ``{"format", "data", "db_id"?, "seed"?}`` (``evoonto demo``
    writes it; see :func:`evoonto.demo.benchmark_setting`).

    Raises:
        ConfigurationError: no setting, or one without a ``data`` folder.
    """
    from evoonto.errors import ConfigurationError

    setting = ws.settings.get("benchmark")
    if not isinstance(setting, dict) or not isinstance(setting.get("data"), str):
        raise ConfigurationError("no benchmark recorded in this workspace; pass --data DIR")
    return setting


def workspace_splits(path, bench, db_id: str, seed: int):
    """The splits of ``db_id`` stored at ``path``, or new splits of the whole benchmark (not yet stored:
    :func:`run` stores them once every check has passed, so a failed command writes nothing).

    Splits are drawn per database (:func:`evoonto.evaluation.splits.make_splits` seeds each database's
    shuffle with the seed and the db id only), so a stored file made on a superset of the benchmark's
    databases with the same seed is reused as long as it assigns exactly this database's questions.

    Args:
        path: ``<workspace>/splits.json``.
        bench: the loaded :class:`~evoonto.evaluation.benchmarks.Benchmark`.
        db_id: the database being evolved.
        seed: the split seed.

    Returns:
        the :class:`~evoonto.evaluation.splits.Splits`.

    Raises:
        WorkloadError: the stored file is malformed, made with another seed, or assigns other
            questions of ``db_id`` (the message says which flag to pass or which file to delete).
    """
    import json

    from evoonto.errors import WorkloadError
    from evoonto.evaluation.splits import Splits, fold_name, make_splits

    if not path.exists():  # made here, stored by the caller once every check has passed
        return make_splits(bench.questions, seed=seed)
    try:
        stored = Splits.from_json(json.loads(path.read_text(encoding="utf-8")), source=str(path))
    except (OSError, json.JSONDecodeError) as exc:
        raise WorkloadError(f"{path}: unreadable splits file ({exc})") from None
    if stored.seed != seed:
        raise WorkloadError(f"{path} was made with seed {stored.seed}; pass --seed {stored.seed} "
                            f"or delete the file to re-split")
    wanted = {q.id for q in bench.questions_for(db_id)}
    have = ({qid for i in range(stored.folds) for qid in stored.fold(fold_name(i), db_id=db_id)}
            if db_id in stored.databases else set())
    if have != wanted:
        raise WorkloadError(f"{path} assigns other {db_id} questions than this benchmark ({len(have ^ wanted)} "
                            f"differ); pass the --data it was split with (default: the workspace's recorded "
                            f"benchmark) or delete {path} to re-split")
    return stored


def make_evolver(spec: str, prober):
    """The evolver for ``--evolver``: ``offline`` or ``anthropic:MODEL``.

    Raises:
        ConfigurationError: another value, or ``anthropic:`` without ANTHROPIC_API_KEY.
    """
    from evoonto.errors import ConfigurationError
    from evoonto.evolution.offline import OfflineEvolver

    if spec == "offline":
        return OfflineEvolver(prober=prober)
    provider, _, model = spec.partition(":")
    if provider != "anthropic" or not model.strip():
        raise ConfigurationError(f"unknown evolver {spec!r}; use offline or anthropic:MODEL")
    from evoonto.evaluation.agent import make_client
    from evoonto.evolution.llm import ClaudeEvolver

    return ClaudeEvolver(make_client(), model.strip(), prober=prober)


def _read_recorded(args) -> tuple[list | None, dict | None]:
    """The records of ``--trajectories`` (a JSON Lines file, or a folder of them such as
    ``<workspace>/trajectories/``) and the verdicts of ``--outcomes``; (None, None) without them.
    Without ``--outcomes`` the verdicts are None (only allowed on a workspace without a benchmark,
    where verified queries and feedback give the outcomes; :func:`run` checks that).

    Raises:
        ConfigurationError: ``--outcomes`` without ``--trajectories``, or ``--trajectories`` without
            ``--outcomes`` when ``--data`` names a benchmark.
        WorkloadError: a missing or malformed file (names the file and line), an empty folder.
    """
    from evoonto.errors import ConfigurationError
    from evoonto.evolution.trajectories import read_outcomes

    if args.trajectories is None and args.outcomes is None:
        return None, None
    if args.trajectories is None or (args.outcomes is None and args.data is not None):
        raise ConfigurationError("--trajectories and --outcomes go together (the log has no pass/fail)")
    records = _read_logs(args.trajectories)
    return records, None if args.outcomes is None else read_outcomes(args.outcomes)


def _read_logs(location) -> list:
    """Every record of a trajectory log file or of the ``*.jsonl`` files of a folder, in file order.

    Raises:
        WorkloadError: a missing or malformed file, or a folder without logs.
    """
    from pathlib import Path

    from evoonto.errors import WorkloadError
    from evoonto.evolution.trajectories import read_log

    path = Path(location)
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files:
        raise WorkloadError(f"{path} is a folder without .jsonl trajectory logs")
    return [rec for f in files for rec in read_log(f)]


def _recorded_trajectories(args, ws, bench, db_id: str, construction, records: list, outcomes: dict) -> list:
    """Trajectories from the ``--trajectories`` records with the ``--outcomes`` verdicts.

    Keeps events served at the workspace's current version (or without a version) and tasks that are
    not benchmark questions or belong to the training fold's construction pool: the gate's V and the
    held-out fold must not steer the patches. A task needs at least one kept event and a verdict.
    Prints what was kept to stderr.

    Raises:
        WorkloadError: nothing left to diagnose.
    """
    import sys

    from evoonto.errors import WorkloadError
    from evoonto.evolution.trajectories import group_events, task_key

    current = [r for r in records if r.get("version") in (None, ws.version)]
    allowed = {q.id for q in construction}
    benchmark_ids = {q.id for q in bench.questions}

    def usable(task) -> bool:
        return task not in benchmark_ids or task in allowed

    questions = {q.id: q for q in construction}
    kept = [r for r in current if usable(str(task_key(r)))]
    verdicts = {t: v for t, v in outcomes.items() if usable(t)}
    trajectories = [t for t in group_events(kept, verdicts, questions=questions)
                    if t.passed is not None and t.events]
    for t in trajectories:
        t.db_id = t.db_id or db_id
    if not trajectories:
        raise WorkloadError(f"no task of {args.trajectories} has both events at version {ws.version} and a "
                            f"verdict in {args.outcomes} (tasks of V and of other folds are left out)")
    print(f"trajectories: {len(trajectories)} tasks from {args.trajectories} "
          f"({sum(t.failed for t in trajectories)} failed; {len(records) - len(current)} events of other versions "
          f"and {len(outcomes) - len(verdicts)} verdicts of V/other folds left out)", file=sys.stderr)
    return trajectories


def run(args: argparse.Namespace) -> int:
    """Run the loop and print one line per round and a summary; returns 0."""
    import sys

    from evoonto.cli import workspace_path
    from evoonto.errors import ConfigurationError, WorkloadError
    from evoonto.evaluation.benchmarks import load_benchmark
    from evoonto.evaluation.splits import fold_name
    from evoonto.evolution.loop import LoopConfig
    from evoonto.evolution.probes import ValueProber
    from evoonto.experiment import Experiment
    from evoonto.progress import progress_bar
    from evoonto.sources import open_source
    from evoonto.workspace import Workspace

    if args.rounds < 1 or args.patience < 1 or args.batch < 1:
        raise ConfigurationError("--rounds, --patience and --batch must be at least 1")
    if args.min_validation < 1:
        raise ConfigurationError("--min-validation must be at least 1")
    check_credentials(args.evolver, args.agent if args.scorer == "ex" else None, args.judge)
    if args.judge is not None:
        provider, _, model = args.judge.partition(":")
        if provider != "anthropic" or not model.strip():
            raise ConfigurationError(f"unknown judge {args.judge!r}; use anthropic:MODEL")
    log_records, verdicts = _read_recorded(args)  # bad files fail here, before the workspace is touched
    ws = Workspace.open(workspace_path(args))
    ws.check_writable()  # a read-only/full disk or another writer fails now, not after the first round
    data, benchmark = args.data, args.benchmark
    if data is None and not isinstance(ws.settings.get("benchmark"), dict):
        return run_on_verified(args, ws, log_records, verdicts)
    if args.judge is not None or args.verified is not None:
        raise ConfigurationError("--judge and --verified apply to a workspace without a benchmark (no --data)")
    if log_records is not None and verdicts is None:
        raise ConfigurationError("--trajectories and --outcomes go together (the log has no pass/fail)")
    if data is None:
        recorded_bench = recorded_benchmark(ws)
        data, benchmark = recorded_bench["data"], benchmark or recorded_bench.get("format")
    seed = args.seed
    if seed is None:  # the seed the workspace was split with, when recorded
        recorded_seed = (ws.settings.get("benchmark") or {}).get("seed")
        seed = recorded_seed if isinstance(recorded_seed, int) else 0
    db_id = _database_id(ws, args.db)
    bench = load_benchmark(benchmark, data)
    if db_id not in bench.databases:
        raise WorkloadError(f"{data} has no database {db_id!r}")
    splits = workspace_splits(ws.path / "splits.json", bench, db_id, seed)
    fold_names = [fold_name(i) for i in range(splits.folds)]
    if args.fold is None:  # the fold the workspace was built from, when recorded (never its held-out fold)
        recorded_fold = (ws.settings.get("benchmark") or {}).get("fold")
        args.fold = recorded_fold if recorded_fold in fold_names else "A"
    if args.fold not in fold_names:
        raise ConfigurationError(f"unknown fold {args.fold!r}; choose from {', '.join(fold_names)}")
    experiment = Experiment(bench, splits=splits)
    plan = experiment.training(args.fold, db_id)
    trajectory_questions, validation = list(plan.construction), list(plan.validation)
    if not validation:
        raise WorkloadError(f"fold {args.fold} has no validation questions for {db_id}")
    if len(validation) < args.min_validation:
        print(f"warning: |V| = {len(validation)} < {args.min_validation}: the gate can hardly support a decision on so "
              f"few questions (most candidates will be rejected); evolve several databases together "
              f"(benchmarks/evolution_bench.py pools V) or use --test bayes", file=sys.stderr)
    recorded: list | None = None
    if log_records is not None:
        if verdicts is None:  # _read_recorded returns both or neither
            raise ConfigurationError("--trajectories and --outcomes go together (the log has no pass/fail)")
        recorded = _recorded_trajectories(args, ws, bench, db_id, trajectory_questions, log_records, verdicts)
    gate = _gate_config(args, seed)
    config = LoopConfig(rounds=args.rounds, patience=args.patience, batch_size=args.batch, gate=gate)
    source = open_source(str(bench.databases[db_id]))
    try:
        prober = ValueProber({db_id: source})
        if args.scorer == "linking":
            backbone = experiment.backbone(metric=args.metric, sources={db_id: source})
        else:
            if not args.agent:
                raise ConfigurationError("--scorer ex needs --agent anthropic:MODEL")
            from evoonto.evaluation.agent import ReactAgent, make_client, parse_agent_spec
            from evoonto.evaluation.backbones import ExBackbone

            backbone = ExBackbone(bench, ReactAgent(make_client(), parse_agent_spec(args.agent)))
        evolver = make_evolver(args.evolver, prober)
        if not (ws.path / "splits.json").exists():  # every check passed: store the fold assignment now
            from evoonto.evaluation.splits import load_or_create_splits

            load_or_create_splits(ws.path / "splits.json", bench.questions, seed=seed)
        start = ws.version
        diagnosed = (f"{len(recorded)} recorded tasks" if recorded is not None
                     else f"{len(trajectory_questions)} trajectory questions")
        gate_text = "off (ablation)" if args.no_gate else f"τ={args.tau} {args.test} α={args.alpha}"
        print(f"evolving {db_id} from version {start}: {diagnosed}, |V| = {len(validation)}, gate {gate_text}",
              file=sys.stderr)
        with progress_bar(args.rounds, desc="evolve", unit="round", enabled=not args.no_progress) as bar:
            on_round = _round_reporter(bar, ws)

            result = experiment.evolve(ws, plan, backbone=backbone, evolver=evolver, config=config,
                                       on_round=on_round, recorded_trajectories=recorded)
    finally:
        source.close()
    waiting = f", {result.proposed} proposed (see `evoonto review`)" if result.proposed else ""
    print(f"{result.accepted} accepted{waiting}, {result.rejected} rejected, {result.invalid} invalid; "
          f"stopped: {result.stop_reason}; version {start} -> {ws.version}")
    return 0


def _gate_config(args, seed: int):
    """The :class:`~evoonto.evolution.gate.GateConfig` of the command's gate flags."""
    from evoonto.evolution.gate import GateConfig

    return GateConfig(tau=args.tau, test=args.test, alpha=args.alpha, seed=seed, enabled=not args.no_gate,
                      regression_budget=args.regression_budget)


def too_small_message(held: int, needed: int, share: float, total: int) -> str:
    """The one-line refusal when V is too small to support a gate decision: how many verified queries
    are held back, how many the gate needs, and roughly how many more verified queries to add."""
    import math

    more = max(0, math.ceil((needed - held) / share))
    return (f"the gate's V has {held} held-back verified quer{'y' if held == 1 else 'ies'} (of {total}); it needs "
            f"at least {needed} to support any decision: add about {more} more verified queries (--verified FILE; "
            f"{share:.0%} of them are held back), or pass --min-validation {max(held, 1)} to gate on a weaker V")


def make_judge(spec: str | None, client: Any = None):
    """The :class:`~evoonto.evolution.judge.ClaudeJudge` of ``--judge anthropic:MODEL`` (None without it);
    ``client`` defaults to an ``anthropic.Anthropic`` client from ``$ANTHROPIC_API_KEY``.

    Raises:
        ConfigurationError: another spec, or no API key.
    """
    if spec is None:
        return None
    from evoonto.errors import ConfigurationError
    from evoonto.evolution.judge import ClaudeJudge

    provider, _, model = spec.partition(":")
    if provider != "anthropic" or not model.strip():
        raise ConfigurationError(f"unknown judge {spec!r}; use anthropic:MODEL")
    if client is None:
        from evoonto.evaluation.agent import make_client

        client = make_client()
    return ClaudeJudge(client, model.strip())


def run_on_verified(args, ws, log_records: list | None, verdicts: dict | None, *, judge_client: Any = None) -> int:
    """``evoonto evolve`` on a workspace without a benchmark: served sessions + verified queries.

    Tasks come from the trajectory logs (``--trajectories``, default ``<workspace>/trajectories/``),
    at the active version; their outcomes, in order of trust: a verified query with the same question
    (the agent's final SQL vs the verified SQL by EX), ``--outcomes``, ``evoonto feedback`` /
    ``report_outcome``, then ``--judge`` (``judge_client`` replaces the Anthropic client, e.g. with
    recorded responses in tests). V is the held-back share of the verified queries (tasks asking a V question
    are left out of diagnosis); the backbone scores V (offline linking by default, or EX).

    Raises:
        WorkloadError: no verified queries, V smaller than ``--min-validation`` (the message says what
            is needed), or no task with events and an outcome.
        ConfigurationError: the source has no recorded location, or ``--scorer ex`` without ``--agent``.
    """
    import sys

    from evoonto.errors import ConfigurationError, WorkloadError
    from evoonto.evaluation.sessions import verified_benchmark, verified_outcomes
    from evoonto.evolution.loop import LoopConfig, evolve
    from evoonto.evolution.outcomes import (
        TaskOutcome, holdout, load_verified, merge_outcomes, normalize_question, read_feedback, task_question,
    )
    from evoonto.evolution.probes import ValueProber
    from evoonto.evolution.trajectories import group_events
    from evoonto.progress import progress_bar
    from evoonto.sources import open_source
    from evoonto.workspace import source_locations

    seed = args.seed if args.seed is not None else 0
    db_id = _database_id(ws, args.db)
    locations = {k: str(v) for k, v in source_locations(ws).items()}
    if db_id not in locations:
        raise ConfigurationError(f"the workspace records no location for source {db_id!r}; rebuild it with "
                                 f"`evoonto build --source PATH` (which records it)")
    verified = load_verified(args.verified or ws.path)
    if not verified and not args.verified:  # those `build --verified` / `verified add` recorded
        from evoonto.builder.verified import recorded_verified

        verified = [v for v in recorded_verified(ws.ontology) if v.db_id in (None, db_id)]
        if verified:
            print(f"evolve: the {len(verified)} verified queries this workspace holds for {db_id!r} "
                  "(evoonto verified list)", file=sys.stderr)
    if not verified:
        raise WorkloadError("no benchmark recorded in this workspace and no verified queries: pass --data DIR, or "
                            "--verified FILE (JSON Lines with question and sql), or add them to the workspace "
                            "(evoonto verified add FILE), so the gate has a validation set")
    bench = verified_benchmark(verified, locations, db_id)
    by_id = bench.by_id()
    mine = bench.questions_for(db_id)
    if args.validation_share > 0:  # a held-back share, as before issue 29
        held = holdout(verified, ws.path, share=args.validation_share, seed=seed)
        if len(held) < args.min_validation:
            raise WorkloadError(too_small_message(len(held), args.min_validation, args.validation_share,
                                                  len(verified)))
        held_set = set(held)
        validation = [by_id[i] for i in held if by_id[i].db_id == db_id]
        construction = [q for q in mine if q.id not in held_set]
        outside_v = [vq for vq in verified if vq.key not in held_set]
    else:  # leave-the-source-out: every verified query judges every candidate it did not produce
        if len(mine) < args.min_validation:
            raise WorkloadError(f"the gate needs at least {args.min_validation} verified queries of {db_id} (it has "
                                f"{len(mine)}): add verified queries (--verified FILE), or pass --min-validation "
                                f"{max(len(mine), 1)} to gate on fewer")
        validation, construction, outside_v = list(mine), list(mine), list(verified)
    if log_records is None:
        try:
            log_records = _read_logs(args.trajectories or ws.trajectories_dir)
        except WorkloadError:
            if args.trajectories:  # a named log must exist; the default folder may be absent
                raise
            log_records = []
    current = [r for r in log_records if r.get("version") in (None, ws.version)]
    v_texts = {normalize_question(q.text) for q in validation}
    tasks = [t for t in group_events(current, {}) if t.events]
    for t in tasks:
        t.question = t.question or task_question(t.events)
        t.db_id = t.db_id or db_id
    asked_v = 0
    if args.validation_share > 0:
        asked_v = sum(1 for t in tasks if normalize_question(t.question) in v_texts)
        tasks = [t for t in tasks if normalize_question(t.question) not in v_texts]  # V never steers the patches
    explicit = {str(k): TaskOutcome(str(k), bool(float(v) >= 1.0 - 1e-9), "feedback", "--outcomes")
                for k, v in (verdicts or {}).items()}
    outcomes = merge_outcomes(verified_outcomes(tasks, outside_v, locations, db_id), explicit, read_feedback(ws.path))
    judge = make_judge(args.judge, judge_client)
    if judge is not None:
        outcomes = merge_outcomes(outcomes, judge.judge([t for t in tasks if t.task_id not in outcomes]))
    kept = []
    sql_of = {normalize_question(vq.question): vq.sql for vq in outside_v}
    for t in tasks:
        outcome = outcomes.get(t.task_id)
        if outcome is None:
            continue
        t.passed, t.score = outcome.passed, 1.0 if outcome.passed else 0.0
        # the task's own record: the verified SQL of its question, and the feedback note
        t.reference_sql = sql_of.get(normalize_question(t.question))
        t.notes = (outcome.note,) if outcome.source == "feedback" and outcome.note else ()
        kept.append(t)
    recorded: list | None = kept or None
    if kept:
        by_source: dict[str, int] = {}
        for t in kept:
            src = outcomes[t.task_id].source
            by_source[src] = by_source.get(src, 0) + 1
        print(f"tasks: {len(kept)} with outcomes ({', '.join(f'{n} {k}' for k, n in sorted(by_source.items()))}; "
              f"{sum(t.failed for t in kept)} failed), {len(tasks) - len(kept)} without, {asked_v} asking a V "
              f"question left out; |V| = {len(validation)} verified queries", file=sys.stderr)
    elif args.validation_share > 0:
        raise WorkloadError(f"no served task at version {ws.version} has an outcome: give verdicts with `evoonto "
                            f"feedback TASK pass|fail`, --outcomes FILE, or verified queries with the tasks' questions")
    else:
        print(f"no served task at version {ws.version} has an outcome: diagnosing the served answer to the "
              f"{len(construction)} verified questions; |V| = {len(validation)} verified queries, each candidate "
              f"judged on those that did not produce it", file=sys.stderr)
    config = LoopConfig(rounds=args.rounds, patience=args.patience, batch_size=args.batch,
                        gate=_gate_config(args, seed))
    source = open_source(locations[db_id])
    backbone: Any
    try:
        prober = ValueProber({db_id: source})
        if args.scorer == "linking":
            from evoonto.evaluation.backbones import LinkingBackbone

            # the verified queries are the team's own knowledge: their SQL may steer the patches
            backbone = LinkingBackbone(bench, metric=args.metric, sources={db_id: source}, reveal_sql=True)
        else:
            if not args.agent:
                raise ConfigurationError("--scorer ex needs --agent anthropic:MODEL")
            from evoonto.evaluation.agent import ReactAgent, make_client, parse_agent_spec
            from evoonto.evaluation.backbones import ExBackbone

            backbone = ExBackbone(bench, ReactAgent(make_client(), parse_agent_spec(args.agent)))
        evolver = make_evolver(args.evolver, prober)
        start = ws.version
        with progress_bar(args.rounds, desc="evolve", unit="round", enabled=not args.no_progress) as bar:
            on_round = _round_reporter(bar, ws)

            result = evolve(ws, backbone=backbone, trajectory_questions=construction, validation_questions=validation,
                            evolver=evolver, config=config, on_round=on_round, recorded_trajectories=recorded)
    finally:
        source.close()
    waiting = f", {result.proposed} proposed (see `evoonto review`)" if result.proposed else ""
    print(f"{result.accepted} accepted{waiting}, {result.rejected} rejected, {result.invalid} invalid; "
          f"stopped: {result.stop_reason}; version {start} -> {ws.version}")
    return 0


def _round_reporter(bar: Any, ws: Any) -> Any:
    """The ``on_round`` callback of both evolve paths: advance ``bar`` and print one line per round."""
    from evoonto.progress import progress_write

    def on_round(record: Any) -> None:
        bar.update(1)
        bar.set_postfix_str(f"v{ws.version} {record.decision}")
        progress_write(f"round {record.round}: {record.decision:8s} [{record.level}] "
                       f"{record.intervention[:70]}  ({record.reason})")
    return on_round
