"""Any database reachable through a SQLAlchemy URL, read-only.

The catalog comes from SQLAlchemy's inspector (tables and views of the default schema, columns with
declared types, primary and foreign keys, and the table and column comments such as PostgreSQL
``COMMENT ON``, which :mod:`evoonto.sources.dictionaries` reads as documentation); queries are sent
as driver SQL (no bind-parameter parsing, so ``':30'`` in a literal stays a literal) inside a
transaction that is always rolled back.

Read-only layers besides the statement guard:

- ``sqlite`` URLs: the file is opened through :func:`evoonto.sources.sqlite.connect_read_only`
  (``mode=ro``, ``query_only``, authorizer) and timeouts use SQLite's progress handler;
- ``postgresql``: ``SET TRANSACTION READ ONLY`` and ``SET LOCAL statement_timeout`` per query;
- ``mysql``/``mariadb``: ``START TRANSACTION READ ONLY`` and ``max_execution_time``;
- other backends: the guard and the rollback only, and the timeout is not enforced (a
  :class:`~evoonto.sources.base.SourceWarning` says so once).

Answers are streamed (``stream_results``) and bounded in rows and characters like every source
(:func:`evoonto.sources.base.fetch_bounded`).

Samples for probes of large tables (:meth:`SQLAlchemySource.sampling_methods`, tried in order until one
runs and returns rows; the one used is recorded on the Evidence):

- ``postgresql`` tables: ``TABLESAMPLE BERNOULLI (p) REPEATABLE (7)`` (each row with the same chance;
  reads every page) for tables of up to :data:`BERNOULLI_MAX_ROWS` rows, ``TABLESAMPLE SYSTEM``
  (random pages, read only those) first for larger ones, each the other's fallback (a method that
  fails, times out or returns no row hands over), then the generic first rows; views (no
  ``TABLESAMPLE``): the rows ordered by a hash of their text, then the first rows;
- ``sqlite`` URLs: every k-th rowid (as :class:`~evoonto.sources.sqlite.SQLiteSource`), then the first rows;
- ``duckdb`` URLs: a seeded reservoir sample, then the first rows;
- any other backend: the first ``rows`` rows the database returns, recorded as ``first rows`` (not a
  spread sample: on a table stored in sorted order it sees only the beginning).

Example::

    from evoonto.sources import open_source

    with open_source("sqlite:///spider/database/pets_1/pets_1.sqlite") as src:   # kind "sqlalchemy"
        print(src.dialect, [t.name for t in src.tables()])
        print(src.run("SELECT COUNT(*) FROM Student").scalar())
"""

from __future__ import annotations

import re
from pathlib import Path

from evoonto.errors import QueryTimeout, ReadOnlyViolation, SourceError
from evoonto.sources.base import (
    FIRST_ROWS,
    HASH_ORDER,
    RESERVOIR,
    ROWID_STRIDE,
    TABLESAMPLE_BERNOULLI,
    TABLESAMPLE_SYSTEM,
    BaseSource,
    ColumnInfo,
    ForeignKey,
    TableInfo,
    cursor_batches,
    fetch_bounded,
    warn,
)
from evoonto.sources.files import reservoir_sample
from evoonto.sources.registry import SourceKind, register_source_kind
from evoonto.sources.sqlite import connect_read_only, execute_capped, rowid_stride_sample

__all__ = ["SQLAlchemySource", "SQLGLOT_DIALECTS", "BERNOULLI_MAX_ROWS"]

#: PostgreSQL tables up to this many rows are sampled row by row (``TABLESAMPLE BERNOULLI``: reads
#: every page, each row with the same chance); larger ones page by page (``SYSTEM``: reads only the
#: sampled pages, but the rows of a page come together, which on a table stored in sorted order
#: clusters the sample).
BERNOULLI_MAX_ROWS = 5_000_000

#: SQLAlchemy backend name -> sqlglot dialect name used by the guard and for quoting.
SQLGLOT_DIALECTS = {
    "sqlite": "sqlite", "postgresql": "postgres", "mysql": "mysql", "mariadb": "mysql",
    "mssql": "tsql", "oracle": "oracle", "duckdb": "duckdb", "snowflake": "snowflake",
    "bigquery": "bigquery", "redshift": "redshift", "trino": "trino", "clickhouse": "clickhouse",
    "databricks": "databricks",
}


class SQLAlchemySource(BaseSource):
    """A database behind a SQLAlchemy URL (see the module docstring).

    Args:
        url: a SQLAlchemy URL, e.g. ``sqlite:///path.db`` or ``postgresql://u@h/db`` (driver:
            ``pip install 'evoonto[postgres]'``).
        source_id: identifier (default: the URL's database name).
        engine_options: extra keyword arguments for ``sqlalchemy.create_engine``.

    Raises:
        SourceError: invalid URL, missing driver, unreachable or unreadable database.
    """

    kind = "sqlalchemy"

    def __init__(self, url: str, *, source_id: str | None = None, engine_options: dict | None = None):
        import sqlalchemy
        from sqlalchemy.engine import make_url

        try:
            parsed = make_url(url)
        except Exception as err:
            raise SourceError(f"invalid SQLAlchemy URL {url!r}: {err}") from None
        self.backend = parsed.get_backend_name()
        self.dialect = SQLGLOT_DIALECTS.get(self.backend)
        super().__init__(source_id or (parsed.database or self.backend), parsed.render_as_string(hide_password=True))
        options = dict(engine_options or {})
        if self.backend == "sqlite":
            database = parsed.database or ""
            if database in ("", ":memory:") or database.startswith("file:"):
                raise SourceError("a sqlite URL must name an existing database file (sqlite:///path.db)")
            path = Path(database).expanduser()
            connect_read_only(path).close()  # clear errors for missing/corrupt/locked files
            options["creator"] = lambda: connect_read_only(path)
        try:
            self._engine = sqlalchemy.create_engine(parsed, **options)
            with self._engine.connect():
                pass
        except ImportError as err:
            raise SourceError(f"the driver for {self.backend!r} is not installed: {err}") from None
        except sqlalchemy.exc.SQLAlchemyError as err:
            raise SourceError(f"cannot connect to {self.location}: {_first_line(err)}") from None
        self._timeout_warned = False

    def _load_tables(self) -> list[TableInfo]:
        import sqlalchemy

        try:
            inspector = sqlalchemy.inspect(self._engine)
            names = [(n, "table") for n in inspector.get_table_names()]
            names += [(n, "view") for n in inspector.get_view_names()]
        except sqlalchemy.exc.SQLAlchemyError as err:
            raise SourceError(f"cannot list tables of {self.location}: {_first_line(err)}") from None
        tables = []
        for name, kind in names:
            try:
                tables.append(self._describe(inspector, name, kind))
            except sqlalchemy.exc.SQLAlchemyError as err:
                warn(f"source {self.id!r}: cannot describe {kind} {name!r} ({_first_line(err)}); skipped")
        return tables

    def _describe(self, inspector, name: str, kind: str) -> TableInfo:
        raw_columns = inspector.get_columns(name)
        primary_key = tuple(
            (inspector.get_pk_constraint(name) or {}).get("constrained_columns") or ()
        ) if kind == "table" else ()
        columns = tuple(
            ColumnInfo(
                name=col["name"], declared_type=_type_name(col.get("type"), self._engine.dialect),
                nullable=bool(col.get("nullable", True)), primary_key=col["name"] in primary_key,
                ordinal=i, comment=col.get("comment") or None,
            )
            for i, col in enumerate(raw_columns)
        )
        foreign_keys = []
        if kind == "table":
            for fk in inspector.get_foreign_keys(name):
                cols = tuple(fk.get("constrained_columns") or ())
                refs = tuple(fk.get("referred_columns") or ())
                if not cols or not fk.get("referred_table"):
                    continue
                foreign_keys.append(
                    ForeignKey(cols, fk["referred_table"], refs if len(refs) == len(cols) else (None,) * len(cols))
                )
        return TableInfo(
            name=name, columns=columns, primary_key=primary_key, foreign_keys=tuple(foreign_keys), kind=kind,
            comment=_table_comment(inspector, name),
        )

    def _execute(self, sql: str, limit: int, timeout_ms: float):
        import sqlalchemy

        try:
            with self._engine.connect() as conn:
                try:
                    if self.backend == "sqlite":
                        raw = conn.connection.driver_connection
                        assert raw is not None  # a checked-out pool connection always has one
                        return execute_capped(raw, sql, limit=limit, timeout_ms=timeout_ms,
                                              max_chars=self._max_chars)
                    self._begin_read_only(conn, timeout_ms)
                    if conn.dialect.paramstyle in ("format", "pyformat"):
                        # psycopg, PyMySQL: the driver reads every "%" as a parameter marker
                        # ('%hey%' in a LIKE failed, a non-ASCII letter after one crashed); the
                        # statement has no parameters, so each "%" is the character itself
                        sql = sql.replace("%", "%%")
                    result = conn.execution_options(stream_results=True).exec_driver_sql(sql)
                    columns = list(result.keys())
                    rows, truncated, note = fetch_bounded(cursor_batches(result), limit, self._max_chars)
                    result.close()
                    return columns, rows, truncated, note
                finally:
                    conn.rollback()
        except sqlalchemy.exc.SQLAlchemyError as err:
            text = _first_line(err)
            lowered = text.lower()
            if "statement timeout" in lowered or "max_execution_time" in lowered or "canceling statement" in lowered:
                raise QueryTimeout(f"query interrupted after {timeout_ms:g} ms") from None
            if "read-only" in lowered or "read only" in lowered:
                raise ReadOnlyViolation(f"refused by the database: {text} (read-only source)") from None
            raise SourceError(f"database error: {text}") from None

    def is_superuser(self) -> bool | None:
        """Whether the login is a PostgreSQL superuser (which can read ``pg_shadow`` and server
        settings through ``run_sql`` in spite of the read-only transaction); None for other
        backends or when the database does not say (asked with one read-only query of ``pg_user``)."""
        if self.backend != "postgresql":
            return None
        try:
            result = self.run("SELECT usesuper FROM pg_catalog.pg_user WHERE usename = current_user", limit=1)
        except SourceError:
            return None
        return bool(result.rows[0][0]) if result.rows else None

    def _begin_read_only(self, conn, timeout_ms: float) -> None:
        if self.backend == "postgresql":
            conn.exec_driver_sql("SET TRANSACTION READ ONLY")
            conn.exec_driver_sql(f"SET LOCAL statement_timeout = {int(timeout_ms)}")
        elif self.backend in ("mysql", "mariadb"):
            conn.exec_driver_sql(f"SET SESSION max_execution_time = {int(timeout_ms)}")
            conn.exec_driver_sql("START TRANSACTION READ ONLY")
        elif not self._timeout_warned:
            self._timeout_warned = True
            warn(f"source {self.id!r}: query timeouts are not enforced for backend {self.backend!r}")

    def sampling_methods(self, table: TableInfo) -> tuple[str, ...]:
        """The spread samples of this backend for ``table`` (module docstring), then :data:`FIRST_ROWS`."""
        if self.backend == "postgresql":
            if table.kind == "view":
                return (HASH_ORDER, FIRST_ROWS)
            if table.row_count is not None and table.row_count <= BERNOULLI_MAX_ROWS:
                return (TABLESAMPLE_BERNOULLI, TABLESAMPLE_SYSTEM, FIRST_ROWS)
            return (TABLESAMPLE_SYSTEM, TABLESAMPLE_BERNOULLI, FIRST_ROWS)
        if self.backend == "sqlite":
            return (ROWID_STRIDE, FIRST_ROWS)
        if self.backend == "duckdb":
            return (RESERVOIR, FIRST_ROWS)
        return (FIRST_ROWS,)

    def sample_from(self, table: TableInfo, expressions: str, rows: int, method: str | None = None) -> str:
        """SQL of a derived table of about ``rows`` rows of ``table`` by ``method`` (default: the first of
        :meth:`sampling_methods`).

        ``TABLESAMPLE`` takes the share ``rows / row count`` (1% when the count is unknown) with a fixed
        seed, so a re-run on unchanged storage reads the same rows; no ``LIMIT`` cuts it (a limit would
        drop the sampled pages at the table's end).

        Raises:
            SourceError: ``method`` is not one this backend offers.
        """
        method = method or self.sampling_methods(table)[0]
        if method not in self.sampling_methods(table):
            raise SourceError(f"source {self.id!r} has no sampling method {method!r} for {table.name!r}")
        name = self.quote(table.name)
        if method in (TABLESAMPLE_SYSTEM, TABLESAMPLE_BERNOULLI):
            share = 100.0 * rows / table.row_count if table.row_count else 1.0
            kind = "SYSTEM" if method == TABLESAMPLE_SYSTEM else "BERNOULLI"
            return f"(SELECT {expressions} FROM {name} TABLESAMPLE {kind} ({min(share, 100.0):.6f}) REPEATABLE (7))"
        if method == HASH_ORDER:
            return (f"(SELECT {expressions} FROM {name} AS evoonto_row "
                    f"ORDER BY md5(CAST(evoonto_row AS TEXT)) LIMIT {int(rows)})")
        if method == ROWID_STRIDE:
            return rowid_stride_sample(name, expressions, rows)
        if method == RESERVOIR:
            return reservoir_sample(name, expressions, rows)
        return super().sample_from(table, expressions, rows, FIRST_ROWS)

    def _close(self) -> None:
        self._engine.dispose()


def _table_comment(inspector, name: str) -> str | None:
    """The table's comment (PostgreSQL ``COMMENT ON TABLE``, MySQL ``COMMENT=``), or ``None`` where
    the dialect keeps none."""
    import sqlalchemy

    try:
        return (inspector.get_table_comment(name) or {}).get("text") or None
    except (NotImplementedError, sqlalchemy.exc.SQLAlchemyError):
        return None


def _type_name(type_, dialect) -> str:
    if type_ is None:
        return ""
    try:
        return str(type_.compile(dialect=dialect))
    except Exception:
        return "" if type(type_).__name__ == "NullType" else type(type_).__name__.upper()


def _first_line(err: BaseException) -> str:
    """The first line (≤ 300 characters) of the driver's message (``orig`` of a SQLAlchemy statement
    error), else of ``err``."""
    from sqlalchemy.exc import StatementError

    text = str((err.orig if isinstance(err, StatementError) else None) or err).strip().splitlines()
    return text[0][:300] if text else type(err).__name__


def _is_url(location: str) -> bool:
    """A URL ``scheme://…`` (SQLAlchemy's ``dialect+driver://…``)."""
    return _URL_RE.match(location) is not None


_URL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")

register_source_kind(SourceKind("sqlalchemy", lambda url, **kw: SQLAlchemySource(str(url), **kw), _is_url))
