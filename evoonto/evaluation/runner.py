"""Scoring pieces of the reciprocal k-fold protocol (``evoonto eval``; the loop over folds is
:func:`evoonto.experiment.run_evaluation`).

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

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from evoonto.errors import ConfigurationError
from evoonto.evaluation.conditions import ALL_CONDITIONS, CONDITIONS
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
        ex_mode: EX rules, a name of :func:`~evoonto.evaluation.execution.rules_for` (``spider``,
            ``spider-keep-distinct``, ``bird``; see :mod:`~evoonto.evaluation.execution`).
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
        unknown = [c for c in self.conditions if c not in ALL_CONDITIONS]
        if unknown or not self.conditions:
            raise ConfigurationError(f"unknown condition {unknown[0] if unknown else ''!r}; "
                                     f"choose from {', '.join(ALL_CONDITIONS)}")
        if self.scorer == "ex" and self.agent is None:
            raise ConfigurationError("--scorer ex needs --agent anthropic:MODEL")
        from evoonto.evaluation.execution import rules_for

        try:
            rules_for(self.ex_mode)
        except ValueError as exc:
            raise ConfigurationError(str(exc)) from None
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
                                 bool(r["strict"]), r["chars"], r["tokens"], coverage=r.get("coverage"))
                   for r in rows]
        return summarize_linking(results).to_json()
    n = len(rows)
    abstained = sum(1 for r in rows if r.get("finish") == "abstained")
    return {"questions": n, "ex": sum(r["ex"] for r in rows) / n if n else 0.0,
            "ves": sum(r["ves"] for r in rows) / n if n else 0.0,
            # an abstention ("the data does not cover this") is not counted as a wrong answer
            "abstained": abstained,
            "wrong": sum(1 for r in rows if not r["ex"] and r.get("finish") != "abstained"),
            "errors": sum(1 for r in rows if r["error"] and r.get("finish") != "abstained"),
            "avg_turns": sum(r["turns"] for r in rows) / n if n else 0.0,
            "avg_tokens": sum(r["input_tokens"] + r["output_tokens"] for r in rows) / n if n else 0.0}


def evaluate_linking(context, questions: Sequence, benchmark, policy: LinkingPolicy | None = None) -> list:
    """Schema-linking results of ``questions`` under one condition's :class:`~evoonto.evaluation.conditions.Context`.

    The one place where a context is surfaced and scored (the runner, the demo and scripts use it):
    a context with tools runs the retrieval policy; a context without tools pastes its prompt, which
    lists the whole schema.

    Args:
        context: from :meth:`Conditions.prepare <evoonto.evaluation.conditions.Conditions.prepare>`.
        questions: Questions of ``context.db_id``.
        benchmark: the :class:`~evoonto.evaluation.benchmarks.Benchmark` (its gold is read here only).
        policy: the retrieval policy (default :class:`LinkingPolicy`); with ``policy.evidence`` the
            question's evidence text (``benchmark.hints``) is browsed as the tools' ``context``
            (searched below the question's words), and appended to a list condition's one query.

    Returns:
        one :class:`~evoonto.evaluation.linking.LinkingResult` per question, in order.
    """
    from evoonto.evaluation.benchmarks import analysis_of
    from evoonto.evaluation.linking import score_linking, surface_list, surface_prompt_only, surface_with_tools

    policy = policy or LinkingPolicy()
    schema = benchmark.schema(context.db_id)
    results = []
    for question in questions:
        hint = benchmark.hints.get(question.id) if policy.evidence else None
        if context.lister is not None:
            # BIRD evidence: input knowledge, given as the protocol gives it (one query for a list)
            query = f"{question.text} {hint}" if hint else question.text
            surfaced = surface_list(context.prompt, context.lister(query, policy.budget_chars), schema)
        elif context.tools is None:
            surfaced = surface_prompt_only(context.prompt, schema)
        else:
            # the tools take the evidence as browse's context: searched, below the question's words
            surfaced = surface_with_tools(context.tools, context.prompt, question.text, policy, schema,
                                          context=hint or None)
        results.append(score_linking(question.id, surfaced, analysis_of(benchmark.gold[question.id], benchmark)))
    return results


def _score_ex(agent, context, question, bench, config: EvalConfig, folder: Path) -> dict:
    from evoonto.evaluation.agent import InProcessToolbox
    from evoonto.evaluation.execution import rules_for, score_ex
    from evoonto.sources import open_source
    from evoonto.tools.data import DataTools
    from evoonto.tools.trajectory import TrajectoryLog

    log = TrajectoryLog(folder / "trajectories" / f"{context.condition}.jsonl",
                        session=f"{context.condition}-{question.id}".replace("/", "_"))
    with open_source(str(context.database)) as src:
        version = context.tools.version if context.tools is not None else None
        box = InProcessToolbox(DataTools({context.db_id: src}), context.tools, version=version)
        started = time.perf_counter()
        answer = agent.run(question, box, context=context.prompt, hint=bench.hints.get(question.id), trajectory=log)
    scored = score_ex(bench.gold[question.id], context.database, answer.final_sql, rules=rules_for(config.ex_mode),
                      timeout_ms=config.timeout_ms, ves_iterations=config.ves_iterations)
    return {**answer.to_json(), **scored.to_json(), "agent_ms": round((time.perf_counter() - started) * 1000, 1)}


def format_summary(result: RunResult, scorer: str, *, reference: str = "full",
                   policy: LinkingPolicy | None = None) -> str:
    """A plain-text table of the per-condition summary (and size ratio to ``reference``); with
    ``policy`` (linking) a first line names the retrieval policy and its character budget."""
    lines = []
    if scorer == "linking" and policy is not None:
        lines.append(f"policy: {policy.describe()} (list conditions such as bm25: the same "
                     f"{policy.budget_chars:,} characters)")
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
        lines.append(f"{'condition':<10} {'n':>5} {'EX':>7} {'VES':>7} {'wrong':>6} {'abstain':>7} {'errors':>7} "
                     f"{'turns':>6} {'tokens':>8}")
        for name, parts in result.summary.items():
            s = parts["all"]
            lines.append(f"{name:<10} {s['questions']:>5} {s['ex']:>7.3f} {s['ves']:>7.3f} {s.get('wrong', 0):>6} "
                         f"{s.get('abstained', 0):>7} {s['errors']:>7} {s['avg_turns']:>6.1f} {s['avg_tokens']:>8.0f}")
    lines.append(f"results: {result.folder / 'results.jsonl'}")
    return "\n".join(lines)
