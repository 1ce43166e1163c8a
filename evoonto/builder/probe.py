"""Probes: read-only queries the builder runs against a source to back its candidates with data.

Every query goes through the source layer's read-only ``run(sql, *, limit, timeout_ms)`` (a single
SELECT, row cap, time limit; DESIGN.md §4). A :class:`ProbeResult` keeps the exact SQL, the rows and
the logical time of the run, so :mod:`evoonto.builder.construct` can record it as a PROV activity
(``evo:Probe``, W3C PROV-O ``prov:Activity``) with the Evidence it generated.

Times are the build's *logical clock* (one timestamp per build, see
:func:`evoonto.builder.pipeline.build_clock`), so the same inputs give byte-identical Evidence.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from evoonto.errors import SourceError, first_line
from evoonto.iris import stable_key

__all__ = ["ProbeResult", "ColumnProfile", "Prober", "quote_identifier", "sql_literal"]

#: Columns with at most this many distinct values get their whole value vocabulary recorded.
DEFAULT_VOCABULARY_CAP = 5000
#: Values longer than this (characters) are free text, not vocabulary.
MAX_VOCABULARY_VALUE_LENGTH = 80
#: Tables with more rows than this are profiled on a sample of this many rows.
DEFAULT_SAMPLE_ROWS = 200_000

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$|^\d{1,2}/\d{1,2}/\d{2,4}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?")
_YEAR = re.compile(r"^(1[5-9]|20)\d{2}$")
_CODE = re.compile(r"^[A-Z0-9][A-Z0-9_\-]{0,11}$")
_NUMBER = re.compile(r"^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$")


def quote_identifier(name: str) -> str:
    """An SQL identifier in double quotes (SQL-92; SQLite, DuckDB, PostgreSQL), quotes doubled."""
    return '"' + name.replace('"', '""') + '"'


def sql_literal(value: Any) -> str:
    """An SQL literal for ``value``: numbers as written, strings single-quoted with quotes doubled."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)) and math.isfinite(value):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


@dataclass(frozen=True)
class ProbeResult:
    """One executed probe.

    Attributes:
        key: stable hash of (source id, SQL): the ``evidence/{key}`` and ``probe/{key}`` IRI key.
        sql: the exact query text.
        columns: result column names.
        rows: result rows (at most the probe's row cap).
        at: the build's logical time of the run.
        error: the one-line error when the source refused or failed the query, else ``None``.
    """

    key: str
    sql: str
    columns: tuple[str, ...]
    rows: tuple[tuple, ...]
    at: datetime
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the query ran."""
        return self.error is None

    def scalar(self, default: Any = None) -> Any:
        """The first value of the first row, or ``default``."""
        return self.rows[0][0] if self.rows and self.rows[0] else default


@dataclass(frozen=True)
class ColumnProfile:
    """What one profiling probe observed about a column.

    Attributes:
        table, column: names as in the source.
        probe: the :class:`ProbeResult` (a ``GROUP BY`` value-frequency query).
        rows_observed: rows counted (the whole table, or the sample when the table is large).
        null_count: NULL values among them.
        distinct_count: distinct non-NULL values (a lower bound when ``complete`` is False).
        complete: True when every distinct value was observed (distinct count ≤ the vocabulary cap).
        top: up to 20 ``(value, count)`` pairs, most frequent first (ties by value).
        vocabulary: every distinct text value, most frequent first, when the column is
            vocabulary-like (complete, short values); else empty.
        minimum, maximum: smallest / largest non-NULL value (numbers compared as numbers).
        pattern: ``integer``, ``decimal``, ``numeric text``, ``boolean``, ``year``, ``date``,
            ``datetime``, ``code``, ``text`` or ``empty``.
        mean_length: mean length in characters of the text form of the values.
    """

    table: str
    column: str
    probe: ProbeResult
    rows_observed: int
    null_count: int
    distinct_count: int
    complete: bool
    top: tuple[tuple[Any, int], ...]
    vocabulary: tuple[str, ...]
    minimum: Any
    maximum: Any
    pattern: str
    mean_length: float

    @property
    def null_fraction(self) -> float:
        """Share of NULLs among observed rows, in [0, 1] (0 for an empty table)."""
        return self.null_count / self.rows_observed if self.rows_observed else 0.0

    @property
    def numeric(self) -> bool:
        """True when every non-NULL value is a number (stored as one or as text)."""
        return self.pattern in ("integer", "decimal", "numeric text", "year", "boolean")

    def summary(self) -> str:
        """One line for ``evo:summary``: ``"6 rows, 0% null, 6 distinct, 25..52"``."""
        distinct = f"{self.distinct_count}{'' if self.complete else '+'} distinct"
        span = "" if self.minimum is None else f", {_short(self.minimum)}..{_short(self.maximum)}"
        return f"{self.rows_observed} rows, {self.null_fraction:.0%} null, {distinct}{span}, {self.pattern}"

    def distribution_json(self, k: int = 20) -> str:
        """The top-``k`` value counts as a JSON object literal (``evo:valueDistribution``)."""
        return json.dumps({_short(v, 60): n for v, n in self.top[:k]}, ensure_ascii=False, sort_keys=False)


def _short(value: Any, length: int = 40) -> str:
    text = str(value)
    return text if len(text) <= length else text[: length - 1] + "…"


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return True
    if isinstance(value, (int, float)):
        return True
    return isinstance(value, str) and bool(_NUMBER.match(value))


def _pattern(values: Sequence[Any]) -> str:
    if not values:
        return "empty"
    if all(isinstance(v, bool) or (isinstance(v, int) and v in (0, 1)) for v in values) and len(values) <= 2:
        return "boolean"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "year" if all(_YEAR.match(str(v)) for v in values) and len(values) > 1 else "integer"
    if all(isinstance(v, (int, float)) for v in values):
        return "decimal"
    texts = [str(v) for v in values]
    if all(_DATETIME.match(t) for t in texts):
        return "datetime"
    if all(_DATE.match(t) for t in texts):
        return "date"
    if all(_NUMBER.match(t) for t in texts):
        return "year" if all(_YEAR.match(t.strip()) for t in texts) and len(texts) > 1 else "numeric text"
    if {t.upper() for t in texts} <= {"T", "F", "Y", "N", "TRUE", "FALSE", "YES", "NO"}:
        return "boolean"
    if all(_CODE.match(t) for t in texts) and len(values) > 1:
        return "code"
    return "text"


def _sort_key(value: Any):
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, value, "")
    if isinstance(value, str) and _NUMBER.match(value):
        return (0, float(value), value)
    return (1, 0, str(value))


class Prober:
    """Runs probes against one source and caches them by SQL text.

    Args:
        source: an object with ``run(sql, *, limit, timeout_ms)`` returning a result with
            ``columns`` and ``rows`` (:class:`evoonto.sources.base.Source`).
        source_id: the source's id (part of every probe key).
        at: the build's logical time, stamped on every probe.
        timeout_ms: per-query time limit in milliseconds.
        vocabulary_cap: distinct-value cap for complete value vocabularies.
        sample_rows: tables larger than this are profiled on their first ``sample_rows`` rows.
    """

    def __init__(self, source, source_id: str, *, at: datetime, timeout_ms: int = 5000,
                 vocabulary_cap: int = DEFAULT_VOCABULARY_CAP, sample_rows: int = DEFAULT_SAMPLE_ROWS):
        self.source = source
        self.source_id = source_id
        self.at = at
        self.timeout_ms = timeout_ms
        self.vocabulary_cap = vocabulary_cap
        self.sample_rows = sample_rows
        self._cache: dict[tuple[str, int], ProbeResult] = {}
        self.quote = getattr(source, "quote", quote_identifier)

    def run(self, sql: str, *, limit: int = 1000) -> ProbeResult:
        """Run one read-only query (cached); a refused or failing query gives ``error`` set.

        Args:
            sql: one SELECT statement.
            limit: row cap.

        Returns:
            The :class:`ProbeResult` (never raises for query errors; they are data for verify).
        """
        cached = self._cache.get((sql, limit))
        if cached is not None:
            return cached
        key = stable_key(self.source_id, sql)
        try:
            result = self.source.run(sql, limit=limit, timeout_ms=self.timeout_ms)
        except SourceError as exc:
            probe = ProbeResult(key, sql, (), (), self.at, first_line(exc))
        else:
            rows = tuple(tuple(r) for r in result.rows)
            probe = ProbeResult(key, sql, tuple(result.columns), rows, self.at)
        self._cache[(sql, limit)] = probe
        return probe

    def _from(self, table: str, row_count: int | None) -> str:
        name = self.quote(table)
        if row_count is not None and row_count > self.sample_rows:
            return f"(SELECT * FROM {name} LIMIT {self.sample_rows}) AS sampled"
        return name

    def column_profile(self, table: str, column: str, *, row_count: int | None = None) -> ColumnProfile:
        """Profile a column with one value-frequency query (``GROUP BY`` the column).

        Args:
            table, column: names as in the source.
            row_count: the table's row count from the catalog (decides sampling).

        Returns:
            The :class:`ColumnProfile`; for a failed probe, an empty profile whose
            ``probe.error`` says why.
        """
        col = self.quote(column)
        sql = (f"SELECT {col} AS value, COUNT(*) AS n FROM {self._from(table, row_count)} "
               f"GROUP BY {col} ORDER BY n DESC, value")
        probe = self.run(sql, limit=self.vocabulary_cap + 2)
        groups = [(v, int(n)) for v, n in probe.rows]
        null_count = sum(n for v, n in groups if v is None)
        values = [(v, n) for v, n in groups if v is not None]
        complete = probe.ok and len(groups) <= self.vocabulary_cap + 1
        distinct = len(values)
        observed = sum(n for _, n in groups)
        if not complete and probe.ok:
            count_sql = (f"SELECT COUNT(*), COUNT({col}), COUNT(DISTINCT {col}) "
                         f"FROM {self._from(table, row_count)}")
            counted = self.run(count_sql, limit=1)
            if counted.ok and counted.rows:
                observed, non_null, distinct = (int(x or 0) for x in counted.rows[0])
                null_count = observed - non_null
        raw = [v for v, _ in values]
        pattern = _pattern(raw)
        ordered = sorted(raw, key=_sort_key)
        texts = [str(v) for v in raw]
        mean_length = sum(map(len, texts)) / len(texts) if texts else 0.0
        vocabulary: tuple[str, ...] = ()
        if complete and pattern in ("text", "code", "boolean", "date", "datetime") and raw:
            if max(map(len, texts)) <= MAX_VOCABULARY_VALUE_LENGTH:
                vocabulary = tuple(texts)
        return ColumnProfile(
            table=table, column=column, probe=probe, rows_observed=observed, null_count=null_count,
            distinct_count=distinct, complete=complete, top=tuple(values[:20]), vocabulary=vocabulary,
            minimum=ordered[0] if ordered else None, maximum=ordered[-1] if ordered else None,
            pattern=pattern, mean_length=mean_length,
        )

    def count_where(self, table: str, predicate: str) -> ProbeResult:
        """``SELECT COUNT(*) FROM table WHERE predicate`` (filter checks)."""
        return self.run(f"SELECT COUNT(*) FROM {self.quote(table)} WHERE {predicate}", limit=1)

    def row_count(self, table: str) -> ProbeResult:
        """``SELECT COUNT(*) FROM table`` (the Evidence of an Entity Term)."""
        return self.run(f"SELECT COUNT(*) FROM {self.quote(table)}", limit=1)

    def inclusion(self, child: str, child_cols: Sequence[str], parent: str, parent_cols: Sequence[str]) -> ProbeResult:
        """How many non-NULL child keys exist, and how many of them are found in the parent.

        Returns a probe whose single row is ``(child_rows, matched_rows)``.
        """
        q = self.quote
        c, p = q(child), q(parent)
        on = " AND ".join(f"c.{q(a)} = p.{q(b)}" for a, b in zip(child_cols, parent_cols))
        not_null = " AND ".join(f"c.{q(a)} IS NOT NULL" for a in child_cols)
        sql = (f"SELECT COUNT(*), COUNT(CASE WHEN EXISTS (SELECT 1 FROM {p} AS p WHERE {on}) THEN 1 END) "
               f"FROM {c} AS c WHERE {not_null}")
        return self.run(sql, limit=1)

    def table_sample(self, table: str, columns: Sequence[str], *, n: int = 1000) -> ProbeResult:
        """The first ``n`` rows of some columns (derivation checks)."""
        cols = ", ".join(self.quote(c) for c in columns)
        return self.run(f"SELECT {cols} FROM {self.quote(table)} LIMIT {n}", limit=n)

