"""The shared context of one ``check_sql`` run: the statement, its resolved tables and columns.

:class:`CheckContext` is what every rule of :data:`evoonto.tools.sqlcheck.RULES` reads and adds
findings to (the style of sqlglot's optimizer rules: one function per rule over one shared object).
Its first step, :meth:`CheckContext.resolve_names`, walks the statement's scopes with sqlglot and
reports tables and columns the catalog does not have.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Iterator, Sequence

from rapidfuzz import fuzz, process
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect, NormalizationStrategy
from sqlglot.errors import ParseError, SqlglotError
from sqlglot.optimizer.scope import Scope, traverse_scope

from evoonto.catalog import SourceSchema, TableInfo
from evoonto.sources.joins import GENERIC_NAME_WORDS, type_family
from evoonto.sources.quoting import quote_identifier
from evoonto.text import normalize, split_identifier
from evoonto.tools.findings import Finding, Severity
from evoonto.tools.findings import node_span as _span
from evoonto.tools.joinpaths import TableRef
from evoonto.tools.sqlcheck.facts import SUGGESTIONS, CheckFacts, _float
from evoonto.tools.sqlcheck.probes import DataProbe

__all__ = ["CheckContext"]


#: The dialects whose names :meth:`CheckContext.check_name_case` checks, as a message names them.
_DIALECT_NAMES = {"postgres": "PostgreSQL", "redshift": "Redshift"}

#: The types of a date or time literal (``DATE '…'``, ``'…'::timestamp``) whose text the value and
#: range rules read as they read a plain string literal.
_TEMPORAL_TYPES = (exp.DataType.Type.DATE, exp.DataType.Type.DATE32, exp.DataType.Type.DATETIME,
                   exp.DataType.Type.DATETIME64, exp.DataType.Type.TIMESTAMP, exp.DataType.Type.TIMESTAMPTZ,
                   exp.DataType.Type.TIMESTAMPLTZ, exp.DataType.Type.TIMESTAMPNTZ, exp.DataType.Type.TIME)


def _merges_columns(scope: Scope | None) -> bool:
    """True when a join of the scope merges same-named columns (``USING`` or ``NATURAL``)."""
    select_node = scope.expression if scope is not None else None
    joins = select_node.args.get("joins") or [] if isinstance(select_node, exp.Select) else []
    return any(j.args.get("using") or str(j.args.get("method") or "").upper() == "NATURAL" for j in joins)


def _output_names(source: Any) -> set[str] | None:
    """The casefolded output column names of a derived table or CTE scope, or None when they are
    unknown (a ``*`` select, a set operation whose branches are not all SELECTs, or another source)."""
    expression = source.expression if isinstance(source, Scope) else None
    if not isinstance(expression, exp.Query):
        return None
    selects = [expression] if isinstance(expression, exp.Select) else \
        [expression.left] if isinstance(expression, exp.SetOperation) else []
    if not selects or not isinstance(selects[0], exp.Select) or selects[0].is_star:
        return None
    if any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
           for e in selects[0].expressions):
        return None
    names = [n for n in selects[0].named_selects]
    if len(names) != len(selects[0].expressions):
        return None  # an unnamed expression (e.g. count(*)): its name depends on the database
    return {n.casefold() for n in names}


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _only_kind(facts: CheckFacts) -> str:
    kinds = {s.kind for s in facts.sources.values()}
    return kinds.pop() if len(kinds) == 1 else ""


def _first_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:200]


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_CLASS = re.compile(r"<class '(?:[\w]+\.)*(\w+)'>")


def _unquoted_names(sql: str, names: Iterable[str]) -> list[str]:
    """Catalog names that need quoting (``flag-1``, ``Order Details``) written bare in ``sql``."""
    out = []
    for name in names:
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name in out:
            continue
        if re.search(r"(?<![\w\"`\[.])" + re.escape(name) + r"(?![\w\"`\]])", sql):
            out.append(name)
    return out


def _parse_error(exc: Exception, sql: str, names: Iterable[str] = ()) -> Finding:
    """A ``parse_error`` finding from a sqlglot error: its description without terminal colour codes
    or Python class paths, the token it stopped at, and that token's span in ``sql``. ``names``: the
    catalog's table and column names; one that needs quoting and is written bare (``FROM flag-1``) is
    the suggestion."""
    errors = exc.errors if isinstance(exc, ParseError) else []
    first = errors[0] if errors and isinstance(errors[0], dict) else {}
    description = _CLASS.sub(r"\1", _ANSI.sub("", str(first.get("description") or _first_line(exc))))
    near = _ANSI.sub("", str(first.get("highlight") or "")).strip()
    line, col = first.get("line"), first.get("col")
    start = end = None
    if isinstance(line, int) and isinstance(col, int) and line >= 1:
        lines = sql.split("\n")
        if line <= len(lines):
            end = sum(len(row) + 1 for row in lines[:line - 1]) + col  # sqlglot's col: 1-based end of the token
            start = max(end - len(near), 0) if near else max(end - 1, 0)
    where = f" near {near!r}" if near else ""
    position = f" (line {line}, column {col})" if start is not None else ""
    bare = _unquoted_names(sql, names)
    hint = ("; " + ", ".join(repr(n) for n in bare[:3]) + " must be quoted (\"name\")") if bare else ""
    suggestion = ", ".join(f'"{n}"' for n in bare[:3]) if bare else "write one SELECT statement"
    return Finding("parse_error", "Violation", f"the SQL does not parse{where}{position}: "
                   f"{' '.join(description.split())[:200]}{hint}", suggestion, start, end)


def _pick_source(facts: CheckFacts, statement: exp.Query) -> SourceSchema | None:
    if len(facts.sources) <= 1:
        return next(iter(facts.sources.values()), None)
    names = {t.name.casefold() for t in statement.find_all(exp.Table)}
    return max(facts.sources.values(),
               key=lambda s: (sum(1 for t in s.tables if t.name.casefold() in names), s.id == min(facts.sources)))


def _name_score(query: str, choice: str, **_kwargs: Any) -> float:
    """How alike two names are, 0..100: their :func:`rapidfuzz.fuzz.ratio` (a misspelling, ``custmer``
    for ``customer``), or 80 when they share a whole word that tells columns apart (``total`` and
    ``total_price``; not ``id`` or ``name``, :data:`~evoonto.sources.joins.GENERIC_NAME_WORDS`). Not
    ``WRatio``'s partial matches: ``total`` scored 72 against ``postal_code`` for sharing ``tal``."""
    words = {w for w in split_identifier(query.casefold()) if len(w) >= 3 and w not in GENERIC_NAME_WORDS}
    shared = words & set(split_identifier(choice.casefold()))
    return max(fuzz.ratio(query.casefold(), choice.casefold()), 80.0 if shared else 0.0)


def _nearest_columns(name: str, tables: Iterable[TableInfo]) -> list[str]:
    """``table.column`` of the columns of ``tables`` whose name is nearest ``name`` (:func:`_nearest`),
    nearest first, then in schema order among columns of one name."""
    pool = [(t.name, c.name) for t in tables for c in t.columns]
    near = _nearest(name, [c for _t, c in pool])
    return [f"{t}.{c}" for t, c in sorted((p for p in pool if p[1] in near), key=lambda p: near.index(p[1]))]


def _nearest(query: str, choices: Iterable[str], n: int = SUGGESTIONS, cutoff: float = 70.0) -> list[str]:
    """The names of ``choices`` nearest ``query`` (:func:`_name_score` ≥ ``cutoff``), exact matches
    ignoring case first, at most ``n``."""
    pool = list(dict.fromkeys(choices))
    if not pool:
        return []
    exact = [c for c in pool if c.casefold() == query.casefold()]
    found = process.extract(query, {i: c for i, c in enumerate(pool)}, scorer=_name_score,
                            limit=n + len(exact), score_cutoff=cutoff)
    ranked = exact + [pool[key] for _c, _s, key in found if pool[key] not in exact]
    return ranked[:n]


#: the least :func:`rapidfuzz.fuzz.ratio` (0-100, case-folded) of a data value offered for a literal
#: the data does not hold: a misspelling of it (``'Califronia'``: 90, ``'Jimi Hendrx'``), not a value
#: that only contains it (``'Australia'`` for ``'US'``) or shares its beginning (``'Rock And Roll'``
#: for ``'Roc'``): another value selects other rows, so it is never offered as the fix.
SPELLING_RATIO = 75.0

_DIGITS = re.compile(r"\d+")
#: what may follow a date for the stored value to be the same day: a midnight time
_MIDNIGHT = re.compile(r"^[ T]00:00(?::00(?:\.0+)?)?$")


def _at_midnight(value: str, choice: str) -> bool:
    """Whether ``choice`` is ``value`` followed by a midnight time (``'2023-01-02 00:00:00'``)."""
    folded, other = value.casefold(), choice.casefold()
    return other.startswith(folded) and bool(_MIDNIGHT.match(other[len(folded):]))


def _same_numbers(value: str, choice: str) -> bool:
    """Whether ``choice`` holds the numbers ``value`` writes: the same digit runs (``'A-11'`` and
    ``'A11'``), or ``value`` is a date and ``choice`` that date at midnight (``'2023-01-02'`` and
    ``'2023-01-02 00:00:00'``). Another day, year or code number is another value, however close its
    spelling (``'2023-01-01'`` and ``'2023-01-02'``: ratio 90)."""
    return _DIGITS.findall(value) == _DIGITS.findall(choice) or _at_midnight(value, choice)


def nearest_spellings(value: str, choices: Iterable[str], n: int = SUGGESTIONS) -> list[str]:
    """Values of ``choices`` that stand for ``value`` written differently, best first: the values equal
    ignoring case, only (when there are any: another value beside them is another answer, 'Bern'
    for 'berlin'); else the same date at midnight, only; else by :func:`rapidfuzz.fuzz.ratio` of at least
    :data:`SPELLING_RATIO` with the same numbers; then the one value that begins with ``value``
    when exactly one does (``'F'`` → ``'Female'`` beside ``'Male'``; ``'Aus'`` with Australia and
    Austria gives none). Values with other numbers are never offered. Identifiers use
    :func:`_nearest` (its weighted ratio also finds ``name`` for ``singer_name``).

    Args:
        value: the literal the data does not hold. choices: the column's known values. n: at most this many.
    Returns:
        Up to ``n`` values of ``choices``.
    """
    pool = list(dict.fromkeys(choices))
    if not pool:
        return []
    folded = value.casefold()
    exact = [c for c in pool if c.casefold() == folded]
    if exact:  # the value written in another case: any other value is another answer ('Bern' for 'berlin')
        return exact[:n]
    same_day = [c for c in pool if _at_midnight(value, c)]
    if same_day:
        return same_day[:n]
    numbered = [c for c in pool if _same_numbers(value, c)]
    found = process.extract(folded, {i: c.casefold() for i, c in enumerate(numbered)}, scorer=fuzz.ratio,
                            limit=n + len(exact), score_cutoff=SPELLING_RATIO) if numbered else []
    close = [numbered[key] for _c, _s, key in found]
    starting = [c for c in pool if c.casefold().startswith(folded) and _same_numbers(value, c)] if folded else []
    only = starting if len(starting) == 1 else []
    return list(dict.fromkeys(close + only))[:n]


def _range_verdict(kind: str, values: Sequence[Any], low: Any, high: Any) -> str | None:
    """``"no"`` when a comparison of ``kind`` (a sqlglot key: ``eq``, ``in``, ``between``, ``gt``,
    ``gte``, ``lt``, ``lte``; column on the left) with ``values`` holds for no value in
    ``[low, high]``, ``"every"`` when it holds for all of them, else None. Numbers, or ISO date
    texts (which order as their dates)."""
    first = values[0]
    never = {"eq": first < low or first > high, "in": all(v < low or v > high for v in values),
             "between": len(values) == 2 and (values[1] < low or first > high),
             "gt": first >= high, "gte": first > high, "lt": first <= low, "lte": first < low}
    every = {"gt": first < low, "gte": first <= low, "lt": first > high, "lte": first >= high,
             "between": len(values) == 2 and first <= low and values[1] >= high}
    return "no" if never.get(kind) else "every" if every.get(kind) else None


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else f"{number:g}"


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


#: Where an unresolved double-quoted name is a SQLite string: an operand of a comparison or IN list.
_COMPARISONS = (exp.EQ, exp.NEQ, exp.In, exp.Like, exp.ILike, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between,
                exp.NullSafeEQ, exp.NullSafeNEQ)
_CONDITION_PARENTS = (exp.Where, exp.Having, exp.Join, exp.If, exp.Case, exp.Qualify, exp.Filter)


def _negated(node: exp.Expr) -> bool:
    """True when rows that fail the comparison ``node`` (or the comparison around the value ``node``)
    are what the statement keeps, or when it only decides which rows an outer join pairs, so that a
    comparison holding for no row is no error (a Warning, never a replacement value offered as a fix;
    it does not trigger a Constraint): ``<>``; a ``NOT`` above it anywhere in the statement
    (``NOT (..)``, ``NOT EXISTS (..)``, ``NOT IN (subquery)``, ``NOT LIKE``); the right operand of ``EXCEPT``; the
    ``ON`` of a ``LEFT``/``RIGHT``/``FULL`` join."""
    if isinstance(node, exp.NEQ) or isinstance(node.parent, exp.NEQ) or node.find_ancestor(exp.Not) is not None:
        return True
    child, parent = node, node.parent
    if node.args.get("negate") or (parent is not None and parent.args.get("negate")):
        return True  # sqlglot writes ``x NOT LIKE y`` as Like(negate=True), not Not(Like)
    while parent is not None:
        if parent.args.get("negate"):
            return True
        if isinstance(parent, exp.Except) and parent.args.get("expression") is child:
            return True
        if isinstance(parent, exp.Join) and parent.args.get("on") is child and \
                (parent.side or "").upper() in ("LEFT", "RIGHT", "FULL"):
            return True
        child, parent = parent, parent.parent
    return False


def _is_numeral(node: exp.Expression) -> bool:
    """True for a number literal (``8``, ``1.5``; not ``'8'``)."""
    return isinstance(node, exp.Literal) and not node.is_string


def _selected(node: exp.Column) -> bool:
    """True when the column is part of what a SELECT returns (its select list), not of a condition,
    a grouping or a sort."""
    return node.find_ancestor(exp.Order) is None and node.find_ancestor(*_CONDITION_PARENTS) is None \
        and node.find_ancestor(exp.Group) is None


def _is_semi_join_key(node: exp.Column) -> bool:
    """True when the column is compared with a subquery's rows (``x IN (SELECT y …)``, ``x = (SELECT
    y …)``): it links two row sets, like a join key."""
    parent = node.parent
    if isinstance(parent, exp.In) and parent.this is node and parent.args.get("query") is not None:
        return True
    return isinstance(parent, exp.EQ) and any(isinstance(side, exp.Subquery)
                                              for side in (parent.this, parent.expression))


def _is_join_key(node: exp.Column) -> bool:
    """True when the column is one side of ``a = b`` between two columns (a join key, not a filter)."""
    parent = node.parent
    if not isinstance(parent, exp.EQ):
        return False
    sides = (parent.this, parent.expression)
    # an unqualified double-quoted name may be a SQLite string ("France"): then it is a filter
    return all(isinstance(s, exp.Column) and (s.table or not s.this.args.get("quoted")) for s in sides)




class CheckContext:
    """One check run: the statement, its source, the facts, and what the name walk resolved.

    Attributes:
        facts: the version's :class:`~evoonto.tools.sqlcheck.facts.CheckFacts`; schema: the source.
        statement: the parsed statement; sql: its text; dialect: the sqlglot dialect it was read in.
        probe: the source's :class:`~evoonto.tools.sqlcheck.probes.DataProbe`, or None (offline).
        findings: what the rules found so far, in order.
        used: ``(table, column)`` referenced anywhere; places: ``(table, column, node)`` not join keys;
        restricted: column names (casefold) inside conditions; literals: normalised string literals;
        contradicted: ``(table, column)`` compared with a literal its values or type contradict;
        missing_columns: ``(finding index, catalog tables in scope, name)`` of each unknown column.
    """

    def __init__(self, facts: CheckFacts, schema: SourceSchema, statement: exp.Query, sql: str,
                 dialect: str | None, probe: DataProbe | None = None):
        self.facts, self.schema, self.statement, self.sql, self.dialect = facts, schema, statement, sql, dialect
        #: bounded point probes of the source (None: no source reachable, an offline check)
        self.probe = probe
        #: the question the SQL answers, and whether the question rules run (``question_rules=True``)
        self.question: str | None = None
        self.question_rules = False
        self.findings: list[Finding] = []
        self.used: set[tuple[str, str]] = set()        # (table, column) referenced anywhere
        self.restricted: set[str] = set()              # column names (casefold) inside conditions
        self.literals: set[str] = set()                # normalised string literals
        self.string_columns: set[int] = set()          # ids of Column nodes that are SQLite strings
        self.places: list[tuple[str, str, exp.Column]] = []  # resolved (table, column, node), not join keys
        # (table, column) compared with a literal that its values or type contradict
        self.contradicted: set[tuple[str, str]] = set()
        # (index of its unknown_column finding, the catalog tables in scope, column name)
        self.missing_columns: list[tuple[int, tuple[str, ...], str]] = []

    # -- helpers --------------------------------------------------------------------------------

    def add(self, kind: str, severity: Severity, message: str, suggestion: str | None,
            node: exp.Expression | None = None, subject: str | None = None) -> None:
        """Record one :class:`~evoonto.tools.findings.Finding` of rule ``kind`` in :attr:`findings`.

        ``suggestion`` is a drop-in fix or None (never a change of the answer's meaning); ``node``
        gives the finding's span (start/end character offsets in the checked SQL; None: no span);
        ``subject`` names what it is about (``table.column``, a table). Raises nothing."""
        start, end = _span(node)
        self.findings.append(Finding(kind, severity, message, suggestion, start, end, subject))

    def table(self, name: str) -> TableInfo | None:
        """The catalog table called ``name`` in the checked source, or None."""
        return self.schema.table(name)

    # -- the walk -------------------------------------------------------------------------------

    def resolve_names(self) -> bool:
        """The first step of every check: resolve each table and column of the statement's scopes
        (``unknown_table``, ``unknown_column``, ``ambiguous_column`` findings) and collect what the
        rules share (:attr:`used`, :attr:`places`, :attr:`restricted`, :attr:`literals`). False when
        sqlglot cannot scope the statement (a ``parse_error`` finding was added)."""
        try:
            scopes = list(traverse_scope(self.statement))
        except (SqlglotError, RecursionError) as exc:
            self.findings.append(Finding("parse_error", "Violation", f"the SQL cannot be analysed: {_first_line(exc)}",
                                         None))
            return False
        ctes = {c.alias_or_name.casefold() for c in self.statement.find_all(exp.CTE)}
        owner: dict[int, Scope] = {}
        for scope in scopes:
            for node in scope.expression.walk():
                if isinstance(node, exp.Column):
                    owner.setdefault(id(node), scope)  # innermost scope first (traverse is bottom-up)
        for scope in scopes:
            for src in scope.sources.values():
                if isinstance(src, exp.Table) and src.name.casefold() not in ctes:
                    self.check_table(src)
        for node in self.statement.find_all(exp.Column):
            found = owner.get(id(node))
            if found is not None:
                self.check_column(node, found, ctes)
        for join in self.statement.find_all(exp.Join):
            self.check_using_names(join)
        for node in self.statement.find_all(exp.Literal):
            if node.is_string and not _negated(node):
                self.literals.add(normalize(node.this))
        return True

    def check_table(self, node: exp.Table) -> None:
        """``unknown_table`` (Violation) when the table ``node`` names is not in the checked source's
        catalog, suggesting the nearest table names or Term labels; schema-qualified names and table
        functions are skipped. Adds to :attr:`findings`; raises nothing."""
        if node.args.get("db") or not node.name:
            return  # schema-qualified or table function: not in a single-schema catalog
        info = self.table(node.name)
        if info is not None:
            self.check_name_case(node.this, info.name, "table")
            return
        names = [t.name for t in self.schema.tables]
        labelled = {label: t for (sid, t), labels in self.facts.table_labels.items() if sid == self.schema.id
                    for label in labels}
        near = _nearest(node.name, names) or [labelled[lab] for lab in _nearest(node.name, labelled)]
        near = list(dict.fromkeys(near))[:SUGGESTIONS]
        # a table of another source of the workspace (CSV files given as separate sources): one
        # statement reads one source, so it cannot join them
        elsewhere = sorted(sid for sid, schema in self.facts.sources.items() if sid != self.schema.id
                           and any(t.name.casefold() == node.name.casefold() for t in schema.tables))
        hint = (f"; it is a table of source {elsewhere[0]!r}, and a statement reads one source (files to join "
                "belong in one folder, built as one source)") if elsewhere else ""
        self.add("unknown_table", "Violation", f"source {self.schema.id!r} has no table {node.name!r}{hint}",
                 ", ".join(near) or None, node.this, node.name)

    def _real_tables(self, scope: Scope | None, ctes: set[str]) -> Iterator[tuple[str, Any]]:
        """(alias, TableInfo or None for derived/CTE sources) of a scope and its parents."""
        for alias, info, _outputs in self._sources_in_scope(scope, ctes):
            yield alias, info

    def _sources_in_scope(self, scope: Scope | None, ctes: set[str]) -> Iterator[tuple[str, Any, set[str] | None]]:
        """(alias, TableInfo or None, output names of a derived table/CTE or None when unknown) of a
        scope and its parents; the output names are unknown for ``*`` selects and non-SELECT sources."""
        while scope is not None:
            for alias, src in scope.sources.items():
                if isinstance(src, exp.Table) and src.name.casefold() not in ctes:
                    yield alias, self.table(src.name), None
                else:
                    yield alias, None, _output_names(src)
            scope = scope.parent

    def check_column(self, node: exp.Column, scope: Scope, ctes: set[str]) -> None:
        """Resolve the column ``node`` against the sources of ``scope`` and its parents (``ctes``:
        casefolded CTE names, whose columns are checked where defined): ``unknown_column`` /
        ``ambiguous_column`` findings, else :meth:`note` of the resolved ``(table, column)``. Raises
        nothing."""
        name = node.name
        if not name or isinstance(node.this, exp.Star):
            return
        qualifier = node.table
        in_condition = node.find_ancestor(*_CONDITION_PARENTS) is not None and not _is_join_key(node)
        if qualifier:
            found = False
            for alias, info, outputs in self._sources_in_scope(scope, ctes):
                if alias.casefold() != qualifier.casefold():
                    continue
                found = True
                if info is None:  # a derived table or CTE: its own columns are checked where defined
                    if outputs is not None and name.casefold() not in outputs:
                        near = _nearest(name, sorted(outputs))
                        self.add("unknown_column", "Violation", f"{qualifier!r} (a subquery or CTE) has no column "
                                 f"{name!r}; it returns {', '.join(sorted(outputs)) or 'no named column'}",
                                 ", ".join(f"{qualifier}.{c}" for c in near) or None, node.this, f"{qualifier}.{name}")
                    return
                col = info.column(name)
                if col is None:
                    near = _nearest(name, [c.name for c in info.columns])
                    self.missing_columns.append((len(self.findings), (info.name,), name))
                    self.add("unknown_column", "Violation", f"table {info.name!r} has no column {name!r}",
                             ", ".join(f"{info.name}.{c}" for c in near) or None, node.this, f"{info.name}.{name}")
                else:
                    self.note(info.name, col.name, in_condition, node)
                return
            if not found:
                if self.table(qualifier) is None:
                    self.add("unknown_table", "Violation", f"{qualifier!r} is neither a table in FROM nor an alias",
                             ", ".join(a for a, _ in self._real_tables(scope, ctes)) or None, node, qualifier)
            return
        sources = list(self._sources_in_scope(scope, ctes))
        candidates = [(alias, info) for alias, info, _o in sources]
        holders = [(alias, info) for alias, info in candidates if info is not None and info.column(name) is not None]
        own = len(scope.sources) if scope is not None else 0  # the innermost scope's sources come first
        local = [(alias, info) for alias, info in candidates[:own]
                 if info is not None and info.column(name) is not None]
        if len(local) > 1 and not self._is_output_alias(node, name) and not _merges_columns(scope):
            in_tables = " and ".join(i.name for _a, i in local)
            self.add("ambiguous_column", "Violation", f"column {name!r} is in {in_tables}: "
                     "the database refuses an unqualified reference to it",
                     ", ".join(f"{a}.{name}" for a, _i in local), node.this, name)
            return
        if holders:
            info = holders[0][1]
            self.note(info.name, info.column(name).name, in_condition, node)
            return
        if any(info is None and (outputs is None or name.casefold() in outputs) for _a, info, outputs in sources):
            return  # may come from a derived table or CTE
        if self._is_output_alias(node, name):
            return
        if node.this.args.get("quoted") and self.dialect == "sqlite" and isinstance(node.parent, _COMPARISONS):
            self.string_columns.add(id(node))  # SQLite reads "text" that names no column as a string
            if not _negated(node):
                self.literals.add(normalize(name))
            return
        tables = [info for _a, info in candidates if info is not None]
        suggestion = (_nearest_columns(name, tables)
                      or _nearest_columns(name, self.schema.tables))[:SUGGESTIONS]
        scope_names = ", ".join(t.name for t in tables) or "the FROM clause"
        quoted = node.this.args.get("quoted")
        as_string = ("" if not quoted else " (SQLite would read the double-quoted name as a string)"
                     if self.dialect == "sqlite"
                     else " (double quotes name a column; a text value takes single quotes)")
        if tables:
            self.missing_columns.append((len(self.findings), tuple(t.name for t in tables), name))
        self.add("unknown_column", "Violation", f"no table of {scope_names} has a column {name!r}{as_string}",
                 ", ".join(suggestion) or None, node.this, name)

    def _is_output_alias(self, node: exp.Column, name: str) -> bool:
        select_node = node.find_ancestor(exp.Select)
        while select_node is not None:
            if any(isinstance(e, exp.Alias) and e.alias.casefold() == name.casefold() for e in select_node.expressions):
                return True
            select_node = select_node.find_ancestor(exp.Select)
        return False

    def check_name_case(self, ident: Any, name: str, what: str) -> None:
        """``name_case`` (Violation) on PostgreSQL (and Redshift), which folds an unquoted name to lower
        case and reads a quoted one as written, when the name the database reads for ``ident`` is not
        the catalog's ``name`` exactly: ``FROM DailyKpi`` reads ``dailykpi`` where the table is
        ``"DailyKpi"``, ``"SALE_LINE"`` is not ``sale_line``. The name walk matches names ignoring
        case, which the database does not. The suggestion is the name quoted as the catalog has it (the
        same table or column: it changes nothing but the spelling). Not on Snowflake or Oracle, which
        fold to upper case: SQLAlchemy reports their names in lower case, not as stored. Raises nothing."""
        if not isinstance(ident, exp.Identifier) or self.dialect not in _DIALECT_NAMES:
            return
        dialect = Dialect.get_or_raise(self.dialect)
        if dialect.normalization_strategy != NormalizationStrategy.LOWERCASE:
            return
        read = dialect.normalize_identifier(ident.copy()).this
        if read == name:
            return
        how = "reads a double-quoted name as written" if ident.quoted else "folds an unquoted name to lower case"
        written = quote_identifier(name, self.dialect)
        self.add("name_case", "Violation",
                 f"{_DIALECT_NAMES[self.dialect]} {how}: {ident.sql(dialect=self.dialect)} is "
                 f"{read!r}, and the {what} is {name!r}, so the database refuses it; write {written}",
                 written, ident, name)

    def check_using_names(self, join: exp.Join) -> None:
        """``name_case`` for the columns of ``JOIN … USING (KpiDay)``: sqlglot gives them as bare
        identifiers, not columns, so the column walk never saw them (PostgreSQL review). A name is
        checked against the catalog's spelling when the catalog tables of the join's SELECT that have
        the column (ignoring case) all spell it the same; otherwise it is left alone. Raises nothing."""
        names = join.args.get("using") or []
        select = join.find_ancestor(exp.Select)
        if not names or select is None:
            return
        tables = [info for tbl in select.find_all(exp.Table)
                  if not tbl.args.get("db") and (info := self.table(tbl.name)) is not None]
        for ident in names:
            if not isinstance(ident, exp.Identifier):
                continue
            spelled = {col.name for info in tables for col in info.columns
                       if col.name.casefold() == ident.name.casefold()}
            if len(spelled) == 1:
                self.check_name_case(ident, spelled.pop(), "column")

    def note(self, table: str, column: str, in_condition: bool, node: exp.Column) -> None:
        """Record that ``node`` resolved to ``table.column``: into :attr:`used`, into :attr:`restricted`
        when it appears in a condition (``in_condition``), and into :attr:`places` unless it is a join
        key. Raises nothing."""
        if node.table or not self._is_output_alias(node, node.name):  # (ORDER BY region: the alias)
            self.check_name_case(node.this, column, "column")
        self.used.add((table, column))
        if in_condition:
            self.restricted.add(column.casefold())
        if not _is_join_key(node):
            self.places.append((table, column, node))

    # -- the question ---------------------------------------------------------------------------

    def _resolve(self, node: exp.Expression) -> tuple[str, str] | None:
        """(table, column) of a Column node that resolved to a real column, else None."""
        if not isinstance(node, exp.Column) or id(node) in self.string_columns:
            return None
        name = node.name.casefold()
        hits = [(t, c) for t, c in self.used if c.casefold() == name]
        if node.table:
            select_node = node.find_ancestor(exp.Select)
            aliases: dict[str, str] = {}
            while select_node is not None:
                for tbl in select_node.find_all(exp.Table):
                    aliases.setdefault(tbl.alias_or_name.casefold(), tbl.name)
                select_node = select_node.find_ancestor(exp.Select)
            table = aliases.get(node.table.casefold())
            hits = [(t, c) for t, c in hits if table is not None and t.casefold() == table.casefold()]
        return hits[0] if len(hits) == 1 else None

    def _resolve_any(self, node: exp.Column) -> tuple[str, str] | None:
        """(table, column) of a real column node, join keys included (:meth:`_resolve` reads
        :attr:`used`): the qualifier's alias, else the one table of the node's SELECT that has it."""
        select_node = node.find_ancestor(exp.Select)
        aliases: dict[str, str] = {}
        while select_node is not None:
            for tbl in select_node.find_all(exp.Table):
                aliases.setdefault(tbl.alias_or_name.casefold(), tbl.name)
            select_node = select_node.find_ancestor(exp.Select)
        names = [aliases[node.table.casefold()]] if node.table and node.table.casefold() in aliases else \
            [] if node.table else list(dict.fromkeys(aliases.values()))
        hits = [(info.name, col.name) for info in (self.table(n) for n in names) if info is not None
                for col in [info.column(node.name)] if col is not None]
        return hits[0] if len(hits) == 1 else None

    def _string(self, node: exp.Expression) -> str | None:
        """The text of a string literal (also of a date or time literal, ``DATE '2019-06-01'``,
        ``'2019-06-01'::date``, ``CAST('…' AS TIMESTAMP)``, except on SQLite, where such a cast gives
        a number), or of a double-quoted name SQLite reads as a string; else None."""
        if isinstance(node, exp.Literal) and node.is_string:
            return node.this
        if (isinstance(node, exp.Cast) and self.dialect != "sqlite" and isinstance(node.this, exp.Literal)
                and node.this.is_string and node.to.is_type(*_TEMPORAL_TYPES)):
            return node.this.this
        if isinstance(node, exp.Column) and id(node) in self.string_columns:
            return node.name
        return None

    # -- types --------------------------------------------------------------------------------------

    def _is_text(self, place: tuple[str, str]) -> bool:
        """True when a column holds text: its declared type has SQLite's TEXT affinity (CHAR, CLOB,
        TEXT) and the values its Evidence shows are not all numbers."""
        info = self.table(place[0])
        column = info.column(place[1]) if info is not None else None
        declared = column.declared_type.upper() if column is not None else ""
        if "INT" in declared or not any(word in declared for word in ("CHAR", "CLOB", "TEXT")):
            return False
        facts = self.facts.columns.get((self.schema.id, place[0].casefold(), place[1].casefold()))
        return facts is None or not facts.values or not all(_is_number(v) for v in facts.values)

    def _is_numeric(self, place: tuple[str, str]) -> bool:
        """True when a column holds numbers: the values its Evidence shows, if any, are all numbers,
        and its declared type is of the number family (SQLite's INTEGER/REAL/NUMERIC affinities,
        :func:`~evoonto.sources.joins.type_family`) or its Evidence's minimum and maximum are numbers
        (numbers stored as text)."""
        info = self.table(place[0])
        column = info.column(place[1]) if info is not None else None
        if column is None:
            return False
        facts = self.facts.columns.get((self.schema.id, place[0].casefold(), place[1].casefold()))
        if facts is not None and not all(_is_number(v) for v in facts.values):
            return False
        if type_family(column.declared_type) == "number":
            return True
        # numbers stored as text: the Evidence's smallest and largest values are both numbers
        return facts is not None and facts.low is not None and facts.high is not None

    def _number(self, node: exp.Expression | None) -> float | None:
        """The number a literal (or a string literal holding a number) stands for, else None."""
        if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
            inner = self._number(node.this)
            return -inner if inner is not None else None
        if not isinstance(node, exp.Literal):
            return None
        return _float(node.this.strip()) if isinstance(node.this, str) else None

    def _holders(self, place: tuple[str, str], value: str) -> list[str]:
        """``table.column`` of the other columns of ``place``'s table whose observed values (Evidence)
        hold ``value`` (case-insensitively), at most :data:`SUGGESTIONS`."""
        info = self.table(place[0])
        if info is None:
            return []
        wanted = value.casefold()
        out = []
        for other in info.columns:
            if other.name.casefold() == place[1].casefold():
                continue
            facts = self.facts.columns.get((self.schema.id, info.name.casefold(), other.name.casefold()))
            if facts is not None and any(v.casefold() == wanted for v in facts.values):
                out.append(f"{info.name}.{other.name}")
        return out[:SUGGESTIONS]

    def _own_columns(self, select: exp.Select, nodes: Iterable[exp.Expression]) -> list[exp.Column]:
        """Column nodes under ``nodes`` that belong to ``select`` itself (not to a subquery)."""
        return [c for n in nodes for c in n.find_all(exp.Column) if c.find_ancestor(exp.Select) is select]

    def _unique(self, table: str, columns: Iterable[str]) -> bool:
        graph = self.facts.joins
        return graph is not None and graph.is_unique(TableRef(self.schema.id, table), columns)

