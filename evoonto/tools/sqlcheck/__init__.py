"""``check_sql``: a deterministic check of an agent's SQL against the ontology and the data.

The SQL is parsed with sqlglot in the dialect of its source and compared with what the ontology
knows; every problem is a :class:`~evoonto.tools.findings.Finding` with a suggestion. A Violation
means the statement is provably wrong: a name the catalog lacks, or an absence a bounded point
probe of the data confirmed. Everything the ontology's Evidence suggests but the data did not
confirm is a Warning that says what was seen::

    from evoonto.tools.sqlcheck import check_sql

    for f in check_sql(tools, "SELECT name FROM country WHERE continent = 'europe'"):
        print(f.severity, f.kind, f.message, "->", f.suggestion)
    # Violation unseen_value country.Continent holds no row equal to 'europe' (a point probe of the
    # data found no such row); it holds 'Europe' ... -> 'Europe'

The check is a registry of rules in the style of sqlglot's optimizer rules (:data:`RULES`): one
function per rule over one shared :class:`~evoonto.tools.sqlcheck.context.CheckContext` (the
statement, its source, the version's :class:`~evoonto.tools.sqlcheck.facts.CheckFacts`, the
source's :class:`~evoonto.tools.sqlcheck.probes.DataProbe`), run in order after the name walk
(:meth:`CheckContext.resolve_names`). Stale facts (Evidence, Mappings, Relations and Constraints a
drift patch invalidated) back no finding.

Kinds (severity):

- ``parse_error`` (Violation): sqlglot cannot parse the statement.
- ``unknown_table`` (Violation): a table (or a table qualifier) the source does not have; the
  suggestion names the nearest tables (rapidfuzz over table names and the labels of their Terms).
- ``unknown_column`` (Violation): a column that no table in scope has (nor a select alias); the
  suggestion names the nearest ``table.column`` of the tables in scope, then of the source. With a
  source, one the source's table does have (the catalog is older than the data) is a Warning, and a
  column whose facts a drift patch marked stale and that the source lost is a Violation
  (:mod:`~evoonto.tools.sqlcheck.catalog`).
- ``name_case`` (Violation): on PostgreSQL, a table or column name that matches the catalog only
  ignoring case (``FROM DailyKpi`` reads ``dailykpi``; ``"SALE_LINE"`` is not ``sale_line``); the
  suggestion is the name quoted as the catalog has it. A source reached through SQLAlchemy is read in
  its backend's dialect when it can be opened.
- ``ambiguous_column`` (Violation): an unqualified column that two tables of the same FROM clause
  both have (the database refuses it); the suggestion lists the qualified names. Joins with
  ``USING``/``NATURAL`` merge such columns and are not reported.
- ``unseen_value``: a literal compared with a column that the data does not hold. With a source
  (the toolkit's, or ``sources=``), a value the Evidence did not show is looked up with a bounded
  point probe (``SELECT 1 FROM t WHERE col = ? LIMIT 1``, :mod:`~evoonto.tools.sqlcheck.probes`),
  in any column, high-cardinality ones too; a confirmed absence is a Violation for ``=``/``IN``
  (a Warning for one alternative among several of an ``IN`` list, an ``OR`` or a ``CASE``),
  suggesting spellings the data holds (a case-insensitive probe, then the nearest observed values).
  A negated comparison (``<>``, under ``NOT``, ``NOT EXISTS`` or ``NOT IN (subquery)``, in the right
  operand of ``EXCEPT``) or one in the ``ON`` of an outer join excludes nothing when it holds for no
  row: a Warning naming the near values in its message, with no suggestion (another value would
  change the answer). Without a source (an offline check) or when the probe fails it is a Warning, and only
  when the probe that made the Evidence saw every distinct value; its message says what was seen
  ("not among the 7 values seen in a sample of 1,000 of 336,776 rows").
- ``value_case`` (Warning; not checked against the data): an observed value differs from the
  literal only in case.
- ``value_elsewhere`` (Warning; not checked against the data): the Evidence shows only part of the
  column's vocabulary, without the literal, and another column of the same table is observed
  holding it (the suggestion).
- ``out_of_range`` (Warning): a numeric column compared with numbers outside the range its
  Evidence observed (``evo:minValue``..``evo:maxValue``), so the condition would hold for no row or
  for every row; likewise the year of a date column (``strftime('%Y', d)``, ``YEAR(d)``,
  ``EXTRACT(YEAR FROM d)``) compared with years outside those of its earliest and latest date (no
  suggestion: the year is the question's); with a source, a point probe that finds a row satisfying
  it (or, for "every row", one that does not) drops the finding.
- ``repeated_column`` (Warning): the select list shows one column twice.
- ``ungrouped_column`` (Warning): with GROUP BY, a select-list column outside any aggregate that the
  groups do not determine (neither grouped, nor equal to a grouped column, nor of a table whose
  unique key is grouped): each group shows one arbitrary row's value.
- ``group_by_unique`` (Warning): a one-table SELECT that aggregates and groups by a unique key (every
  group is one row).
- ``grouped_aggregate`` (Warning): MIN/MAX/AVG of a column the SELECT groups by (the group's own value).
- ``self_comparison`` (Warning): a column compared with itself (``a <> a``): true for every row or none.
- ``repeated_condition`` (Warning): one ``ON``/``WHERE`` clause ANDs the same comparison twice (the
  copy adds nothing; usually another column was meant, e.g. a second role of a key); no suggestion.
- ``selects_filter_value`` (Warning): the select list returns a column the WHERE clause fixes to
  literals (``=``/``IN``), so the rows show back what the SQL states.
- ``view_for_base`` (Warning): the statement reads a view (``evo:isView``) only through columns
  that pass a base-table column through unchanged (``evo:viewColumnOf``); the suggestion names the
  base columns to query instead.
- ``type_mismatch``: a text literal that is no number compared with a numeric column (Evidence
  values all numbers): a Violation for ``=``/``IN``/``LIKE`` when the declared type is of the number
  family and a point probe confirms no row matches (SQLite keeps text in numeric columns), else a
  Warning; and (Warning) SUM/AVG of a text column, or a text column compared with a number by
  ``<``/``>``/``<=``/``>=``/BETWEEN (a column counts as text when its declared type has SQLite's
  TEXT affinity and the values its Evidence shows are not all numbers).
- ``missing_constraint`` (the Constraint's severity; only Violation-severity Constraints are
  checked): a Constraint applies (a column of its target Term/Mapping is used and, when it has
  trigger keywords, one of them occurs in the statement's string literals, not negated) and the columns of its
  ``evo:condition`` are not restricted anywhere in the statement; the suggestion is the condition.
- ``unknown_join``, ``mismatched_join_keys``, ``partial_key_join``, ``fan_trap``: the joins, checked
  by :func:`evoonto.tools.joinpaths.check_joins` (see there).
- ``question_mismatch``, ``count_skips_nulls`` (Warning; opt-in with ``question_rules=True`` and a
  question): heuristics of the question's wording, :mod:`evoonto.tools.sqlcheck.question`.

Unqualified double-quoted names that match no column are string literals in SQLite (Spider's
``WHERE name = "France"``), and are checked as such for SQLite sources when they are compared with
something; anywhere else (a select list, an aggregate) they are reported as unknown columns.

What the ontology knows is read once per ontology object (:func:`check_facts`, cached weakly), so a
check costs one parse, a walk and the point probes it needs (each answer remembered per source).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Iterable

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError

from evoonto.catalog import SourceSchema
from evoonto.errors import SourceError, ToolArgumentError
from evoonto.sources.quoting import dialect_of_kind
from evoonto.tools.findings import Finding, balanced_span, has_violation
from evoonto.tools.joinpaths import check_joins
from evoonto.tools.sqlcheck.catalog import check_catalog_currency
from evoonto.tools.sqlcheck.context import CheckContext, _only_kind, _parse_error, _pick_source
from evoonto.tools.sqlcheck.facts import (MAX_SQL_CHARS, CheckFacts, ColumnFacts, ConstraintFacts, _ontology_of,
                                          check_facts)
from evoonto.tools.sqlcheck.grouping import check_grouping
from evoonto.tools.sqlcheck.probes import DataProbe, SourceLookup, probe_for
from evoonto.tools.sqlcheck.question import check_question, ordering_phrases
from evoonto.tools.sqlcheck.statement import (check_constraints, check_repeated_conditions,
                                               check_self_comparisons, check_views)
from evoonto.tools.sqlcheck.values import check_ranges, check_types, check_values

__all__ = ["check_sql", "check_facts", "CheckFacts", "ColumnFacts", "ConstraintFacts", "CheckContext",
           "DataProbe", "finding_counts", "check_result", "ordering_phrases", "MAX_SQL_CHARS", "RULES", "Rule"]

#: One rule: reads the shared context, adds findings to ``ctx.findings``.
Rule = Callable[[CheckContext], None]


def check_question_rule(ctx: CheckContext) -> None:
    """``question_mismatch`` / ``count_skips_nulls`` when the caller opted in (``question_rules=True``)
    and gave the question (:func:`evoonto.tools.sqlcheck.question.check_question`)."""
    if ctx.question_rules and ctx.question and ctx.question.strip():
        ctx.findings += check_question(ctx, ctx.question)


def check_join_rules(ctx: CheckContext) -> None:
    """Joins that follow no known path, mismatched or partial keys, fan traps
    (:func:`evoonto.tools.joinpaths.check_joins`, keys' overlap asked of the data when a source is
    reachable)."""
    if ctx.facts.joins is not None:
        ctx.findings += check_joins(ctx.facts.joins, ctx.statement, dialect=ctx.dialect, probe=ctx.probe)


#: The rules, in the order they run (and their findings are listed) after the name walk.
RULES: tuple[Rule, ...] = (
    check_catalog_currency,
    check_values,
    check_ranges,
    check_types,
    check_grouping,
    check_self_comparisons,
    check_repeated_conditions,
    check_constraints,
    check_views,
    check_question_rule,
    check_join_rules,
)


def check_sql(ontology_or_tools: Any, sql: str, *, source: str | None = None,
              dialect: str | None = None, question: str | None = None, question_rules: bool = False,
              sources: SourceLookup | None = None, rules: Iterable[Rule] | None = None) -> list[Finding]:
    """Check one SQL statement against the ontology (and the data, when a source is reachable).

    Args:
        ontology_or_tools: an :class:`~evoonto.ontology.Ontology` or an
            :class:`~evoonto.tools.toolkit.OntologyTools` (its ontology is used; its configured
            sources are probed unless ``sources`` is given).
        sql: one statement (SELECT/WITH), at most :data:`MAX_SQL_CHARS` characters.
        source: the source id (``dcterms:identifier``) the SQL is meant for; default: the only
            source, else the source whose tables the statement names most.
        dialect: a sqlglot dialect overriding the one of the source kind.
        question: the question the SQL answers (at most :data:`MAX_SQL_CHARS` characters).
        question_rules: run the question-wording heuristics (``question_mismatch``,
            ``count_skips_nulls``) on ``question``; off by default.
        sources: ``{source id: open Source}`` or ``source id -> Source | None``: where point
            probes confirm an absence before a Violation is claimed; None (and no toolkit): an
            offline check, whose claims about values are Warnings.
        rules: the rules to run (default :data:`RULES`), e.g. one rule in its own test.

    Returns:
        The findings: the name walk's, then each rule's in :data:`RULES` order, each group in
        statement order; ``[]`` when the SQL is consistent with the ontology. Offsets
        (``start``/``end``) index ``sql``.

    Raises:
        ToolArgumentError: empty or oversized SQL, or an unknown source id.
    """
    if not isinstance(sql, str) or not sql.strip():
        raise ToolArgumentError("check_sql: sql must be a non-empty SQL statement")
    if len(sql) > MAX_SQL_CHARS:
        raise ToolArgumentError(f"check_sql: sql is longer than {MAX_SQL_CHARS} characters")
    if question is not None and (not isinstance(question, str) or len(question) > MAX_SQL_CHARS):
        raise ToolArgumentError(f"check_sql: question must be text of at most {MAX_SQL_CHARS} characters")
    if sources is None and hasattr(ontology_or_tools, "probe_source"):
        sources = ontology_or_tools.probe_source
    facts = check_facts(_ontology_of(ontology_or_tools))
    if source is not None and source not in facts.sources:
        raise ToolArgumentError(f"check_sql: unknown source {str(source)[:60]!r}; use one of "
                                f"{', '.join(sorted(facts.sources)) or 'none (the catalog has no table)'}")
    first = facts.sources.get(source) if source else None
    only = first or (next(iter(facts.sources.values())) if len(facts.sources) == 1 else None)
    read = (_source_dialect(only, sources, dialect) if only is not None
            else dialect_of_kind(_only_kind(facts), dialect))
    try:
        statements = [s for s in sqlglot.parse(sql, read=read) if s is not None]
    except (ParseError, SqlglotError) as exc:
        names = [n for src in ([first] if first else facts.sources.values()) for t in src.tables
                 for n in (t.name, *(c.name for c in t.columns))]
        return [_parse_error(exc, sql, names)]
    if len(statements) != 1:
        return [Finding("parse_error", "Violation", f"expected one statement, found {len(statements)}",
                        "send one SELECT statement")]
    statement = statements[0]
    if not isinstance(statement, exp.Query):
        return [Finding("parse_error", "Violation", f"not a query: {statement.key.upper()} statement",
                        "write one SELECT statement")]
    schema = first or _pick_source(facts, statement)
    if schema is None:
        return []
    read_dialect = read if schema is only else _source_dialect(schema, sources, dialect)
    ctx = CheckContext(facts, schema, statement, sql, read_dialect, probe_for(sources, schema.id, read_dialect))
    ctx.question, ctx.question_rules = question, question_rules
    if ctx.resolve_names():
        for rule in RULES if rules is None else rules:
            rule(ctx)
    return [replace(f, start=s, end=e) if (s, e) != (f.start, f.end) else f
            for f in ctx.findings for s, e in [balanced_span(sql, f.start, f.end)]]


def _source_dialect(schema: SourceSchema, sources: SourceLookup | None, dialect: str | None) -> str | None:
    """The sqlglot dialect the SQL for ``schema`` is read in: ``dialect`` when given, else that of its
    kind (SQLite, DuckDB for files), else, for a database reached through SQLAlchemy (whose catalog
    records no backend), the open source's own (``postgres`` for a PostgreSQL URL) when it can be
    opened, else sqlglot's generic SQL."""
    read = dialect_of_kind(schema.kind, dialect)
    if read is not None or dialect is not None or sources is None:
        return read
    try:
        source = sources(schema.id) if callable(sources) else sources.get(schema.id)
    except SourceError:
        return None
    found = getattr(source, "dialect", None) if source is not None else None
    return found if isinstance(found, str) else None


def finding_counts(findings: Iterable[Finding | dict[str, Any]]) -> dict[str, int]:
    """Counts by severity and by kind: ``{"Violation": 1, "Warning": 0, "Info": 0, "unseen_value": 1}``
    (the shape the trajectory log stores for diagnosis)."""
    out: dict[str, int] = {"Violation": 0, "Warning": 0, "Info": 0}
    for f in findings:
        data = f.to_dict() if isinstance(f, Finding) else f
        severity, kind = str(data.get("severity")), str(data.get("kind"))
        if severity in out:
            out[severity] += 1
        out[kind] = out.get(kind, 0) + 1
    return out


def check_result(findings: list[Finding]) -> dict[str, Any]:
    """The tool's JSON answer: ``{ok, findings: [Finding.to_dict()], counts}`` (``ok`` is False when
    a Violation was found)."""
    return {"ok": not has_violation(findings), "findings": [f.to_dict() for f in findings],
            "counts": finding_counts(findings)}
