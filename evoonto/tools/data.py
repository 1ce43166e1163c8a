"""Raw read-only data tools (``--data-tools``): list_tables, describe_table, run_sql.

They let one MCP server serve a whole data agent (the paper's Baseline condition uses only these).
Everything goes through :mod:`evoonto.sources` (single SELECT/WITH statements, row caps, timeouts).
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from evoonto.errors import ToolArgumentError
from evoonto.sources.guard import MAX_STATEMENT_CHARS

MAX_SQL_CHARS = MAX_STATEMENT_CHARS
MAX_ROWS = 200
MAX_CELL_CHARS = 500
#: Largest ``run_sql`` answer, in characters of its JSON text (rows past it are left out, with a note).
MAX_ANSWER_CHARS = 100_000
#: Answer-size bound handed to the source (characters fetched before cells are clipped).
SOURCE_MAX_CHARS = 1_000_000


def bound_answer(columns: list[str], rows: list[list[Any]], truncated: bool, note: str = "",
                 *, max_chars: int = MAX_ANSWER_CHARS) -> dict[str, Any]:
    """``{columns, rows, truncated[, note]}`` holding as many leading rows as fit in ``max_chars``
    characters of JSON (``json.dumps`` with ``default=str``); ``note`` says when rows were cut.

    Raises:
        ToolArgumentError: not even the column names fit in ``max_chars``.
    """
    base = len(json.dumps({"columns": columns, "rows": [], "truncated": True, "note": " " * 120},
                          default=str))
    if base > max_chars:
        raise ToolArgumentError(f"the answer's column names alone exceed {max_chars:,} characters")
    used = base
    kept: list[list[Any]] = []
    for row in rows:
        size = len(json.dumps(row, default=str)) + 2
        if used + size > max_chars:
            note = (f"answer cut at {len(kept):,} of {len(rows):,} rows: more than {max_chars:,} "
                    "characters; select fewer columns or rows")
            truncated = True
            break
        used += size
        kept.append(row)
    answer: dict[str, Any] = {"columns": columns, "rows": kept, "truncated": bool(truncated)}
    if note:
        answer["note"] = note
    return answer


def _cell(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    text = str(value)
    return text if len(text) <= MAX_CELL_CHARS else text[: MAX_CELL_CHARS - 1] + "…"


class DataTools:
    """Read-only access to the workspace's sources.

    Args:
        sources: source id -> open :class:`evoonto.sources.Source`.
    """

    def __init__(self, sources: Mapping[str, Any]):
        self.sources = dict(sources)

    def _source(self, source: str | None) -> Any:
        if source is None:
            if len(self.sources) == 1:
                return next(iter(self.sources.values()))
            if not self.sources:
                raise ToolArgumentError("no data source is configured")
            raise ToolArgumentError(f"several sources; pass source= one of {', '.join(sorted(self.sources))}")
        if not isinstance(source, str) or source not in self.sources:
            shown = source[:60] if isinstance(source, str) else type(source).__name__
            raise ToolArgumentError(f"unknown source {shown!r}; use one of {', '.join(sorted(self.sources))}")
        return self.sources[source]

    def list_tables(self) -> list[dict[str, Any]]:
        """``[{source, table, rows, columns}]`` for every table of every source."""
        out = []
        for sid, src in sorted(self.sources.items()):
            for table in src.tables():
                out.append({"source": sid, "table": table.name, "rows": table.row_count,
                            "columns": len(table.columns)})
        return out

    def describe_table(self, table: str, source: str | None = None) -> dict[str, Any]:
        """Columns (name, type, primary key), primary key and foreign keys of one table.

        Raises:
            ToolArgumentError: unknown source or table.
        """
        if not isinstance(table, str) or not table or len(table) > 500:
            raise ToolArgumentError("describe_table: table must be a table name")
        src = self._source(source)
        matches = [t for t in src.tables() if t.name == table] or [
            t for t in src.tables() if t.name.casefold() == table.casefold()]
        if not matches:
            raise ToolArgumentError(f"describe_table: no table {table[:60]!r} in source {src.id!r}")
        info = matches[0]
        return {
            "source": src.id, "table": info.name, "rows": info.row_count,
            "columns": [{"name": c.name, "type": c.declared_type, **({"pk": True} if c.primary_key else {})}
                        for c in info.columns],
            "foreign_keys": [{"columns": list(fk.columns), "references": fk.ref_table,
                              "ref_columns": list(fk.ref_columns)} for fk in info.foreign_keys],
        }

    def run_sql(self, sql: str, source: str | None = None, limit: int = 50) -> dict[str, Any]:
        """Run one read-only SELECT/WITH statement.

        Returns:
            ``{columns, rows, truncated[, note]}``; at most ``limit`` (≤ 200) rows, cells clipped to
            500 characters, at most :data:`MAX_ANSWER_CHARS` characters of JSON in all; ``note``
            (present when the answer was cut) says which bound cut it.
        Raises:
            ToolArgumentError: empty/oversized SQL or bad limit; ReadOnlyViolation, QueryTimeout,
                SourceError from the source layer.
        """
        if not isinstance(sql, str) or not sql.strip():
            raise ToolArgumentError("run_sql: sql must be a non-empty SELECT statement")
        if len(sql) > MAX_SQL_CHARS:
            raise ToolArgumentError(f"run_sql: sql is longer than {MAX_SQL_CHARS} characters")
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_ROWS:
            raise ToolArgumentError(f"run_sql: limit must be an integer from 1 to {MAX_ROWS}")
        result = self._source(source).run(sql, limit=limit, max_chars=SOURCE_MAX_CHARS)
        return bound_answer(list(result.columns), [[_cell(v) for v in row] for row in result.rows],
                            bool(result.truncated), result.note)

    def close(self) -> None:
        """Close every source."""
        for src in self.sources.values():
            src.close()
