"""Per-column profiling probes, each recorded as PROV Evidence (DESIGN.md §4, paper §3 "probe").

For every column one read-only query (through ``source.run``, so guarded, capped and timed)
computes, over the whole table or over a sample when the table has more than
``sample_threshold`` rows (the source's spread sample, :meth:`~evoonto.sources.base.BaseSource.sampling_methods`,
tried in order until one runs and returns rows: PostgreSQL ``TABLESAMPLE``, SQLite rowid stride,
DuckDB reservoir; ``first rows`` for other databases):

- rows observed, null fraction, distinct count, minimum and maximum (numbers stored as text are
  compared as numbers when every distinct value was fetched);
- the top-k value frequencies (``evo:valueDistribution``, a JSON object; kept for non-numeric
  columns whose most frequent value repeats) and sample values (``evo:sampleValue``: the whole
  value vocabulary when the column has at most ``vocabulary_cap`` distinct values of at
  most :data:`MAX_VOCABULARY_VALUE_LENGTH` characters (not numbers, years or blobs), else the
  top-k; none for numeric columns, which their range describes);
- the inferred type of the values (``integer``, ``decimal``, ``boolean``, ``date``, ``datetime``,
  ``time``, ``text``, ``blob``, ``empty``), whatever the declared type says;
- a value pattern (``evo:valuePattern``): ``date``, ``datetime``, ``time``, ``year``, ``email``,
  ``url``, ``boolean``, ``code`` (short identifier-like strings such as ``INC0001``/``USA``),
  ``integer``, ``decimal``, ``text`` or ``free text``.
- a one-line summary (``evo:summary``): ``"6 rows, 0% null, 6 distinct, 25..52, integer"``, ending
  with the value pattern (the inferred type when there is none) and ``(stored as text)`` for
  numbers, dates or times stored as text; on a sample every count and bound is worded as the
  sample's: ``"sample of 10,000 of 300,000 rows (tablesample bernoulli): 0% null, 12 distinct in the
  sample, seen 1..12, integer"``;
- how the rows were read: ``evo:wholeTable`` (only whole-table Evidence states a vocabulary,
  distinct count or range as facts of the table; :func:`evoonto.records.describes_whole_table`),
  ``evo:samplingMethod`` and ``evo:tableRows``; and for a column read whole with at most
  :data:`DIGEST_GROUPS` distinct values, ``evo:valueDigest`` (every value and its count, for drift).

The query is a single ``GROUP BY`` over the column (short, so the recorded provenance stays
readable when ``resolve`` shows it), e.g.::

    SELECT "Age" AS v, COUNT(*) AS n FROM "singer" GROUP BY "Age" ORDER BY n DESC, v

When the column has more than ``vocabulary_cap`` distinct values, so the fetched groups do not
cover it, the probe is instead the same ``GROUP BY`` with window aggregates (total rows, nulls,
distinct count, minimum and maximum over all groups), and that query is the one recorded.

Each probe yields an :class:`evoonto.records.ProbeActivity` (``evo:Probe``, the exact query text,
``prov:used`` the source, start and end times) and the :class:`evoonto.records.Evidence` it
generated; both IRIs use the key ``stable_key(source id, query)`` so a re-run mints the same IRIs
(and can be compared to detect drift). A column whose probe fails or times out is skipped with a
:class:`~evoonto.sources.base.SourceWarning`.

This is the only column profiler: ``evoonto build`` writes exactly the Evidence this module returns
(the builder passes its logical clock as ``at`` so rebuilds are byte-identical).

Example::

    from evoonto.iris import IriFactory
    from evoonto.records import records_to_graph
    from evoonto.sources import open_source, profile

    iris = IriFactory("https://example.org/evoonto/demo/")
    with open_source("concert_singer.sqlite") as src:
        profiles = profile(src, iris)
    p = profiles[0]
    print(p.table, p.column, p.evidence.summary)   # stadium Stadium_ID 9 rows, 0% null, 9 distinct, 1..10, integer
    graph = records_to_graph(r for p in profiles for r in p.records())
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Iterable, Sequence

from rdflib import URIRef

from evoonto.errors import SourceError
from evoonto.sources.base import WHOLE_TABLE, BaseSource, ColumnInfo, QueryResult, TableInfo, warn
from evoonto.sources.guard import SqlTemplate
from evoonto.sources.probe import ProbeRun, run_probe

__all__ = [
    "share_text",
    "ColumnProfile",
    "GroupStatistics",
    "group_statistics",
    "profile",
    "profile_column",
    "column_probe_sql",
    "infer_type",
    "value_pattern",
    "DEFAULT_SAMPLE_THRESHOLD",
    "DIGEST_GROUPS",
    "value_digest",
    "value_text",
    "value_sort_key",
    "DEFAULT_SAMPLE_ROWS",
    "DEFAULT_TOP_K",
    "DEFAULT_VOCABULARY_CAP",
    "NUMERIC_PATTERNS",
]

#: Tables with more rows than this are profiled on a sample.
DEFAULT_SAMPLE_THRESHOLD = 100_000
#: Size of that sample, in rows.
DEFAULT_SAMPLE_ROWS = 10_000
#: Values kept in ``evo:valueDistribution``.
DEFAULT_TOP_K = 10
#: Values fetched per probe at least (for sample values and pattern detection).
FETCHED_VALUES = 25
#: Columns with at most this many distinct values get their whole value vocabulary recorded.
DEFAULT_VOCABULARY_CAP = 5000
#: A whole-table probe fetches up to this many value groups, so that a column with at most this many
#: distinct values gets a digest of its value counts (``evo:valueDigest``, compared by drift).
DIGEST_GROUPS = 20_000
#: Values longer than this (characters) are free text, not vocabulary.
MAX_VOCABULARY_VALUE_LENGTH = 80
#: Patterns of numbers (stored as numbers or as text): no sample values, no distribution.
NUMERIC_PATTERNS = ("integer", "decimal")
#: Longest value text stored, in characters (longer values are cut and end with "…").
MAX_VALUE_CHARS = 200

_PATTERNS: list[tuple[str, re.Pattern]] = [
    ("datetime", re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$")),
    ("date", re.compile(r"^(\d{4}-\d{1,2}-\d{1,2}|\d{4}/\d{1,2}/\d{1,2}"
                        r"|\d{1,2}/\d{1,2}/\d{4}|\d{1,2}\.\d{1,2}\.\d{4})$")),
    ("time", re.compile(r"^\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?$")),
    ("email", re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")),
    ("url", re.compile(r"^(https?|ftp)://\S+$", re.I)),
    ("integer", re.compile(r"^[-+]?\d+$")),
    ("decimal", re.compile(r"^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$")),
]
#: How a column declared boolean stores its values (SQLite has no boolean storage class: 1 and 0).
_BOOLEAN_STORED = frozenset({"0", "1", "true", "false", "t", "f"})
#: The two spellings of a two-valued column, case-folded: the values a column must show (both of one
#: pair) for its pattern to be ``boolean``. One value alone (a column of 1s) shows a constant in what
#: was read, not a flag: a quantity that is always 1 in a sample, or a version column, is no boolean.
_BOOLEAN_PAIRS = (frozenset({"true", "false"}), frozenset({"t", "f"}), frozenset({"yes", "no"}),
                  frozenset({"y", "n"}), frozenset({"0", "1"}))
_CODE = re.compile(r"^(?=.*[A-Z0-9])[A-Z0-9][A-Za-z0-9_\-./]{0,23}$")
_MATCH_SHARE = 0.9


@dataclass(frozen=True)
class ColumnProfile:
    """The observation of one column (see the module docstring for the fields' meaning).

    Attributes:
        table, column: names as in the source; column_iri: its catalog IRI.
        rows: rows observed (the sample size when ``sampled``); table_rows: catalog row count.
        sampled: whether a sample was probed instead of the whole table.
        null_fraction: in [0, 1]; distinct_count: distinct non-null values observed.
        min_value, max_value: as text (``None`` when all values are null).
        top_values: ``[(value text, count)]``, most frequent first (at most top-k, no null).
        samples: observed values as text (the whole vocabulary when it is small).
        inferred_type, pattern: see the module docstring; storage: Python types seen
            (``{"int", "str"}`` reveals numbers stored as text).
        evidence, probe: the PROV records of this probe.
        null_count: NULL values among the observed rows.
        complete: every distinct value of the observed rows was fetched.
        vocabulary: the value vocabulary of the observed rows (text form, most frequent first) of a
            complete column with at most ``vocabulary_cap`` short values that are not numbers, years
            or blobs; else empty. On a sample (``sampled``) these are the values the sample holds:
            each occurs in the table, but others may too (only :attr:`whole_table` makes it the
            table's whole vocabulary).
        run: the :class:`~evoonto.sources.probe.ProbeRun` (query, rows, times).
        sampling_method: how the rows were read: :data:`~evoonto.sources.base.WHOLE_TABLE`, or the
            source's sampling method (e.g. ``tablesample system``, ``rowid stride``, ``first rows``).
    """

    table: str
    column: str
    column_iri: URIRef
    rows: int
    table_rows: int | None
    sampled: bool
    null_fraction: float
    distinct_count: int
    min_value: str | None
    max_value: str | None
    top_values: list[tuple[str, int]]
    samples: list[str]
    inferred_type: str
    pattern: str | None
    storage: frozenset[str] = field(default_factory=frozenset)
    evidence: Any = None
    probe: Any = None
    null_count: int = 0
    complete: bool = True
    vocabulary: tuple[str, ...] = ()
    run: ProbeRun | None = None
    sampling_method: str = WHOLE_TABLE

    @property
    def whole_table(self) -> bool:
        """True when the probe read every row of the table (its bounds, counts and vocabulary are
        facts of the table, not of a sample)."""
        return not self.sampled

    @property
    def numeric(self) -> bool:
        """True when every non-null value is a number (stored as one or as text), a year or a flag."""
        return self.pattern in ("integer", "decimal", "year", "boolean")

    @property
    def stored_as_text(self) -> bool:
        """True when the values are numbers, dates or times stored as text."""
        return (self.inferred_type in ("integer", "decimal", "date", "datetime", "time")
                and self.storage == frozenset({"str"}))

    def records(self) -> list:
        """``[evidence, probe]`` (records with ``to_triples()``; see :mod:`evoonto.records`)."""
        return [self.evidence, self.probe]


def column_probe_sql(source: BaseSource, table: TableInfo, column: ColumnInfo, *,
                     sample_rows: int | None = None, fetch: int | None = None,
                     method: str | None = None) -> str:
    """The profiling query of ``column`` (whole table, or a sample of ``sample_rows`` rows).

    Args:
        method: the sampling method (one of ``source.sampling_methods(table)``; default its first);
            used only with ``sample_rows``.
        fetch: ``None`` for the plain value-frequency query (``v``, ``n`` per value, most frequent
            first); a number of groups for the query with window totals (``v, n, total_rows,
            null_rows, distinct_values, min_value, max_value``), limited to ``fetch`` rows.
    """
    dialect = source.dialect
    if sample_rows:  # the sample's derived table is fixed text of this table; the column is the slot
        sample = source.sample_from(table, f"{_COLUMN_MARK} AS v", sample_rows, method) + " AS s"
        base, group = sample.replace("{", "{{").replace("}", "}}").replace(_COLUMN_MARK, "{col}"), "v"
        names = {"col": column.name}
    else:
        base, group = "{table}", "{col}"
        names = {"col": column.name, "table": table.name}
    if fetch is None:
        text = f"SELECT {group} AS v, COUNT(*) AS n FROM {base} GROUP BY {group} ORDER BY n DESC, v"
    else:
        text = (
            "SELECT v, n, SUM(n) OVER () AS total_rows, "
            "SUM(CASE WHEN v IS NULL THEN n ELSE 0 END) OVER () AS null_rows, "
            "COUNT(v) OVER () AS distinct_values, MIN(v) OVER () AS min_value, MAX(v) OVER () AS max_value "
            f"FROM (SELECT {group} AS v, COUNT(*) AS n FROM {base} GROUP BY {group}) AS g "
            f"ORDER BY n DESC, v LIMIT {int(fetch)}"
        )
    # one template per query shape (and sampled table): the guard parses it once, not once per column
    return SqlTemplate(text).render(dialect, **names)


#: Where the sampled probe's column goes in ``sample_from`` text (a NUL never occurs in a quoted name).
_COLUMN_MARK = "evoonto\x00column"


def profile(
    source: BaseSource,
    iris,
    *,
    tables: Iterable[str] | None = None,
    sample_threshold: int = DEFAULT_SAMPLE_THRESHOLD,
    sample_rows: int = DEFAULT_SAMPLE_ROWS,
    top_k: int = DEFAULT_TOP_K,
    timeout_ms: int = 5000,
    vocabulary_cap: int = DEFAULT_VOCABULARY_CAP,
    at: _dt.datetime | None = None,
) -> list[ColumnProfile]:
    """Profile every column of ``source`` (or of the named ``tables``).

    Args:
        source: an open tabular source (documents sources have no columns: returns ``[]``).
        iris: an :class:`evoonto.iris.IriFactory`.
        tables: table names to profile (default: all).
        sample_threshold: tables with more rows (or an unknown row count) are sampled (rows).
        sample_rows: sample size (rows).
        top_k: values kept in the distribution.
        timeout_ms: time limit of each probe, in milliseconds.
        vocabulary_cap: columns with at most this many distinct values record them all.
        at: fixed time stamped on every probe (a build's logical clock); default: wall clock.

    Returns:
        One :class:`ColumnProfile` per profiled column, in table and column order. Columns whose
        probe failed are skipped with a :class:`SourceWarning`.

    Raises:
        SourceError: a named table does not exist, or the source is closed.
    """
    selected = source.tables() if tables is None else [source.table(name) for name in tables]
    profiles = []
    for table in selected:
        for column in table.columns:
            try:
                profiles.append(profile_column(
                    source, table, column, iris, sample_threshold=sample_threshold,
                    sample_rows=sample_rows, top_k=top_k, timeout_ms=timeout_ms,
                    vocabulary_cap=vocabulary_cap, at=at,
                ))
            except SourceError as err:
                warn(f"source {source.id!r}: probe of {table.name}.{column.name} failed ({err}); skipped")
    return profiles


def profile_column(
    source: BaseSource,
    table: TableInfo,
    column: ColumnInfo,
    iris,
    *,
    sample_threshold: int = DEFAULT_SAMPLE_THRESHOLD,
    sample_rows: int = DEFAULT_SAMPLE_ROWS,
    top_k: int = DEFAULT_TOP_K,
    timeout_ms: int = 5000,
    vocabulary_cap: int = DEFAULT_VOCABULARY_CAP,
    at: _dt.datetime | None = None,
) -> ColumnProfile:
    """Run the probe of one column and build its :class:`ColumnProfile` (with Evidence + Probe).

    Raises:
        SourceError: the probe failed (QueryTimeout, engine error).
    """
    # unknown row count (counting timed out): sample too, the table may be huge
    sampled = table.row_count is None or table.row_count > sample_threshold
    fetch = max(FETCHED_VALUES, top_k, vocabulary_cap + 1)
    sample = sample_rows if sampled else None
    methods = tuple(source.sampling_methods(table)) if sampled else (WHOLE_TABLE,)
    run, method = _first_sample(source, table, column, methods, sample, fetch, timeout_ms, at)
    complete = not _result(run).truncated
    if not complete:  # too many values to fetch: one query with the totals over all groups
        run = run_probe(source, column_probe_sql(source, table, column, sample_rows=sample, fetch=fetch,
                                                 method=None if method == WHOLE_TABLE else method),
                        limit=fetch, timeout_ms=timeout_ms, at=at)
    stats = group_statistics(_result(run).columns, _result(run).rows)
    total, nulls, distinct, low, high = stats.total, stats.nulls, stats.distinct, stats.low, stats.high
    values = list(stats.values)
    raw_values = [v for v, _ in values]
    texts = [(_stored_text(v), n) for v, n in values]  # NULLs were dropped from values
    top = texts[:top_k]
    kind = infer_type(raw_values)
    pattern = _value_pattern(raw_values, kind, [t for t, _ in texts])  # = value_pattern(raw_values)
    if pattern != "boolean" and texts and re.fullmatch(r"\s*(bool|boolean)\s*", column.declared_type or "", re.I) \
            and {t.lower() for t, _ in texts if t is not None} <= _BOOLEAN_STORED:
        pattern = "boolean"  # declared boolean (SQLite keeps 1 / 0): one value seen is still a flag
    numeric = pattern in NUMERIC_PATTERNS
    vocabulary: tuple[str, ...] = ()
    if (complete and texts and len(texts) <= vocabulary_cap and not numeric and pattern not in ("year", "blob")
            and max(len(str(v)) for v in raw_values) <= MAX_VOCABULARY_VALUE_LENGTH):
        # on a sample: the values the sample holds (each occurs in the table; others may too)
        vocabulary = tuple(t for t, _ in texts)
    samples = [] if numeric else (list(vocabulary) or [t for t, _ in top])
    null_fraction = nulls / total if total else 0.0
    storage = frozenset(type(v).__name__ for v in raw_values)
    summary = _summary(total, null_fraction, distinct, low, high, pattern or kind, sampled, table.row_count,
                       method)
    if kind in ("integer", "decimal", "date", "datetime", "time") and storage == {"str"}:
        summary += " (stored as text)"
    distribution = dict(top) if top and top[0][1] > 1 and not numeric else None
    digest = value_digest(_result(run).rows) if complete and not sampled else None
    evidence, probe = run.records(
        iris, summary,
        rows_observed=total, null_fraction=round(null_fraction, 6), distinct_count=distinct,
        min_value=low, max_value=high, sample_values=samples,
        value_distribution=distribution, value_pattern=pattern,
        sampling_method=method, table_rows=table.row_count, whole_table=not sampled, value_digest=digest,
    )
    return ColumnProfile(
        table=table.name, column=column.name, column_iri=iris.column(source.id, table.name, column.name),
        rows=total, table_rows=table.row_count, sampled=sampled, null_fraction=null_fraction,
        distinct_count=distinct, min_value=low, max_value=high, top_values=top, samples=samples,
        inferred_type=kind, pattern=pattern, storage=storage,
        evidence=evidence, probe=probe, null_count=nulls, complete=complete, vocabulary=vocabulary,
        run=run, sampling_method=method,
    )


def _first_sample(source: BaseSource, table: TableInfo, column: ColumnInfo, methods: tuple[str, ...],
                  sample: int | None, fetch: int, timeout_ms: int, at: _dt.datetime | None) -> tuple[ProbeRun, str]:
    """The plain probe of ``column`` by the first of ``methods`` that runs and (on a table with rows)
    returns rows, and that method; a method that fails (no ``TABLESAMPLE`` on a view, a SQLite table
    without rowid) or returns an empty sample hands over to the next one.

    Raises:
        SourceError: the last method failed too.
    """
    for i, method in enumerate(methods):
        last = i == len(methods) - 1
        sql = column_probe_sql(source, table, column, sample_rows=sample,
                               method=None if method == WHOLE_TABLE else method)
        try:
            # the whole table: up to DIGEST_GROUPS groups, so that small and mid-sized columns get a digest
            run = run_probe(source, sql, limit=max(fetch, DIGEST_GROUPS + 1) if sample is None else fetch,
                            timeout_ms=timeout_ms, at=at)
        except SourceError:
            if last:
                raise
            continue
        empty = not _result(run).rows
        if last or not empty or table.row_count == 0:
            return run, method
    raise SourceError(f"no sampling method for {table.name!r}")  # unreachable: methods is never empty


def value_digest(rows: Sequence[Sequence[Any]]) -> str:
    """An order-independent digest of a column's value counts: ``sha256:`` and 32 hex digits over the
    sorted lines ``value text TAB count`` (NULL as ``\\N``) of the plain probe's ``(v, n)`` rows.

    Two reads of the same column give the same digest exactly when every value keeps its count, so
    drift (:mod:`evoonto.drift`) sees a one-row edit in a column of thousands of distinct values.
    """
    import hashlib

    null = "\\N"
    lines = sorted((null if v is None else _stored_text(v)) + "\t" + str(int(n)) for v, n, *_ in rows)
    return "sha256:" + hashlib.sha256("\n".join(lines).encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass(frozen=True)
class GroupStatistics:
    """What one column probe observed (either query form of :func:`column_probe_sql`).

    Attributes:
        total: rows observed; nulls: NULL values among them; distinct: distinct non-NULL values.
        low, high: the smallest and largest value as text (numbers stored as text compared as
            numbers when every value was fetched), ``None`` when every value is NULL.
        values: ``[(raw value, count)]`` of the fetched non-NULL groups, most frequent first.
    """

    total: int
    nulls: int
    distinct: int
    low: str | None
    high: str | None
    values: tuple[tuple[Any, int], ...]

    @property
    def texts(self) -> tuple[str, ...]:
        """The fetched non-NULL values as stored text (as ``evo:sampleValue`` records them)."""
        return tuple(_stored_text(v) for v, _ in self.values)


def group_statistics(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> GroupStatistics:
    """The :class:`GroupStatistics` of a column probe's result rows.

    Args:
        columns: the result's column names: ``(v, n)`` for the plain value-frequency query (all
            groups fetched), ``(v, n, total_rows, null_rows, distinct_values, min_value,
            max_value)`` for the query with window totals.
        rows: the result rows.

    Used by :func:`profile_column` and by drift detection (:mod:`evoonto.drift`), which re-runs the
    recorded query and compares the two observations.
    """
    if "total_rows" not in [str(c).lower() for c in columns]:
        groups = [(r[0], int(r[1])) for r in rows]
        values = [(v, n) for v, n in groups if v is not None]
        # every value was seen: compare numbers stored as text as numbers ("9" < "10"); the first
        # smallest and the last largest value in group order, as a stable sort would put them first and last
        seen = [v for v, _ in values]
        low = min(seen, key=_sort_key) if seen else None
        high = max(reversed(seen), key=_sort_key) if seen else None
        return GroupStatistics(sum(n for _, n in groups), sum(n for v, n in groups if v is None), len(values),
                               _text(low), _text(high), tuple(values))
    first = rows[0] if rows else None
    return GroupStatistics(
        int(first[2] or 0) if first else 0, int(first[3] or 0) if first else 0,
        int(first[4] or 0) if first else 0, _text(first[5]) if first else None,
        _text(first[6]) if first else None, tuple((r[0], int(r[1])) for r in rows if r[0] is not None))


_NUMBER = re.compile(r"^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$")


def _sort_key(value: Any) -> tuple:
    """Numbers (also stored as text) before other values, numbers by value, the rest as text."""
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        return (0, float(value), "")
    if isinstance(value, str) and _NUMBER.match(value):
        return (0, float(value), value)
    return (1, 0.0, _text(value) or "")


def value_text(value: Any) -> str | None:
    """A value as profiling Evidence records it (``evo:minValue``, ``evo:sampleValue``): ISO dates,
    ``<n bytes>`` for blobs, cut at :data:`MAX_VALUE_CHARS` characters; ``None`` for SQL NULL."""
    return _text(value)


def value_sort_key(value: Any) -> tuple:
    """The order profiling uses for minimum and maximum: numbers (also stored as text) before other
    values and by value, the rest as text (so ``"9" < "10"``, ISO dates by date)."""
    return _sort_key(value)


def infer_type(values: list[Any]) -> str:
    """The type of non-null ``values`` judged by their content (not the declared type).

    Returns one of ``integer``, ``decimal``, ``boolean``, ``date``, ``datetime``, ``time``,
    ``text``, ``blob`` or ``empty`` (no value). Numbers stored as text count as numbers when at
    least 90% of them parse.
    """
    values = [v for v in values if v is not None]
    if not values:
        return "empty"
    if all(isinstance(v, bool) for v in values):
        return "boolean"
    if all(isinstance(v, (bytes, bytearray, memoryview)) for v in values):
        return "blob"
    if all(isinstance(v, _dt.datetime) for v in values):
        return "datetime"
    if all(isinstance(v, _dt.date) for v in values):
        return "date"
    if all(isinstance(v, _dt.time) for v in values):
        return "time"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "integer"
    if all(isinstance(v, (int, float, Decimal)) and not isinstance(v, bool) for v in values):
        whole = all(_is_whole(v) for v in values) and not all(isinstance(v, float) for v in values)
        return "integer" if whole else "decimal"
    shape = _text_shape([str(v) for v in values])
    return {"integer": "integer", "decimal": "decimal", "date": "date", "datetime": "datetime",
            "time": "time"}.get(shape or "", "text")


def value_pattern(values: list[Any]) -> str | None:
    """The recognised shape of non-null ``values`` (see the module docstring), or ``None``."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    return _value_pattern(values, infer_type(values), [_text(v) or "" for v in values])


def _value_pattern(values: list[Any], kind: str, texts: list[str]) -> str | None:
    """:func:`value_pattern` of non-null ``values`` given their :func:`infer_type` ``kind`` and their
    stored texts (``_stored_text`` of each), which the profiler has already computed."""
    if not values:
        return None
    if kind in ("date", "datetime", "time", "blob"):
        return kind
    lowered = frozenset(t.lower() for t in texts)
    # the database's own boolean type, or both values of one two-valued pair seen (see _BOOLEAN_PAIRS)
    if kind == "boolean" or lowered in _BOOLEAN_PAIRS:
        return "boolean"
    if kind == "integer":
        if all(isinstance(v, (int, str)) and re.fullmatch(r"(1[6-9]|20)\d\d", str(v).strip()) for v in values):
            return "year"
        return "integer"
    if kind == "decimal":
        return "decimal"
    shape = _text_shape(texts)
    if shape in ("email", "url"):
        return shape
    if _share(texts, lambda t: bool(_CODE.match(t)) and (any(c.isdigit() for c in t) or t.isupper())) >= _MATCH_SHARE:
        return "code"
    mean_length = sum(len(t) for t in texts) / len(texts)
    return "free text" if mean_length > 40 or _share(texts, lambda t: len(t.split()) > 5) >= 0.5 else "text"


def _text_shape(texts: list[str]) -> str | None:
    for name, regex in _PATTERNS:
        if _share(texts, lambda t, regex=regex: bool(regex.match(t.strip()))) >= _MATCH_SHARE:
            return name
    return None


def _share(texts: list[str], predicate) -> float:
    return sum(1 for t in texts if predicate(t)) / len(texts) if texts else 0.0


def _is_whole(value) -> bool:
    try:
        return math.isfinite(float(value)) and float(value) == int(value)
    except (OverflowError, ValueError):
        return False


def _text(value: Any) -> str | None:
    """:func:`_stored_text` of ``value``, or None for SQL NULL (``None``)."""
    return None if value is None else _stored_text(value)


def _stored_text(value: Any) -> str:
    """A non-NULL value as stored text: ISO dates, ``<n bytes>`` for blobs, cut at :data:`MAX_VALUE_CHARS`."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<{len(bytes(value))} bytes>"
    if isinstance(value, _dt.datetime):
        text = value.isoformat(sep=" ")
    elif isinstance(value, (_dt.date, _dt.time)):
        text = value.isoformat()
    elif isinstance(value, float):
        text = repr(value) if math.isfinite(value) else str(value)
    else:
        text = str(value)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 1] + "…"


def _result(run: ProbeRun) -> QueryResult:
    """The result of a probe run with ``errors="raise"`` (which always has one).

    Raises:
        SourceError: the run has no result (it failed and was kept with ``errors="keep"``).
    """
    if run.result is None:
        raise SourceError(f"probe on source {run.source_id!r} has no result: {run.error or 'query failed'}")
    return run.result


def share_text(fraction: float) -> str:
    """A share as a whole percentage that never rounds a non-zero share to "0%" or a partial one to
    "100%": ``0.0`` -> ``"0%"``, ``0.0027`` -> ``"<1%"``, ``0.42`` -> ``"42%"``, ``0.998`` -> ``">99%"``."""
    text = f"{fraction:.0%}"
    if fraction > 0 and text == "0%":
        return "<1%"
    if fraction < 1 and text == "100%":
        return ">99%"
    return text


def _summary(total, null_fraction, distinct, low, high, kind, sampled, table_rows, method=WHOLE_TABLE) -> str:
    """``"6 rows, 0% null, 6 distinct, 25..52, integer"`` for a whole table; on a sample every count and
    bound says it is the sample's: ``"sample of 10,000 of 336,776 rows (tablesample system): 0% null,
    12 distinct in the sample, seen 1..12, integer"``."""
    show = lambda t: t if len(t) <= 40 else t[:39] + "…"  # noqa: E731
    if not sampled:
        parts = [f"{total:,} rows", f"{share_text(null_fraction)} null", f"{distinct:,} distinct"]
        if low is not None:
            parts.append(f"{show(low)}..{show(high)}")
        parts.append(kind)
        return ", ".join(parts)
    of = f" of {table_rows:,}" if table_rows is not None else " of an uncounted table's"
    parts = [f"{share_text(null_fraction)} null", f"{distinct:,} distinct in the sample"]
    if low is not None:
        parts.append(f"seen {show(low)}..{show(high)}")
    parts.append(kind)
    return f"sample of {total:,}{of} rows ({method}): " + ", ".join(parts)
