"""Dialect-aware SQL quoting: the one place evoonto turns names and values into SQL text.

Every SQL string the project generates (profiling, verification, join discovery, evolution's
value probes, Mapping filters) quotes identifiers with :func:`quote_identifier` and string values
with :func:`quote_literal`, both delegating to sqlglot's dialect generators, so a name such as
``Free Meal Count (K-12)``, ``order`` or ``a"b`` is written correctly for SQLite, DuckDB,
PostgreSQL, MySQL (backticks), T-SQL (brackets) and the other sqlglot dialects.

Example::

    quote_identifier('Free "x" (K-12)', "sqlite")   # '"Free ""x"" (K-12)"'
    quote_identifier("order", "mysql")              # '`order`'
    quote_literal("O'Brien", "duckdb")              # "'O''Brien'"
    sql_literal(3.5)                                # '3.5'
"""

from __future__ import annotations

import functools
import math
from typing import Any

from sqlglot import exp

from evoonto.errors import SourceError

__all__ = ["DIALECT_OF_KIND", "column_as_text", "dialect_of_kind", "quote_identifier", "quote_literal",
           "sql_literal"]

#: The sqlglot dialect of each source kind (``evo:sourceKind``): SQLite files, folders of files read
#: with DuckDB; SQLAlchemy URLs and unknown kinds use sqlglot's generic SQL (ANSI double quotes).
DIALECT_OF_KIND: dict[str, str | None] = {"sqlite": "sqlite", "files": "duckdb", "sqlalchemy": None}


def dialect_of_kind(kind: str | None, dialect: str | None = None) -> str | None:
    """The sqlglot dialect for a source kind (:data:`DIALECT_OF_KIND`); ``dialect`` when given."""
    return dialect or DIALECT_OF_KIND.get(kind or "")


def quote_identifier(name: str, dialect: str | None = None) -> str:
    """``name`` as a quoted SQL identifier for ``dialect`` (a sqlglot dialect name; ``None`` is
    sqlglot's default, ANSI double quotes), embedded quote characters escaped.

    Raises:
        SourceError: ``name`` is not a non-empty string, or contains a NUL character.
    """
    if not isinstance(name, str) or not name or "\x00" in name:
        raise SourceError(f"invalid identifier {name!r}")
    return _quoted_identifier(name, dialect)


@functools.lru_cache(maxsize=1 << 17)
def _quoted_identifier(name: str, dialect: str | None) -> str:
    """sqlglot's quoting of a valid ``name`` for ``dialect``, computed once per (name, dialect): quoting
    is a pure function, and a wide build quotes the same few thousand names tens of thousands of times."""
    return exp.to_identifier(name, quoted=True).sql(dialect=dialect)


def column_as_text(name: str, dialect: str | None = None) -> str:
    """Column ``name`` cast to text, as ``dialect`` writes it (sqlglot's generator):
    ``CAST("a" AS TEXT)`` in SQLite, DuckDB and PostgreSQL, ``CAST(`a` AS CHAR)`` in MySQL (which has
    no ``CAST … AS TEXT``), ``CAST([a] AS VARCHAR(MAX))`` in T-SQL.

    Raises:
        SourceError: as :func:`quote_identifier`.
    """
    return _column_as_text(name, dialect)


@functools.lru_cache(maxsize=4096)
def _column_as_text(name: str, dialect: str | None) -> str:
    quote_identifier(name, dialect)  # the same checks and errors
    return exp.Cast(this=exp.to_identifier(name, quoted=True), to=exp.DataType.build("TEXT")).sql(dialect=dialect)


def quote_literal(text: str, dialect: str | None = None) -> str:
    """``text`` as an SQL string literal for ``dialect`` (quotes and, where the dialect needs it,
    backslashes escaped).

    Raises:
        SourceError: ``text`` contains a NUL character.
    """
    text = str(text)
    if "\x00" in text:
        raise SourceError("string literal contains a NUL character")
    return _quoted_literal(text, dialect)


@functools.lru_cache(maxsize=1 << 16)
def _quoted_literal(text: str, dialect: str | None) -> str:
    """sqlglot's string literal of ``text`` for ``dialect``, computed once per (text, dialect) (pure)."""
    return exp.Literal.string(text).sql(dialect=dialect)


def sql_literal(value: Any, dialect: str | None = None) -> str:
    """An SQL literal for any ``value``: ``NULL``, ``1``/``0`` for booleans, finite numbers as
    written, anything else as a string literal (:func:`quote_literal`)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)) and math.isfinite(value):
        return repr(value)
    return quote_literal(str(value), dialect)
