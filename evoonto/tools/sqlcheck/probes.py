"""Bounded point probes that let ``check_sql`` say only what the data proves.

A sample (the Evidence of a column) can show that a value *was seen*; it cannot show that a value
never occurs. Before a rule claims that a comparison holds for no row, it asks the source itself
with one bounded query through the one probe path (:func:`evoonto.sources.probe.run_probe`:
read-only, ``LIMIT 1``, a time limit), names and values quoted by :mod:`evoonto.sources.quoting`::

    SELECT 1 FROM "flights" WHERE "dest" = 'ANC' LIMIT 1

Only a probe that ran and returned no row confirms an absence. A probe that failed or timed out
confirms nothing (the rule then says what was seen, as a Warning).

Answers are remembered per :class:`DataProbe` (at most :data:`CACHE_SIZE` conditions; the toolkit
keeps one probe per open source), so an agent checking the same SQL twice pays the probes once.
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import Any, Callable, Iterable, Mapping

from evoonto.errors import SourceError
from evoonto.sources.probe import run_probe
from evoonto.sources.quoting import quote_identifier, quote_literal

__all__ = ["DataProbe", "PROBE_TIMEOUT_MS", "CACHE_SIZE", "probe_for", "SourceLookup"]

#: The alias of the probed table in a point probe (columns are qualified with it).
ALIAS = "evoonto_t"
#: Time limit of one point probe (milliseconds).
PROBE_TIMEOUT_MS = 2_000
#: How many probe answers one :class:`DataProbe` remembers.
CACHE_SIZE = 4_096
#: What ``check_sql`` accepts as its sources: ``{source id: Source}`` or ``source id -> Source | None``.
SourceLookup = Mapping[str, Any] | Callable[[str], Any]


class DataProbe:
    """Point probes of one read-only source.

    Args:
        source: an open :class:`~evoonto.sources.base.Source` (``id``, ``run``), e.g. a
            :class:`~evoonto.tools.pool.SourcePool`.
        dialect: the sqlglot dialect names and values are quoted for.
        timeout_ms: the time limit of each probe (milliseconds).
    """

    def __init__(self, source: Any, dialect: str | None, *, timeout_ms: int = PROBE_TIMEOUT_MS):
        self.source, self.dialect, self.timeout_ms = source, dialect, timeout_ms
        self._answers: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        #: how many probes ran (cache misses): for benchmarks and tests
        self.runs = 0

    def name(self, identifier: str) -> str:
        """``identifier`` quoted for the source's dialect."""
        return quote_identifier(identifier, self.dialect)

    def literal(self, text: str) -> str:
        """``text`` as a string literal of the source's dialect."""
        return quote_literal(text, self.dialect)

    def column(self, name: str) -> str:
        """``name`` as a column of the probed table, qualified with its alias :data:`ALIAS` (SQLite
        reads an unqualified double-quoted name that no column has as a string, never an error)."""
        return f"{ALIAS}.{self.name(name)}"

    def holds(self, table: str, condition: str) -> bool | None:
        """Whether some row of ``table`` satisfies ``condition`` (SQL text over the table's columns
        written with :meth:`column`): True (a row was found), False (the probe ran and found none: a
        confirmed absence), None (the probe failed or timed out: nothing is confirmed)."""
        sql = f"SELECT 1 FROM {self.name(table)} AS {ALIAS} WHERE {condition} LIMIT 1"
        rows = self._rows(sql, 1)
        return None if rows is None else bool(rows)

    def spellings(self, table: str, column: str, value: str, limit: int = 3) -> list[str] | None:
        """The values of ``table.column`` equal to ``value`` ignoring case (what a case slip meant),
        at most ``limit``; None when the probe failed."""
        col = self.column(column)
        sql = (f"SELECT DISTINCT {col} FROM {self.name(table)} AS {ALIAS} "
               f"WHERE LOWER({col}) = LOWER({self.literal(value)}) LIMIT {int(limit)}")
        rows = self._rows(sql, limit)
        return None if rows is None else [str(r[0]) for r in rows if r and r[0] is not None]

    def overlap(self, left: str, left_columns: Iterable[str], right: str, right_columns: Iterable[str]) -> bool | None:
        """Whether some row of ``left`` joins some row of ``right`` on ``left_columns =
        right_columns`` (pairwise): True, False (confirmed: no pair of rows joins), None (failed)."""
        on = " AND ".join(f"l.{self.name(a)} = r.{self.name(b)}"
                          for a, b in zip(left_columns, right_columns, strict=True))
        sql = f"SELECT 1 FROM {self.name(left)} AS l JOIN {self.name(right)} AS r ON {on} LIMIT 1"
        rows = self._rows(sql, 1)
        return None if rows is None else bool(rows)

    def has_column(self, table: str, column: str) -> bool | None:
        """Whether the source's ``table`` has ``column`` now: True (a one-row read of it ran), False
        (the table reads but the column does not), None (the table itself could not be read)."""
        if self._rows(f"SELECT * FROM {self.name(table)} LIMIT 1", 1) is None:
            return None
        return self._rows(f"SELECT {self.column(column)} FROM {self.name(table)} AS {ALIAS} LIMIT 1", 1) is not None

    def any_row(self, sql: str) -> bool | None:
        """Whether the read-only query ``sql`` (written by evoonto from a checked statement, e.g. the
        repetition probe of :func:`evoonto.tools.joinpaths._repeats`) returns a row: True, False
        (confirmed none), None (failed or timed out)."""
        rows = self._rows(sql, 1)
        return None if rows is None else bool(rows)

    def _rows(self, sql: str, limit: int) -> list[tuple] | None:
        with self._lock:
            if sql in self._answers:
                self._answers.move_to_end(sql)
                return self._answers[sql]
        try:
            run = run_probe(self.source, sql, limit=limit, timeout_ms=self.timeout_ms, errors="keep")
        except SourceError:
            run = None
        rows = [tuple(r) for r in run.rows] if run is not None and run.ok else None
        with self._lock:
            self.runs += 1
            self._answers[sql] = rows
            while len(self._answers) > CACHE_SIZE:
                self._answers.popitem(last=False)
        return rows


_PROBES: "weakref.WeakKeyDictionary[Any, DataProbe]" = weakref.WeakKeyDictionary()
_PROBES_LOCK = threading.Lock()


def probe_for(sources: SourceLookup | None, source_id: str, dialect: str | None) -> DataProbe | None:
    """The :class:`DataProbe` of source ``source_id`` (one per open source object, reused), or None
    when ``sources`` has no such source or it cannot be opened (an offline check)."""
    if sources is None:
        return None
    try:
        source = sources(source_id) if callable(sources) else sources.get(source_id)
    except SourceError:
        return None
    if source is None:
        return None
    with _PROBES_LOCK:
        try:
            found = _PROBES.get(source)
        except TypeError:  # not weak-referenceable: a probe for this call only
            return DataProbe(source, dialect)
        if found is None or found.dialect != dialect:
            found = DataProbe(source, dialect)
            _PROBES[source] = found
        return found
