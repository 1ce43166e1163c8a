"""``evoonto evolve``: run the gated evolution loop (diagnose → attribute → patch → gate) on a workspace."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "evolve the workspace's ontology with the gated loop (diagnose → attribute → patch → gate)"

DESCRIPTION = """\
Evolve the active version of a workspace built for one database of a benchmark.

Each round the backbone runs the construction-pool questions of the training fold (trajectories with
pass/fail only), the evolver diagnoses recurrent failure signatures, attributes them to a level
(content / tool / schema) and writes a typed patch; the patch is checked with SHACL on the nodes it
touches (an invalid patch is logged and never scored) and then gated: scored on the fold's validation
set V against the parent, same backbone and budgets, accepted iff the mean gain is ≥ --tau and the
paired test (--test, --alpha) supports it. Accepted patches become versions; rejected ones stay in the
history (`evoonto log`) and are never proposed again. Stops after --patience consecutive rejections,
when no signature is left, or after --rounds. Ctrl-C at any moment leaves the last accepted version.

Gold SQL is read only by the scorer; the evolver sees questions, tool results and pass/fail.

Examples:
  evoonto evolve --data ../shared/data/spider --rounds 5
  evoonto evolve --data DIR --db concert_singer --tau 0.01 --test bootstrap
  evoonto evolve --data DIR --evolver anthropic:claude-sonnet-5-5      # Claude proposes patches
  evoonto evolve --data DIR --no-gate                                   # ablation: accept every valid patch
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``evolve`` sub-parser."""
    parser = subparsers.add_parser("evolve", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("--data", required=True, metavar="DIR",
                        help="benchmark folder (Spider/BIRD layout) with questions, gold and databases")
    parser.add_argument("--benchmark", choices=("spider", "bird"), default="spider", help="default spider")
    parser.add_argument("--db", default=None, metavar="DB_ID",
                        help="database of this workspace (default: the workspace's only source)")
    parser.add_argument("--fold", default="A", metavar="NAME",
                        help="training fold: its construction pool gives trajectories, its V the gate (default A)")
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="split seed (default 0)")
    parser.add_argument("--rounds", type=int, default=10, metavar="N", help="round budget (default 10)")
    parser.add_argument("--patience", type=int, default=4, metavar="K",
                        help="stop after K consecutive rejected/invalid candidates (default 4)")
    parser.add_argument("--batch", type=int, default=8, metavar="B",
                        help="signatures bundled into one candidate; rejected batches are bisected (default 8)")
    parser.add_argument("--tau", type=float, default=0.0, metavar="T",
                        help="minimum mean gain on V for acceptance (default 0.0)")
    parser.add_argument("--test", choices=("sign", "bootstrap", "none"), default="sign",
                        help="paired test on per-question outcomes (default sign)")
    parser.add_argument("--alpha", type=float, default=0.25, metavar="P",
                        help="the paired test supports a gain when p ≤ P (default 0.25)")
    parser.add_argument("--scorer", choices=("linking", "ex"), default="linking",
                        help="backbone: offline schema-linking recall (default) or EX of a Claude agent")
    parser.add_argument("--metric", choices=("strict", "column"), default="column",
                        help="linking outcome per question the gate compares (default column recall)")
    parser.add_argument("--agent", default=None, metavar="anthropic:MODEL", help="agent backbone for --scorer ex")
    parser.add_argument("--evolver", default="offline", metavar="offline|anthropic:MODEL",
                        help="who proposes diagnoses and patches (default offline heuristics)")
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
            raise ConfigurationError(f"the workspace has no source {requested!r} (sources: {', '.join(sources) or 'none'})")
        return requested
    if len(sources) != 1:
        raise ConfigurationError(f"the workspace has {len(sources)} sources; choose one with --db")
    return sources[0]


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


def run(args: argparse.Namespace) -> int:
    """Run the loop and print one line per round and a summary; returns 0."""
    import sys

    from tqdm import tqdm

    from evoonto.cli import workspace_path
    from evoonto.errors import ConfigurationError, WorkloadError
    from evoonto.evaluation.benchmarks import load_benchmark
    from evoonto.evaluation.splits import load_or_create_splits
    from evoonto.evolution.gate import GateConfig
    from evoonto.evolution.loop import LoopConfig, evolve
    from evoonto.evolution.probes import ValueProber
    from evoonto.sources.base import open_source
    from evoonto.workspace import Workspace

    if args.rounds < 1 or args.patience < 1 or args.batch < 1:
        raise ConfigurationError("--rounds, --patience and --batch must be at least 1")
    ws = Workspace.open(workspace_path(args))
    db_id = _database_id(ws, args.db)
    bench = load_benchmark(args.benchmark, args.data)
    if db_id not in bench.databases:
        raise WorkloadError(f"{args.data} has no database {db_id!r}")
    questions = list(bench.questions)
    splits = load_or_create_splits(ws.path / "splits.json", questions, seed=args.seed)
    fold_names = [chr(ord("A") + i) for i in range(splits.folds)]
    if args.fold not in fold_names:
        raise ConfigurationError(f"unknown fold {args.fold!r}; choose from {', '.join(fold_names)}")
    by_id = {q.id: q for q in questions}
    trajectory_questions = [by_id[i] for i in splits.fold(args.fold, "construction", db_id)]
    validation = [by_id[i] for i in splits.fold(args.fold, "validation", db_id)]
    if not validation:
        raise WorkloadError(f"fold {args.fold} has no validation questions for {db_id}")
    gate = GateConfig(tau=args.tau, test=args.test, alpha=args.alpha, seed=args.seed, enabled=not args.no_gate)
    config = LoopConfig(rounds=args.rounds, patience=args.patience, batch_size=args.batch, gate=gate)
    source = open_source(str(bench.databases[db_id]))
    try:
        prober = ValueProber({db_id: source})
        if args.scorer == "linking":
            from evoonto.evolution.backbone import LinkingBackbone

            backbone = LinkingBackbone(bench, metric=args.metric, sources={db_id: source})
        else:
            if not args.agent:
                raise ConfigurationError("--scorer ex needs --agent anthropic:MODEL")
            from evoonto.evaluation.agent import ReactAgent, make_client, parse_agent_spec
            from evoonto.evolution.backbone import ExBackbone

            backbone = ExBackbone(bench, ReactAgent(make_client(), parse_agent_spec(args.agent)))
        evolver = make_evolver(args.evolver, prober)
        start = ws.version
        print(f"evolving {db_id} from version {start}: {len(trajectory_questions)} trajectory questions, "
              f"|V| = {len(validation)}, gate {'off (ablation)' if args.no_gate else f'τ={args.tau} {args.test} α={args.alpha}'}",
              file=sys.stderr)
        with tqdm(total=args.rounds, disable=args.no_progress, unit="round", desc="evolve", file=sys.stderr) as bar:
            def on_round(record):
                bar.update(1)
                bar.set_postfix_str(f"v{ws.version} {record.decision}")
                tqdm.write(f"round {record.round}: {record.decision:8s} [{record.level}] "
                           f"{record.intervention[:70]}  ({record.reason[:80]})", file=sys.stdout)

            result = evolve(ws, backbone=backbone, trajectory_questions=trajectory_questions,
                            validation_questions=validation, evolver=evolver, config=config, on_round=on_round)
    finally:
        source.close()
    print(f"{result.accepted} accepted, {result.rejected} rejected, {result.invalid} invalid; "
          f"stopped: {result.stop_reason}; version {start} -> {ws.version}")
    return 0
