"""Outcomes of served sessions and the gate's V from verified queries (issue 14 items 1-2).

Everything here reads verified SQL (it scores), which is why it lives in the evaluation layer; the
evolution package only reads the resulting :class:`~evoonto.evolution.outcomes.TaskOutcome` s.

* :func:`verified_outcomes` — a served task whose question matches a verified query (normalized
  text) is scored by executing the agent's final SQL read-only and comparing its result with the
  verified SQL's by the EX comparison (:func:`evoonto.evaluation.execution.score_ex`).
* :func:`verified_benchmark` — the verified queries as a :class:`Benchmark`, so the offline linking
  backbone (or the EX agent backbone) can score the held-back share V with the same code as a
  benchmark's V.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from evoonto.errors import WorkloadError
from evoonto.evaluation.benchmarks import Benchmark, Gold, GoldStore, database_location
from evoonto.evolution.outcomes import TaskOutcome, VerifiedQuery, final_sql, normalize_question, task_question
from evoonto.evolution.trajectories import TaskTrajectory
from evoonto.builder.workload import Question


def verified_benchmark(verified: Sequence[VerifiedQuery], databases: Mapping[str, Path | str],
                       default_db: str) -> Benchmark:
    """The verified queries as a benchmark (questions + gold SQL) over the workspace's sources.

    Args:
        verified: the verified queries (``db_id`` None means ``default_db``).
        databases: source id → SQLite path or SQLAlchemy URL of the workspace's sources.
        default_db: the source of queries without ``db_id``.
    Returns:
        a :class:`Benchmark` named ``verified`` (question ids = verified query ids).
    Raises:
        WorkloadError: a query names a source the workspace does not have.
    """
    questions, gold = [], {}
    for vq in verified:
        db_id = vq.db_id or default_db
        if db_id not in databases:
            raise WorkloadError(f"verified query {vq.key!r} names source {db_id!r}, which the workspace does not have "
                                f"(sources: {', '.join(sorted(databases)) or 'none'})")
        questions.append(Question(id=vq.key, text=vq.question, db_id=db_id))
        gold[vq.key] = Gold(vq.key, db_id, vq.sql)
    return Benchmark("verified", tuple(questions), {k: database_location(v) for k, v in databases.items()},
                     GoldStore(gold))


def match_verified(trajectory: TaskTrajectory, verified: Sequence[VerifiedQuery]) -> VerifiedQuery | None:
    """The verified query whose normalized question equals the task's (its declared question, else
    :func:`~evoonto.evolution.outcomes.task_question`), or None."""
    question = trajectory.question or task_question(trajectory.events)
    key = normalize_question(question)
    if not key:
        return None
    return next((vq for vq in verified if normalize_question(vq.question) == key), None)


def verified_outcomes(trajectories: Sequence[TaskTrajectory], verified: Sequence[VerifiedQuery],
                      databases: Mapping[str, Path | str], default_db: str, *,
                      timeout_ms: int = 30_000) -> dict[str, TaskOutcome]:
    """Task id → ``verified`` outcome for every task that matches a verified query.

    The agent's final SQL (:func:`~evoonto.evolution.outcomes.final_sql`: its ``final_answer``, else
    its last successful ``run_sql``) and the verified SQL are run read-only on the query's source and
    compared by :func:`~evoonto.evaluation.execution.score_ex` under the ``outcomes`` rules (a set
    comparison unless the verified SQL orders its rows, numbers to 10 significant digits). A task that
    ran no SQL fails ("no final SQL"). A verified query whose own SQL fails decides nothing (the task
    is left to feedback or the judge).

    Args:
        trajectories: the served tasks. verified: the verified queries.
        databases: source id → database path/URL. default_db: the source of queries without ``db_id``.
        timeout_ms: per-query time limit in milliseconds.
    """
    from evoonto.evaluation.execution import OUTCOME_RULES, rules_for, score_ex

    out: dict[str, TaskOutcome] = {}
    for trajectory in trajectories:
        vq = match_verified(trajectory, verified)
        if vq is None:
            continue
        db_id = vq.db_id or default_db
        if db_id not in databases:
            continue
        sql = final_sql(trajectory.events)
        result = score_ex(Gold(vq.key, db_id, vq.sql), databases[db_id], sql, rules=rules_for(OUTCOME_RULES),
                          timeout_ms=timeout_ms)
        if result.gold_error:
            continue
        note = "result equals the verified query's" if result.correct else (
            "no final SQL" if not sql else f"result differs from the verified query's ({result.error or 'other rows'})")
        out[trajectory.task_id] = TaskOutcome(trajectory.task_id, result.correct, "verified", note,
                                              reference=vq.key)
    return out
