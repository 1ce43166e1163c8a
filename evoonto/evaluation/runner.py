"""The reciprocal k-fold protocol end to end (``evoonto eval``).

For each round (test fold i; the other folds train), each database and each condition:

1. the condition is prepared from the database and the training folds' *construction pool*
   questions (Questions only — the builder never sees gold);
2. every held-out question of that database is scored: ``linking`` runs the deterministic retrieval
   policy and compares with the gold SQL's analysis; ``ex`` runs the Claude agent and executes its
   final SQL against the gold SQL;
3. one JSON object per (condition, question) is appended to ``results.jsonl``.

The summary averages over all held-out questions (every question is held out exactly once), and also
per round. Files of a run (``<out>/<run id>/``): ``results.jsonl``, ``summary.json``, ``config.json``,
and for ``ex`` the agent trajectories under ``trajectories/``. The splits file is shared by all runs
(see :mod:`evoonto.evaluation.splits`).
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from evoonto.errors import ConfigurationError, WorkloadError
from evoonto.evaluation.conditions import CONDITIONS, Conditions
from evoonto.evaluation.linking import LinkingPolicy

SCORERS = ("linking", "ex")


@dataclass
class EvalConfig:
    """What to evaluate.

    Attributes:
        benchmark: ``spider`` or ``bird``; data: its folder.
        scorer: ``linking`` (offline) or ``ex`` (needs ``agent``).
        conditions: subset of :data:`~evoonto.evaluation.conditions.CONDITIONS`.
        folds, seed, validation_fraction: the split protocol.
        splits_path: where the splits JSON lives (created on first use, then reused).
        out: folder that receives one sub-folder per run.
        databases: restrict to these db ids (None = all).
        max_questions: cap on held-out questions per (round, database), for quick runs (None = all).
        policy: the linking retrieval policy.
        agent: :class:`~evoonto.evaluation.agent.AgentConfig` for ``ex``.
        proposer: builder proposer for the evoonto condition.
        timeout_ms: EX per-query time limit (milliseconds).
        ex_mode: result comparison, ``bird`` or ``spider`` (see :mod:`~evoonto.evaluation.execution`).
        ves_iterations: runs per query averaged for VES timing.
    """

    benchmark: str
    data: Path
    scorer: str = "linking"
    conditions: Sequence[str] = CONDITIONS
    folds: int = 2
    seed: int = 0
    validation_fraction: float = 0.3
    splits_path: Path | None = None
    out: Path = Path("runs")
    databases: Sequence[str] | None = None
    max_questions: int | None = None
    policy: LinkingPolicy = field(default_factory=LinkingPolicy)
    agent: Any = None
    proposer: str = "offline"
    timeout_ms: int = 30_000
    ex_mode: str = "bird"
    ves_iterations: int = 1

    def check(self) -> None:
        """Raise ConfigurationError for inconsistent settings."""
        if self.scorer not in SCORERS:
            raise ConfigurationError(f"unknown scorer {self.scorer!r}; choose from {', '.join(SCORERS)}")
        unknown = [c for c in self.conditions if c not in CONDITIONS]
        if unknown or not self.conditions:
            raise ConfigurationError(f"unknown condition {unknown[0] if unknown else ''!r}; "
                                     f"choose from {', '.join(CONDITIONS)}")
        if self.scorer == "ex" and self.agent is None:
            raise ConfigurationError("--scorer ex needs --agent anthropic:MODEL")
        if self.ex_mode not in ("bird", "spider"):
            raise ConfigurationError(f"unknown EX comparison {self.ex_mode!r}; choose bird or spider")
        if self.ves_iterations < 1 or self.timeout_ms < 1:
            raise ConfigurationError("--ves-iterations and the timeout must be positive")

    def to_json(self) -> dict:
        return {"benchmark": self.benchmark, "data": str(self.data), "scorer": self.scorer,
                "conditions": list(self.conditions), "folds": self.folds, "seed": self.seed,
                "validation_fraction": self.validation_fraction, "databases": self.databases,
                "max_questions": self.max_questions, "policy": self.policy.to_json(),
                "agent": self.agent.to_json() if self.agent is not None else None,
                "proposer": self.proposer, "timeout_ms": self.timeout_ms, "ex_mode": self.ex_mode,
                "ves_iterations": self.ves_iterations}


@dataclass
class RunResult:
    """A finished run: its folder, per-condition summaries and the per-question rows."""

    folder: Path
    summary: dict[str, dict]
    rows: list[dict]
    sizes: dict[str, dict] = field(default_factory=dict)


def _summarize(rows: list[dict], scorer: str) -> dict:
    if scorer == "linking":
        from evoonto.evaluation.linking import LinkingResult, summarize_linking

        results = [LinkingResult(r["question_id"], r["table_recall"], r["column_recall"], r["value_recall"],
                                 bool(r["strict"]), r["chars"], r["tokens"]) for r in rows]
        return summarize_linking(results).to_json()
    n = len(rows)
    return {"questions": n, "ex": sum(r["ex"] for r in rows) / n if n else 0.0,
            "ves": sum(r["ves"] for r in rows) / n if n else 0.0,
            "errors": sum(1 for r in rows if r["error"]),
            "avg_turns": sum(r["turns"] for r in rows) / n if n else 0.0,
            "avg_tokens": sum(r["input_tokens"] + r["output_tokens"] for r in rows) / n if n else 0.0}


def run_evaluation(config: EvalConfig, *, client: Any = None, progress: bool = True,
                   conditions: Conditions | None = None) -> RunResult:
    """Run the protocol and write the run folder.

    Args:
        config: :class:`EvalConfig`.
        client: an ``anthropic.Anthropic`` client for ``ex`` (default :func:`~evoonto.evaluation.agent.make_client`).
        progress: show a tqdm progress bar on stderr.
        conditions: a :class:`Conditions` (to share caches or plug in an ontology provider).

    Returns:
        a :class:`RunResult`.

    Raises:
        ConfigurationError: bad settings or missing API key; WorkloadError: bad benchmark/splits.
    """
    from tqdm import tqdm

    from evoonto.evaluation.benchmarks import load_benchmark
    from evoonto.evaluation.splits import load_or_create_splits

    config.check()
    agent = None
    if config.scorer == "ex":
        from evoonto.evaluation.agent import ReactAgent, make_client

        agent = ReactAgent(client if client is not None else make_client(), config.agent)
    bench = load_benchmark(config.benchmark, config.data)
    chosen = set(config.databases or bench.db_ids())
    missing = sorted(chosen - set(bench.db_ids()))
    if missing:
        raise WorkloadError(f"no questions for database(s) {', '.join(missing)} in {config.data}")
    # splits always cover the whole benchmark (each database is split independently), so runs on a
    # subset of databases reuse the same stored file
    splits_path = config.splits_path or Path(config.out) / f"splits-{config.benchmark}.json"
    splits = load_or_create_splits(splits_path, bench.questions, seed=config.seed, folds=config.folds,
                                   validation_fraction=config.validation_fraction)
    by_id = bench.by_id()
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    folder = Path(config.out) / f"{stamp}-{config.benchmark}-{config.scorer}-{uuid.uuid4().hex[:6]}"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({**config.to_json(), "splits": str(splits_path)}, indent=1) + "\n")

    plan = []  # (round, db_id, workload, test questions)
    for rnd in splits.rounds():
        construction, test = set(rnd.construction), [by_id[i] for i in rnd.test]
        for db_id in sorted({q.db_id for q in test} & chosen):
            workload = [by_id[i] for i in rnd.construction if by_id[i].db_id == db_id]
            held_out = [q for q in test if q.db_id == db_id][: config.max_questions]
            assert not construction & {q.id for q in held_out}
            plan.append((rnd, db_id, workload, held_out))
    total = sum(len(p[3]) for p in plan) * len(config.conditions)

    conditions = conditions or Conditions(proposer=config.proposer)
    rows: list[dict] = []
    sizes: dict[str, dict] = {}
    with open(folder / "results.jsonl", "w", encoding="utf-8") as out, \
            tqdm(total=total, disable=not progress, unit="q", desc=f"eval {config.scorer}") as bar:
        for rnd, db_id, workload, held_out in plan:
            database = bench.databases[db_id]
            for name in config.conditions:
                bar.set_postfix_str(f"{rnd.test_fold} {db_id} {name}")
                context = conditions.prepare(name, db_id, database, workload)
                for part, chars in context.sizes.items():
                    sizes.setdefault(name, {}).setdefault(part, []).append(chars)
                for question in held_out:
                    row = {"round": rnd.index, "test_fold": rnd.test_fold, "condition": name, "db_id": db_id,
                           "question_id": question.id, "question": question.text}
                    if config.scorer == "linking":
                        row.update(evaluate_linking(context, [question], bench, config.policy)[0].to_json())
                    else:
                        row.update(_score_ex(agent, context, question, bench, config, folder))
                    rows.append(row)
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
                    out.flush()
                    bar.update(1)

    summary = {name: {"all": _summarize([r for r in rows if r["condition"] == name], config.scorer),
                      "rounds": [_summarize([r for r in rows if r["condition"] == name and r["round"] == i],
                                            config.scorer) for i in range(splits.folds)]}
               for name in config.conditions}
    mean_sizes = {name: {part: sum(v) / len(v) for part, v in parts.items()} for name, parts in sizes.items()}
    (folder / "summary.json").write_text(json.dumps({"summary": summary, "prompt_sizes": mean_sizes}, indent=1) + "\n")
    return RunResult(folder, summary, rows, mean_sizes)


def evaluate_linking(context, questions: Sequence, benchmark, policy: LinkingPolicy | None = None) -> list:
    """Schema-linking results of ``questions`` under one condition's :class:`~evoonto.evaluation.conditions.Context`.

    The one place where a context is surfaced and scored (the runner, the demo and scripts use it):
    a context with tools runs the retrieval policy; a context without tools pastes its prompt, which
    lists the whole schema.

    Args:
        context: from :meth:`Conditions.prepare <evoonto.evaluation.conditions.Conditions.prepare>`.
        questions: Questions of ``context.db_id``.
        benchmark: the :class:`~evoonto.evaluation.benchmarks.Benchmark` (its gold is read here only).
        policy: the retrieval policy (default :class:`LinkingPolicy`).

    Returns:
        one :class:`~evoonto.evaluation.linking.LinkingResult` per question, in order.
    """
    from evoonto.evaluation.benchmarks import analysis_of
    from evoonto.evaluation.linking import score_linking, surface_prompt_only, surface_with_tools

    policy = policy or LinkingPolicy()
    schema = benchmark.schema(context.db_id)
    results = []
    for question in questions:
        if context.tools is None:
            surfaced = surface_prompt_only(context.prompt, schema)
        else:
            surfaced = surface_with_tools(context.tools, context.prompt, question.text, policy, schema)
        results.append(score_linking(question.id, surfaced, analysis_of(benchmark.gold[question.id], benchmark)))
    return results


def _score_ex(agent, context, question, bench, config: EvalConfig, folder: Path) -> dict:
    from evoonto.evaluation.agent import InProcessToolbox
    from evoonto.evaluation.execution import score_ex
    from evoonto.sources import open_source
    from evoonto.tools.data import DataTools
    from evoonto.tools.trajectory import TrajectoryLog

    log = TrajectoryLog(folder / "trajectories" / f"{context.condition}.jsonl",
                        session=f"{context.condition}-{question.id}".replace("/", "_"))
    with open_source(str(context.database)) as src:
        version = getattr(context.tools, "version", None) if context.tools is not None else None
        box = InProcessToolbox(DataTools({context.db_id: src}), context.tools, version=version)
        started = time.perf_counter()
        answer = agent.run(question, box, context=context.prompt, hint=bench.hints.get(question.id), trajectory=log)
    scored = score_ex(bench.gold[question.id], context.database, answer.final_sql, mode=config.ex_mode,
                      timeout_ms=config.timeout_ms, ves_iterations=config.ves_iterations)
    return {**answer.to_json(), **scored.to_json(), "agent_ms": round((time.perf_counter() - started) * 1000, 1)}


def format_summary(result: RunResult, scorer: str, *, reference: str = "full") -> str:
    """A plain-text table of the per-condition summary (and size ratio to ``reference``)."""
    lines = []
    if scorer == "linking":
        ref = result.summary.get(reference, {}).get("all", {}).get("avg_chars")
        lines.append(f"{'condition':<10} {'n':>5} {'strict':>7} {'table':>7} {'column':>7} {'value':>7} "
                     f"{'avg chars':>10} {'avg tokens':>10} {'vs ' + reference:>8}")
        for name, parts in result.summary.items():
            s = parts["all"]
            ratio = f"{s['avg_chars'] / ref:.1%}" if ref else "-"
            value = f"{s['value_recall']:.3f}" if s["value_recall"] is not None else "-"
            lines.append(f"{name:<10} {s['questions']:>5} {s['strict_recall']:>7.3f} {s['table_recall']:>7.3f} "
                         f"{s['column_recall']:>7.3f} {value:>7} {s['avg_chars']:>10.0f} {s['avg_tokens']:>10.0f} "
                         f"{ratio:>8}")
        lines.append("tokens are estimated as characters / 4")
    else:
        lines.append(f"{'condition':<10} {'n':>5} {'EX':>7} {'VES':>7} {'errors':>7} {'turns':>6} {'tokens':>8}")
        for name, parts in result.summary.items():
            s = parts["all"]
            lines.append(f"{name:<10} {s['questions']:>5} {s['ex']:>7.3f} {s['ves']:>7.3f} {s['errors']:>7} "
                         f"{s['avg_turns']:>6.1f} {s['avg_tokens']:>8.0f}")
    lines.append(f"results: {result.folder / 'results.jsonl'}")
    return "\n".join(lines)
