"""Probes: read-only queries the builder runs against a source to back its candidates with data.

Every query goes through the one probe path, :func:`evoonto.sources.probe.run_probe` (the source
layer's read-only ``run(sql, *, limit, timeout_ms)``: a single SELECT, row cap, time limit;
DESIGN.md §4). Column profiles come from the one profiler, :func:`evoonto.sources.profiling.profile`
(re-exported here as :class:`ColumnProfile`); :class:`Prober` runs the other probes of the verify
step (filter counts, row counts, inclusion of join keys, derivation samples), each kept as a
:class:`~evoonto.sources.probe.ProbeRun` (``ProbeResult`` is its old name) so
:mod:`evoonto.builder.construct` can record it as a PROV activity with the Evidence it generated.

Times are the build's *logical clock* (one timestamp per build, see
:func:`evoonto.builder.pipeline.build_clock`), so the same inputs give byte-identical Evidence.
Identifiers and literals are quoted for the source's dialect (:mod:`evoonto.sources.quoting`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from evoonto.sources.base import ROW_COUNT_SQL
from evoonto.sources.guard import SqlTemplate
from evoonto.sources.probe import ProbeRun, run_probe
from evoonto.sources.profiling import ColumnProfile
from evoonto.sources.quoting import quote_identifier, sql_literal

__all__ = ["ProbeResult", "ColumnProfile", "Prober", "quote_identifier", "sql_literal"]

#: Old name of :class:`~evoonto.sources.probe.ProbeRun` (``key``, ``sql``, ``columns``, ``rows``,
#: ``at``, ``error``, ``ok``, ``scalar()``).
ProbeResult = ProbeRun


class Prober:
    """Runs the verify step's probes against one source and caches them by SQL text.

    Args:
        source: a :class:`evoonto.sources.base.Source` (``id``, ``dialect``, ``run``, ``quote``).
        source_id: the source's id (part of every probe key); must equal ``source.id``.
        at: the build's logical time, stamped on every probe.
        timeout_ms: per-query time limit in milliseconds.
    """

    def __init__(self, source, source_id: str | None = None, *, at: datetime, timeout_ms: int = 5000):
        self.source = source
        self.source_id = source_id or source.id
        self.at = at
        self.timeout_ms = timeout_ms
        self.dialect: str | None = source.dialect
        self._cache: dict[tuple[str, int], ProbeRun] = {}

    def quote(self, name: str) -> str:
        """``name`` as an identifier quoted for the source's dialect."""
        return quote_identifier(name, self.dialect)

    def literal(self, value: Any) -> str:
        """``value`` as an SQL literal for the source's dialect (:func:`sql_literal`)."""
        return sql_literal(value, self.dialect)

    def run(self, sql: str, *, limit: int = 1000) -> ProbeRun:
        """Run one read-only query (cached); a refused or failing query gives ``error`` set.

        Args:
            sql: one SELECT statement.
            limit: row cap.

        Returns:
            The :class:`~evoonto.sources.probe.ProbeRun` (never raises for query errors; they are
            data for verify).
        """
        cached = self._cache.get((sql, limit))
        if cached is None:
            cached = run_probe(self.source, sql, limit=limit, timeout_ms=self.timeout_ms, at=self.at,
                               errors="keep")
            self._cache[(sql, limit)] = cached
        return cached

    def count_where(self, table: str, predicate: str, /, **names: str) -> ProbeRun:
        """``SELECT COUNT(*) FROM table WHERE predicate`` (filter checks).

        Args:
            table: the table name (unquoted).
            predicate: SQL text. Without ``names`` it is any predicate (the query is parsed by the
                guard when it runs); with ``names`` it is a :class:`~evoonto.sources.guard.SqlTemplate`
                text whose ``{slot}`` fields are filled by those names (identifiers, quoted for the
                dialect), so the query shape is checked once, not once per probe.
            names: identifiers for the predicate's slots (not ``table``).

        Raises:
            ValueError: ``names`` does not give exactly the predicate's slots, or names ``table``.
        """
        if not names:
            return self.run(f"SELECT COUNT(*) FROM {self.quote(table)} WHERE {predicate}", limit=1)
        if "table" in names:
            raise ValueError("the slot 'table' is the counted table; name the predicate's slots otherwise")
        template = SqlTemplate("SELECT COUNT(*) FROM {table} WHERE " + predicate)
        return self.run(template.render(self.dialect, table=table, **names), limit=1)

    def count_not_null(self, table: str, column: str) -> ProbeRun:
        """``SELECT COUNT(*) FROM table WHERE column IS NOT NULL``."""
        return self.run(_NOT_NULL.render(self.dialect, table=table, col=column), limit=1)

    def count_equal(self, table: str, column: str, value: Any) -> ProbeRun:
        """``SELECT COUNT(*) FROM table WHERE column = value`` (a value Term's filter check), the value
        written by :meth:`literal`. A text value fills a literal slot of a checked template; any other
        value is written into a query the guard parses when it runs."""
        if isinstance(value, str):
            return self.run(_EQUAL.render(self.dialect, table=table, col=column, value=value), limit=1)
        return self.count_where(table, f"{self.quote(column)} = {self.literal(value)}")

    def row_count(self, table: str) -> ProbeRun:
        """``SELECT COUNT(*) FROM table`` (the Evidence of an Entity Term)."""
        return self.run(ROW_COUNT_SQL.render(self.dialect, table=table), limit=1)

    def inclusion(self, child: str, child_cols: Sequence[str], parent: str, parent_cols: Sequence[str]) -> ProbeRun:
        """How many non-NULL child keys exist, and how many of them are found in the parent.

        Returns a probe whose single row is ``(child_rows, matched_rows)``.
        """
        pairs = list(zip(child_cols, parent_cols, strict=False))
        on = " AND ".join(f"c.{{a{i}}} = p.{{b{i}}}" for i in range(len(pairs)))
        not_null = " AND ".join(f"c.{{a{i}}} IS NOT NULL" for i in range(len(pairs)))
        template = SqlTemplate(f"SELECT COUNT(*), COUNT(CASE WHEN EXISTS (SELECT 1 FROM {{p}} AS p WHERE {on}) "
                               f"THEN 1 END) FROM {{c}} AS c WHERE {not_null}")
        names = {"c": child, "p": parent, **{f"a{i}": a for i, (a, _) in enumerate(pairs)},
                 **{f"b{i}": b for i, (_, b) in enumerate(pairs)}}
        return self.run(template.render(self.dialect, **names), limit=1)

    def table_sample(self, table: str, columns: Sequence[str], *, n: int = 1000) -> ProbeRun:
        """The first ``n`` rows of some columns (derivation checks)."""
        slots = ", ".join(f"{{c{i}}}" for i in range(len(columns)))
        template = SqlTemplate(f"SELECT {slots} FROM {{table}} LIMIT {int(n)}")
        names = {f"c{i}": c for i, c in enumerate(columns)}
        return self.run(template.render(self.dialect, table=table, **names), limit=n)


# The shapes of the verify step's probes: the guard checks each once per dialect, not once per probe.
_NOT_NULL = SqlTemplate("SELECT COUNT(*) FROM {table} WHERE {col} IS NOT NULL")
_EQUAL = SqlTemplate("SELECT COUNT(*) FROM {table} WHERE {col} = {value}", frozenset({"value"}))
