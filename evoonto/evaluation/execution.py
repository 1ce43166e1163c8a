"""Execution accuracy (EX) and valid efficiency score (VES), as in Spider and BIRD.

Both the gold and the predicted SQL run through the read-only source layer
(:func:`evoonto.sources.open_source` → ``run(sql, limit=, timeout_ms=)``), so a prediction that is not a
single SELECT/WITH is refused like any other agent statement. A prediction that errors, is refused or
times out scores 0 (both official evaluators do the same).

Result comparison (:func:`results_match`), two modes:

* ``"bird"`` — BIRD's official ``calculate_ex``: ``set(predicted_rows) == set(gold_rows)`` (row order and
  duplicates ignored, column order significant). With ``order_by_sensitive=True`` (the default, as the
  evaluation issue asks) a gold query whose outermost SELECT has ORDER BY is compared as an ordered
  list instead; ``order_by_sensitive=False`` is BIRD's behaviour exactly.
* ``"spider"`` — the Spider test-suite evaluator's ``result_eq`` (Zhong et al. 2020): bag-of-rows
  equality, order significant iff ``'order by'`` occurs in the gold SQL, and a permutation of the
  predicted columns is allowed. The official code samples 20 random rows to prune column
  permutations; this version checks every row, which prunes only impossible permutations, so the
  verdicts are the same and deterministic.

VES (BIRD, Li et al. 2023): for a correct prediction ``sqrt(t_gold / t_pred)``, else 0, with times in
milliseconds averaged over ``iterations`` runs (BIRD uses 100 and drops outliers; we use the mean of a
configurable small number). The benchmark VES is the mean over questions.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Sequence

from evoonto.errors import EvoontoError

if TYPE_CHECKING:
    from evoonto.evaluation.benchmarks import Gold

Mode = Literal["bird", "spider"]

DEFAULT_TIMEOUT_MS = 30_000
"""Per-query time limit for gold and predicted SQL (BIRD's evaluator uses 30 s)."""

DEFAULT_ROW_LIMIT = 1_000_000
"""Rows fetched per query; a result cut at this limit is flagged ``truncated``."""


@dataclass(frozen=True)
class Execution:
    """The outcome of running one query.

    Attributes:
        rows: result rows as tuples, or None when the query failed.
        error: one-line error message (refused, SQL error, timeout), or None.
        elapsed_ms: execution + fetch time reported by the source, milliseconds (0 when it failed).
        truncated: the result hit the row limit.
    """

    rows: tuple[tuple, ...] | None
    error: str | None
    elapsed_ms: float
    truncated: bool = False


@dataclass(frozen=True)
class ExResult:
    """EX/VES outcome of one question.

    Attributes:
        question_id: the question.
        correct: predicted result equals the gold result (EX = 1).
        ves: ``sqrt(t_gold / t_pred)`` when correct, else 0.0.
        error: why the prediction failed to execute (None if it ran).
        gold_error: the gold SQL itself failed (the question is then scored 0 and should be reported).
        gold_ms, pred_ms: mean execution times in milliseconds (None when not run).
    """

    question_id: str
    correct: bool
    ves: float
    error: str | None = None
    gold_error: str | None = None
    gold_ms: float | None = None
    pred_ms: float | None = None

    def to_json(self) -> dict:
        """Plain dict for the JSON Lines results file."""
        return {"ex": int(self.correct), "ves": round(self.ves, 6), "error": self.error,
                "gold_error": self.gold_error, "gold_ms": self.gold_ms, "pred_ms": self.pred_ms}


def execute(database: Path | str, sql: str, *, timeout_ms: int = DEFAULT_TIMEOUT_MS,
            limit: int = DEFAULT_ROW_LIMIT) -> Execution:
    """Run one query read-only and capture its rows or its error; never raises for bad SQL.

    Args:
        database: SQLite file (or any source URL :func:`evoonto.sources.open_source` accepts).
        sql: the query.
        timeout_ms: time limit in milliseconds.
        limit: maximum rows fetched.

    Returns:
        an :class:`Execution`.

    Raises:
        SourceError: the database itself cannot be opened (a setup problem, not a wrong prediction).
    """
    from evoonto.sources import open_source

    with open_source(str(database)) as source:
        try:
            result = source.run(sql, limit=limit, timeout_ms=timeout_ms)
        except EvoontoError as exc:
            return Execution(None, _one_line(exc), 0.0)
        except Exception as exc:  # driver errors that the source layer does not wrap
            return Execution(None, f"{type(exc).__name__}: {_one_line(exc)}", 0.0)
    return Execution(tuple(tuple(r) for r in result.rows), None, result.elapsed_ms, result.truncated)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]


def results_match(gold_rows: Sequence[tuple], pred_rows: Sequence[tuple], *, order_matters: bool,
                  mode: Mode = "bird") -> bool:
    """Compare two query results as the official evaluators do (see the module docstring).

    Args:
        gold_rows, pred_rows: result rows (tuples).
        order_matters: row order is significant (gold has ORDER BY).
        mode: ``"bird"`` (set equality, or list equality when ``order_matters``) or ``"spider"``
            (test-suite ``result_eq``: bags of rows, column permutations allowed).

    Returns:
        True when the results are equivalent.
    """
    gold = [tuple(r) for r in gold_rows]
    pred = [tuple(r) for r in pred_rows]
    if mode == "bird":
        return gold == pred if order_matters else set(gold) == set(pred)
    if mode == "spider":
        return _spider_result_eq(gold, pred, order_matters)
    raise ValueError(f"unknown comparison mode {mode!r}")


def _unorder_row(row: tuple) -> tuple:
    return tuple(sorted(row, key=lambda x: str(x) + str(type(x))))


def _spider_result_eq(result1: list[tuple], result2: list[tuple], order_matters: bool) -> bool:
    if not result1 and not result2:
        return True
    if len(result1) != len(result2):
        return False
    num_cols = len(result1[0])
    if len(result2[0]) != num_cols:
        return False
    s1 = [_unorder_row(r) for r in result1]
    s2 = [_unorder_row(r) for r in result2]
    if (s1 != s2) if order_matters else (set(s1) != set(s2)):
        return False  # quick rejection: rows differ whatever the column order
    columns1 = [{row[i] for row in result1} for i in range(num_cols)]
    allowed = [{j for j in range(num_cols) if all(row[j] in columns1[i] for row in result2)}
               for i in range(num_cols)]
    bag1 = Counter(result1)
    for perm in product(*allowed):
        if len(set(perm)) != num_cols:
            continue
        permuted = [tuple(row[j] for j in perm) for row in result2]
        if order_matters:
            if permuted == result1:
                return True
        elif Counter(permuted) == bag1:
            return True
    return False


def gold_order_matters(gold_sql: str, mode: Mode, *, order_by_sensitive: bool = True) -> bool:
    """Whether row order counts for this gold query under ``mode`` (see the module docstring)."""
    if mode == "spider":
        return "order by" in gold_sql.lower()  # the official test-suite rule
    if not order_by_sensitive:
        return False  # BIRD's official evaluator: always a set comparison
    from evoonto.evaluation.gold import has_order_by

    return has_order_by(gold_sql)


def score_ex(gold: Gold, database: Path | str, predicted_sql: str | None, *, mode: Mode = "bird",
             order_by_sensitive: bool = True, timeout_ms: int = DEFAULT_TIMEOUT_MS,
             ves_iterations: int = 1) -> ExResult:
    """EX and VES of one predicted SQL against its gold answer.

    Args:
        gold: the :class:`~evoonto.evaluation.benchmarks.Gold` record (scorers only).
        database: the question's database file.
        predicted_sql: the agent's final SQL; None or blank scores 0 with error ``"no prediction"``.
        mode, order_by_sensitive: comparison rule (see :func:`results_match`).
        timeout_ms: per-query time limit, milliseconds, for gold and prediction alike.
        ves_iterations: runs per query whose mean time enters VES (≥ 1).

    Returns:
        an :class:`ExResult`.
    """
    gold_run = execute(database, gold.sql, timeout_ms=timeout_ms)
    if gold_run.rows is None:
        return ExResult(gold.question_id, False, 0.0, error=None, gold_error=gold_run.error)
    if not predicted_sql or not predicted_sql.strip():
        return ExResult(gold.question_id, False, 0.0, error="no prediction", gold_ms=gold_run.elapsed_ms)
    pred_run = execute(database, predicted_sql, timeout_ms=timeout_ms)
    if pred_run.rows is None:
        return ExResult(gold.question_id, False, 0.0, error=pred_run.error, gold_ms=gold_run.elapsed_ms)
    order = gold_order_matters(gold.sql, mode, order_by_sensitive=order_by_sensitive)
    correct = results_match(gold_run.rows, pred_run.rows, order_matters=order, mode=mode)
    gold_ms, pred_ms = gold_run.elapsed_ms, pred_run.elapsed_ms
    if correct and ves_iterations > 1:
        gold_ms = _mean_time(database, gold.sql, gold_ms, ves_iterations, timeout_ms)
        pred_ms = _mean_time(database, predicted_sql, pred_ms, ves_iterations, timeout_ms)
    ves = math.sqrt(gold_ms / pred_ms) if correct and pred_ms > 0 else (1.0 if correct else 0.0)
    return ExResult(gold.question_id, correct, ves, gold_ms=round(gold_ms, 3), pred_ms=round(pred_ms, 3))


def _mean_time(database: Path | str, sql: str, first_ms: float, iterations: int, timeout_ms: int) -> float:
    times = [first_ms] + [execute(database, sql, timeout_ms=timeout_ms).elapsed_ms for _ in range(iterations - 1)]
    return sum(times) / len(times)
