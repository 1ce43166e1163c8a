"""SQLite files, the embedded default source, opened so that nothing can write to them.

Layers of protection (DESIGN.md §4), each sufficient on its own for the usual attacks:

1. every statement passes :func:`evoonto.sources.guard.check_read_only`;
2. the file is opened with the URI ``file:…?mode=ro`` (the OS-level open is read-only); a
   WAL-mode database with no ``-wal`` file beside it (no writer has uncommitted pages) is opened
   ``immutable=1`` as well, because SQLite would otherwise create ``-wal``/``-shm`` files next to
   it (or fail in a read-only folder); when a ``-wal`` file exists a writer is active and the
   plain ``mode=ro`` open reads its committed pages;
3. ``PRAGMA query_only = ON``;
4. an authorizer allows only reads, a few metadata pragmas, and functions other than
   ``load_extension``/``readfile``/``writefile``; ``ATTACH`` is disabled by a zero limit and
   values longer than 10 MB cannot be built (``randomblob(1e9)`` fails instead of allocating).

Timeouts use SQLite's progress handler (checked every 1,000 virtual-machine steps), so a runaway
query (a recursive CTE, a cross join) is interrupted and :class:`~evoonto.errors.QueryTimeout` is
raised. Row caps fetch at most ``limit + 1`` rows.

Example::

    from evoonto.sources.sqlite import SQLiteSource

    with SQLiteSource("concert_singer.sqlite") as src:     # id defaults to the file stem
        print(src.run("SELECT COUNT(*) FROM singer").scalar())
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from evoonto.errors import QueryTimeout, ReadOnlyViolation, SourceError
from evoonto.sources.base import (
    DEFAULT_MAX_CHARS,
    DEFAULT_TIMEOUT_MS,
    FIRST_ROWS,
    ROWID_STRIDE,
    BaseSource,
    ColumnInfo,
    ForeignKey,
    TableInfo,
    _Deadline,
    column_names,
    cursor_batches,
    fetch_bounded,
    warn,
)
from evoonto.sources.registry import SourceKind, register_source_kind

__all__ = ["SQLiteSource", "connect_read_only", "harden", "execute_capped", "rowid_stride_sample"]

#: Longest string or blob a query may build, in bytes (SQLITE_LIMIT_LENGTH).
MAX_VALUE_BYTES = 10_000_000
#: Virtual-machine steps between two checks of the deadline.
PROGRESS_STEPS = 1000

_SAFE_PRAGMAS = frozenset(
    {"table_info", "table_xinfo", "table_list", "foreign_key_list", "index_list", "index_info",
     "index_xinfo"}
)
# Settings that may be read (never assigned); SQLAlchemy reads read_uncommitted on connect.
_READABLE_PRAGMAS = frozenset({"read_uncommitted", "user_version", "encoding", "foreign_keys"})
_DENIED_FUNCTIONS = frozenset({"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"})
_SCHEMA_TABLES = frozenset({"sqlite_master", "sqlite_schema", "sqlite_temp_master"})


def _authorizer(action, arg1, arg2, db_name, trigger):
    if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, sqlite3.SQLITE_RECURSIVE):
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_FUNCTION:
        return sqlite3.SQLITE_DENY if str(arg2).lower() in _DENIED_FUNCTIONS else sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA:
        name = str(arg1).lower()
        if name in _SAFE_PRAGMAS or (name in _READABLE_PRAGMAS and arg2 is None):
            return sqlite3.SQLITE_OK
        return sqlite3.SQLITE_DENY
    if action == sqlite3.SQLITE_UPDATE and arg1 in _SCHEMA_TABLES:
        # SQLite asks this while it *reads* the schema for a table-valued pragma;
        # an actual write is impossible (mode=ro + query_only).
        return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def harden(conn: sqlite3.Connection) -> sqlite3.Connection:
    """Make ``conn`` read-only: ``query_only``, no ATTACH, no extensions, value size cap, authorizer.

    Returns the same connection. Works for file and in-memory connections.
    """
    conn.execute("PRAGMA query_only = ON")
    if hasattr(conn, "enable_load_extension"):
        conn.enable_load_extension(False)
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
    conn.set_authorizer(_authorizer)
    return conn


def connect_read_only(path: str | Path, *, busy_timeout_ms: int = 2000) -> sqlite3.Connection:
    """Open the SQLite file ``path`` read-only and hardened (see :func:`harden`).

    Args:
        path: an existing SQLite database file.
        busy_timeout_ms: how long to wait for another process's lock, in milliseconds.

    Raises:
        SourceError: missing file, not a SQLite file, corrupt or locked database.
    """
    file = Path(path).expanduser()
    if not file.exists():
        raise SourceError(f"SQLite database not found: {path}")
    if not file.is_file():
        raise SourceError(f"not a SQLite database file (it is a folder): {path}")
    try:
        if not is_sqlite_file(file):
            raise SourceError(f"not a SQLite database (bad file header): {path}")
    except OSError as err:
        raise SourceError(f"cannot read {path}: {err.strerror or err}") from None
    uri = file.resolve().as_uri() + "?mode=ro"
    try:
        if is_wal_mode(file) and not Path(str(file) + "-wal").exists():
            uri += "&immutable=1"  # nothing to recover, and no -wal/-shm file may be created
    except OSError as err:
        raise SourceError(f"cannot read {path}: {err.strerror or err}") from None
    try:
        conn = sqlite3.connect(
            uri, uri=True, timeout=busy_timeout_ms / 1000.0, isolation_level=None,
            check_same_thread=False,
        )
    except sqlite3.Error as err:
        raise SourceError(f"cannot open SQLite database {path}: {err}") from None
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        harden(conn)
    except sqlite3.Error as err:
        conn.close()
        raise SourceError(f"cannot read SQLite database {path}: {_reason(err)}") from None
    return conn


def _reason(err: sqlite3.Error) -> str:
    text = str(err).strip() or type(err).__name__
    if "locked" in text or "busy" in text:
        return f"{text} (another process holds a write lock; retry later)"
    if "not a database" in text or "malformed" in text:
        return f"{text} (the file is corrupt)"
    return text


def execute_capped(
    conn: sqlite3.Connection, sql: str, params: tuple = (), *, limit: int, timeout_ms: float,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> tuple[list[str], list[tuple], bool, str]:
    """Execute ``sql`` on ``conn`` with a deadline, a row cap and an answer-size cap.

    Rows are fetched in batches until ``limit`` rows or ``max_chars`` characters
    (:func:`~evoonto.sources.base.fetch_bounded`); the deadline also covers fetching.

    Returns:
        (column names, at most ``limit`` rows, truncated, truncation note or ``""``).

    Raises:
        QueryTimeout: the deadline (``timeout_ms`` milliseconds) passed.
        ReadOnlyViolation: the authorizer refused the statement.
        SourceError: any other SQLite error (one-line reason).
    """
    deadline = _Deadline.after_ms(timeout_ms)
    conn.set_progress_handler(lambda: 1 if deadline.expired() else 0, PROGRESS_STEPS)
    cursor = None
    try:
        cursor = conn.execute(sql, params)
        rows, truncated, note = fetch_bounded(cursor_batches(cursor), limit, max_chars)
        return column_names(cursor.description), rows, truncated, note
    except sqlite3.Error as err:
        if deadline.fired:
            raise QueryTimeout(f"query interrupted after {timeout_ms:g} ms") from None
        text = str(err)
        if "not authorized" in text or "prohibited" in text or "readonly" in text:
            raise ReadOnlyViolation(f"refused by SQLite: {text} (read-only source)") from None
        raise SourceError(f"SQLite error: {_reason(err)}") from None
    finally:
        if cursor is not None:
            cursor.close()
        conn.set_progress_handler(None, PROGRESS_STEPS)


class SQLiteSource(BaseSource):
    """A SQLite database file opened read-only (see the module docstring).

    Args:
        path: the database file.
        source_id: identifier (default: the file stem).
        busy_timeout_ms: wait for another process's lock this long, in milliseconds.

    Raises:
        SourceError: missing, non-SQLite, corrupt or locked file.
    """

    kind = "sqlite"
    dialect = "sqlite"

    def __init__(self, path: str | Path, *, source_id: str | None = None, busy_timeout_ms: int = 2000):
        file = Path(path).expanduser()
        super().__init__(source_id or file.stem, str(file))
        self.path = file
        self._conn = connect_read_only(file, busy_timeout_ms=busy_timeout_ms)

    def _meta(self, sql: str, params: tuple = ()) -> list[tuple]:
        return execute_capped(
            self._conn, sql, params, limit=1_000_000, timeout_ms=DEFAULT_TIMEOUT_MS
        )[1]

    def _load_tables(self) -> list[TableInfo]:
        listed = self._meta(
            "SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main' "
            "AND type IN ('table', 'view', 'virtual') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        )
        order = {
            name: i
            for i, (name,) in enumerate(
                self._meta("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
            )
        }
        listed.sort(key=lambda row: order.get(row[0], len(order)))
        tables = []
        for name, kind, without_rowid in listed:
            try:
                tables.append(self._describe(name, kind, bool(without_rowid)))
            except SourceError as err:
                warn(f"source {self.id!r}: cannot describe {kind} {name!r} ({err}); skipped")
        return tables

    def _describe(self, name: str, kind: str, without_rowid: bool) -> TableInfo:
        info = self._meta("SELECT cid, name, type, \"notnull\", pk FROM pragma_table_info(?)", (name,))
        comments = self._column_comments(name) if kind == "table" else {}
        columns = tuple(
            ColumnInfo(
                name=col_name, declared_type=(col_type or "").strip(), nullable=not notnull,
                primary_key=pk > 0, ordinal=cid, comment=comments.get(col_name.casefold()),
            )
            for cid, col_name, col_type, notnull, pk in sorted(info)
        )
        primary_key = tuple(c[1] for c in sorted((row for row in info if row[4] > 0), key=lambda r: r[4]))
        fk_rows = self._meta(
            "SELECT id, seq, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?)", (name,)
        )
        groups: dict[int, list[tuple]] = {}
        for fk_id, seq, ref_table, from_col, to_col in fk_rows:
            groups.setdefault(fk_id, []).append((seq, ref_table, from_col, to_col))
        foreign_keys = []
        for parts in groups.values():
            parts.sort()
            foreign_keys.append(
                ForeignKey(
                    columns=tuple(p[2] for p in parts),
                    ref_table=parts[0][1],
                    ref_columns=tuple(p[3] for p in parts),
                )
            )
        return TableInfo(
            name=name, columns=columns, primary_key=primary_key, foreign_keys=tuple(foreign_keys),
            kind="view" if kind == "view" else "table", has_rowid=kind == "table" and not without_rowid,
        )

    def _column_comments(self, name: str) -> dict[str, str]:
        """``{column name casefolded: comment}`` from the ``-- …`` / ``/* … */`` comments that follow
        the columns in the stored ``CREATE TABLE`` text (sqlglot keeps them on each column
        definition); ``{}`` when there are none or the text does not parse."""
        rows = self._meta("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
        text = rows[0][0] if rows and rows[0][0] else ""
        if "--" not in text and "/*" not in text:
            return {}
        import sqlglot
        from sqlglot import exp

        try:
            tree = sqlglot.parse_one(text, read="sqlite")
        except sqlglot.errors.SqlglotError:
            return {}
        out: dict[str, str] = {}
        for col in tree.find_all(exp.ColumnDef):
            note = " ".join(" ".join(c.split()) for c in (col.comments or []) if c.strip())
            if note:
                out[col.name.casefold()] = note
        return out

    def _execute(self, sql: str, limit: int, timeout_ms: float):
        return execute_capped(self._conn, sql, limit=limit, timeout_ms=timeout_ms,
                              max_chars=self._max_chars)

    def sampling_methods(self, table: TableInfo) -> tuple[str, ...]:
        """:data:`ROWID_STRIDE` for a rowid table, then the generic :data:`FIRST_ROWS`."""
        return (ROWID_STRIDE, FIRST_ROWS) if table.has_rowid else (FIRST_ROWS,)

    def sample_from(self, table: TableInfo, expressions: str, rows: int, method: str | None = None) -> str:
        """:data:`ROWID_STRIDE`: every k-th rowid over the whole rowid range, fetched by rowid lookups
        (about ``rows`` B-tree probes, not a full scan); see :func:`rowid_stride_sample`."""
        method = method or self.sampling_methods(table)[0]
        if method == ROWID_STRIDE:
            return rowid_stride_sample(self.quote(table.name), expressions, rows)
        return super().sample_from(table, expressions, rows, method)

    def _close(self) -> None:
        self._conn.close()


def rowid_stride_sample(quoted_table: str, expressions: str, rows: int) -> str:
    """SQLite SQL of a derived table of about ``rows`` rows spread over the whole table: the rowids
    ``lo, lo + k, lo + 2k, …`` up to the largest rowid, ``k = (max - min) / rows + 1`` (a gap in the
    rowids gives fewer rows, never rows from one end only). ``quoted_table`` is already quoted."""
    name = quoted_table
    return (
        "(WITH RECURSIVE evoonto_bounds(lo, hi, step) AS ("
        f"SELECT MIN(_rowid_), MAX(_rowid_), (MAX(_rowid_) - MIN(_rowid_)) / {int(rows)} + 1 FROM {name}), "
        "evoonto_sample(evoonto_rowid) AS (SELECT lo FROM evoonto_bounds WHERE lo IS NOT NULL UNION ALL "
        "SELECT evoonto_rowid + (SELECT step FROM evoonto_bounds) FROM evoonto_sample "
        "WHERE evoonto_rowid + (SELECT step FROM evoonto_bounds) <= (SELECT hi FROM evoonto_bounds)) "
        f"SELECT {expressions} FROM evoonto_sample JOIN {name} ON {name}._rowid_ = evoonto_sample.evoonto_rowid)"
    )


_SQLITE_MAGIC = b"SQLite format 3\x00"


def is_sqlite_file(path: Path) -> bool:
    """``True`` when ``path`` starts with the SQLite header (or is empty, a valid empty DB)."""
    with open(path, "rb") as handle:
        head = handle.read(len(_SQLITE_MAGIC))
    return head == _SQLITE_MAGIC or head == b""


def is_wal_mode(path: Path) -> bool:
    """``True`` when the SQLite file ``path`` is in WAL journal mode (header bytes 18-19 are 2)."""
    with open(path, "rb") as handle:
        head = handle.read(20)
    return len(head) == 20 and head[18] == 2 and head[19] == 2


def _is_local_file(location: str) -> bool:
    """Any existing file that no more specific kind claimed (the embedded default)."""
    return "://" not in location and Path(location).expanduser().is_file()


register_source_kind(SourceKind("sqlite", SQLiteSource, _is_local_file, priority=-100))
