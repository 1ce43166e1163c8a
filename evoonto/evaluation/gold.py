"""Gold SQL analysis: which tables, columns, joins and literal values a gold query uses.

The schema-linking scorer (:mod:`evoonto.evaluation.linking`) compares what a retrieval policy
surfaced against these sets. Parsing and alias resolution use sqlglot's qualifier
(``sqlglot.optimizer.qualify``) with the database schema, so ``T1.name`` becomes ``singer.name`` and an
unqualified ``name`` is attributed to the one table of its scope that has it.

Conventions (all names lower-cased, because SQLite identifiers are case-insensitive):

* a column is ``(table, column)``; ``*`` (as in ``count(*)``) is not a column;
* a join edge is a sorted pair of columns equated across two different tables (``JOIN … ON`` or
  ``WHERE a.x = b.y``);
* values are the *string* literals of the query (``'France'``, the pattern of ``LIKE '%Ben%'`` without
  its ``%``/``_`` wildcards). Numeric literals (``LIMIT 1``, ``age > 20``) are not values: they are
  copied from the question text or are SQL mechanics, not vocabulary the ontology must surface. For
  the same reason the format pattern of a date/time function (``'%Y'`` in ``strftime('%Y', date)``,
  sqlglot's ``format`` argument) is not a value: no column stores it.

SQLite reads a double-quoted token as an identifier when such a column exists and as a string
otherwise (Spider's gold uses ``"Ben Jones"`` as strings); :func:`analyze_sql` does the same.

Gold analysis is only for scorers: it is reached through :class:`~evoonto.evaluation.benchmarks.Gold`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from evoonto.errors import WorkloadError, first_line

Column = tuple[str, str]
"""A (table, column) pair, both lower-cased."""


@dataclass(frozen=True)
class GoldAnalysis:
    """What one gold query touches.

    Attributes:
        tables: lower-cased table names.
        columns: ``(table, column)`` pairs, lower-cased.
        joins: join edges, each a sorted pair of ``(table, column)`` pairs.
        values: string literals as written in the query (case preserved, wildcards stripped).
    """

    tables: frozenset[str]
    columns: frozenset[Column]
    joins: frozenset[tuple[Column, Column]]
    values: frozenset[str]


def analyze_sql(sql: str, schema: Mapping[str, Iterable[str]], *, dialect: str = "sqlite") -> GoldAnalysis:
    """Analyse one SQL query against a database schema.

    Args:
        sql: a single SELECT/WITH query (gold SQL of a benchmark).
        schema: ``{table name: column names}`` of the database (any case).
        dialect: sqlglot dialect of ``sql``.

    Returns:
        a :class:`GoldAnalysis`.

    Raises:
        WorkloadError: the query does not parse or names a table/column that is not in ``schema``.
    """
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError
    from sqlglot.optimizer.qualify import qualify
    from sqlglot.optimizer.scope import Scope, traverse_scope

    lowered = {t.lower(): {c.lower(): "TEXT" for c in cols} for t, cols in schema.items()}
    known_columns = {c for cols in lowered.values() for c in cols}
    qualify_schema: dict[str, object] = dict(lowered)  # sqlglot's parameter type is dict[str, object]

    def strings_for_unknown_quoted(node):
        # SQLite: "x" is an identifier if it resolves, else a string literal.
        if isinstance(node, exp.Column) and not node.table and node.this.quoted \
                and node.name.lower() not in known_columns:
            return exp.Literal.string(node.name)
        return node

    try:
        tree = sqlglot.parse_one(sql, read=dialect)
        tree = tree.transform(strings_for_unknown_quoted)
        tree = qualify(tree, schema=qualify_schema, dialect=dialect, quote_identifiers=False,
                       validate_qualify_columns=True)
    except (SqlglotError, ValueError, KeyError) as exc:
        raise WorkloadError(f"cannot analyse SQL {sql[:80]!r}: {first_line(exc)}") from None

    tables: set[str] = set()
    columns: set[Column] = set()
    joins: set[tuple[Column, Column]] = set()

    def real(scope: Scope, column: exp.Column) -> Column | None:
        source = scope.sources.get(column.table)
        if isinstance(source, exp.Table):
            return (source.name.lower(), column.name.lower())
        return None  # a derived table or CTE: its own scope reports the base columns

    for scope in traverse_scope(tree):
        for source in scope.sources.values():
            if isinstance(source, exp.Table):
                tables.add(source.name.lower())
        for column in scope.columns:
            if column.name == "*":
                continue
            resolved = real(scope, column)
            if resolved is not None:
                columns.add(resolved)
        for eq in scope.expression.find_all(exp.EQ):
            left, right = eq.this, eq.expression
            if isinstance(left, exp.Column) and isinstance(right, exp.Column):
                a, b = real(scope, left), real(scope, right)
                if a and b and a[0] != b[0]:
                    joins.add((min(a, b), max(a, b)))

    values: set[str] = set()
    for literal in tree.find_all(exp.Literal):
        if not literal.is_string:
            continue
        if literal.arg_key == "format" and isinstance(literal.parent, exp.Func):
            continue  # a date/time format pattern ('%Y'): SQL mechanics, not a stored value
        text = literal.this
        if isinstance(literal.parent, (exp.Like, exp.ILike)):
            text = text.replace("%", " ").replace("_", " ").strip()
        if text.strip():
            values.add(text.strip())
    return GoldAnalysis(frozenset(tables), frozenset(columns), frozenset(joins), frozenset(values))


def has_order_by(sql: str, *, dialect: str = "sqlite") -> bool:
    """True when the outermost query of ``sql`` has an ORDER BY (row order is then part of the answer).

    This is the rule of the Spider test-suite evaluation (``order_matters``), applied to the outermost
    SELECT only. Unparseable SQL falls back to a case-insensitive search for ``order by``.
    """
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError:
        return "order by" in " ".join(sql.lower().split())
    return isinstance(tree, exp.Query) and tree.args.get("order") is not None
