"""``check_sql``: a deterministic check of an agent's SQL against the ontology (issue 15, item 2).

The SQL is parsed with sqlglot in the dialect of its source and compared with what the ontology
knows; every problem is a :class:`~evoonto.tools.findings.Finding` with a suggestion::

    from evoonto.tools.sqlcheck import check_sql

    for f in check_sql(tools, "SELECT name FROM country WHERE continent = 'europe'"):
        print(f.severity, f.kind, f.message, "->", f.suggestion)
    # Violation unseen_value  country.Continent never holds 'europe' (7 values observed) -> 'Europe'

Kinds (severity):

- ``parse_error`` (Violation): sqlglot cannot parse the statement.
- ``unknown_table`` (Violation): a table (or a table qualifier) the source does not have; the
  suggestion names the nearest tables (rapidfuzz over table names and the labels of their Terms).
- ``unknown_column`` (Violation): a column that no table in scope has (nor a select alias); the
  suggestion names the nearest ``table.column`` of the tables in scope, then of the source.
- ``ambiguous_column`` (Violation): an unqualified column that two tables of the same FROM clause
  both have (the database refuses it); the suggestion lists the qualified names. Joins with
  ``USING``/``NATURAL`` merge such columns and are not reported.
- ``unseen_value`` (Violation for ``=``/``IN``, Warning for ``<>``/``NOT IN``): a string literal
  compared with a column whose Evidence holds the column's *complete* value vocabulary
  (``evo:sampleValue`` count = ``evo:distinctCount``) and does not contain the literal; the
  suggestion lists the nearest observed values (``'usa'`` -> ``'USA'``).
- ``value_case`` (Warning): the Evidence shows only part of the vocabulary, and an observed value
  differs from the literal only in case.
- ``value_elsewhere`` (Warning): the Evidence shows only part of the column's vocabulary, without
  the literal, and another column of the same table is observed holding it (the suggestion); with
  the whole vocabulary this is an ``unseen_value`` whose message names that column.
- ``out_of_range`` (Warning): a numeric column compared with numbers outside the range its Evidence
  observed (``evo:minValue``..``evo:maxValue``), so the condition holds for no row or for every row.
- ``repeated_column`` (Warning): the select list shows one column twice.
- ``ungrouped_column`` (Warning): with GROUP BY, a select-list column outside any aggregate that the
  groups do not determine (neither grouped, nor equal to a grouped column, nor of a table whose
  unique key is grouped): each group shows one arbitrary row's value.
- ``group_by_unique`` (Warning): a one-table SELECT that aggregates and groups by a unique key (every
  group is one row).
- ``grouped_aggregate`` (Warning): MIN/MAX/AVG of a column the SELECT groups by (the group's own value).
- ``count_skips_nulls`` (Warning; only when the question is given): ``COUNT(col)`` of a column whose
  Evidence shows NULLs, while no word of the question names it (the count drops those rows).
- ``self_comparison`` (Warning): a column compared with itself (``a <> a``): true for every row or none.
- ``selects_filter_value`` (Warning): the select list returns a column the WHERE clause fixes to
  literals (``=``/``IN``), so the rows show back what the SQL states.
- ``view_for_base`` (Warning): the statement reads a view (``evo:isView``) only through columns
  that pass a base-table column through unchanged (``evo:viewColumnOf``); the suggestion names the
  base columns to query instead.
- ``question_mismatch`` (Warning; only when the question is given): a column the statement uses
  (not as a join key, not as ``COUNT(col)``) is named by no word of the question (its name, its
  Terms' labels, the data words the packaged lexicon's cue words and synonyms point at, a literal
  of the question compared with it that its values do not contradict), while another column of the
  same table that the statement does not use (for a selected column: does not use except to sort)
  is named by a word the question says and no used column explains; the suggestion names that
  column. A column a SELECT both returns and sorts by, while the question says its words once,
  counts as unnamed where it sorts. A word the question says ``k`` times that names more than
  ``k`` used columns names the ones it covers wholly ("name" names Name, not Song_Name); a literal
  of the question explains its column only where it is compared; numbers and query-operation words
  ("number", "average") propose no column, nor do the words of another table's name the statement
  reads ("schools" names the table schools, not satscores.sname). A column the statement does not use that the question
  names wholly, and with more words than the used one ("song name" -> song_name, not name; "line 1
  and line 2" -> line_2, not line_3), is reported too, and so is a returned column that only a cue
  word or synonym names ("live" -> city) while the question names another outright. The column a
  statement sorts by (or takes the MIN/MAX
  of) must be one the question's ordering phrases name (:func:`ordering_phrases`: "ordered by X",
  "in descending order of X", "the youngest …", "the highest X"), when they name a column of that
  table; after an ordering phrase that names none ("in alphabetical order"), one the question
  names. It catches "the right table, the wrong column", which no check against the schema alone
  can see.
- ``type_mismatch``: a text literal that is no number compared with a numeric column (Evidence
  values all numbers): Violation for ``=``/``IN``/``LIKE`` (never true) when the declared type is of
  the number family, else (numbers stored as text, the Evidence may not show every value) and for
  ``<>``/``NOT IN`` a Warning; and (Warning) SUM/AVG of a text column, or a text
  column compared with a number by ``<``/``>``/``<=``/``>=``/BETWEEN (a column counts as text when
  its declared type has SQLite's TEXT affinity and the values its Evidence shows are not all numbers).
- ``missing_constraint`` (the Constraint's severity; only Violation-severity Constraints are
  checked): a Constraint applies (a column of its target Term/Mapping is used and, when it has
  trigger keywords, one of them occurs in the statement's string literals, not negated) and the columns of its
  ``evo:condition`` are not restricted anywhere in the statement; the suggestion is the condition.

Unqualified double-quoted names that match no column are string literals in SQLite (Spider's
``WHERE name = "France"``), and are checked as such for SQLite sources when they are compared with
something; anywhere else (a select list, an aggregate) they are reported as unknown columns.

What the ontology knows is read once per ontology object (:func:`check_facts`, cached weakly), so a
check costs one parse and a walk (a few milliseconds on Spider-sized ontologies).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
import threading
import weakref
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Iterator

import sqlglot
from rapidfuzz import fuzz, process
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError
from sqlglot.optimizer.scope import Scope, traverse_scope

from evoonto.catalog import SourceSchema, read_catalog
from evoonto.errors import ToolArgumentError
from evoonto.lexicon import Lexicon
from evoonto.sources.joins import type_family
from evoonto.sources.quoting import dialect_of_kind
from evoonto.text import QUERY_WORDS, STOP_WORDS, adjective_bases, normalize, tokenize
from evoonto.text import words as question_words
from evoonto.tools.findings import Finding, Severity, balanced_span, has_violation
from evoonto.tools.findings import node_span as _span
from evoonto.tools.joinpaths import JoinGraph, TableRef, check_joins, join_graph_of
from evoonto.tools.sparql import select

__all__ = ["check_sql", "check_facts", "CheckFacts", "ColumnFacts", "ConstraintFacts",
           "finding_counts", "check_result", "ordering_phrases", "MAX_SQL_CHARS"]

#: Longest statement accepted (same cap as ``run_sql``).
MAX_SQL_CHARS = 20_000
#: How many alternatives a suggestion lists.
SUGGESTIONS = 3



@dataclass(frozen=True)
class ColumnFacts:
    """What the Evidence says about one column's values.

    Attributes:
        values: the observed values (``evo:sampleValue``), in sorted order.
        distinct: ``evo:distinctCount`` (None when unknown).
        complete: the values are the column's whole vocabulary (as many as ``distinct``).
        low, high: the smallest and largest value observed (``evo:minValue``/``evo:maxValue``) when
            both are numbers, else None.
        nulls: the share of NULL values observed (``evo:nullFraction``), or None.
    """

    values: tuple[str, ...]
    distinct: int | None
    complete: bool
    low: float | None = None
    high: float | None = None
    nulls: float | None = None


@dataclass(frozen=True)
class ConstraintFacts:
    """One Constraint of severity Violation, reduced to what the check needs.

    Attributes:
        iri: the Constraint IRI; condition: its ``evo:condition`` (SQL predicate).
        severity: ``Violation`` / ``Warning`` / ``Info``; triggers: normalised trigger keywords.
        targets: ``(source id, table, column)`` of the Mappings it constrains (directly, or through
            its Term); column ``""`` for a table-level Mapping.
        comment: its ``rdfs:comment`` (prose), or ``""``.
    """

    iri: str
    condition: str
    severity: Severity
    triggers: frozenset[str]
    targets: frozenset[tuple[str, str, str]]
    comment: str = ""


@dataclass
class CheckFacts:
    """Everything ``check_sql`` reads from one ontology version.

    Attributes:
        sources: source id -> :class:`~evoonto.catalog.SourceSchema`.
        columns: ``(source id, table casefold, column casefold)`` -> :class:`ColumnFacts`.
        constraints: the Violation-severity Constraints.
        table_labels: ``(source id, table name)`` -> labels of the Terms mapped to the table.
        views: ``(source id, view casefold)`` -> ``{view column casefold: (base table, base column)}``
            for the pass-through columns of each view (``evo:isView`` tables).
    """

    sources: dict[str, SourceSchema]
    columns: dict[tuple[str, str, str], ColumnFacts] = field(default_factory=dict)
    constraints: list[ConstraintFacts] = field(default_factory=list)
    table_labels: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    views: dict[tuple[str, str], dict[str, tuple[str, str]]] = field(default_factory=dict)
    #: ``(source id, table casefold, column casefold)`` -> the stemmed tokens of the column's name and
    #: of the labels (pref/alt/hidden) of the Terms mapped to it (what a question may call it)
    column_words: dict[tuple[str, str, str], frozenset[str]] = field(default_factory=dict)
    #: the part of ``column_words`` that comes only from the labels of the column's value Terms
    #: (Mappings with an ``evo:filter``): a value the question says names the column it is compared
    #: with, not a column the SQL returns or sorts by
    value_words: dict[tuple[str, str, str], frozenset[str]] = field(default_factory=dict)
    #: the version's join graph (:class:`~evoonto.tools.joinpaths.JoinGraph`): joins and fan traps
    joins: JoinGraph | None = None


_CACHE: "weakref.WeakKeyDictionary[Any, tuple[Any, CheckFacts]]" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def _ontology_of(ontology_or_tools: Any) -> Any:
    return getattr(ontology_or_tools, "ontology", None) if hasattr(ontology_or_tools, "registry") else ontology_or_tools


def check_facts(ontology: Any) -> CheckFacts:
    """The facts of ``ontology`` (an :class:`~evoonto.ontology.Ontology` or anything ``select`` can
    query), read with a few SPARQL queries on first use and cached per ontology object and version."""
    version = getattr(ontology, "version", None)
    with _LOCK:
        try:
            cached = _CACHE.get(ontology)
        except TypeError:
            cached = None
    if cached is not None and cached[0] == version:
        return cached[1]
    facts = _read_facts(ontology)
    with _LOCK:
        try:
            _CACHE[ontology] = (version, facts)
        except TypeError:
            pass
    return facts


def _read_facts(ontology: Any) -> CheckFacts:
    catalog = read_catalog(ontology)
    facts = CheckFacts(sources={s.id: s for s in catalog.sources if s.tables},
                       joins=join_graph_of(ontology))
    where: dict[str, tuple[str, str, str]] = {}  # column IRI -> (source, table, column)
    tables: dict[str, tuple[str, str]] = {}
    for s in facts.sources.values():
        for t in s.tables:
            tables[str(t.iri)] = (s.id, t.name)
            for c in t.columns:
                where[str(c.iri)] = (s.id, t.name, c.name)
    # value vocabularies: Evidence with a distinct count behind a column's Mapping
    evidence: dict[tuple[str, str], tuple[int | None, set[str], tuple[float | None, float | None, float | None]]]
    evidence = {}
    for row in select(ontology, """SELECT ?col ?e ?dc ?v ?lo ?hi ?nf WHERE {
            ?m a evo:Mapping ; evo:column ?col ; prov:wasDerivedFrom ?e .
            ?e evo:distinctCount ?dc . OPTIONAL { ?e evo:sampleValue ?v }
            OPTIONAL { ?e evo:minValue ?lo ; evo:maxValue ?hi } OPTIONAL { ?e evo:nullFraction ?nf } }"""):
        key = (row["col"], row["e"])
        count, values, _stats = evidence.setdefault(
            key, (_int(row.get("dc")), set(),
                  (_float(row.get("lo")), _float(row.get("hi")), _float(row.get("nf")))))
        if "v" in row:
            values.add(row["v"])
    for (col, _e), (count, values, (low, high, nulls)) in evidence.items():
        place = where.get(col)
        if place is None:
            continue
        column_key = (place[0], place[1].casefold(), place[2].casefold())
        complete = bool(values) and count is not None and len(values) >= count
        known = facts.columns.get(column_key)
        if known is None or (complete, len(values)) > (known.complete, len(known.values)):
            bounded = low is not None and high is not None
            facts.columns[column_key] = ColumnFacts(tuple(sorted(values)), count, complete,
                                                    low if bounded else None, high if bounded else None, nulls)
    # Term labels per table (suggestions for unknown tables)
    for row in select(ontology, """SELECT ?tbl ?label WHERE {
            ?m a evo:Mapping ; evo:table ?tbl ; evo:mapsTerm ?t . ?t skos:prefLabel ?label }"""):
        place_t = tables.get(row["tbl"])
        if place_t is not None:
            facts.table_labels.setdefault(place_t, []).append(row["label"])
    facts.constraints = _read_constraints(ontology, where, tables)
    names: dict[tuple[str, str, str], set[str]] = {}
    for place in where.values():
        names.setdefault((place[0], place[1].casefold(), place[2].casefold()), set()).update(tokenize(place[2]))
    of_values: dict[tuple[str, str, str], set[str]] = {}
    for row in select(ontology, """SELECT ?col ?label ?flt WHERE {
            ?m a evo:Mapping ; evo:column ?col ; evo:mapsTerm ?t . OPTIONAL { ?m evo:filter ?flt }
            ?t skos:prefLabel|skos:altLabel|skos:hiddenLabel ?label }"""):
        place = where.get(row["col"])
        if place is not None:
            col_key = (place[0], place[1].casefold(), place[2].casefold())
            (of_values if "flt" in row else names).setdefault(col_key, set()).update(tokenize(row["label"]))
    # a table's own words (its name, its Terms' labels) name the table, not one of its columns
    table_words: dict[tuple[str, str], set[str]] = {}
    for sid, table, _column in where.values():
        table_words.setdefault((sid, table.casefold()), set(tokenize(table)))
    for row in select(ontology, """SELECT ?tbl ?label WHERE {
            ?m a evo:Mapping ; evo:table ?tbl ; evo:mapsTerm ?t . FILTER NOT EXISTS { ?m evo:column ?c }
            ?t skos:prefLabel|skos:altLabel ?label }"""):
        place_t = tables.get(row["tbl"])
        if place_t is not None:
            table_words.setdefault((place_t[0], place_t[1].casefold()), set()).update(tokenize(row["label"]))
    facts.column_words = {}
    for column_key in names.keys() | of_values.keys():
        column_words = names.get(column_key, set())
        own = column_words - table_words.get((column_key[0], column_key[1]), set())
        value_only = of_values.get(column_key, set()) - column_words
        facts.column_words[column_key] = frozenset((own or column_words) | value_only)
        facts.value_words[column_key] = frozenset(value_only)
    for row in select(ontology, """SELECT ?view ?vcol ?bcol WHERE {
            ?view evo:isView true . OPTIONAL { ?vcol dcterms:isPartOf ?view ; evo:viewColumnOf ?bcol } }"""):
        place_v = tables.get(row["view"])
        if place_v is None:
            continue
        passes = facts.views.setdefault((place_v[0], place_v[1].casefold()), {})
        view_col, base_col = where.get(row.get("vcol", "")), where.get(row.get("bcol", ""))
        if view_col is not None and base_col is not None:
            passes[view_col[2].casefold()] = (base_col[1], base_col[2])
    return facts


def _read_constraints(ontology: Any, where: dict[str, tuple[str, str, str]],
                      tables: dict[str, tuple[str, str]]) -> list[ConstraintFacts]:
    rows = select(ontology, """SELECT ?c ?cond ?sev ?kw ?comment ?col ?tbl WHERE {
            ?c a evo:Constraint ; evo:condition ?cond ; evo:severity ?sev ; evo:constrains ?target .
            FILTER(?sev = sh:Violation)
            FILTER NOT EXISTS { ?c owl:deprecated true }
            OPTIONAL { ?c evo:triggerKeyword ?kw } OPTIONAL { ?c rdfs:comment ?comment }
            { ?target a evo:Mapping . BIND(?target AS ?m) } UNION { ?target evo:hasMapping ?m }
            UNION { ?m evo:mapsTerm ?target }
            ?m evo:table ?tbl . OPTIONAL { ?m evo:column ?col } }""")
    grouped: dict[str, dict[str, Any]] = {}
    for row in rows:
        entry = grouped.setdefault(row["c"], {"condition": row["cond"], "triggers": set(), "targets": set(),
                                              "comment": row.get("comment", "")})
        if "kw" in row:
            entry["triggers"].add(normalize(row["kw"]))
        if "col" in row and row["col"] in where:
            entry["targets"].add(where[row["col"]])
        elif row.get("tbl") in tables:
            entry["targets"].add((*tables[row["tbl"]], ""))
    return [ConstraintFacts(iri, e["condition"], "Violation", frozenset(t for t in e["triggers"] if t),
                            frozenset(e["targets"]), e["comment"])
            for iri, e in sorted(grouped.items()) if e["targets"]]


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def _int(text: str | None) -> int | None:
    try:
        return int(float(text)) if text is not None else None
    except ValueError:
        return None


# -- the check ----------------------------------------------------------------------------------


def check_sql(ontology_or_tools: Any, sql: str, *, source: str | None = None,
              dialect: str | None = None, question: str | None = None) -> list[Finding]:
    """Check one SQL statement against the ontology.

    Args:
        ontology_or_tools: an :class:`~evoonto.ontology.Ontology` or an
            :class:`~evoonto.tools.toolkit.OntologyTools` (its ontology is used).
        sql: one statement (SELECT/WITH), at most :data:`MAX_SQL_CHARS` characters.
        source: the source id (``dcterms:identifier``) the SQL is meant for; default: the only
            source, else the source whose tables the statement names most.
        dialect: a sqlglot dialect overriding the one of the source kind.
        question: the question the SQL answers (at most :data:`MAX_SQL_CHARS` characters); when
            given, ``question_mismatch`` compares the columns used with the words of the question.

    Returns:
        The findings, grouped by check (tables, columns, values, Constraints, views, joins), each group in
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
    facts = check_facts(_ontology_of(ontology_or_tools))
    if source is not None and source not in facts.sources:
        raise ToolArgumentError(f"check_sql: unknown source {str(source)[:60]!r}; use one of "
                                f"{', '.join(sorted(facts.sources)) or 'none (the catalog has no table)'}")
    first = facts.sources.get(source) if source else None
    read = dialect_of_kind(first.kind if first else _only_kind(facts), dialect)
    try:
        statements = [s for s in sqlglot.parse(sql, read=read) if s is not None]
    except (ParseError, SqlglotError) as exc:
        return [_parse_error(exc, sql)]
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
    read_dialect = dialect_of_kind(schema.kind, dialect)
    checker = _Checker(facts, schema, statement, sql, read_dialect)
    findings = checker.run()
    if question and question.strip():
        findings += checker.check_question(question)
    if facts.joins is not None:  # joins that follow no known path, mismatched keys, fan traps
        findings += check_joins(facts.joins, statement, dialect=read_dialect)
    return [replace(f, start=s, end=e) if (s, e) != (f.start, f.end) else f
            for f in findings for s, e in [balanced_span(sql, f.start, f.end)]]


def _merges_columns(scope: Scope | None) -> bool:
    """True when a join of the scope merges same-named columns (``USING`` or ``NATURAL``)."""
    select_node = scope.expression if scope is not None else None
    joins = select_node.args.get("joins") or [] if isinstance(select_node, exp.Select) else []
    return any(j.args.get("using") or str(j.args.get("method") or "").upper() == "NATURAL" for j in joins)


def _output_names(source: Any) -> set[str] | None:
    """The casefolded output column names of a derived table or CTE scope, or None when they are
    unknown (a ``*`` select, a set operation whose branches are not all SELECTs, or another source)."""
    expression = getattr(source, "expression", None)
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


def _parse_error(exc: Exception, sql: str) -> Finding:
    """A ``parse_error`` finding from a sqlglot error: its description without terminal colour codes
    or Python class paths, the token it stopped at, and that token's span in ``sql``."""
    errors = getattr(exc, "errors", None) or []
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
    return Finding("parse_error", "Violation", f"the SQL does not parse{where}{position}: "
                   f"{' '.join(description.split())[:200]}", "write one SELECT statement", start, end)


def _pick_source(facts: CheckFacts, statement: exp.Query) -> SourceSchema | None:
    if len(facts.sources) <= 1:
        return next(iter(facts.sources.values()), None)
    names = {t.name.casefold() for t in statement.find_all(exp.Table)}
    return max(facts.sources.values(),
               key=lambda s: (sum(1 for t in s.tables if t.name.casefold() in names), s.id == min(facts.sources)))


def _nearest(query: str, choices: Iterable[str], n: int = SUGGESTIONS, cutoff: float = 60.0) -> list[str]:
    pool = list(dict.fromkeys(choices))
    if not pool:
        return []
    exact = [c for c in pool if c.casefold() == query.casefold()]
    found = process.extract(query.casefold(), {i: c.casefold() for i, c in enumerate(pool)}, scorer=fuzz.WRatio,
                            limit=n + len(exact), score_cutoff=cutoff)
    ranked = exact + [pool[key] for _c, _s, key in found if pool[key] not in exact]
    return ranked[:n]


def _range_verdict(kind: str, values: list[float], low: float, high: float) -> str | None:
    """``"no"`` when a comparison of ``kind`` (a sqlglot key: ``eq``, ``in``, ``between``, ``gt``,
    ``gte``, ``lt``, ``lte``; column on the left) with ``values`` holds for no value in
    ``[low, high]``, ``"every"`` when it holds for all of them, else None."""
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


def _negated(node: exp.Expression) -> bool:
    """True when a value is compared with ``<>`` or under ``NOT`` (it does not trigger a Constraint)."""
    return isinstance(node.parent, exp.NEQ) or node.find_ancestor(exp.Not) is not None


@functools.lru_cache(maxsize=8192)
def _related_stems(word: str) -> frozenset[str]:
    """:meth:`Lexicon.related_stems` of the packaged lexicon (immutable), cached per word."""
    return frozenset(Lexicon.packaged().related_stems(word))


#: Question words that name a query operation (aggregation, ordering, counting: the packaged
#: ``query`` stop words), not a column; "name" and "value" are among them but name columns as often.
_OPERATION_WORDS = frozenset(w for w in QUERY_WORDS if w not in {"name", "names", "value", "values"})
#: Words after which a question says what it sorts by ("ordered by age", "in order of their names").
_SORT_VERBS = frozenset({"order", "ordered", "orders", "ordering", "sort", "sorted", "sorts", "sorting",
                         "rank", "ranked", "ranks", "ranking", "arrange", "arranged"})
_SORT_LINKS = frozenset({"by", "of", "for", "on", "according"})
#: Words that start a superlative ("the most recent", "the top 3 largest") or a comparative.
_EXTREMES = frozenset({"most", "least", "top", "bottom", "maximum", "minimum", "max", "min", "more", "less",
                       "fewest", "highest", "lowest", "largest", "smallest", "first", "last"})
#: Where an ordering phrase's noun phrase ends (a new clause or condition starts).
_PHRASE_ENDS = frozenset({"in", "from", "with", "who", "whom", "whose", "which", "that", "where", "when",
                          "and", "or", "to", "at", "than", "as", "if", "but", "among", "between", "per"})


@functools.lru_cache(maxsize=1)
def _operation_stems() -> frozenset[str]:
    """The stems of :data:`_OPERATION_WORDS`."""
    return frozenset(t for w in _OPERATION_WORDS for t in tokenize(w))


def _is_extreme(word: str) -> bool:
    """True for a superlative or comparative (``youngest``, ``older``, ``most``, ``highest``): a word
    with an ``-est``/``-er`` ending whose positive form the packaged lexicon has a cue for, or one of
    :data:`_EXTREMES`."""
    low = word.casefold()
    if low in _EXTREMES:
        return True
    if not low.endswith(("est", "er")):
        return False
    return any(Lexicon.packaged().cue_targets(base) for base in adjective_bases(low)[1:])


@functools.lru_cache(maxsize=1024)
def ordering_phrases(question: str) -> tuple[tuple[frozenset[str], frozenset[str], bool], ...]:
    """The phrases of ``question`` that say how its answer is ordered or which extreme it picks, each
    as ``(stems the phrase says, stems of the data words its cue words point at, sorts)``; ``sorts``
    is True for a sort verb's phrase ("ordered by X": X is what the answer is sorted by), False for
    a superlative's ("the earliest date": the extreme may be what the answer returns).

    Read with general English only: a sort verb followed by ``by``/``of``/``for`` and a noun phrase
    ("ordered by their names", "in descending order of age", "sorted by the level from high to
    low"), and a superlative or comparative with the noun phrase it qualifies ("the youngest
    singer", "the highest enrolment", "the most recent treatment", "the top 3 largest population").
    A noun phrase ends at punctuation, at a word that starts a clause (in, from, with, which, ...)
    or after four content words; operation words (order, highest, number, ...) and function words
    are left out of the stems. A sort phrase without its own noun ("in alphabetical order") gives
    ``(frozenset(), frozenset(), True)``.
    """
    tokens = re.findall(r"[A-Za-z][A-Za-z'\-]*|\d+(?:\.\d+)?|[,.;:?!()]", question)
    lowered = [t.casefold() for t in tokens]
    out: list[tuple[frozenset[str], frozenset[str], bool]] = []

    def phrase(start: int) -> tuple[set[str], set[str]]:
        said: set[str] = set()
        related: set[str] = set()
        content = 0
        for k in range(start, len(tokens)):
            low = lowered[k]
            if not low[0].isalnum() or low in _PHRASE_ENDS or content >= 4:
                break
            if low in STOP_WORDS or low.isdigit():
                continue
            if _is_extreme(low):
                related |= _related_stems(low)
                continue
            said.update(tokenize(low))
            related |= _related_stems(low)
            content += 1
        return said, related

    for i, low in enumerate(lowered):
        if low in _SORT_VERBS:
            link = next((j for j in range(i + 1, min(i + 5, len(lowered))) if lowered[j] in _SORT_LINKS), None)
            said, related = phrase(link + 1) if link is not None else (set(), set())
            out.append((frozenset(said), frozenset(related), True))
        elif _is_extreme(low) and (i == 0 or not _is_extreme(lowered[i - 1])):
            said, related = phrase(i + 1)
            related |= _related_stems(low)
            out.append((frozenset(said), frozenset(related), False))
    return tuple(out)


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


class _Checker:
    """One check run: resolves every table and column of the statement's scopes."""

    def __init__(self, facts: CheckFacts, schema: SourceSchema, statement: exp.Query, sql: str,
                 dialect: str | None):
        self.facts, self.schema, self.statement, self.sql, self.dialect = facts, schema, statement, sql, dialect
        self.findings: list[Finding] = []
        self.used: set[tuple[str, str]] = set()        # (table, column) referenced anywhere
        self.restricted: set[str] = set()              # column names (casefold) inside conditions
        self.literals: set[str] = set()                # normalised string literals
        self.string_columns: set[int] = set()          # ids of Column nodes that are SQLite strings
        self.places: list[tuple[str, str, exp.Column]] = []  # resolved (table, column, node), not join keys
        # (table, column) compared with a literal that its values or type contradict
        self.contradicted: set[tuple[str, str]] = set()

    # -- helpers --------------------------------------------------------------------------------

    def add(self, kind: str, severity: Severity, message: str, suggestion: str | None,
            node: exp.Expression | None = None, subject: str | None = None) -> None:
        start, end = _span(node)
        self.findings.append(Finding(kind, severity, message, suggestion, start, end, subject))

    def table(self, name: str):
        return self.schema.table(name)

    # -- the walk -------------------------------------------------------------------------------

    def run(self) -> list[Finding]:
        try:
            scopes = list(traverse_scope(self.statement))
        except (SqlglotError, RecursionError) as exc:
            return [Finding("parse_error", "Violation", f"the SQL cannot be analysed: {_first_line(exc)}", None)]
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
        for node in self.statement.find_all(exp.Literal):
            if node.is_string and not _negated(node):
                self.literals.add(normalize(node.this))
        self.check_values()
        self.check_ranges()
        self.check_types()
        self.check_grouping()
        self.check_self_comparisons()
        self.check_constraints()
        self.check_views()
        return self.findings

    def check_table(self, node: exp.Table) -> None:
        if node.args.get("db") or not node.name:
            return  # schema-qualified or table function: not in a single-schema catalog
        if self.table(node.name) is not None:
            return
        names = [t.name for t in self.schema.tables]
        labelled = {label: t for (sid, t), labels in self.facts.table_labels.items() if sid == self.schema.id
                    for label in labels}
        near = _nearest(node.name, names) or [labelled[lab] for lab in _nearest(node.name, labelled)]
        near = list(dict.fromkeys(near))[:SUGGESTIONS]
        self.add("unknown_table", "Violation", f"source {self.schema.id!r} has no table {node.name!r}",
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
        pool = [f"{t.name}.{c.name}" for t in tables for c in t.columns]
        near = _nearest(name, [p.split(".", 1)[1] for p in pool])
        suggestion = [p for p in pool if p.split(".", 1)[1] in near][:SUGGESTIONS]
        if not suggestion:
            pool = [f"{t.name}.{c.name}" for t in self.schema.tables for c in t.columns]
            near = _nearest(name, [p.split(".", 1)[1] for p in pool])
            suggestion = [p for p in pool if p.split(".", 1)[1] in near][:SUGGESTIONS]
        scope_names = ", ".join(t.name for t in tables) or "the FROM clause"
        as_string = " (SQLite would read the double-quoted name as a string)" if node.this.args.get("quoted") else ""
        self.add("unknown_column", "Violation", f"no table of {scope_names} has a column {name!r}{as_string}",
                 ", ".join(suggestion) or None, node.this, name)

    def _is_output_alias(self, node: exp.Column, name: str) -> bool:
        select_node = node.find_ancestor(exp.Select)
        while select_node is not None:
            if any(isinstance(e, exp.Alias) and e.alias.casefold() == name.casefold() for e in select_node.expressions):
                return True
            select_node = select_node.find_ancestor(exp.Select)
        return False

    def note(self, table: str, column: str, in_condition: bool, node: exp.Column) -> None:
        self.used.add((table, column))
        if in_condition:
            self.restricted.add(column.casefold())
        if not _is_join_key(node):
            self.places.append((table, column, node))

    # -- the question ---------------------------------------------------------------------------

    def check_question(self, question: str) -> list[Finding]:
        """``question_mismatch`` findings: see the module docstring. A column counts as named by the
        question when a stemmed question word (or a data word a cue word or synonym of the packaged
        :class:`~evoonto.lexicon.Lexicon` points at) is one of its words (name, Term labels), or one of
        its string literals in the statement occurs in the question and its values do not contradict it.
        A word the question says ``k`` times explains at most ``k`` used columns."""
        times = Counter(tokenize(question))  # how often the question says each (stemmed) word
        said = set(times)
        if not said:
            return []
        text = normalize(question)
        surface: dict[str, str] = {}  # stemmed token -> the question's word, for the message
        related: set[str] = set()
        for word in question_words(question):
            for token in tokenize(word):
                surface.setdefault(token, word)
            if tokenize(word):  # cue words and synonyms name data words ("youngest" -> age, birth)
                related |= _related_stems(word.casefold())
        # the words that may propose another column: said by the question, and not numbers (a number
        # of the question fits many columns: "1" in "grades 1 through 12" names no AdmEmail1) nor
        # words of a query operation ("number" in "the number of owners" names no cell_number)
        operations = _operation_stems()
        proposing = {w for w in said if not w.isdigit() and w not in operations}
        # a word of the name of another table the statement reads names that table ("schools" names
        # the table schools, not the column sname "school name" of satscores)
        table_names = {t.casefold(): set(tokenize(t)) for t in {t for t, _c in self.used}}
        words, values = self.facts.column_words, self.facts.value_words
        sid = self.schema.id

        def named(table: str, column: str, asked: set[str] = said | related) -> set[str]:
            """The question's words (or the data words its cue words and synonyms point at) that name
            the column; with ``asked=said``, only the words the question itself says."""
            return set(words.get((sid, table.casefold(), column.casefold()), ())) & asked

        def named_there(table: str, column: str, node: exp.Column) -> set[str]:
            """The words that name the column where ``node`` uses it: words of its values only in a
            condition (a value the question says is compared there, not returned or sorted by)."""
            found = named(table, column)
            if node.find_ancestor(*_CONDITION_PARENTS) is None:
                found -= values.get((sid, table.casefold(), column.casefold()), frozenset())
            return found

        # a word the question says k times, naming more than k used columns, names the k whose words
        # the question covers best ("name" said once names Name, not Song_Name)
        lost = self._overused_words(times)
        used_cols = {(t.casefold(), c.casefold()) for t, c in self.used}
        # a literal of the question explains the column compared with it, unless its values or type
        # contradict the literal (then the column is the suspect)
        compared = [(place, value) for place, value in
                    ((self._resolve(col), v) for col, v in self._compared_literals(text))
                    if place is not None and place not in self.contradicted]
        literal_columns = {place for place, _v in compared}
        # a column used only where it is compared with a literal of the question needs no word of its
        # own ("the notes of the events with the substring 'East'": 'notes' is left to name what the
        # SQL returns), unless the question says its words next to the literal ("directed by 'Ben Jones'")
        near = self._words_near(question, [v for _p, v in compared])
        by_literal_only = {(t.casefold(), c.casefold()) for t, c in literal_columns
                           if not named(t, c, said) & near.get(next(v for p, v in compared if p == (t, c)), set())} - {
            (t.casefold(), c.casefold()) for t, c, n in self.places if n.find_ancestor(*_CONDITION_PARENTS) is None}
        naming_count: Counter[str] = Counter()  # word -> how many used columns it names
        for t, c in self.used:
            if (t.casefold(), c.casefold()) not in by_literal_only:
                naming_count.update(named(t, c))
        # a word is explained once as many used columns as the question says it name it
        explained = {w for w, n in naming_count.items() if n >= times.get(w, 1)}
        # columns used only to sort: a selected column may be the one the question asks for instead
        sorting = {(t.casefold(), c.casefold()) for t, c, n in self.places if n.find_ancestor(exp.Order) is not None}
        elsewhere = {(t.casefold(), c.casefold()) for t, c, n in self.places if n.find_ancestor(exp.Order) is None}
        only_sorting = sorting - elsewhere
        outside_sort: Counter[str] = Counter()
        # the words of the question's sort phrases ("ordered by air date") name what it sorts by
        phrase_words = frozenset().union(*(p[0] for p in ordering_phrases(question) if p[2]))
        for t, c in self.used:
            if (t.casefold(), c.casefold()) in by_literal_only:
                continue
            if (t.casefold(), c.casefold()) not in only_sorting:
                outside_sort.update(named(t, c))
            else:
                outside_sort.update(named(t, c) & phrase_words)
        explained_outside_sort = {w for w, n in outside_sort.items() if n >= times.get(w, 1)}
        # columns a select list only aggregates: MIN(a), MAX(b) may mean MIN(b), MAX(b)
        aggregated = {(t.casefold(), c.casefold()) for t, c, n in self.places
                      if _selected(n) and n.find_ancestor(exp.AggFunc) is not None}
        plain = {(t.casefold(), c.casefold()) for t, c, n in self.places
                 if not (_selected(n) and n.find_ancestor(exp.AggFunc) is not None)}
        only_aggregated = aggregated - plain
        # a column a SELECT both returns and sorts by, while the question says its words once, is
        # named for one of the two: the sort counts as unnamed ("name" said once, Name selected and
        # sorted by, while "net worth" names a column the SQL does not use)
        returned = {(id(n.find_ancestor(exp.Select)), t.casefold(), c.casefold()) for t, c, n in self.places
                    if _selected(n)}
        # likewise a column a SELECT both returns and filters on: the return counts as unnamed
        filtered = {(id(n.find_ancestor(exp.Select)), t.casefold(), c.casefold()) for t, c, n in self.places
                    if n.find_ancestor(exp.Where) is not None}
        found: list[Finding] = []
        reported: set[tuple[str, str]] = set()
        for table, column, node in self.places:
            key = (table.casefold(), column.casefold())
            naming = named_there(table, column, node) - lost.get(key, set())
            scope_key = (id(node.find_ancestor(exp.Select)), *key)
            once = max((times.get(w, 1) for w in naming), default=0) <= 1
            resorted = once and (node.find_ancestor(exp.Order) is not None and scope_key in returned
                                 or _selected(node) and node.find_ancestor(exp.AggFunc) is None
                                 and scope_key in filtered)
            # the literal explains the column where it is compared, not where a SELECT returns it
            by_literal = (table, column) in literal_columns and node.find_ancestor(*_CONDITION_PARENTS) is not None
            if key in reported or by_literal or _is_semi_join_key(node):
                continue
            # named only through cue words or synonyms ("live" -> address): a column of the table the
            # question names outright may be the one meant
            weak = bool(naming) and not naming & said and _selected(node) and node.find_ancestor(exp.AggFunc) is None
            if naming and not resorted and not weak:
                fits = self._better_covered(table, column, said, explained | operations, used_cols)
                if fits is not None and node.find_ancestor(exp.AggFunc) is None:
                    where = f"{table}.{column}"
                    self.add("question_mismatch", "Warning",
                             f"the question's {', '.join(repr(surface.get(w, w)) for w in fits[1])} names "
                             f"{table}.{fits[0]} wholly, and {where} only in part; the SQL does not use "
                             f"{table}.{fits[0]}", f"{table}.{fits[0]}", node.this, where)
                    reported.add(key)
                    found.append(self.findings.pop())
                continue
            count = node.find_ancestor(exp.Count)
            if count is not None and not isinstance(count.this, exp.Distinct):
                # COUNT(col) counts rows, and its column is rarely named; but it skips the rows where the
                # column is NULL, which the question does not ask for when it names no such column
                col_facts = self.facts.columns.get((sid, table.casefold(), column.casefold()))
                if count.this is node and not naming and col_facts is not None and (col_facts.nulls or 0) > 0:
                    where = f"{table}.{column}"
                    self.add("count_skips_nulls", "Warning",
                             f"COUNT({where}) skips the {col_facts.nulls:.0%} of rows where it is NULL, and no "
                             "word of the question names it", "COUNT(*), or COUNT of a key column", node.this,
                             where)
                    found.append(self.findings.pop())
                    reported.add(key)
                continue
            info = self.table(table)
            if info is None:
                continue
            selected = _selected(node)
            taken, known = (used_cols - only_sorting - by_literal_only, explained_outside_sort) if selected \
                else (used_cols, explained)
            siblings: set[tuple[str, str]] = set()
            if selected and node.find_ancestor(exp.AggFunc) is not None:
                # another aggregate's column the question names ("minimum and maximum age": MIN(x), MAX(age))
                siblings = only_aggregated - {key}
                taken = taken - only_aggregated
            if weak:
                taken, siblings = used_cols, set()
            in_condition = node.find_ancestor(*_CONDITION_PARENTS) is not None
            better = []
            for other in info.columns:
                other_key = (table.casefold(), other.name.casefold())
                if other_key in taken | {key}:
                    continue
                unexplained = named(table, other.name, proposing) - (set() if other_key in siblings else known)
                if not in_condition:  # a value the question says names the column it is compared with
                    unexplained -= values.get((sid, *other_key), frozenset())
                unexplained -= {w for t, ws in table_names.items() if t != table.casefold() for w in ws}
                if unexplained:
                    better.append((len(unexplained), other.name, sorted(unexplained)))
            if not better:
                continue
            better.sort(key=lambda b: (-b[0], b[1]))
            reported.add(key)
            where = f"{table}.{column}"
            quoted = ", ".join(repr(w) for w in dict.fromkeys(surface.get(w, w) for w in better[0][2]))
            unnamed = (f"only a cue word or synonym of the question names {where}" if weak
                       else f"the question names {where} once, and the SQL both returns and "
                       f"{'sorts by' if node.find_ancestor(exp.Order) is not None else 'filters on'} it" if naming
                       else f"no word of the question names {where}")
            how = "use" if (table.casefold(), better[0][1].casefold()) not in used_cols else "use there"
            self.add("question_mismatch", "Warning",
                     f"{unnamed}; the question's {quoted} names {table}.{better[0][1]}, which the SQL does not {how}",
                     ", ".join(f"{table}.{b[1]}" for b in better[:SUGGESTIONS]), node.this, where)
            found.append(self.findings.pop())
        found += self._check_ordering(question, reported, said | related)
        return found

    def _better_covered(self, table: str, column: str, said: set[str], explained: set[str],
                        used: set[tuple[str, str]]) -> tuple[str, list[str]] | None:
        """``(column name, the question words naming it)`` of a column of ``table`` the statement does
        not use and whose words the question says every one of, sharing a said word with ``column``,
        when it fits the question better than ``column``: ``column`` has a word the question does
        not say (line_3 for "line 1 and line 2", LocalName for "names"), or the other column's said
        words include all of ``column``'s and more (Manager_name for "manager name"). Its words
        beyond ``column``'s must not name another column the statement uses (``explained``)."""
        sid, words, values = self.schema.id, self.facts.column_words, self.facts.value_words
        info = self.table(table)
        if info is None:
            return None
        own_key = (sid, table.casefold(), column.casefold())
        own = words.get(own_key, frozenset()) - values.get(own_key, frozenset())
        if not own:
            return None
        partial = not own <= said  # this column has a word the question does not say
        tables = {w for t, _c in self.used for w in tokenize(t)}
        for other in info.columns:
            other_key = (table.casefold(), other.name.casefold())
            if other_key in used:
                continue
            theirs = words.get((sid, *other_key), frozenset()) - values.get((sid, *other_key), frozenset())
            if not theirs or not theirs <= said or not theirs & own:
                continue
            extra = theirs - own - tables  # a word naming a table of the statement names that table
            if not extra or not extra - explained or (not partial and not theirs > own):
                continue
            return other.name, sorted(theirs)
        return None

    def _overused_words(self, times: Counter[str]) -> dict[tuple[str, str], set[str]]:
        """``(table, column)`` (casefold) -> the question words it loses: a word said ``k`` times that
        names more than ``k`` columns the statement uses (join keys aside) names the ``k`` whose words
        the question covers best; when those are covered wholly (every word of theirs is said), a
        column covered only in part loses it."""
        sid, words = self.schema.id, self.facts.column_words
        holders: dict[str, list[tuple[float, tuple[str, str]]]] = {}
        for key in {(t.casefold(), c.casefold()) for t, c, _n in self.places}:
            own = words.get((sid, *key), frozenset())
            if not own:
                continue
            cover = len(own & times.keys()) / len(own)
            for w in own & times.keys():
                holders.setdefault(w, []).append((cover, key))
        lost: dict[tuple[str, str], set[str]] = {}
        for w, held in holders.items():
            k = times[w]
            if len(held) <= k:
                continue
            held.sort(key=lambda h: -h[0])
            for cover, key in held[k:]:
                if cover < held[k - 1][0] == 1.0:
                    lost.setdefault(key, set()).add(w)
        return lost

    def _check_ordering(self, question: str, reported: set[tuple[str, str]], asked: set[str]) -> list[Finding]:
        """``question_mismatch`` for the column a statement sorts by (ORDER BY, a window's ORDER BY) or
        picks an extreme of (MIN/MAX in a select list), when the question's ordering phrases
        (:func:`ordering_phrases`: "ordered by X", "the youngest …", "the highest X") name another
        column of that table and not this one; and, when the question asks for an order without
        naming a column ("in alphabetical order"), for a sort column no word of the question names."""
        phrases = ordering_phrases(question)
        if not phrases:
            return []
        said = frozenset().union(*(p[0] for p in phrases))
        related = frozenset().union(*(p[1] for p in phrases))
        bare = any(not p[0] and not p[1] for p in phrases)
        # what the question names outright: its words, less those of a query operation ("average")
        outright = set(tokenize(question)) - _operation_stems()
        sid, words = self.schema.id, self.facts.column_words
        found: list[Finding] = []
        for table, column, node in self.places:
            key = (table.casefold(), column.casefold())
            extreme = node.find_ancestor(exp.Max, exp.Min)
            if key in reported or node.find_ancestor(exp.Count) is not None or not (
                    node.find_ancestor(exp.Order) is not None or extreme is not None and _selected(node)):
                continue  # COUNT(col) counts rows: its column is not what the order is about
            values = self.facts.value_words.get((sid, *key), frozenset())  # a value names where compared
            own = words.get((sid, *key), frozenset()) - values
            if own & (said | related) or extreme is not None and own & outright:
                continue  # MIN/MAX of a column the question names outright: its words may sit elsewhere
            info = self.table(table)
            if info is None:
                continue
            better = []
            for other in info.columns:
                other_key = (sid, table.casefold(), other.name.casefold())
                other_words = words.get(other_key, frozenset()) - self.facts.value_words.get(other_key, frozenset())
                if other.name.casefold() == key[1]:
                    continue
                hits = other_words & said or other_words & related
                if hits:
                    better.append((not other_words & said, -len(hits), other.name))
            where = f"{table}.{column}"
            doing = "sorts by" if node.find_ancestor(exp.Order) is not None else \
                f"takes the {type(extreme).__name__.upper()} of"
            if better:
                better.sort()
                self.add("question_mismatch", "Warning",
                         f"the SQL {doing} {where}, but the question's ordering phrase names "
                         f"{table}.{better[0][2]}", ", ".join(f"{table}.{b[2]}" for b in better[:SUGGESTIONS]),
                         node.this, where)
            elif bare and node.find_ancestor(exp.AggFunc) is None and not own & asked:
                self.add("question_mismatch", "Warning",
                         f"the SQL sorts by {where}, which no word of the question names, while the question "
                         "asks for an order without naming its column", "sort by a column the question names",
                         node.this, where)
            else:
                continue
            reported.add(key)
            found.append(self.findings.pop())
        return found

    @staticmethod
    def _words_near(question: str, literals: list[str], reach: int = 5) -> dict[str, set[str]]:
        """literal -> the stemmed words of ``question`` where it says the literal and at most ``reach``
        words before or after."""
        said = [normalize(w) for w in question_words(question)]
        out: dict[str, set[str]] = {}
        for literal in literals:
            needle = [normalize(w) for w in question_words(literal.strip("%"))]
            if not needle:
                continue
            for i in range(len(said) - len(needle) + 1):
                if said[i:i + len(needle)] == needle:
                    window = said[max(0, i - reach):i + len(needle) + reach]
                    out.setdefault(literal, set()).update(t for w in window for t in tokenize(w))
        return out

    def _compared_literals(self, question_text: str) -> Iterator[tuple[exp.Expression, str]]:
        """(column node, literal) of every comparison with a text literal that the question says: as
        whole words, or (three characters or more) as the start of a word ('CZE' in "Czech"); the
        literal 'B' is not in "black"."""
        for cmp in self.statement.find_all(exp.EQ, exp.NEQ, exp.In, exp.Like):
            if isinstance(cmp, exp.In):
                pairs = [(cmp.this, v) for v in cmp.expressions]
            else:
                pairs = [(cmp.this, cmp.expression), (cmp.expression, cmp.this)]
            for column, value_node in pairs:
                value = self._string(value_node)
                needle = normalize(value).strip("%") if isinstance(value, str) else ""
                # a number of the question fits many numeric columns, quoted ('80000') or not
                if needle and not _is_number(needle) and re.search(
                        r"(?<!\w)" + re.escape(needle) + ("" if len(needle) >= 3 else r"(?!\w)"), question_text):
                    yield column, str(value)

    # -- values ---------------------------------------------------------------------------------

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

    def _string(self, node: exp.Expression) -> str | None:
        if isinstance(node, exp.Literal) and node.is_string:
            return node.this
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

    def check_types(self) -> None:
        """``type_mismatch`` warnings: SUM/AVG of a text column, a text column compared with a number
        by ``<``, ``>``, ``<=``, ``>=`` or BETWEEN."""
        for agg in self.statement.find_all(exp.Sum, exp.Avg):
            column = agg.this
            place = self._resolve(column) if isinstance(column, exp.Column) else None
            if place is not None and self._is_text(place):
                name = type(agg).__name__.upper()
                self.add("type_mismatch", "Warning", f"{name} of {place[0]}.{place[1]}, a text column",
                         "aggregate a numeric column, or COUNT the rows", column, f"{place[0]}.{place[1]}")
        for cmp in self.statement.find_all(exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between):
            if isinstance(cmp, exp.Between):
                column, others = cmp.this, [cmp.args.get("low"), cmp.args.get("high")]
            else:
                column, others = (cmp.this, [cmp.expression]) if isinstance(cmp.this, exp.Column) else \
                    (cmp.expression, [cmp.this])
            if not isinstance(column, exp.Column) or not others or not all(
                    isinstance(o, exp.Literal) and not o.is_string for o in others):
                continue
            place = self._resolve(column)
            if place is not None and self._is_text(place):
                self.add("type_mismatch", "Warning", f"{place[0]}.{place[1]} is a text column compared with a number "
                         "(text sorts after every number)", "compare a numeric column, or CAST it", column,
                         f"{place[0]}.{place[1]}")

    def check_values(self) -> None:
        """Literals compared with a column (``=``, ``<>``, ``IN``, ``LIKE``) against what the column can
        hold: its type (:meth:`check_literal_type`) and its observed values (:meth:`check_value`)."""
        for cmp in self.statement.find_all(exp.EQ, exp.NEQ, exp.In, exp.Like):
            negated = isinstance(cmp, exp.NEQ) or isinstance(cmp.parent, exp.Not)
            if isinstance(cmp, exp.In):
                column, values = cmp.this, list(cmp.expressions)
            else:
                left, right = cmp.this, cmp.expression
                if self._string(right) is not None or _is_numeral(right):
                    column, values = left, [right]
                elif self._string(left) is not None or _is_numeral(left):
                    column, values = right, [left]
                else:
                    continue
            place = self._resolve(column)
            if place is None:
                continue
            numerals = [v for v in values if _is_numeral(v)]
            if numerals:  # a number compared with a text column whose whole vocabulary lacks it
                col_facts = self.facts.columns.get((self.schema.id, place[0].casefold(), place[1].casefold()))
                if col_facts is not None and col_facts.complete and self._is_text(place) and \
                        not isinstance(cmp, exp.Like):
                    for value_node in numerals:
                        number = float(value_node.name)
                        if not any(_is_number(v) and float(v) == number for v in col_facts.values):
                            self.check_value(place, value_node.name, value_node, col_facts, negated)
                values = [v for v in values if not _is_numeral(v)]
            if self.check_literal_type(place, values, negated, like=isinstance(cmp, exp.Like)):
                continue
            col_facts = self.facts.columns.get((self.schema.id, place[0].casefold(), place[1].casefold()))
            if isinstance(cmp, exp.Like) or col_facts is None or not col_facts.values:
                continue
            for value_node in values:
                value = self._string(value_node)
                if value is None or value in col_facts.values:
                    continue
                self.check_value(place, value, value_node, col_facts, negated)

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

    def check_literal_type(self, place: tuple[str, str], values: list[exp.Expression], negated: bool, *,
                           like: bool) -> bool:
        """``type_mismatch`` when a text literal that is no number is compared with a numeric column
        (``=``/``IN``/``LIKE``: never true, a Violation; ``<>``/``NOT IN``: always true, a Warning).
        For ``LIKE`` the pattern contradicts when it holds a letter. True when one was reported."""
        if not self._is_numeric(place):
            return False
        info = self.table(place[0])
        column = info.column(place[1]) if info is not None else None
        # declared numeric: a Violation; numbers stored as text (only the Evidence says so): a Warning
        declared = column is not None and type_family(column.declared_type) == "number"
        for value_node in values:
            value = self._string(value_node)
            if value is None:
                continue
            wrong = any(ch.isalpha() for ch in value) if like else not _is_number(value.strip())
            if not wrong:
                continue
            where = f"{place[0]}.{place[1]}"
            self.contradicted.add(place)
            others = self._holders(place, value)
            self.add("type_mismatch", "Violation" if declared and not negated else "Warning",
                     f"{where} holds numbers; the text {_quote(value)} never "
                     f"{'matches' if like else 'equals'} one" + (f" ({_quote(value)} is a value of "
                                                                  f"{', '.join(others)})" if others else ""),
                     ", ".join(others) or "compare a text column, or a number", value_node, where)
            return True
        return False

    def _number(self, node: exp.Expression | None) -> float | None:
        """The number a literal (or a string literal holding a number) stands for, else None."""
        if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
            inner = self._number(node.this)
            return -inner if inner is not None else None
        if not isinstance(node, exp.Literal):
            return None
        return _float(node.this.strip()) if isinstance(node.this, str) else None

    def check_ranges(self) -> None:
        """``out_of_range`` (Warning): a numeric column compared with numbers outside the range its
        Evidence observed (``evo:minValue``..``evo:maxValue``), so that the condition holds for no row
        (``= 1980`` where the values run 9..46) or for every row (``< 2008`` where they run 1..20)."""
        flips = {"gt": "lt", "lt": "gt", "gte": "lte", "lte": "gte"}
        for cmp in self.statement.find_all(exp.EQ, exp.In, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between):
            if cmp.find_ancestor(exp.Not) is not None:
                continue
            kind = cmp.key
            if isinstance(cmp, exp.In):
                column, numbers = cmp.this, [self._number(v) for v in cmp.expressions]
            elif isinstance(cmp, exp.Between):
                column, numbers = cmp.this, [self._number(cmp.args.get("low")), self._number(cmp.args.get("high"))]
            elif isinstance(cmp.this, exp.Column):
                column, numbers = cmp.this, [self._number(cmp.expression)]
            else:
                column, numbers = cmp.expression, [self._number(cmp.this)]
                kind = flips.get(kind, kind)
            if not isinstance(column, exp.Column) or not numbers or any(n is None for n in numbers):
                continue
            place = self._resolve(column)
            if place is None or not self._is_numeric(place):
                continue
            facts = self.facts.columns.get((self.schema.id, place[0].casefold(), place[1].casefold()))
            if facts is None or facts.low is None or facts.high is None:
                continue
            low, high = facts.low, facts.high
            verdict = _range_verdict(kind, [n for n in numbers if n is not None], low, high)
            if verdict is None:
                continue
            where = f"{place[0]}.{place[1]}"
            self.contradicted.add(place)
            self.add("out_of_range", "Warning",
                     f"{where} holds {_plain(low)}..{_plain(high)} (Evidence), so "
                     f"{cmp.sql(dialect=self.dialect)} holds for {verdict} row",
                     "compare the column whose values this range fits",
                     column.parent if isinstance(column.parent, exp.Expression) else column, where)

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

    def check_value(self, place: tuple[str, str], value: str, node: exp.Expression, col: ColumnFacts,
                    negated: bool) -> None:
        where = f"{place[0]}.{place[1]}"
        near = _nearest(value, col.values)
        suggestion = ", ".join(_quote(v) for v in near) or None
        same_case = [v for v in col.values if v.casefold() == value.casefold()]
        others = [] if same_case else self._holders(place, value)
        if col.complete:
            if not same_case:
                self.contradicted.add(place)
            elsewhere = f"; it is a value of {', '.join(others)}" if others else ""
            self.add("unseen_value", "Warning" if negated else "Violation",
                     f"{where} never holds {_quote(value)} ({len(col.values)} values observed: the whole "
                     f"vocabulary){elsewhere}", ", ".join(others) if others and not near else suggestion, node, where)
        elif same_case:
            self.add("value_case", "Warning",
                     f"{where} holds {_quote(same_case[0])}, not {_quote(value)} (comparisons are case-sensitive)",
                     _quote(same_case[0]), node, where)
        elif others:
            self.contradicted.add(place)
            self.add("value_elsewhere", "Warning",
                     f"{_quote(value)} is a value of {', '.join(others)}, and not among the {len(col.values)} "
                     f"values observed in {where}", ", ".join(others), node, where)

    # -- select lists and grouping -----------------------------------------------------------

    def _own_columns(self, select: exp.Select, nodes: Iterable[exp.Expression]) -> list[exp.Column]:
        """Column nodes under ``nodes`` that belong to ``select`` itself (not to a subquery)."""
        return [c for n in nodes for c in n.find_all(exp.Column) if c.find_ancestor(exp.Select) is select]

    def _unique(self, table: str, columns: Iterable[str]) -> bool:
        graph = self.facts.joins
        return graph is not None and graph.is_unique(TableRef(self.schema.id, table), columns)

    def _check_fixed_selection(self, sel: exp.Select, returned: dict[tuple[str, str], exp.Column]) -> None:
        """``selects_filter_value`` (Warning): the select list returns a column that the WHERE clause
        fixes to literals (``=``/``IN``, not alternated with a condition on another column), so the
        result shows back values the SQL already states; usually another column is asked for."""
        where = sel.args.get("where")
        if where is None or not returned:
            return
        for cmp in where.find_all(exp.EQ, exp.In):
            if cmp.find_ancestor(exp.Select) is not sel or cmp.find_ancestor(exp.Not) is not None:
                continue
            column = cmp.this if isinstance(cmp.this, exp.Column) else cmp.expression
            others = cmp.expressions if isinstance(cmp, exp.In) else \
                [cmp.expression if column is cmp.this else cmp.this]
            if not isinstance(column, exp.Column) or not others or not all(
                    _is_numeral(o) or self._string(o) is not None for o in others):
                continue
            place = self._resolve(column)
            key = (place[0].casefold(), place[1].casefold()) if place is not None else None
            if place is None or key not in returned:
                continue
            alternatives = [o for o in (cmp.find_ancestor(exp.Or),) if o is not None]
            node = cmp
            while alternatives:
                branch_columns = {self._resolve(c) for c in alternatives[0].find_all(exp.Column)
                                  if id(c) not in self.string_columns}
                if branch_columns - {place}:
                    break  # alternated with a condition on another column: not fixed
                node = alternatives[0]
                alternatives = [o for o in (node.find_ancestor(exp.Or),) if o is not None]
            else:
                where_text = f"{place[0]}.{place[1]}"
                fixed = others[0].sql(dialect=self.dialect) + (" …" if len(others) > 1 or node is not cmp else "")
                self.add("selects_filter_value", "Warning",
                         f"{where_text} is returned, but the WHERE clause fixes it to {fixed}",
                         "return the column the question asks for", returned[key].this, where_text)
                del returned[key]

    def check_grouping(self) -> None:
        """Per SELECT: ``repeated_column`` (Warning) when the select list shows one column twice (the
        second is usually meant to be another); with GROUP BY, ``ungrouped_column`` (Warning) for a
        select-list column outside any aggregate that the groups do not determine (not grouped, and
        its table's unique key is neither grouped nor equal to a grouped column: the database shows
        one arbitrary row's value, or refuses), and ``group_by_unique`` (Warning) when a one-table
        SELECT that aggregates groups by a unique key of the table (every group is one row)."""
        for sel in self.statement.find_all(exp.Select):
            bare: list[tuple[tuple[str, str], exp.Column]] = []
            seen: dict[tuple[str, str], exp.Column] = {}
            for item in sel.expressions:
                target = item.this if isinstance(item, exp.Alias) else item
                if isinstance(target, exp.Column):
                    place = self._resolve(target)
                    if place is None:
                        continue
                    key = (place[0].casefold(), place[1].casefold())
                    if key in seen:
                        where = f"{place[0]}.{place[1]}"
                        self.add("repeated_column", "Warning", f"the select list shows {where} twice",
                                 "select another column, or drop the repeat", target.this, where)
                    seen[key] = target
                for column in self._own_columns(sel, [item]):
                    agg = column.find_ancestor(exp.AggFunc)
                    if agg is None or agg.find_ancestor(exp.Select) is not sel:
                        place = self._resolve(column)
                        if place is not None:
                            bare.append((place, column))
            self._check_fixed_selection(sel, seen)
            group = sel.args.get("group")
            if group is None or not group.expressions:
                continue
            grouped_nodes = [g for g in group.expressions if isinstance(g, exp.Column)]
            if len(grouped_nodes) != len(group.expressions):
                continue  # grouped by an expression or position: not followed
            grouped = [place for place in (self._resolve(g) for g in grouped_nodes) if place is not None]
            if len(grouped) != len(grouped_nodes):
                continue
            keys = {(t.casefold(), c.casefold()) for t, c in grouped}
            # columns equal to a grouped column (join conditions, equality filters) are grouped too
            for eq in sel.find_all(exp.EQ):
                if eq.find_ancestor(exp.Select) is not sel:
                    continue
                if isinstance(eq.this, exp.Column) and isinstance(eq.expression, exp.Column):
                    a, b = self._resolve(eq.this), self._resolve(eq.expression)
                    if a is not None and b is not None:
                        ka, kb = (a[0].casefold(), a[1].casefold()), (b[0].casefold(), b[1].casefold())
                        if ka in keys or kb in keys:
                            keys |= {ka, kb}
            by_table: dict[str, set[str]] = {}
            for t, c in keys:
                by_table.setdefault(t, set()).add(c)
            names = {t.casefold(): t for t, _c in self.used}
            determined = {t for t, cols in by_table.items() if self._unique(names.get(t, t), cols)}
            reported: set[tuple[str, str]] = set()
            for place, column in bare:
                key = (place[0].casefold(), place[1].casefold())
                if key in keys or key[0] in determined or key in reported:
                    continue
                reported.add(key)
                where = f"{place[0]}.{place[1]}"
                shown = ", ".join(g.sql(dialect=self.dialect) for g in grouped_nodes)
                self.add("ungrouped_column", "Warning",
                         f"{where} is selected outside an aggregate but the groups ({shown}) do not determine it: "
                         "each group shows one arbitrary row's value",
                         f"GROUP BY {where}, or aggregate it", column.this, where)
            for agg in sel.find_all(exp.Min, exp.Max, exp.Avg):
                arg = agg.this
                if agg.find_ancestor(exp.Select) is not sel or not isinstance(arg, exp.Column):
                    continue
                place = self._resolve(arg)
                if place is not None and (place[0].casefold(), place[1].casefold()) in keys:
                    where = f"{place[0]}.{place[1]}"
                    name = type(agg).__name__.upper()
                    self.add("grouped_aggregate", "Warning",
                             f"{name}({where}) of a grouped column is the group's own value",
                             "aggregate another column", arg.this, where)
            tables = [t for t in sel.find_all(exp.Table) if t.find_ancestor(exp.Select) is sel]
            aggregates = any(a.find_ancestor(exp.Select) is sel for a in sel.find_all(exp.AggFunc))
            if len(tables) == 1 and not sel.args.get("joins") and aggregates and determined:
                where = ", ".join(g.sql(dialect=self.dialect) for g in grouped_nodes)
                self.add("group_by_unique", "Warning",
                         f"GROUP BY {where}: a unique key of {tables[0].name}, so every group is one row "
                         "and each aggregate sees one value", "group by the column the question groups by",
                         grouped_nodes[0].this, where)

    def check_self_comparisons(self) -> None:
        """``self_comparison`` (Warning): a column compared with itself (``a <> a``, ``T1.a = T1.a``),
        which holds for every row or for none; one side usually meant another column."""
        for cmp in self.statement.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE):
            left, right = cmp.this, cmp.expression
            if not isinstance(cmp, exp.Expression) or not isinstance(left, exp.Column) \
                    or not isinstance(right, exp.Column):
                continue
            place = self._resolve(left)
            if place is None or place != self._resolve(right) \
                    or (left.table or "").casefold() != (right.table or "").casefold():
                continue
            where = f"{place[0]}.{place[1]}"
            self.add("self_comparison", "Warning",
                     f"{cmp.sql(dialect=self.dialect)} compares {where} with itself: it holds for every row or none",
                     "compare it with the column meant", cmp, where)

    # -- views ----------------------------------------------------------------------------------

    def check_views(self) -> None:
        by_table: dict[str, list[str]] = {}
        for table, column in sorted(self.used):
            by_table.setdefault(table, []).append(column)
        for table, columns in by_table.items():
            passes = self.facts.views.get((self.schema.id, table.casefold()))
            if not passes or not all(c.casefold() in passes for c in columns):
                continue
            bases = [passes[c.casefold()] for c in columns]
            node = next((t for t in self.statement.find_all(exp.Table) if t.name.casefold() == table.casefold()), None)
            self.add("view_for_base", "Warning",
                     f"{table!r} is a view; the columns used ({', '.join(columns)}) are passed through from "
                     f"{', '.join(sorted({b for b, _c in bases}))}",
                     ", ".join(f"{b}.{c}" for b, c in bases), node.this if node is not None else None, table)

    # -- constraints ----------------------------------------------------------------------------

    def check_constraints(self) -> None:
        used = {(self.schema.id, t.casefold(), c.casefold()) for t, c in self.used}
        used_tables = {(self.schema.id, t.casefold()) for t, _c in self.used}
        for constraint in self.facts.constraints:
            applies = any((s, t.casefold(), c.casefold()) in used if c else (s, t.casefold()) in used_tables
                          for s, t, c in constraint.targets)
            if not applies:
                continue
            if constraint.triggers and not any(
                    trigger in literal or literal in constraint.triggers for trigger in constraint.triggers
                    for literal in self.literals):
                continue
            try:
                condition = sqlglot.parse_one(constraint.condition, read=self.dialect)
            except (ParseError, SqlglotError):
                continue
            needed = {c.name.casefold() for c in condition.find_all(exp.Column)}
            if needed and not needed <= self.restricted:
                missing = ", ".join(sorted(needed - self.restricted))
                self.add("missing_constraint", constraint.severity,
                         f"a required condition on {missing} is missing"
                         + (f": {constraint.comment}" if constraint.comment else ""),
                         f"add AND {constraint.condition}", None, constraint.iri)


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
