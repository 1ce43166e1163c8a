"""A small pool of connections to one data source, so concurrent callers do not queue on one.

A :class:`~evoonto.sources.base.BaseSource` serialises its statements behind one lock (one engine
connection), so when several MCP sessions share a server, one slow ``run_sql`` (up to its 5 s
timeout) used to hold every other session's ``run_sql``. :class:`SourcePool` is a ``Source`` whose
``run`` leases an idle connection, opening another one (up to ``size``) when all are busy, and
whose table metadata is read once and cached. Single-threaded callers only ever use one
connection. The tool layer (:class:`evoonto.tools.OntologyTools`) wraps every source it opens from a
path/URL in a pool; the connections are ordinary read-only sources from
:func:`evoonto.sources.open_source` (same guard, timeouts and row caps).

Example::

    pool = SourcePool.open("concert_singer.sqlite", size=4)
    pool.run("SELECT COUNT(*) FROM singer", limit=1).scalar()
    pool.close()
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable

from evoonto.errors import SourceError
from evoonto.sources.base import DEFAULT_LIMIT, DEFAULT_MAX_CHARS, DEFAULT_TIMEOUT_MS, QueryResult

#: Default number of connections per source (the server runs calls in worker threads).
DEFAULT_POOL_SIZE = 4


class SourcePool:
    """One data source served through up to ``size`` connections (a ``Source`` itself).

    Args:
        primary: an open source (used first; its ``id``, ``kind`` and ``dialect`` are the pool's).
        opener: returns a new open connection to the same data (same id); None: never grow, every
            statement runs on ``primary`` one after the other.
        size: maximum number of connections, 1..64.
    Raises:
        ValueError: ``size`` outside 1..64.
    """

    def __init__(self, primary: Any, opener: Callable[[], Any] | None = None, *, size: int = DEFAULT_POOL_SIZE):
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 64:
            raise ValueError(f"pool size must be an integer from 1 to 64, got {size!r}")
        self.id: str = primary.id
        self.kind: str = primary.kind
        self.dialect: str | None = primary.dialect
        self.location: str = str(primary.location)
        self.size = size if opener is not None else 1
        self._opener = opener
        self._all: list[Any] = [primary]
        self._idle: list[Any] = [primary]
        self._cond = threading.Condition()
        self._tables: list[Any] | None = None
        self._closed = False

    @classmethod
    def open(cls, location: str | Path, *, source_id: str | None = None, kind: str | None = None,
             size: int = DEFAULT_POOL_SIZE) -> "SourcePool":
        """Open ``location`` with :func:`evoonto.sources.open_source` (now, so errors show at once)
        and pool up to ``size`` connections to it.

        Raises:
            SourceError: the source cannot be opened.
        """
        from evoonto.sources import open_source

        primary = open_source(location, source_id=source_id, kind=kind)
        return cls(primary, lambda: open_source(location, source_id=primary.id, kind=kind), size=size)

    @property
    def connections(self) -> int:
        """Number of connections opened so far (1..size)."""
        with self._cond:
            return len(self._all)

    def _lease(self) -> Any:
        with self._cond:
            while True:
                if self._closed:
                    raise SourceError(f"source {self.id!r} is closed")
                if self._idle:
                    return self._idle.pop()
                if len(self._all) < self.size:
                    self._all.append(None)  # reserve the slot; open outside the lock
                    break
                self._cond.wait()
        try:
            conn = self._opener()  # type: ignore[misc]
        except BaseException:
            with self._cond:
                self._all.remove(None)
                self._cond.notify()
            raise
        with self._cond:
            self._all[self._all.index(None)] = conn
        return conn

    def _release(self, conn: Any) -> None:
        with self._cond:
            if self._closed:
                conn.close()
                return
            self._idle.append(conn)
            self._cond.notify()

    def _with_connection(self, action: Callable[[Any], Any]) -> Any:
        conn = self._lease()
        try:
            return action(conn)
        finally:
            self._release(conn)

    def run(self, sql: str, *, limit: int = DEFAULT_LIMIT, timeout_ms: int = DEFAULT_TIMEOUT_MS,
            max_chars: int = DEFAULT_MAX_CHARS) -> QueryResult:
        """Run one read-only statement on an idle connection; see :meth:`BaseSource.run` (rows,
        milliseconds and characters are bounded the same way).

        Raises:
            ReadOnlyViolation, QueryTimeout, SourceError: as the source does (closed pool too).
        """
        return self._with_connection(lambda conn: conn.run(sql, limit=limit, timeout_ms=timeout_ms,
                                                           max_chars=max_chars))

    def tables(self) -> list[Any]:
        """The source's tables (read on one connection the first time, then cached)."""
        if self._tables is None:
            tables = self._with_connection(lambda conn: conn.tables())
            with self._cond:
                self._tables = list(tables)
        return list(self._tables)

    def table(self, name: str) -> Any:
        """The table called ``name`` (exact, then case-insensitive). Raises :class:`SourceError`."""
        tables = self.tables()
        found = next((t for t in tables if t.name == name), None) or next(
            (t for t in tables if t.name.casefold() == name.casefold()), None)
        if found is None:
            raise SourceError(f"source {self.id!r} has no table {name!r}")
        return found

    def quote(self, name: str) -> str:
        """``name`` quoted as an identifier in this source's dialect."""
        return self._all[0].quote(name)

    def close(self) -> None:
        """Close every idle connection now and every leased one when it is returned; idempotent."""
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._cond.notify_all()
        for conn in idle:
            conn.close()

    def __enter__(self) -> "SourcePool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<SourcePool id={self.id!r} kind={self.kind!r} connections={len(self._all)}/{self.size}>"


__all__ = ["SourcePool", "DEFAULT_POOL_SIZE"]
