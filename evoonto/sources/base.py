"""The read-only data source abstraction: the :class:`Source` protocol, :class:`BaseSource` and its records.

A *source* is anything an agent or a probe may query read-only (DESIGN.md §4): a SQLite file (the
embedded default), any SQLAlchemy URL, a folder of CSV/Parquet files (through DuckDB), or a folder
of text/markdown documents. All of them expose the same small interface:

- ``src.id`` (stable identifier, e.g. ``"concert_singer"``), ``src.kind`` (``"sqlite"``,
  ``"sqlalchemy"``, ``"files"``, ``"documents"``), ``src.dialect`` (sqlglot dialect name);
- ``src.tables()`` → ``list[TableInfo]`` (columns with declared types, primary key, foreign keys,
  row count), cached after the first call;
- ``src.run(sql, *, limit=1000, timeout_ms=5000, max_chars=10_000_000)`` → :class:`QueryResult`;
  the statement must be a single ``SELECT``/``WITH`` query (:mod:`evoonto.sources.guard`), at most
  ``limit`` rows and about ``max_chars`` characters are returned (``truncated`` says whether more
  existed, ``note`` says which bound cut the answer) and the query is interrupted after
  ``timeout_ms`` milliseconds (:class:`~evoonto.errors.QueryTimeout`); rows are fetched in batches,
  so a huge result never sits in memory whole;
- ``src.quote(name)`` → the identifier quoted for the source's dialect (names with spaces, quotes,
  unicode and reserved words, e.g. ``"Free Meal Count (K-12)"``);
- ``src.close()``, or use the source as a context manager.

The concrete connectors live in their own modules and register themselves as *source kinds*
(:mod:`evoonto.sources.registry`, where :func:`~evoonto.sources.registry.open_source` is); this
module imports none of them.

Example::

    from evoonto.sources import open_source

    with open_source("spider/database/concert_singer/concert_singer.sqlite") as src:
        for table in src.tables():
            print(table.name, table.row_count, [c.name for c in table.columns])
        result = src.run(f"SELECT {src.quote('Name')} FROM singer", limit=3)
        print(result.columns, result.rows, result.truncated)

Problems a caller can cause or meet raise :class:`~evoonto.errors.SourceError` (missing or corrupt
file, locked database), :class:`~evoonto.errors.ReadOnlyViolation` (a refused statement) or
:class:`~evoonto.errors.QueryTimeout`; problems limited to one table (a broken view, an unreadable
CSV file, a table without columns) are reported as a :class:`SourceWarning` and the table is
skipped, so one bad table never stops a whole harvest.
"""

from __future__ import annotations

import abc
import threading
import time
import warnings
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from evoonto.errors import QueryTimeout, SourceError
from evoonto.sources.guard import CheckedSql, SqlTemplate, check_read_only
from evoonto.sources.quoting import quote_identifier

#: The row count of a table (slot ``table``): checked by the guard once, not once per table.
ROW_COUNT_SQL = SqlTemplate("SELECT COUNT(*) FROM {table}")

__all__ = [
    "DEFAULT_LIMIT",
    "ROW_COUNT_SQL",
    "WHOLE_TABLE",
    "FIRST_ROWS",
    "ROWID_STRIDE",
    "RESERVOIR",
    "TABLESAMPLE_SYSTEM",
    "TABLESAMPLE_BERNOULLI",
    "HASH_ORDER",
    "DEFAULT_TIMEOUT_MS",
    "DEFAULT_MAX_CHARS",
    "MAX_LIMIT",
    "ColumnInfo",
    "ForeignKey",
    "TableInfo",
    "QueryResult",
    "Source",
    "BaseSource",
    "SourceWarning",
    "quote_identifier",
    "fetch_bounded",
    "value_chars",
]

#: Rows returned by :meth:`Source.run` when no ``limit`` is given.
DEFAULT_LIMIT = 1000
#: Largest ``limit`` accepted by :meth:`Source.run`, in rows.
MAX_LIMIT = 1_000_000
#: Time limit of :meth:`Source.run` when none is given, in milliseconds.
DEFAULT_TIMEOUT_MS = 5000
#: Largest answer of :meth:`Source.run` when no ``max_chars`` is given, in characters (see
#: :func:`value_chars`): about 10 MB of text.
DEFAULT_MAX_CHARS = 10_000_000
#: Rows fetched from a cursor per batch while the answer is being bounded.
FETCH_BATCH_ROWS = 256

#: ``evo:samplingMethod`` of a probe that read every row of its table.
WHOLE_TABLE = "whole table"
#: The generic sampling method: the first N rows the engine returns (no spread, no seed).
FIRST_ROWS = "first rows"
#: SQLite: every k-th rowid over the table's whole rowid range.
ROWID_STRIDE = "rowid stride"
#: DuckDB: a seeded reservoir sample (``USING SAMPLE reservoir(n ROWS) REPEATABLE (7)``).
RESERVOIR = "reservoir"
#: PostgreSQL: ``TABLESAMPLE SYSTEM`` (random pages) and ``TABLESAMPLE BERNOULLI`` (random rows), seeded.
TABLESAMPLE_SYSTEM = "tablesample system"
TABLESAMPLE_BERNOULLI = "tablesample bernoulli"
#: PostgreSQL views (no TABLESAMPLE): the rows ordered by a hash of their text (a deterministic spread).
HASH_ORDER = "hash order"


class SourceWarning(UserWarning):
    """A table, file or foreign key was skipped (unreadable, empty, broken); the rest still works."""


def warn(message: str) -> None:
    """Emit a :class:`SourceWarning` with ``message`` (one line)."""
    warnings.warn(message, SourceWarning, stacklevel=3)


@dataclass(frozen=True)
class ForeignKey:
    """A declared foreign key of a table.

    Attributes:
        columns: referencing column names, in key order.
        ref_table: referenced table name.
        ref_columns: referenced column names, same length as ``columns``; an entry is ``None``
            when the declaration names only the table (SQLite ``REFERENCES t``), meaning its
            primary key (see :func:`resolve_foreign_key`).
    """

    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str | None, ...]


@dataclass(frozen=True)
class ColumnInfo:
    """One column: ``name``, ``declared_type`` (as declared, ``""`` if none), ``nullable``,
    ``primary_key`` (part of the table's primary key), ``ordinal`` (0-based position) and
    ``comment`` (the column's documentation in the DDL or the database's catalog, if any)."""

    name: str
    declared_type: str = ""
    nullable: bool = True
    primary_key: bool = False
    ordinal: int = 0
    comment: str | None = None


@dataclass(frozen=True)
class TableInfo:
    """One table, view or file of a source.

    Attributes:
        name: the table name exactly as the engine knows it (quote it with :meth:`Source.quote`).
        columns: the columns in declaration order.
        primary_key: primary-key column names, in key order (empty if none is declared).
        foreign_keys: declared foreign keys.
        row_count: number of rows, or ``None`` when counting failed or timed out.
        kind: ``"table"``, ``"view"`` or ``"file"``.
        has_rowid: SQLite only: the table has a ``rowid`` (used for cheap systematic sampling).
        comment: the table's documentation in the DDL or the database's catalog, if any.
    """

    name: str
    columns: tuple[ColumnInfo, ...]
    primary_key: tuple[str, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()
    row_count: int | None = None
    kind: str = "table"
    has_rowid: bool = False
    comment: str | None = None

    def column(self, name: str) -> ColumnInfo:
        """The column called ``name`` (exact match first, then case-insensitive).

        Raises:
            SourceError: no such column.
        """
        for col in self.columns:
            if col.name == name:
                return col
        folded = name.casefold()
        for col in self.columns:
            if col.name.casefold() == folded:
                return col
        raise SourceError(f"table {self.name!r} has no column {name!r}")


@dataclass(frozen=True)
class QueryResult:
    """Result of :meth:`Source.run`.

    Attributes:
        columns: result column names.
        rows: at most ``limit`` rows, each a tuple of Python values.
        truncated: ``True`` when the query produced more than ``limit`` rows.
        elapsed_ms: wall-clock time of execution and fetching, in milliseconds.
        sql: the statement exactly as executed.
        note: empty, or one line saying which bound cut the answer (row cap, size cap, clipped
            cells), e.g. ``"answer cut at 12 rows: more than 10,000,000 characters"``.
    """

    columns: tuple[str, ...]
    rows: list[tuple]
    truncated: bool
    elapsed_ms: float
    sql: str = ""
    note: str = ""

    def records(self) -> list[dict[str, Any]]:
        """The rows as dictionaries keyed by column name (later duplicates win)."""
        return [dict(zip(self.columns, row, strict=False)) for row in self.rows]

    def scalar(self) -> Any:
        """The first value of the first row, or ``None`` when there is no row."""
        return self.rows[0][0] if self.rows and self.rows[0] else None


@runtime_checkable
class Source(Protocol):
    """What every data source offers (see the module docstring for the contract)."""

    id: str
    kind: str
    dialect: str | None
    #: the path or URL it was opened from
    location: str

    def tables(self) -> list[TableInfo]: ...

    def table(self, name: str) -> TableInfo: ...

    def run(
        self, sql: str, *, limit: int = DEFAULT_LIMIT, timeout_ms: int = DEFAULT_TIMEOUT_MS,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> QueryResult: ...

    def quote(self, name: str) -> str: ...

    def close(self) -> None: ...

    def __enter__(self) -> "Source": ...

    def __exit__(self, *exc: object) -> None: ...


class BaseSource(abc.ABC):
    """Shared behaviour of the concrete sources: guard, limits, caching, locking, closing.

    Subclasses set ``kind`` and ``dialect`` and implement :meth:`_load_tables` (catalog metadata,
    without row counts), :meth:`_execute` (run an already-checked statement) and :meth:`_close`.
    """

    kind: str = ""
    dialect: str | None = None

    def __init__(self, source_id: str, location: str):
        if not source_id or "\x00" in source_id:
            raise SourceError(f"invalid source id {source_id!r}")
        self.id = source_id
        self.location = location
        self._lock = threading.RLock()
        self._tables: list[TableInfo] | None = None
        self._closed = False
        #: answer-size bound of the running query (set by :meth:`run`; read by ``_execute``
        #: implementations that stream with :func:`fetch_bounded`).
        self._max_chars = DEFAULT_MAX_CHARS
        #: tables the source holds but could not read, by name, with why (a file that does not
        #: parse): they exist, so a drift check must not call them gone
        self.unreadable: dict[str, str] = {}

    # -- public API -------------------------------------------------------------------------
    def tables(self) -> list[TableInfo]:
        """All readable tables with columns, keys and row counts (cached after the first call).

        Tables that cannot be read (broken view, unreadable file, no columns) are skipped with a
        :class:`SourceWarning`. Raises :class:`SourceError` when the source itself is unusable.
        """
        with self._lock:
            self._check_open()
            if self._tables is None:
                loaded = []
                for table in self._load_tables():
                    if not table.columns:
                        warn(f"source {self.id!r}: table {table.name!r} has no columns; skipped")
                        continue
                    loaded.append(self._with_row_count(table))
                self._tables = [t for t in loaded if t is not None]
            return list(self._tables)

    def table(self, name: str) -> TableInfo:
        """The table called ``name`` (exact, then case-insensitive). Raises :class:`SourceError`."""
        tables = self.tables()
        for table in tables:
            if table.name == name:
                return table
        folded = name.casefold()
        for table in tables:
            if table.name.casefold() == folded:
                return table
        raise SourceError(f"source {self.id!r} has no table {name!r}")

    def run(
        self, sql: str, *, limit: int = DEFAULT_LIMIT, timeout_ms: int = DEFAULT_TIMEOUT_MS,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> QueryResult:
        """Run one read-only query and return at most ``limit`` rows and about ``max_chars`` characters.

        Args:
            sql: a single ``SELECT``/``WITH`` statement in the source's dialect.
            limit: row cap, 1..:data:`MAX_LIMIT`; extra rows are not fetched.
            timeout_ms: the query is interrupted after this many milliseconds (1..3,600,000).
            max_chars: answer-size cap in characters as counted by :func:`value_chars`
                (1,000..:data:`DEFAULT_MAX_CHARS` × 10); rows past it are not fetched, a single
                row larger than it has its long cells clipped; ``QueryResult.note`` says so.

        Raises:
            ReadOnlyViolation: the statement is not a single read-only query.
            QueryTimeout: the query ran longer than ``timeout_ms``.
            SourceError: bad ``limit``/``timeout_ms``/``max_chars``, closed source, or an engine
                error (the message carries the engine's one-line reason, e.g. ``no such column``).
        """
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
            raise SourceError(f"limit must be an integer in 1..{MAX_LIMIT}, got {limit!r}")
        if (
            not isinstance(timeout_ms, (int, float))
            or isinstance(timeout_ms, bool)
            or not 1 <= timeout_ms <= 3_600_000
        ):
            raise SourceError(f"timeout_ms must be in 1..3600000, got {timeout_ms!r}")
        if (
            not isinstance(max_chars, int)
            or isinstance(max_chars, bool)
            or not 1000 <= max_chars <= 10 * DEFAULT_MAX_CHARS
        ):
            raise SourceError(f"max_chars must be an integer in 1000..{10 * DEFAULT_MAX_CHARS}, "
                              f"got {max_chars!r}")
        if not (type(sql) is CheckedSql and sql.checked_for(self.dialect)):  # else checked by its template
            check_read_only(sql, dialect=self.dialect)
        with self._lock:
            self._check_open()
            self._max_chars = max_chars
            start = time.perf_counter()
            try:
                out = self._execute(sql, limit, timeout_ms)
            finally:
                self._max_chars = DEFAULT_MAX_CHARS
            elapsed = (time.perf_counter() - start) * 1000.0
        columns, rows, truncated = out[0], out[1], out[2]
        note = out[3] if len(out) > 3 else ""
        if isinstance(rows, _BoundedRows) and rows.within == (limit, max_chars):
            # streamed by fetch_bounded with these bounds and not cut there: a second pass is a no-op
            rows, cut, second = list(rows), False, ""
        else:  # a second pass bounds what any _execute returned (subclasses that fetch eagerly)
            rows, cut, second = fetch_bounded(_batches(rows), limit, max_chars)
        note = note or second or (f"answer cut at {limit:,} rows (the row limit)" if truncated else "")
        return QueryResult(tuple(columns), rows, bool(truncated or cut), elapsed, sql, note)

    def quote(self, name: str) -> str:
        """``name`` quoted as an identifier in this source's dialect."""
        return quote_identifier(name, self.dialect)

    def sampling_methods(self, table: TableInfo) -> tuple[str, ...]:
        """The sampling methods :meth:`sample_from` offers for ``table``, best first.

        A probe tries them in order and takes the first that runs and returns rows (see
        :func:`evoonto.sources.profiling.profile_column`); the name of the one used is recorded on
        the Evidence (``evo:samplingMethod``). The generic fallback, for a dialect without a spread
        sample, is :data:`FIRST_ROWS`: the first ``rows`` rows the engine returns, recorded as such.
        """
        return (FIRST_ROWS,)

    def sample_from(self, table: TableInfo, expressions: str, rows: int, method: str | None = None) -> str:
        """SQL of a derived table holding about ``rows`` rows of ``table`` (for sampled probes).

        Args:
            table: the table to sample; expressions: the select list (already quoted).
            rows: the sample size wanted, in rows (the engine may return a few more or fewer).
            method: one of :meth:`sampling_methods` (default: the first).

        The generic method :data:`FIRST_ROWS` takes the first ``rows`` rows (no spread: on a table
        loaded in sorted order it sees only its beginning); engines override this with spread-out
        samples (SQLite rowid stride, DuckDB ``USING SAMPLE``, PostgreSQL ``TABLESAMPLE``).

        Raises:
            SourceError: ``method`` is not one this source offers.
        """
        method = method or self.sampling_methods(table)[0]
        if method != FIRST_ROWS:
            raise SourceError(f"source {self.id!r} has no sampling method {method!r}")
        return f"(SELECT {expressions} FROM {self.quote(table.name)} LIMIT {int(rows)})"

    def close(self) -> None:
        """Release the connection; idempotent. Later calls raise :class:`SourceError`."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._close()

    def __enter__(self):
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} id={self.id!r} kind={self.kind!r} at {self.location!r}>"

    def is_superuser(self) -> bool | None:
        """Whether the source logs in as a database superuser; None here (a file or folder has no
        login). Sources behind a database server override it (PostgreSQL: ``pg_user.usesuper``)."""
        return None

    # -- for subclasses ---------------------------------------------------------------------
    @abc.abstractmethod
    def _load_tables(self) -> list[TableInfo]:
        """Tables with columns and keys; ``row_count`` may be left ``None`` (counted later)."""

    @abc.abstractmethod
    def _execute(self, sql: str, limit: int, timeout_ms: float) -> tuple:
        """Run a checked statement: ``(column names, at most limit rows, truncated)``, optionally
        with a fourth item, the truncation note; stream with :func:`fetch_bounded` and
        ``self._max_chars`` so a huge answer is never fetched whole."""

    @abc.abstractmethod
    def _close(self) -> None:
        """Close the underlying connection."""

    def _with_row_count(self, table: TableInfo) -> TableInfo | None:
        """``table`` with its row count; ``None`` (skip, with a warning) when it cannot be read."""
        if table.row_count is not None:
            return table
        try:
            count = self.run(ROW_COUNT_SQL.render(self.dialect, table=table.name), limit=1).scalar()
        except QueryTimeout:
            warn(f"source {self.id!r}: counting rows of {table.name!r} timed out; count unknown")
            return table
        except SourceError as err:
            warn(f"source {self.id!r}: table {table.name!r} cannot be read ({err}); skipped")
            return None
        return replace(table, row_count=int(count or 0))

    def _check_open(self) -> None:
        if self._closed:
            raise SourceError(f"source {self.id!r} is closed")


def resolve_foreign_key(
    table: TableInfo, fk: ForeignKey, tables: list[TableInfo]
) -> list[tuple[str, str, str]] | None:
    """Pairs ``(column, ref_table, ref_column)`` of ``table``'s key ``fk``, resolved against ``tables``.

    Names are matched exactly, then case-insensitively (Spider declares some keys with the wrong
    case), and returned as the tables spell them; a key naming only its table maps to that
    table's primary key. Returns ``None`` when a table or column does not exist.
    """
    target = next((t for t in tables if t.name == fk.ref_table), None) or next(
        (t for t in tables if t.name.casefold() == fk.ref_table.casefold()), None
    )
    if target is None or len(fk.columns) != len(fk.ref_columns):
        return None
    ref_columns = list(fk.ref_columns)
    if any(c is None for c in ref_columns):
        if len(target.primary_key) != len(fk.columns):
            return None
        ref_columns = list(target.primary_key)
    pairs = []
    for col, ref in zip(fk.columns, ref_columns, strict=True):  # lengths checked above
        try:
            pairs.append((table.column(col).name, target.name, target.column(str(ref)).name))
        except SourceError:
            return None
    return pairs


def column_names(description) -> list[str]:
    """Column names from a DB-API ``cursor.description`` (empty when there is none)."""
    return [d[0] for d in description or ()]


@dataclass
class _Deadline:
    """A wall-clock deadline in ``time.monotonic()`` seconds; ``expired`` once it has passed."""

    at: float
    fired: bool = field(default=False)

    @classmethod
    def after_ms(cls, ms: float) -> "_Deadline":
        return cls(time.monotonic() + ms / 1000.0)

    def expired(self) -> bool:
        if time.monotonic() >= self.at:
            self.fired = True
        return self.fired


def value_chars(value: Any) -> int:
    """Size of one result value in characters: text and bytes by length, NULL, booleans and numbers 8,
    anything else the length of its text."""
    if isinstance(value, (str, bytes, bytearray, memoryview)):
        return len(value)
    if value is None or isinstance(value, (bool, int, float)):
        return 8
    return len(str(value))


#: :func:`value_chars` of the exact types engines return most, without its isinstance chain.
_SIZED_BY_LENGTH = frozenset({str, bytes})
_SIZE_EIGHT = frozenset({int, float, bool, type(None)})


def _row_chars(row: tuple) -> int:
    """The sum of :func:`value_chars` over ``row``."""
    size = 0
    for value in row:
        kind = type(value)
        if kind in _SIZED_BY_LENGTH:
            size += len(value)
        elif kind in _SIZE_EIGHT:
            size += 8
        else:
            size += value_chars(value)
    return size


class _BoundedRows(list):
    """Rows that :func:`fetch_bounded` returned whole (nothing cut) under the bounds ``within`` =
    ``(limit, max_chars)``: :meth:`BaseSource.run` does not bound them a second time."""

    __slots__ = ("within",)

    def __init__(self, rows: list[tuple], within: tuple[int, int]) -> None:
        super().__init__(rows)
        self.within = within


def _clip(value: Any, chars: int) -> Any:
    if isinstance(value, str) and len(value) > chars:
        return value[: max(chars - 1, 0)] + "…"
    if isinstance(value, (bytes, bytearray, memoryview)) and len(value) > chars:
        return bytes(value[:chars])
    return value


def _batches(rows: list) -> Any:
    yield rows


def fetch_bounded(batches: Any, limit: int, max_chars: int) -> tuple[list[tuple], bool, str]:
    """Rows from an iterable of row batches until ``limit`` rows or ``max_chars`` characters.

    Args:
        batches: an iterable of row lists (e.g. ``iter(lambda: cursor.fetchmany(256), [])``);
            it is consumed only as far as needed, so unfetched rows stay in the engine.
        limit: row cap; max_chars: size cap, in characters as counted by :func:`value_chars`.

    Returns:
        ``(rows, truncated, note)``: rows as tuples; ``truncated`` when a row was left out (or a
        cell clipped); ``note`` one line saying which bound cut the answer (``""`` when none did).
        A first row larger than ``max_chars`` is kept with its long cells clipped.
    """
    rows: list[tuple] = []
    used = 0
    for batch in batches:
        for raw in batch:
            row = tuple(raw)
            if len(rows) >= limit:
                return rows, True, f"answer cut at {limit:,} rows (the row limit)"
            size = _row_chars(row)
            if used + size > max_chars:
                if rows:
                    return rows, True, (f"answer cut at {len(rows):,} rows: more than "
                                        f"{max_chars:,} characters")
                share = max(max_chars // max(len(row), 1), 1)
                rows.append(tuple(_clip(v, share) for v in row))
                return rows, True, (f"answer cut at 1 row with cells clipped to {share:,} characters:"
                                    f" more than {max_chars:,} characters")
            used += size
            rows.append(row)
    return _BoundedRows(rows, (limit, max_chars)), False, ""


def cursor_batches(cursor: Any, size: int = FETCH_BATCH_ROWS) -> Any:
    """Batches of ``cursor.fetchmany(size)`` until the cursor is exhausted (for :func:`fetch_bounded`)."""
    while True:
        batch = cursor.fetchmany(size)
        if not batch:
            return
        yield batch
