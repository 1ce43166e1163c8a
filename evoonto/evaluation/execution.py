"""Execution accuracy (EX) and valid efficiency score (VES), as the official Spider and BIRD evaluators.

Both the gold and the predicted SQL run through the read-only source layer
(:func:`evoonto.sources.open_source` → ``run(sql, limit=, timeout_ms=)``), so a prediction that is not a
single SELECT/WITH is refused like any other agent statement. A prediction that errors, is refused or
times out scores 0 (both official evaluators do the same).

Rules (:class:`Rules`, named in every summary line):

* ``spider`` — the Spider test-suite evaluator's execution match (taoyds/test-suite-sql-eval,
  ``exec_eval.eval_exec_match``, Zhong et al. 2020), its default options: both queries are first
  post-processed (``"> ="`` → ``">="``, ``"< ="``, ``"! ="``) and every ``DISTINCT`` keyword is removed
  from both (also inside ``COUNT(DISTINCT …)``: the official default, ``--keep_distinct`` turns it
  off); ``YEAR(CURDATE())`` reads 2020. Results are compared by ``result_eq``: bags of rows (row
  multiplicity counts), row order significant iff ``'order by'`` occurs in the gold SQL, and a
  permutation of the predicted columns is allowed. The official code samples 20 random rows to
  prune column permutations of wide results; this version checks every row, which prunes only
  impossible permutations, so the verdicts are the same and deterministic. One database per
  question (the test suite's extra databases are not part of the Spider release).
* ``spider-keep-distinct`` — the same with ``--keep_distinct``: DISTINCT stays in both queries.
* ``bird`` — BIRD's official ``calculate_ex``: ``set(predicted_rows) == set(gold_rows)`` (row order and
  duplicates ignored, column order significant), whatever ORDER BY says. ``order_by_sensitive=True``
  (not the official rule; earlier evoonto default) compares ordered gold results as lists.

Values compare as Python values, as in both official evaluators: ``1 == 1.0`` (an integer and a
float with the same value are equal), ``NULL`` (None) equals only ``NULL``.

* ``outcomes`` — how a served task's final SQL is compared with its verified query (the outcomes that
  feed the evolver, :mod:`evoonto.evaluation.sessions`): BIRD's set comparison, rows in order only when
  the verified SQL orders them (a top-level ORDER BY), and numbers compared to 10 significant digits
  (:func:`evoonto.sources.probe.comparable_value`), so the same sum computed in another order
  (37.620000000000005 and 37.61999999999999) is the same answer, and PostgreSQL's ``Decimal`` equals
  the float of the same value. Benchmark EX keeps the official rules above (exact values).

VES (BIRD, Li et al. 2023, ``evaluation_ves.py``): for a correct prediction, each of ``iterations``
runs gives the ratio ``t_gold / t_pred``; ratios outside mean ± 3 standard deviations are dropped and
the rest averaged (``time_ratio``); the question's VES is ``sqrt(time_ratio) × 100`` (0 when wrong), and
the benchmark VES the mean over questions (a scale around 100, not 1). R-VES (BIRD mini-dev) maps the
time ratio to a reward — ≥ 2: 1.25, [1, 2): 1, [0.5, 1): 0.75, [0.25, 0.5): 0.5, else 0.25 (0 when
wrong) — and averages ``sqrt(reward) × 100``. Times are the source's execution + fetch time. BIRD runs
100 iterations; the default here is 1 (then no outlier is dropped; the official code would divide by
zero when every ratio is identical, and so keeps all of them here).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Sequence

from evoonto.errors import EvoontoError
from evoonto.fileio import record_lines

if TYPE_CHECKING:
    from evoonto.evaluation.benchmarks import Gold

Mode = Literal["bird", "spider"]

#: Rule names accepted by :func:`rules_for` / ``evoonto eval --ex-rules``.
RULES = ("spider", "spider-keep-distinct", "bird")
#: The rules of verified-query outcomes (not a benchmark's official EX; see the module docstring).
OUTCOME_RULES = "outcomes"

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
        ves: BIRD's per-question VES, ``sqrt(time_ratio) * 100`` when correct, else 0.0.
        error: why the prediction failed to execute (None if it ran).
        gold_error: the gold SQL itself failed (the question is then scored 0 and should be reported).
        gold_ms, pred_ms: mean execution times in milliseconds (None when not run).
        time_ratio: BIRD's ``t_gold / t_pred`` (outliers dropped, averaged), 0.0 when wrong.
        r_ves: BIRD mini-dev's per-question R-VES, ``sqrt(reward) * 100`` (0.0 when wrong).
    """

    question_id: str
    correct: bool
    ves: float
    error: str | None = None
    gold_error: str | None = None
    gold_ms: float | None = None
    pred_ms: float | None = None
    time_ratio: float = 0.0
    r_ves: float = 0.0

    def to_json(self) -> dict:
        """Plain dict for the JSON Lines results file."""
        return {"ex": int(self.correct), "ves": round(self.ves, 6), "r_ves": round(self.r_ves, 6),
                "time_ratio": round(self.time_ratio, 6), "error": self.error,
                "gold_error": self.gold_error, "gold_ms": self.gold_ms, "pred_ms": self.pred_ms}


@dataclass(frozen=True)
class Rules:
    """How EX compares a prediction with its gold answer (see the module docstring).

    Attributes:
        mode: ``"spider"`` or ``"bird"`` (the result comparison).
        keep_distinct: Spider only: keep DISTINCT (the official ``--keep_distinct``); default False,
            the official default, removes it from both queries.
        order_by_sensitive: BIRD only: compare as ordered lists when the gold SQL has ORDER BY (not
            the official rule); default False.
        significant_digits: compare numbers rounded to this many significant digits (``None``: exact,
            the official evaluators' rule).
    """

    mode: Mode = "bird"
    keep_distinct: bool = False
    order_by_sensitive: bool = False
    significant_digits: int | None = None

    @property
    def name(self) -> str:
        """``spider``, ``spider-keep-distinct``, ``bird`` or ``bird-order-by``."""
        if self.mode == "spider":
            return "spider-keep-distinct" if self.keep_distinct else "spider"
        if self.significant_digits is not None and self.order_by_sensitive:
            return OUTCOME_RULES
        return "bird-order-by" if self.order_by_sensitive else "bird"

    def describe(self) -> str:
        """One phrase for summary lines, e.g. ``spider rules (test-suite exec match, DISTINCT removed)``."""
        if self.mode == "spider":
            return ("spider rules (test-suite exec match: bag of rows, column permutations allowed, order "
                    "iff gold has ORDER BY; " + ("DISTINCT kept, --keep_distinct)" if self.keep_distinct
                                                 else "DISTINCT removed, the official default)"))
        if self.significant_digits is not None:
            return (f"outcome rules (set of rows; ordered list when the reference has ORDER BY; numbers to "
                    f"{self.significant_digits} significant digits)")
        if self.order_by_sensitive:
            return "bird rules with ORDER BY order (set of rows; ordered list when gold has ORDER BY; not official)"
        return "bird rules (official calculate_ex: set of rows, column order counts, row order ignored)"

    def prepare(self, sql: str) -> str:
        """The query as the official evaluator runs it (Spider: post-processing, DISTINCT removal)."""
        if self.mode != "spider":
            return sql
        sql = sql.replace("> =", ">=").replace("< =", "<=").replace("! =", "!=")
        if not self.keep_distinct:
            sql = remove_distinct(sql)
        return _CUR_YEAR.sub("2020", sql)


def rules_for(name: str) -> Rules:
    """The :class:`Rules` called ``name`` (``spider``, ``spider-keep-distinct``, ``bird``, ``bird-order-by``,
    ``outcomes``).

    Raises:
        ValueError: unknown name.
    """
    from evoonto.sources.probe import SIGNIFICANT_DIGITS

    table = {"spider": Rules("spider"), "spider-keep-distinct": Rules("spider", keep_distinct=True),
             "bird": Rules("bird"), "bird-order-by": Rules("bird", order_by_sensitive=True),
             OUTCOME_RULES: Rules("bird", order_by_sensitive=True, significant_digits=SIGNIFICANT_DIGITS)}
    if name not in table:
        raise ValueError(f"unknown EX rules {name!r}; choose one of {', '.join(table)}")
    return table[name]


_CUR_YEAR = re.compile(r"YEAR\s*\(\s*CURDATE\s*\(\s*\)\s*\)\s*", re.IGNORECASE)


def remove_distinct(sql: str) -> str:
    """``sql`` without its DISTINCT keywords, as the Spider test-suite evaluator's default removes
    them (every DISTINCT token, including ``COUNT(DISTINCT x)``; identifiers and strings spelled
    "distinct" stay). Tokenised with sqlglot (SQLite); text that does not tokenise is returned as is."""
    import sqlglot
    from sqlglot.tokens import TokenType

    try:
        tokens = sqlglot.tokenize(sql, read="sqlite")
    except Exception:  # noqa: BLE001 - an untokenisable prediction fails when it runs
        return sql
    out, at = [], 0
    for token in tokens:
        if token.token_type == TokenType.DISTINCT:
            out.append(sql[at:token.start])
            at = token.end + 1
    return "".join(out) + sql[at:]


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
                  mode: Mode = "bird", significant_digits: int | None = None) -> bool:
    """Compare two query results as the official evaluators do (see the module docstring).

    This is the one comparison of results: benchmark EX and verified-query outcomes both use it.

    Args:
        gold_rows, pred_rows: result rows (tuples).
        order_matters: row order is significant (gold has ORDER BY).
        mode: ``"bird"`` (set equality, or list equality when ``order_matters``) or ``"spider"``
            (test-suite ``result_eq``: bags of rows, column permutations allowed).
        significant_digits: compare floats and decimals rounded to this many significant digits
            (:func:`evoonto.sources.probe.comparable_value`); ``None`` compares values exactly.

    Returns:
        True when the results are equivalent.
    """
    if significant_digits is not None:
        from evoonto.sources.probe import comparable_value

        digits = significant_digits
        gold = [tuple(comparable_value(v, digits) for v in r) for r in gold_rows]
        pred = [tuple(comparable_value(v, digits) for v in r) for r in pred_rows]
    else:
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


def gold_order_matters(gold_sql: str, mode: Mode, *, order_by_sensitive: bool = False) -> bool:
    """Whether row order counts for this gold query under ``mode`` (see the module docstring)."""
    if mode == "spider":
        return "order by" in gold_sql.lower()  # the official test-suite rule
    if not order_by_sensitive:
        return False  # BIRD's official evaluator: always a set comparison
    from evoonto.evaluation.gold import has_order_by

    return has_order_by(gold_sql)


def score_ex(gold: Gold, database: Path | str, predicted_sql: str | None, *, mode: Mode = "bird",
             order_by_sensitive: bool = False, keep_distinct: bool = False, rules: Rules | None = None,
             timeout_ms: int = DEFAULT_TIMEOUT_MS, ves_iterations: int = 1) -> ExResult:
    """EX, VES and R-VES of one predicted SQL against its gold answer.

    Args:
        gold: the :class:`~evoonto.evaluation.benchmarks.Gold` record (scorers only).
        database: the question's database file.
        predicted_sql: the agent's final SQL; None or blank scores 0 with error ``"no prediction"``.
        mode, order_by_sensitive, keep_distinct: the comparison rules (:class:`Rules`), unless
            ``rules`` is given.
        rules: the :class:`Rules` (wins over the three flags).
        timeout_ms: per-query time limit, milliseconds, for gold and prediction alike.
        ves_iterations: timed runs of each query for VES when the prediction is correct (≥ 1; BIRD
            uses 100).

    Returns:
        an :class:`ExResult`.
    """
    rules = rules or Rules(mode, keep_distinct=keep_distinct, order_by_sensitive=order_by_sensitive)
    gold_sql = rules.prepare(gold.sql)
    gold_run = execute(database, gold_sql, timeout_ms=timeout_ms)
    if gold_run.rows is None:
        return ExResult(gold.question_id, False, 0.0, error=None, gold_error=gold_run.error)
    if not predicted_sql or not predicted_sql.strip():
        return ExResult(gold.question_id, False, 0.0, error="no prediction", gold_ms=gold_run.elapsed_ms)
    pred_sql = rules.prepare(predicted_sql)
    pred_run = execute(database, pred_sql, timeout_ms=timeout_ms)
    if pred_run.rows is None:
        return ExResult(gold.question_id, False, 0.0, error=pred_run.error, gold_ms=gold_run.elapsed_ms)
    order = gold_order_matters(gold_sql, rules.mode, order_by_sensitive=rules.order_by_sensitive)
    correct = results_match(gold_run.rows, pred_run.rows, order_matters=order, mode=rules.mode,
                            significant_digits=rules.significant_digits)
    gold_ms, pred_ms = gold_run.elapsed_ms, pred_run.elapsed_ms
    if not correct:
        return ExResult(gold.question_id, False, 0.0, gold_ms=round(gold_ms, 3), pred_ms=round(pred_ms, 3))
    pairs = [(gold_ms, pred_ms)]
    for _ in range(max(ves_iterations, 1) - 1):  # BIRD times the prediction, then the gold, per run
        pred_again = execute(database, pred_sql, timeout_ms=timeout_ms).elapsed_ms
        pairs.append((execute(database, gold_sql, timeout_ms=timeout_ms).elapsed_ms, pred_again))
    ratio = time_ratio(pairs)
    return ExResult(gold.question_id, True, ves_of(ratio), gold_ms=round(sum(g for g, _ in pairs) / len(pairs), 3),
                    pred_ms=round(sum(p for _, p in pairs) / len(pairs), 3), time_ratio=ratio,
                    r_ves=math.sqrt(reward_of(ratio)) * 100)


def time_ratio(pairs: Sequence[tuple[float, float]]) -> float:
    """BIRD's time ratio of a correct prediction: the mean of ``t_gold / t_pred`` over the runs after
    dropping ratios outside mean ± 3 population standard deviations (all kept when they are equal).

    Args:
        pairs: ``(gold ms, predicted ms)`` per run; a run with ``predicted ms <= 0`` counts as ratio 1.
    """
    ratios = [g / p if p > 0 else 1.0 for g, p in pairs]
    if not ratios:
        return 0.0
    mean = sum(ratios) / len(ratios)
    std = math.sqrt(sum((r - mean) ** 2 for r in ratios) / len(ratios))
    kept = [r for r in ratios if mean - 3 * std < r < mean + 3 * std] if std > 0 else ratios
    return sum(kept) / len(kept) if kept else mean


def ves_of(ratio: float) -> float:
    """BIRD's per-question VES, ``sqrt(time ratio) * 100`` (0 for a wrong prediction's ratio 0)."""
    return math.sqrt(ratio) * 100 if ratio > 0 else 0.0


def reward_of(ratio: float) -> float:
    """BIRD mini-dev's R-VES reward of a time ratio: 0 (wrong), 0.25, 0.5, 0.75, 1 or 1.25 (≥ 2× faster)."""
    if ratio <= 0:
        return 0.0
    for bound, reward in ((2, 1.25), (1, 1.0), (0.5, 0.75), (0.25, 0.5)):
        if ratio >= bound:
            return reward
    return 0.25


# --- scoring an existing prediction file ------------------------------------------------------------

BIRD_SEPARATOR = "\t----- bird -----\t"
"""How BIRD's prediction files join a SQL and its database id (``"SQL\\t----- bird -----\\tdb_id"``)."""


@dataclass(frozen=True)
class Prediction:
    """One predicted SQL of a prediction file: ``sql`` (``""`` when empty), ``db_id`` when the file
    names it (BIRD format, or ``SQL<TAB>db_id``), ``line`` (1-based line, or entry number in JSON)."""

    sql: str
    db_id: str | None
    line: int


def read_predictions(path: Path | str) -> list[Prediction]:
    """Read a prediction file, one prediction per question in question-file order.

    Formats:
        * text: one SQL per line (blank lines are skipped, as the official Spider evaluator skips
          them); a line may end with ``<TAB>db_id`` or BIRD's ``<TAB>----- bird -----<TAB>db_id``;
        * JSON: BIRD's ``predict_dev.json``, ``{"0": "SQL\\t----- bird -----\\tdb_id", ...}`` (ordered
          by the numeric keys), or a list of such strings.

    Raises:
        WorkloadError: the file is missing, unreadable or malformed (the message names the line).
    """
    from evoonto.errors import WorkloadError

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise WorkloadError(f"prediction file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise WorkloadError(f"{path}: cannot read predictions ({exc})") from None
    if path.suffix.lower() == ".json":
        import json

        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise WorkloadError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
        if isinstance(data, dict):
            try:
                entries = [data[k] for k in sorted(data, key=int)]
            except ValueError:
                raise WorkloadError(f"{path}: expected numeric keys (\"0\", \"1\", ...) as BIRD writes them") from None
        elif isinstance(data, list):
            entries = data
        else:
            raise WorkloadError(f"{path}: expected a JSON object or list of predicted SQL strings")
        out = []
        for n, entry in enumerate(entries):
            if not isinstance(entry, str):
                raise WorkloadError(f"{path}: entry {n} is not a string")
            out.append(_split_prediction(entry, n))
        return out
    return [_split_prediction(line, n) for n, line in enumerate(record_lines(text), start=1) if line.strip()]


def _split_prediction(text: str, line: int) -> Prediction:
    if BIRD_SEPARATOR in text:
        sql, db_id = text.rsplit(BIRD_SEPARATOR, 1)
        return Prediction(sql.strip(), db_id.strip() or None, line)
    if "\t" in text:
        sql, tail = text.rsplit("\t", 1)
        if re.fullmatch(r"[A-Za-z0-9_.\-]+", tail.strip()):
            return Prediction(sql.strip(), tail.strip(), line)
    return Prediction(text.strip(), None, line)


@dataclass(frozen=True)
class PredictionScores:
    """EX/VES/R-VES of a prediction file.

    Attributes:
        rules: the :class:`Rules` used; results: one :class:`ExResult` per scored question, in order.
    """

    rules: Rules
    results: tuple[ExResult, ...]

    @property
    def ex(self) -> float:
        """Execution accuracy in [0, 1]."""
        return sum(r.correct for r in self.results) / len(self.results) if self.results else 0.0

    @property
    def ves(self) -> float:
        """BIRD VES, mean of ``sqrt(time ratio) * 100`` (around 100 for equally fast correct SQL)."""
        return sum(r.ves for r in self.results) / len(self.results) if self.results else 0.0

    @property
    def r_ves(self) -> float:
        """BIRD mini-dev R-VES, mean of ``sqrt(reward) * 100``."""
        return sum(r.r_ves for r in self.results) / len(self.results) if self.results else 0.0

    def summary(self) -> str:
        """The line ``EX 0.805 (532/661 correct) ...; <rules>`` (VES and R-VES with BIRD rules)."""
        n, right = len(self.results), sum(r.correct for r in self.results)
        line = f"EX {self.ex:.3f} ({right}/{n} correct)"
        if self.rules.mode == "bird":
            line += f", VES {self.ves:.2f}, R-VES {self.r_ves:.2f}"
        gold_errors = sum(1 for r in self.results if r.gold_error)
        if gold_errors:
            line += f", {gold_errors} gold queries failed"
        return f"{line}; {self.rules.describe()}"


def score_predictions(benchmark, predictions: Sequence[Prediction], rules: Rules, *,
                      databases: Sequence[str] | None = None, max_questions: int | None = None,
                      timeout_ms: int = DEFAULT_TIMEOUT_MS, ves_iterations: int = 1,
                      progress: bool = False) -> PredictionScores:
    """Score a prediction file's predictions against a benchmark's gold, question by question.

    Predictions are matched to ``benchmark.questions`` by position (the file order of the question
    file), as the official evaluators match them.

    Args:
        benchmark: a :class:`~evoonto.evaluation.benchmarks.Benchmark` with gold.
        predictions: from :func:`read_predictions`, one per question.
        rules: the comparison :class:`Rules`.
        databases: score only the questions on these database ids (positions still count all).
        max_questions: at most this many questions per database (the first ones).
        timeout_ms: per-query time limit, milliseconds; ves_iterations: timed runs for VES.
        progress: show a progress bar on stderr.

    Raises:
        WorkloadError: the counts differ, a prediction names another database than its question,
            questions were skipped (a missing database shifts the positions) or gold is missing.
    """
    from evoonto.errors import WorkloadError
    from evoonto.progress import progress_bar

    questions = list(benchmark.questions)
    if benchmark.skipped:
        raise WorkloadError(f"{len(benchmark.skipped)} questions have no database ({benchmark.skipped[0]}, ...): "
                            "predictions are matched by position, so every database must be present")
    if len(predictions) != len(questions):
        raise WorkloadError(f"{len(predictions)} predictions for {len(questions)} questions "
                            "(one prediction per question, in question-file order)")
    chosen = []
    per_db: dict[str, int] = {}
    for question, pred in zip(questions, predictions, strict=True):
        if pred.db_id is not None and question.db_id is not None and pred.db_id != question.db_id:
            raise WorkloadError(f"prediction {pred.line} names database {pred.db_id!r} but question "
                                f"{question.id} is on {question.db_id!r}")
        if databases and question.db_id not in databases:
            continue
        per_db[str(question.db_id)] = per_db.get(str(question.db_id), 0) + 1
        if max_questions is not None and per_db[str(question.db_id)] > max_questions:
            continue
        chosen.append((question, pred))
    results = []
    with progress_bar(len(chosen), desc="EX", unit="q", enabled=progress) as bar:
        for question, pred in chosen:
            results.append(score_ex(benchmark.gold[question.id], benchmark.databases[question.db_id],
                                    pred.sql, rules=rules, timeout_ms=timeout_ms, ves_iterations=ves_iterations))
            bar.update(1)
    return PredictionScores(rules, tuple(results))
