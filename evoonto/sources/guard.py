"""Statement guard: only a single read-only ``SELECT``/``WITH`` query may reach a source.

Every statement an agent or a probe sends to a :class:`~evoonto.sources.base.Source` is parsed with
sqlglot and refused with :class:`~evoonto.errors.ReadOnlyViolation` unless it is exactly one query
whose root is a ``SELECT`` (optionally with ``WITH``), a set operation (``UNION``/``INTERSECT``/
``EXCEPT``) or a parenthesised query, and whose whole syntax tree contains no DML, DDL,
``ATTACH``/``DETACH``, ``PRAGMA``, ``SET``, ``COPY``, ``SELECT … INTO``, locking clause, or a
function that writes, loads code or reads files (``load_extension``, ``nextval``, ``read_csv`` …).

The guard is the first of several layers (DESIGN.md §4): each source also opens its engine
read-only (SQLite ``mode=ro`` + ``PRAGMA query_only`` + an authorizer, a read-only transaction on
server databases, an in-memory DuckDB with external access locked to the data folder), so a
statement the guard misjudges still cannot modify anything.

Example::

    >>> from evoonto.sources.guard import check_read_only
    >>> check_read_only('SELECT "Free Meal Count (K-12)" FROM frpm', dialect="sqlite").sql()
    'SELECT "Free Meal Count (K-12)" FROM frpm'
    >>> check_read_only("SELECT 1; DROP TABLE frpm", dialect="sqlite")
    Traceback (most recent call last):
    ...
    evoonto.errors.ReadOnlyViolation: refused: exactly one statement is allowed, got 2 (read-only source)
"""

from __future__ import annotations

import functools
import re
import string
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from evoonto.errors import ReadOnlyViolation
from evoonto.sources.quoting import quote_identifier, quote_literal

__all__ = [
    "MAX_SQL_CHARS",
    "MAX_STATEMENT_CHARS",
    "MAX_NESTING",
    "DENIED_FUNCTIONS",
    "check_read_only",
    "check_expression",
    "CheckedSql",
    "SqlTemplate",
]

#: Longest statement accepted, in characters. Longer text is refused before it is parsed.
MAX_SQL_CHARS = 100_000
#: Longest statement a person or an agent may send (``run_sql``, ``check_sql``, a verified query), in
#: characters: what is longer is refused as an argument, before any parsing (a 1 MB verified query once
#: kept sqlglot busy for over 70 s).
MAX_STATEMENT_CHARS = 20_000
#: Deepest parenthesis nesting accepted (checked on tokens, before parsing).
MAX_NESTING = 100

# Statement or clause node types that must not appear anywhere in an allowed tree. Looked up by
# name so that a sqlglot version without one of them still works.
_DENIED_NODE_NAMES = (
    "Insert", "Update", "Delete", "Merge", "Create", "Drop", "Alter", "AlterSession", "Command",
    "Pragma", "Set", "SetItem", "Copy", "TruncateTable", "Use", "LoadData", "Transaction", "Commit",
    "Rollback", "Grant", "Revoke", "Analyze", "Attach", "Detach", "Install", "Into", "Lock",
    "Returning", "OnConflict", "Export", "Cache", "Uncache", "Refresh", "Kill", "Execute",
    "ExecuteSql", "Declare", "Comment", "Undrop", "SwapTable", "NextValueFor",
    "UserDefinedFunction", "ConnectTo", "Disconnect", "Describe", "Summarize", "Show",
)
_DENIED_NODES = tuple(getattr(exp, name) for name in _DENIED_NODE_NAMES if hasattr(exp, name))

#: Functions refused in every dialect (lower case): code loading, file access, sequence and
#: session writes, dynamic SQL, server administration.
DENIED_FUNCTIONS = frozenset(
    {
        # SQLite
        "load_extension", "readfile", "writefile", "edit", "fts3_tokenizer",
        # PostgreSQL
        "nextval", "setval", "set_config", "pg_read_file", "pg_read_binary_file", "pg_ls_dir",
        "pg_stat_file", "lo_import", "lo_export", "lo_unlink", "lo_create", "lo_from_bytea",
        "lo_put", "dblink", "dblink_exec", "dblink_connect", "pg_advisory_lock",
        "pg_advisory_xact_lock", "pg_try_advisory_lock", "pg_terminate_backend",
        "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile", "pg_switch_wal",
        "query_to_xml", "query_to_xml_and_xmlschema", "table_to_xml", "cursor_to_xml",
        # MySQL / SQL Server / Oracle
        "load_file", "sys_exec", "sys_eval", "xp_cmdshell", "openrowset", "opendatasource",
        "get_lock", "release_lock",
        # DuckDB table functions that read arbitrary files or other databases
        "read_csv", "read_csv_auto", "read_parquet", "parquet_scan", "read_json",
        "read_json_auto", "read_json_objects", "read_ndjson", "read_ndjson_auto", "read_text",
        "read_blob", "sqlite_scan", "sqlite_attach", "postgres_scan", "postgres_attach",
        "mysql_scan", "iceberg_scan", "delta_scan", "read_xlsx", "install_extension",
        "parquet_metadata", "parquet_schema",
    }
)

# Functions whose name is harmless in some dialects (SQLite's GLOB) but not in others.
_DENIED_BY_DIALECT = {"duckdb": frozenset({"glob", "query", "query_table", "list_resize", "array_resize",
                                           "getenv", "read_text", "read_blob"})}

#: DuckDB builds a scalar value (a list from ``range(n)``, a string from ``repeat(s, n)``) in one
#: step that neither ``interrupt()`` nor ``memory_limit`` can stop (measured: 7.8 GB in 35 s for
#: ``len(list(range(300000000)))``). Such builders are refused unless their size is a literal of at
#: most this many items/characters; ``range``/``generate_series`` as a table in ``FROM`` (streamed,
#: interruptible) stays allowed.
MAX_SCALAR_BUILD = 100_000
_SIZED_BUILDERS = {"Repeat": "times", "Pad": "expression"}
#: Formatting functions whose format string may ask for a huge width (``printf('%2000000000d', 1)``).
_FORMATTERS = frozenset({"printf", "format", "sprintf"})
_NUMBER = re.compile(r"\d+")

_ALLOWED_FIRST_TOKENS = {TokenType.SELECT, TokenType.WITH, TokenType.L_PAREN}


def _refuse(reason: str, stage: str = "shape") -> ReadOnlyViolation:
    return ReadOnlyViolation(f"refused: {reason} (read-only source)", stage)


def _function_names(node: exp.Func) -> set[str]:
    names = {type(node).__name__.lower()}
    if isinstance(node, exp.Anonymous):
        names.add(str(node.name).lower())
    else:
        try:
            names.add(node.sql_name().lower())
        except Exception:  # pragma: no cover - defensive, sql_name() is defined on Func
            pass
    return names


def check_read_only(
    sql: str, *, dialect: str | None = None, max_chars: int = MAX_SQL_CHARS
) -> exp.Expression:
    """Parse ``sql`` and return its sqlglot tree if it is one read-only query, else refuse it.

    Args:
        sql: the statement text (comments and one trailing ``;`` are fine).
        dialect: sqlglot dialect name of the engine (``"sqlite"``, ``"duckdb"``, ``"postgres"``,
            ``"mysql"`` …); ``None`` uses sqlglot's generic dialect.
        max_chars: longest accepted statement, in characters.

    Returns:
        The parsed root expression (a ``Select``, a set operation or a ``Subquery``).

    Raises:
        ReadOnlyViolation: with a one-line reason: empty/too long/too deeply nested/unparsable
            text, more than one statement, a root that is not a query, or a forbidden node or function in the tree.
    """
    if not isinstance(sql, str):
        raise _refuse(f"statement must be a string, got {type(sql).__name__}", "parse")
    if len(sql) > max_chars:
        raise _refuse(f"statement is {len(sql):,} characters long, the limit is {max_chars:,}", "size")
    try:
        engine = Dialect.get_or_raise(dialect)
    except ValueError as err:
        raise ReadOnlyViolation(f"unknown SQL dialect {dialect!r}: {_first_line(err)}", "parse") from None
    try:
        tokens = engine.tokenize(sql)
    except (TokenError, ParseError, ValueError) as err:
        raise _refuse(f"statement could not be tokenised: {_first_line(err)}", "parse") from None
    if not tokens or all(t.token_type == TokenType.SEMICOLON for t in tokens):
        raise _refuse("empty statement")
    # Fast structural checks on tokens: they also catch statements sqlglot would only parse
    # as an opaque Command (VACUUM, REPLACE, EXPLAIN …).
    statements = _split_count(tokens)
    if statements > 1:
        raise _refuse(f"exactly one statement is allowed, got {statements}")
    depth = deepest = 0
    for token in tokens:
        if token.token_type == TokenType.L_PAREN:
            depth += 1
            deepest = max(deepest, depth)
        elif token.token_type == TokenType.R_PAREN:
            depth -= 1
    if deepest > MAX_NESTING:
        raise _refuse(f"statement nests parentheses {deepest} deep, the limit is {MAX_NESTING}", "depth")
    first = tokens[0]
    if first.token_type not in _ALLOWED_FIRST_TOKENS:
        raise _refuse(f"only SELECT/WITH queries are allowed, got {first.text.upper()!r}")
    try:
        trees = [t for t in engine.parser().parse(tokens, sql) if t is not None]
    except (ParseError, TokenError) as err:
        raise _refuse(f"statement could not be parsed: {_first_line(err)}", "parse") from None
    except RecursionError:
        raise _refuse("statement is nested too deeply to be checked", "depth") from None
    if len(trees) != 1:
        raise _refuse(f"exactly one statement is allowed, got {len(trees)}")
    tree = trees[0]
    if not isinstance(tree, (exp.Select, exp.SetOperation, exp.Subquery)):
        raise _refuse(f"only SELECT/WITH queries are allowed, got {type(tree).__name__.upper()}")
    denied_functions = DENIED_FUNCTIONS | _DENIED_BY_DIALECT.get(dialect or "", frozenset())
    try:
        for node in tree.walk():
            if isinstance(node, _DENIED_NODES):
                raise _refuse(f"{type(node).__name__.upper()} is not allowed inside a query", "content")
            if isinstance(node, exp.Func):
                bad = _function_names(node) & denied_functions
                if bad:
                    raise _refuse(f"function {sorted(bad)[0]}() is not allowed", "content")
                if dialect == "duckdb":
                    _check_scalar_build(node)
    except RecursionError:
        raise _refuse("statement is nested too deeply to be checked", "depth") from None
    return tree


def check_expression(text: str, *, dialect: str | None = None, max_chars: int = 10_000) -> exp.Expression:
    """Judge one SQL *expression* (a dbt ``expr``, a metric ``filter``, a Mapping's formula) by the
    same rules as a whole statement: it is wrapped as ``SELECT <text>`` and passed to
    :func:`check_read_only` (size, nesting depth, one statement, denied nodes and functions), and the
    wrapped query must be nothing but one projection (no ``FROM``, ``WHERE``, ``;`` …).

    Args:
        text: the expression text, e.g. ``"amount * quantity"``.
        dialect: sqlglot dialect name (``None``: sqlglot's generic dialect).
        max_chars: longest accepted expression, in characters.

    Returns:
        The parsed expression (the projection's tree).

    Raises:
        ReadOnlyViolation: with a one-line reason and its ``stage`` (see :func:`check_read_only`);
            ``"shape"`` when the text is more than one expression.
    """
    if not isinstance(text, str):
        raise _refuse(f"expression must be a string, got {type(text).__name__}", "parse")
    if len(text) > max_chars:
        raise _refuse(f"expression is {len(text):,} characters long, the limit is {max_chars:,}", "size")
    if not text.strip():
        raise _refuse("empty expression")
    tree = check_read_only(f"SELECT {text}", dialect=dialect, max_chars=max_chars + 7)
    if not isinstance(tree, exp.Select) or len(tree.expressions) != 1 or any(
            value for key, value in tree.args.items() if key != "expressions"):
        raise _refuse("an expression must be one SQL expression (no FROM, WHERE, ORDER BY, LIMIT or second column)")
    return tree.expressions[0]


class CheckedSql(str):
    """SQL text the guard has passed for :attr:`dialect`: a ``str`` that
    :meth:`~evoonto.sources.base.BaseSource.run` runs without parsing it again.

    Only :meth:`SqlTemplate.render` makes one (the constructor needs a private key), so text from an
    agent, a file or any other caller is always a plain ``str`` and always parsed by
    :func:`check_read_only`.
    """

    __slots__ = ("dialect",)
    dialect: str | None

    def __new__(cls, text: str, dialect: str | None, key: object) -> CheckedSql:
        if key is not _RENDER_KEY:
            raise TypeError("CheckedSql is made only by SqlTemplate.render")
        made = super().__new__(cls, text)
        made.dialect = dialect
        return made

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        """A pickled or copied CheckedSql becomes a plain ``str`` (checked again when run): its
        constructor needs the private key, which unpickling and ``copy`` cannot give."""
        return (str, (str(self),))

    def checked_for(self, dialect: str | None) -> bool:
        """True when :meth:`SqlTemplate.render` made this text for ``dialect`` (an instance made
        around the constructor, e.g. by ``str.__new__``, has no dialect and is never trusted)."""
        # genuinely optional: ``str.__new__(CheckedSql, …)`` leaves the ``dialect`` slot unset
        return type(self) is CheckedSql and getattr(self, "dialect", _NOT_RENDERED) == dialect


_RENDER_KEY = object()
_NOT_RENDERED = object()
#: The name of a slot's stand-in identifier when a template's shape is checked.
_SLOT_NAME = "evoonto_slot_{}"
_SLOT_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Parents an identifier slot may have in the checked tree: a column, table or alias name, never a
#: function name or anything else whose meaning could depend on the identifier's text.
_SLOT_PARENTS = (exp.Column, exp.Table, exp.TableAlias, exp.Alias)
#: Parents a string-literal slot may have in the checked tree: one side of a comparison or an ``IN``
#: list, where the value's text is only compared, never interpreted (not a function argument such as a
#: format string or a file name, not a ``LIKE`` pattern, not an alias).
_LITERAL_PARENTS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.In)


@dataclass(frozen=True)
class SqlTemplate:
    """A query shape evoonto generates, with ``{name}`` slots that are filled only with quoted
    identifiers (table and column names) or, for the slots named in :attr:`literals`, quoted string
    values compared with a column.

    The guard checks a template once per dialect: :func:`check_read_only` on the text with each slot
    filled by a stand-in quoted identifier (a stand-in string literal for a literal slot), plus a check
    that every identifier slot is a column, table or alias name in the parsed tree (not a function
    name) and every literal slot a string literal compared with ``=``, ``<>``, ``<``, ``<=``, ``>``,
    ``>=`` or listed in ``IN``. :meth:`render` then fills the slots with names and values quoted by
    sqlglot (:func:`~evoonto.sources.quoting.quote_identifier`,
    :func:`~evoonto.sources.quoting.quote_literal`), which escape any quote character inside them, so
    every rendering parses to the same tree as the checked one and the guard's verdict cannot change;
    it returns a :class:`CheckedSql` that the source runs without re-parsing (the profiler issues one
    such query per column, verification one value filter per value Term).

    Attributes:
        text: the SQL text; ``{name}`` marks a slot; literal braces are written ``{{`` and ``}}``
            (``str.format`` syntax).
        literals: the slots filled with string values (each rendered as one SQL string literal);
            every other slot takes an identifier.

    Example::

        >>> t = SqlTemplate('SELECT {col} AS v, COUNT(*) AS n FROM {table} GROUP BY {col}')
        >>> t.render("sqlite", col="Free Meal Count (K-12)", table="frpm")
        'SELECT "Free Meal Count (K-12)" AS v, COUNT(*) AS n FROM "frpm" GROUP BY "Free Meal Count (K-12)"'
        >>> SqlTemplate("SELECT COUNT(*) FROM {table} WHERE {col} = {value}", frozenset({"value"})).render(
        ...     "sqlite", table="t", col="region", value="north")
        'SELECT COUNT(*) FROM "t" WHERE "region" = \'north\''
    """

    text: str
    literals: frozenset[str] = frozenset()

    @property
    def slots(self) -> frozenset[str]:
        """The slot names of :attr:`text`.

        Raises:
            ReadOnlyViolation: a replacement field is not a bare ``{name}`` (see :func:`_slot_fields`).
        """
        return _slot_names(self.text)

    def render(self, dialect: str | None, **names: str) -> CheckedSql:
        """The query with each slot filled by its name (or, for a literal slot, its value), quoted for
        ``dialect``.

        Args:
            dialect: the source's sqlglot dialect (``BaseSource.dialect``).
            names: one identifier (unquoted) per identifier slot, one string value (unquoted) per
                literal slot.

        Returns:
            A :class:`CheckedSql` for ``dialect``.

        Raises:
            ReadOnlyViolation: the template is not one read-only query, a slot is not an identifier
                (or, for a literal slot, a compared value) position, or a field is not a bare
                ``{name}`` (a generator bug).
            SourceError: a name is empty, or a name or value contains a NUL character.
            TypeError: a literal slot's value is not a ``str``.
            ValueError: ``names`` does not give exactly the template's slots, or :attr:`literals`
                names a slot the text does not have.
        """
        if set(names) != self.slots:
            raise ValueError(f"template slots are {sorted(self.slots)}, got {sorted(names)}")
        _check_template(self.text, dialect, self.literals)
        quoted = {}
        for slot, name in names.items():
            if slot in self.literals:
                if not isinstance(name, str):
                    raise TypeError(f"literal slot {slot!r} takes a str, got {type(name).__name__}")
                quoted[slot] = quote_literal(name, dialect)
            else:
                quoted[slot] = quote_identifier(name, dialect)
        return CheckedSql(self.text.format(**quoted), dialect, _RENDER_KEY)


@functools.lru_cache(maxsize=1024)
def _check_template(text: str, dialect: str | None, literals: frozenset[str] = frozenset()) -> None:
    """Check a template's shape (see :class:`SqlTemplate`); the verdict is cached per text, dialect and
    literal slots."""
    fields = _slot_fields(text)
    slots = frozenset(fields)
    if not literals <= slots:
        raise ValueError(f"literal slots {sorted(literals - slots)} are not slots of the template")
    stand_ins = {slot: _SLOT_NAME.format(slot) for slot in slots}
    filled = text.format(**{slot: quote_literal(name, dialect) if slot in literals else quote_identifier(name, dialect)
                            for slot, name in stand_ins.items()})
    tree = check_read_only(filled, dialect=dialect)
    wanted = {stand_ins[slot] for slot in slots - literals}
    wanted_values = {stand_ins[slot] for slot in literals}
    seen = 0
    for node in tree.find_all(exp.Identifier):
        if node.this in wanted_values:
            raise _refuse(f"template literal slot {node.this!r} is not a string value")
        if node.this in wanted:
            if not (node.quoted and isinstance(node.parent, _SLOT_PARENTS)):
                raise _refuse(f"template slot {node.this!r} is not a column, table or alias name")
            seen += 1
    for literal in tree.find_all(exp.Literal):
        if literal.is_string and literal.this in wanted_values:
            if not isinstance(literal.parent, _LITERAL_PARENTS):
                raise _refuse(f"template literal slot {literal.this!r} is not a value compared with a column")
            seen += 1
    occurrences = len(fields)
    if seen != occurrences:
        raise _refuse(f"template has {occurrences} slots but {seen} of them are identifiers or compared values")


@functools.lru_cache(maxsize=1024)
def _slot_names(text: str) -> frozenset[str]:
    """The slot names of a template's text (:func:`_slot_fields`), parsed once per text (a wide build
    renders one template per column)."""
    return frozenset(_slot_fields(text))


def _slot_fields(text: str) -> list[str]:
    """The replacement fields of a template's text, in order, as parsed by ``string.Formatter``
    (the parser ``str.format`` uses). Each must be a bare ``{name}``: a conversion (``{c!r}``), a
    format spec (``{c:>9}``), an attribute or index (``{c[0]}``) or a positional field would put
    text other than the quoted identifier into the SQL, which the shape check cannot see.

    Raises:
        ReadOnlyViolation: a field is not a bare name, or the text is not a valid format string.
    """
    fields: list[str] = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as err:
        raise _refuse(f"template is not a format string: {err}") from None
    for _, field, spec, conversion in parsed:
        if field is None:
            continue
        if not _SLOT_NAME_RE.fullmatch(field) or spec or conversion is not None:
            shown = field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
            raise _refuse(f"template field {{{shown}}} is not a bare {{name}} slot")
        fields.append(field)
    return fields


def _check_scalar_build(node: exp.Func) -> None:
    """Refuse a DuckDB scalar that may build one unbounded value (see :data:`MAX_SCALAR_BUILD`)."""
    if isinstance(node, exp.GenerateSeries) and not isinstance(node.parent, exp.Table):
        raise _refuse("range()/generate_series() as a value is not allowed; use it in FROM", "content")
    if _function_names(node) & _FORMATTERS:
        spec = node.this if isinstance(node, exp.Format) else (node.expressions or [None])[0]
        if not (isinstance(spec, exp.Literal) and spec.is_string):
            raise _refuse("printf()/format() needs a literal format string", "content")
        if any(int(n) > MAX_SCALAR_BUILD for n in _NUMBER.findall(spec.this)):
            raise _refuse(f"printf()/format() widths are limited to {MAX_SCALAR_BUILD:,} characters", "content")
        return
    arg = _SIZED_BUILDERS.get(type(node).__name__)
    if arg is None:
        return
    size = node.args.get(arg)
    literal = size.to_py() if isinstance(size, exp.Literal) and not size.is_string else None
    if not isinstance(literal, (int, float)) or literal > MAX_SCALAR_BUILD:
        raise _refuse(f"{type(node).__name__.lower()}() needs a literal size of at most "
                      f"{MAX_SCALAR_BUILD:,}", "content")


def _split_count(tokens) -> int:
    """Number of non-empty statements in a token list (separated by semicolons)."""
    count, current = 0, 0
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            count += current > 0
            current = 0
        else:
            current += 1
    return count + (current > 0)


def _first_line(err: Exception) -> str:
    text = str(err).strip().splitlines()
    return text[0][:200] if text else type(err).__name__
