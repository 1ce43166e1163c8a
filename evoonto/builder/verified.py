"""Verified queries: question + SQL pairs a person vouches for, kept and mined into Content.

A verified query (the "golden SQL" of a team) becomes an ``evo:VerifiedQuery ⊑ prov:Entity`` record
(:class:`evoonto.records.VerifiedQuery`) with its question, SQL, who verified it
(``prov:wasAttributedTo``) and when (``prov:generatedAtTime``), the Evidence of one read-only run
of its SQL (the one probe path, :func:`evoonto.sources.probe.run_probe`), and ``evo:exercises``
links to the Terms, Mappings and Relations its SQL uses. Its SQL is then **mined** (sqlglot, in the
source's dialect), each mined piece pointing at the query with ``prov:wasDerivedFrom``:

- **metric Terms** (``evo:Metric``) for aggregate expressions of a SELECT list over real columns
  (``SUM(InvoiceLine.UnitPrice * InvoiceLine.Quantity)``; not ``MIN``/``MAX`` of a bare column),
  named by the question phrase that names them (the words no table, column, value or grain of
  the query explains; over several queries with the same expression, the phrase most of them
  share), with a Mapping carrying the expression
  (``evo:expression``) and ``evo:Derivation`` relations to the column Terms (``evo:formula``);
- **named filters** as Constraints: a WHERE comparison between two columns, or of a column with a
  number the question does not state, named by the unexplained question phrase (``long`` →
  ``Track.Milliseconds > 300000``);
- **date grains** as TimeDimension Terms with their expression (``strftime('%Y-%m', …)``,
  ``date_trunc('month', …)``, ``EXTRACT(YEAR FROM …)``: ``monthly``/``yearly`` …);
- **join paths actually used** (``evo:joinUsed`` on the query; :class:`evoonto.tools.joinpaths.JoinGraph`
  reads them as ``verified_query`` edges) and an Association Relation between two Entities that no
  relation joined yet;
- **phrase → value synonyms**: when a query compares a column with one text value no word of the
  question states (``Country = 'UK'`` for "customers in the United Kingdom") and exactly one question
  phrase is left unexplained (or two or more such queries share the phrase, and no question without
  the value uses it), the phrase becomes an ``skos:altLabel`` of that value's Term (only for a value
  a whole-table profile recorded, so a probe and the question agree on it);
- **phrase → column synonyms**: when exactly one column the query selects, groups or filters by is
  named by no word of the question and exactly one question phrase is left unexplained, in at
  least :data:`MIN_SYNONYM_SUPPORT` queries alike, the phrase becomes an ``skos:altLabel`` of that
  column's Term.

Bad input changes nothing: a malformed line (not a JSON object, no question or SQL, a bad field, a
duplicate id) is a :class:`~evoonto.errors.WorkloadError` naming the file and line before anything is
read or built (:func:`load_verified`, the one reader of verified queries); a well-formed query whose SQL
does not parse, names a missing table or column (:func:`evoonto.tools.sqlcheck.check_sql`) or fails to
run gives one :class:`~evoonto.sources.base.SourceWarning` naming the file and line, and that query is
left out whole. Only general rules of English and SQL are used (no word list of any benchmark).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import OWL, PROV, RDF, SKOS

from evoonto.builder.labels import column_labels, table_labels
from evoonto.builder.propose import term_slug
from evoonto.catalog import SourceSchema
from evoonto.builder.workload import MAX_QUESTION_CHARS
from evoonto.sources.guard import MAX_STATEMENT_CHARS, check_read_only
from evoonto.errors import ReadOnlyViolation, WorkloadError
from evoonto.fileio import record_lines
from evoonto.iris import IriFactory, slugify, stable_key
from evoonto.lexicon import Lexicon
from evoonto.namespaces import EVO, bind_prefixes
from evoonto.records import Constraint, Evidence, Mapping as MappingRecord, ProbeActivity, Relation, Term
from evoonto.records import VerifiedQuery as VerifiedQueryRecord
from evoonto.text import QUESTION_STOP_WORDS, stem, tokenize, words
from evoonto.tools.joinpaths import JoinGraph, written_joins

__all__ = ["VerifiedItem", "VerifiedMining", "load_verified", "recorded_verified", "as_verified", "mine_verified",
           "GRAIN_WORDS", "items_for_source", "computed_term", "grain_term", "grain_expression",
           "verified_iri", "MAX_PHRASE_WORDS", "VerifiedMeasures", "verified_measures", "UnstatedValue",
           "unstated_values", "value_phrase"]

#: Longest question phrase (words) used as a name.
MAX_PHRASE_WORDS = 3
#: Verified queries that must pair the same question phrase with the same unnamed column before the
#: phrase becomes a synonym of the column's Term.
MIN_SYNONYM_SUPPORT = 2
#: Rows a verified query's execution probe reads (the run only proves that the SQL runs).
RUN_LIMIT = 20
#: The calendar grains of SQL date functions and the English words that name them (general English).
GRAIN_WORDS: dict[str, tuple[str, ...]] = {
    "hour": ("hourly", "per hour", "by hour", "hour"),
    "day": ("daily", "per day", "by day", "day"),
    "week": ("weekly", "per week", "by week", "week"),
    "month": ("monthly", "per month", "by month", "month"),
    "quarter": ("quarterly", "per quarter", "by quarter", "quarter"),
    "year": ("yearly", "annual", "per year", "by year", "year"),
}
#: Prepositions of rates and comparisons, and negations, that end a phrase (general English).
_CONNECTIVES = frozenset({"per", "vs", "versus", "via", "not", "no", "never"})


@dataclass(frozen=True)
class VerifiedItem:
    """One verified query as given.

    Attributes:
        question: the question text; sql: its SQL; id: the given id (default: derived from the SQL);
        db_id: the source id it is for (default: the source whose tables it names);
        verified_by: who vouches for it; verified_at: when (ISO date or date-time text);
        where: ``"FILE:LINE"`` (or ``"item N"``) for warnings.
    """

    question: str
    sql: str = field(repr=False)  # kept out of logs by accident (verified SQL scores the gate's V)
    id: str | None = None
    db_id: str | None = None
    verified_by: str | None = None
    verified_at: str | None = None
    where: str = ""

    @property
    def key(self) -> str:
        """The id, or a stable key of the question and SQL."""
        return self.id or stable_key(self.question, self.sql, length=12)


def recorded_verified(ontology: Any) -> list[VerifiedItem]:
    """The verified queries an ontology holds (``evo:VerifiedQuery`` records that ``evoonto build
    --verified`` and ``evoonto verified add`` wrote; deprecated ones left out), ordered by source, id
    and IRI: what ``evoonto verified list`` prints and ``evoonto evolve`` uses when no file is given.

    Args:
        ontology: an Ontology (SPARQL over its active graphs).
    Returns:
        items with ``id`` (``dcterms:identifier``, else the record's IRI), ``db_id`` (its source's
        id), ``verified_by``/``verified_at`` when recorded, and ``where`` naming the record.
    """
    from evoonto.tools.sparql import select

    rows = select(ontology, """
        SELECT ?q ?question ?sql ?id ?src ?who ?when WHERE {
          ?q a evo:VerifiedQuery ; evo:question ?question ; evo:sql ?sql .
          OPTIONAL { ?q dcterms:identifier ?id } OPTIONAL { ?q evo:source ?s . ?s dcterms:identifier ?src }
          OPTIONAL { ?q prov:wasAttributedTo ?a . ?a rdfs:label ?who } OPTIONAL { ?q prov:generatedAtTime ?when }
          FILTER NOT EXISTS { ?q owl:deprecated true } } ORDER BY ?src ?id ?q""")
    return [VerifiedItem(question=r["question"], sql=r["sql"], id=r.get("id", r["q"]), db_id=r.get("src"),
                         verified_by=r.get("who"), verified_at=r.get("when"),
                         where=f"verified query {r.get('id', r['q'])} of the workspace") for r in rows]


def _warn(message: str) -> None:
    from evoonto.sources.base import warn

    warn(message)


def _item(obj: Any, where: str) -> VerifiedItem | str:
    """A :class:`VerifiedItem` from one JSON object, or the reason it is not one."""
    if not isinstance(obj, Mapping):
        return "expected a JSON object with 'question' and 'sql'"
    question, sql = obj.get("question"), obj.get("sql")
    if not isinstance(question, str) or not question.strip():
        return "missing or empty 'question'"
    if not isinstance(sql, str) or not sql.strip():
        return "missing or empty 'sql'"
    if len(question) > MAX_QUESTION_CHARS:
        return f"the question is {len(question):,} characters long, the limit is {MAX_QUESTION_CHARS:,}"
    if len(sql) > MAX_STATEMENT_CHARS:  # as run_sql and check_sql: never parsed (sqlglot took > 70 s on 1 MB)
        return f"the SQL is {len(sql):,} characters long, the limit is {MAX_STATEMENT_CHARS:,}"
    extra = {}
    for name in ("id", "db_id", "verified_by", "verified_at"):
        value = obj.get(name)
        if value is not None and not isinstance(value, (str, int)):
            return f"'{name}' must be a string"
        extra[name] = None if value is None else str(value).strip() or None
    if extra["verified_at"] is not None and _parse_time(extra["verified_at"]) is None:
        return f"'verified_at' {extra['verified_at']!r} is not an ISO date or date-time"
    return VerifiedItem(" ".join(question.split()), sql.strip(), where=where, **extra)


def load_verified(path: str | Path, *, skip_malformed: bool = False) -> list[VerifiedItem]:
    """The one reader of verified-query files (the builder, ``evoonto verified add`` and the evolution
    loop's outcomes and hold-out all read through it): JSON Lines, one object per line with
    ``question`` and ``sql``, optional ``id``, ``db_id``, ``verified_by``, ``verified_at``. Blank
    lines and ``#`` lines are skipped. Every item gets its id (:attr:`VerifiedItem.key`: the given
    id, else a stable key of question and SQL), so all readers use one id scheme.

    A question longer than :data:`~evoonto.builder.workload.MAX_QUESTION_CHARS` or SQL longer than
    :data:`~evoonto.sources.guard.MAX_STATEMENT_CHARS` characters is a malformed line, as is
    JSON nested too deeply for Python's parser.

    Args:
        path: the JSON Lines file.
        skip_malformed: leave malformed lines (and later duplicates of an id) out, each with one
            :class:`~evoonto.sources.base.SourceWarning` naming ``FILE:LINE`` (``evoonto verified
            add``), instead of refusing the file.

    Returns:
        the items in file order, ``id`` always set, ids unique.
    Raises:
        WorkloadError: the file cannot be read, or (without ``skip_malformed``) a malformed line (not
            a JSON object, a missing or empty ``question``/``sql``, a bad optional field, a duplicate
            id); the message names ``FILE:LINE`` and nothing is read (bad input changes nothing).
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark (Windows editors) is not data
    except (OSError, UnicodeDecodeError) as exc:
        reason = (exc.strerror if isinstance(exc, OSError) else None) or exc
        raise WorkloadError(f"cannot read the verified queries {path}: {reason}") from None
    out: list[VerifiedItem] = []
    for n, line in enumerate(record_lines(text), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{path}:{n}"
        try:
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise WorkloadError(f"{where}: a verified query must be a JSON object ({exc.msg})") from None
            except RecursionError:
                raise WorkloadError(f"{where}: JSON nested too deeply to be read") from None
            out.append(_checked(obj, where))
        except WorkloadError as err:
            if not skip_malformed:
                raise
            _warn(f"{err}; line left out")
    return _unique(out, skip_duplicates=skip_malformed)


def _checked(obj: Any, where: str) -> VerifiedItem:
    """The :class:`VerifiedItem` of one JSON object with its id set, or a WorkloadError naming ``where``."""
    item = _item(obj, where)
    if isinstance(item, str):
        raise WorkloadError(f"{where}: malformed verified query: {item}")
    return item if item.id else replace(item, id=item.key)


def _unique(items: list[VerifiedItem], *, skip_duplicates: bool = False) -> list[VerifiedItem]:
    first: dict[str | None, str] = {}
    out = []
    for item in items:
        if item.id in first:
            message = f"{item.where}: duplicate verified query id {item.id!r} (first at {first[item.id]})"
            if not skip_duplicates:
                raise WorkloadError(message)
            _warn(f"{message}; line left out")
            continue
        first[item.id] = item.where
        out.append(item)
    return out


def as_verified(verified: str | Path | Iterable[Mapping[str, Any] | VerifiedItem] | None) -> list[VerifiedItem]:
    """Verified queries from a file path (:func:`load_verified`), an iterable of ``{"question", "sql",
    …}`` dicts or :class:`VerifiedItem` objects, or None (no queries); ids are always set.

    Raises:
        WorkloadError: as :func:`load_verified`; a malformed item is named ``item N`` (1-based).
    """
    if verified is None:
        return []
    if isinstance(verified, (str, Path)):
        return load_verified(verified)
    out: list[VerifiedItem] = []
    for n, obj in enumerate(verified, start=1):
        if isinstance(obj, VerifiedItem):
            out.append(obj if obj.id else replace(obj, id=obj.key))
        else:
            out.append(_checked(obj, f"item {n}"))
    return _unique(out)


def items_for_source(items: Sequence[VerifiedItem], source_id: str, table_names: Iterable[str],
                     taken: set[int]) -> list[VerifiedItem]:
    """The items meant for one source: those whose ``db_id`` is ``source_id``; those without a
    ``db_id`` whose SQL names only tables of ``table_names`` (case-insensitive), or that do not parse
    (so their warning is given once). ``taken`` holds the positions already given to a source
    (updated)."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    names = {n.casefold() for n in table_names}
    out = []
    for n, item in enumerate(items):
        if n in taken or item.db_id not in (None, source_id):
            continue
        if item.db_id is None:
            named: set[str] = set()
            ctes: set[str] = set()
            try:  # the guard first: text too long or nested too deeply is never handed to the parser
                check_read_only(item.sql)
                tree = sqlglot.parse_one(item.sql)
                named = {t.name.casefold() for t in tree.find_all(exp.Table)}
                ctes = {c.alias_or_name.casefold() for c in tree.find_all(exp.CTE)}
            except (SqlglotError, ReadOnlyViolation, RecursionError):
                pass  # given to the source anyway, so that its warning is given once
            if named and not (named - ctes) <= names:
                continue
        taken.add(n)
        out.append(item)
    return out


def _parse_time(text: str) -> datetime | None:
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            day = date.fromisoformat(text)
        except ValueError:
            return None
        value = datetime(day.year, day.month, day.day)
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def verified_iri(iris: IriFactory, source_id: str, key: str) -> URIRef:
    """``B verified/{src}/{key}`` (segments percent-encoded as :mod:`evoonto.iris` does)."""
    return URIRef(f"{iris.base}verified/{quote(source_id, safe='')}/{quote(key, safe='')}")


def _agent_iri(iris: IriFactory, name: str) -> URIRef:
    return URIRef(f"{iris.base}agent/{quote(name, safe='')}")


def _sub_iri(iri: URIRef, *segments: str) -> URIRef:
    return URIRef(str(iri) + "".join("/" + quote(s, safe="") for s in segments))


# -- analysis of one query -------------------------------------------------------------------------


@dataclass
class _Aggregate:
    function: str              # SUM, AVG, COUNT, MIN, MAX
    expression: str            # with real table names, in the source dialect
    columns: tuple[tuple[str, str], ...]


@dataclass
class _Filter:
    condition: str
    columns: tuple[tuple[str, str], ...]


@dataclass
class _Grain:
    unit: str
    table: str
    column: str
    expression: str


@dataclass
class _Analysis:
    tables: list[str] = field(default_factory=list)
    columns: list[tuple[str, str]] = field(default_factory=list)        # every real column used
    plain: list[tuple[str, str]] = field(default_factory=list)          # selected/grouped/filtered, not aggregated
    aggregates: list[_Aggregate] = field(default_factory=list)
    filters: list[_Filter] = field(default_factory=list)
    grains: list[_Grain] = field(default_factory=list)
    joins: list[tuple[str, str, str, str]] = field(default_factory=list)  # (t1, c1, t2, c2)
    literals: list[str] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)                     # thresholds of filters
    values: list[tuple[tuple[str, str], str]] = field(default_factory=list)  # column = 'text' filters


_GRAIN_FORMATS = (("%S", None), ("%M", None), ("%H", "hour"), ("%d", "day"), ("%j", "day"), ("%W", "week"),
                  ("%U", "week"), ("%V", "week"), ("%m", "month"), ("%Y", "year"))
_AGGREGATES = {"Sum": "SUM", "Avg": "AVG", "Count": "COUNT", "Min": "MIN", "Max": "MAX"}


def _grain_of_format(fmt: str) -> str | None:
    """The calendar grain a strftime format keeps: the finest date part it prints (None when it
    prints a time of day finer than an hour)."""
    for spec, unit in _GRAIN_FORMATS:
        if spec in fmt:
            return unit
    return None


class _Analyzer:
    def __init__(self, schema: SourceSchema, dialect: str | None, joins: JoinGraph):
        self.schema = schema
        self.dialect = dialect
        self.joins = joins  # the catalog's join graph: written_joins resolves the joins a query writes
        self.tables = {t.name.casefold(): t for t in schema.tables}

    def real(self, table_alias: str, column: str, scope_tables: Mapping[str, str]) -> tuple[str, str] | None:
        if table_alias:
            table = scope_tables.get(table_alias.casefold())
            if table is None:
                return None
            info = self.tables.get(table.casefold())
            col = info.column(column) if info is not None else None
            if col is None and info is not None:
                col = next((c for c in info.columns if c.name.casefold() == column.casefold()), None)
            return (info.name, col.name) if info is not None and col is not None else None
        owners = []
        for table in dict.fromkeys(scope_tables.values()):
            info = self.tables.get(table.casefold())
            if info is None:
                continue
            col = next((c for c in info.columns if c.name.casefold() == column.casefold()), None)
            if col is not None:
                owners.append((info.name, col.name))
        return owners[0] if len(owners) == 1 else None

    def render(self, node: Any, scope_tables: Mapping[str, str]) -> tuple[str, tuple[tuple[str, str], ...]] | None:
        """``node`` with every column qualified by its real table name, and those columns; None when
        a column does not resolve to a real column (a derived table's or an output alias)."""
        from sqlglot import exp

        node = node.copy()
        found: list[tuple[str, str]] = []
        for col in list(node.find_all(exp.Column)):
            if isinstance(col.this, exp.Star):
                continue
            place = self.real(col.table, col.name, scope_tables)
            if place is None:
                return None
            found.append(place)
            col.replace(exp.column(exp.to_identifier(place[1]), table=exp.to_identifier(place[0])))
        return node.sql(dialect=self.dialect), tuple(dict.fromkeys(found))

    def analyze(self, statement: Any) -> _Analysis:
        from sqlglot import exp
        from sqlglot.optimizer.scope import traverse_scope

        out = _Analysis()
        for scope in traverse_scope(statement):
            select = scope.expression
            if not isinstance(select, exp.Select):
                continue
            scope_tables = {alias.casefold(): src.name for alias, src in scope.sources.items()
                            if isinstance(src, exp.Table) and src.name.casefold() in self.tables}
            for name in scope_tables.values():
                info = self.tables[name.casefold()]
                if info.name not in out.tables:
                    out.tables.append(info.name)
            for col in scope.columns:
                place = self.real(col.table, col.name, scope_tables)
                if place is None and col.this.args.get("quoted") and not col.table:
                    out.literals.append(col.name)  # SQLite reads a double-quoted unknown name as a string
                if place is not None and place not in out.columns:
                    out.columns.append(place)
                    if col.find_ancestor(exp.AggFunc) is None:
                        out.plain.append(place)
            for projection in select.expressions:
                for agg in projection.find_all(exp.AggFunc):
                    if agg.find_ancestor(exp.AggFunc) is not None or type(agg).__name__ not in _AGGREGATES:
                        continue
                    if isinstance(agg.this, exp.Star) or not list(agg.find_all(exp.Column)):
                        continue
                    if type(agg).__name__ in ("Min", "Max") and isinstance(agg.this, exp.Column):
                        continue  # the largest/smallest value of a column is a superlative, not a measure
                    if type(agg).__name__ == "Count" and isinstance(agg.this, exp.Column):
                        continue  # COUNT(t.id) counts rows, like COUNT(*): the question's words name its filter
                    rendered = self.render(agg, scope_tables)
                    if rendered is not None:
                        out.aggregates.append(_Aggregate(_AGGREGATES[type(agg).__name__], *rendered))
            where = select.args.get("where")
            if where is not None:
                for part in where.this.flatten() if isinstance(where.this, exp.And) else [where.this]:
                    # the values of the rows the answer keeps: the top SELECT's own conditions, not
                    # those of a subquery or set operation (NOT IN (…), EXCEPT, NOT EXISTS keep the others)
                    self.filter(part, scope_tables, out, values=select is statement)
            for node in select.find_all(exp.TimeToStr, exp.DateTrunc, exp.TimestampTrunc, exp.Extract,
                                        exp.Year, exp.Month, exp.Day):
                self.grain(node, scope_tables, out)
            for lit in select.find_all(exp.Literal):
                if lit.is_string:
                    out.literals.append(lit.this)
        for written in written_joins(self.joins, statement):
            for pair in sorted(written.pairs):
                (t1, c1), (t2, c2) = (self.place(*side) for side in pair)
                if (t1, c1, t2, c2) not in out.joins:
                    out.joins.append((t1, c1, t2, c2))
        return out

    def place(self, table: str, column: str) -> tuple[str, str]:
        """Catalog spelling of a case-folded ``(table, column)`` of :attr:`WrittenJoins.pairs`."""
        info = self.tables[table.casefold()]
        return info.name, next(c.name for c in info.columns if c.name.casefold() == column.casefold())

    def filter(self, part: Any, scope_tables: Mapping[str, str], out: _Analysis, *, values: bool = True) -> None:
        from sqlglot import exp

        from evoonto.tools.sqlcheck.context import _negated

        if not isinstance(part, (exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NEQ, exp.EQ)):
            return
        left, right = part.left, part.right
        if isinstance(left, exp.Column) and isinstance(right, exp.Column):
            a = self.real(left.table, left.name, scope_tables)
            b = self.real(right.table, right.name, scope_tables)
            if a is None or b is None or isinstance(part, exp.EQ):
                return  # an equality of two columns is a join (read by written_joins), not a filter
        elif isinstance(left, exp.Column) and isinstance(right, exp.Literal) and right.is_string:
            place = self.real(left.table, left.name, scope_tables)
            if (values and place is not None and isinstance(part, exp.EQ) and not _negated(part)
                    and (place, right.this) not in out.values):
                out.values.append((place, right.this))  # a value of the column the question may name
            return
        elif isinstance(left, exp.Column) and isinstance(right, exp.Literal) and not right.is_string:
            if isinstance(part, (exp.EQ, exp.NEQ)):
                return  # an equality with a number is an id or a code, not a named condition
            out.numbers.append(right.this)
        else:
            return
        rendered = self.render(part, scope_tables)
        if rendered is not None:
            out.filters.append(_Filter(*rendered))

    def grain(self, node: Any, scope_tables: Mapping[str, str], out: _Analysis) -> None:
        from sqlglot import exp

        unit: str | None = None
        target = node.this
        if isinstance(node, exp.TimeToStr):
            fmt = node.args.get("format")
            unit = _grain_of_format(fmt.this) if isinstance(fmt, exp.Literal) else None
        elif isinstance(node, (exp.DateTrunc, exp.TimestampTrunc)):
            unit_node = node.args.get("unit")
            unit = unit_node.name.lower() if unit_node is not None else None
        elif isinstance(node, exp.Extract):
            unit, target = node.this.name.lower(), node.expression
        else:
            unit = type(node).__name__.lower()
        while isinstance(target, (exp.Cast, exp.TsOrDsToTimestamp, exp.TsOrDsToDate, exp.TimeStrToTime,
                                  exp.StrToTime, exp.Date)) and target.this is not None:
            target = target.this  # the date column inside a conversion the dialect adds
        if unit not in GRAIN_WORDS or not isinstance(target, exp.Column):
            return
        place = self.real(target.table, target.name, scope_tables)
        rendered = self.render(node, scope_tables)
        if place is None or rendered is None:
            return
        if not any(g.unit == unit and (g.table, g.column) == place for g in out.grains):
            out.grains.append(_Grain(unit, place[0], place[1], rendered[0]))


@dataclass(frozen=True)
class VerifiedMeasures:
    """What the miner of :func:`mine_verified` could make named records of, in one SQL statement.

    Attributes:
        metrics: ``(function, expression)`` of each aggregate the miner mints metric Terms from
            (``SUM``/``AVG``/``COUNT`` over columns, not ``MIN``/``MAX`` of a bare column, not
            ``COUNT(*)``), the expression with real table names in the source dialect, as a metric
            Mapping's ``evo:expression`` would hold it.
        filters: the condition of each comparison it mints named filters (Constraints) from (a
            column against a number with ``<``/``>``/``<=``/``>=``, or two columns with any
            comparison but ``=``), as a Constraint's ``evo:condition`` would hold it.
    """

    metrics: tuple[tuple[str, str], ...] = ()
    filters: tuple[str, ...] = ()


def verified_measures(sql: str, schema: SourceSchema, *, dialect: str | None = None,
                      joins: JoinGraph | None = None) -> VerifiedMeasures:
    """The metric expressions and filter conditions the miner reads from ``sql`` (the same analysis
    as :func:`mine_verified`, without running the query or naming anything; naming needs the
    question and happens in :func:`mine_verified`).

    Args:
        sql: one statement in ``dialect``; schema: the catalog of its source
            (:meth:`evoonto.catalog.Catalog.source`); joins: the join graph (default: the catalog's).
    Returns:
        A :class:`VerifiedMeasures` (empty when the SQL does not parse).
    """
    import sqlglot

    from evoonto.catalog import Catalog

    try:
        statement = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return VerifiedMeasures()
    if joins is None:
        joins = JoinGraph.from_catalog(Catalog((schema,)), dialects={schema.id: dialect})
    analysis = _Analyzer(schema, dialect, joins).analyze(statement)
    return VerifiedMeasures(tuple(dict.fromkeys((a.function, a.expression) for a in analysis.aggregates)),
                            tuple(dict.fromkeys(f.condition for f in analysis.filters)))


@dataclass(frozen=True)
class UnstatedValue:
    """A text value a verified query compares a column with (``=``) that no word of its question
    states (``alignment.alignment = 'Bad'`` for "How many villains…"), and ``phrases``: the runs of
    question words the query leaves unexplained (:func:`_runs`), the names the value may go by."""

    table: str
    column: str
    value: str
    phrases: tuple[str, ...] = ()


def unstated_values(question: str, sql: str, schema: SourceSchema, *, dialect: str | None = None,
                    joins: JoinGraph | None = None) -> list[UnstatedValue]:
    """The :class:`UnstatedValue` s of a verified query (the miner's analysis; [] when the SQL does
    not parse)."""
    import sqlglot

    from evoonto.catalog import Catalog

    try:
        statement = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return []
    if joins is None:
        joins = JoinGraph.from_catalog(Catalog((schema,)), dialects={schema.id: dialect})
    analysis = _Analyzer(schema, dialect, joins).analyze(statement)
    runs = tuple(_runs(question, _explained_stems(analysis, skip_aggregated=False)))
    return [UnstatedValue(table, column, value, runs) for (table, column), value in _unstated(question, analysis)]


def _unstated(question: str, analysis: "_Analysis") -> list[tuple[tuple[str, str], str]]:
    """``((table, column), value)`` of the query's ``column = 'text'`` filters whose value no word of
    the question states (no shared stem, nor the value as a word: ``'F'`` for "female" is unstated)."""
    asked, said = set(tokenize(question)), {w.casefold() for w in words(question)}
    return [(column, value) for column, value in analysis.values
            if value.strip() and not set(tokenize(value)) & asked and value.strip().casefold() not in said]


# -- phrases of the question ---------------------------------------------------------------------


#: A word of digits, points and commas (``1991``, ``528.3``, ``250,000``): a number, never a name.
_NUMERAL = re.compile(r"[\d.,]+")
#: A number as a question writes it: ``250,000``, ``250 000``, ``2.5``, ``.5``, ``1991``.
_STATED_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:[, \u00a0\u202f]\d{3})+(?:\.\d+)?(?![\w])"
                            r"|(?<![\w.,])\d*\.?\d+(?![\w])")


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _stated_numbers(question: str) -> set[float]:
    """The numbers a question states, thousands separators read (``"at least 250,000"``, ``"250 000"``
    -> {250000.0}; ``".5"`` -> {0.5})."""
    return {float(re.sub(r"[, \u00a0\u202f]", "", m.group())) for m in _STATED_NUMBER.finditer(question)}


def _explained_stems(analysis: _Analysis, *, skip_aggregated: bool = True,
                     naming: _Aggregate | None = None) -> set[str]:
    """Stems of every word the query's tables, plain columns, string values and grains explain
    (with ``naming``: the columns of every other aggregate too, not those of ``naming``)."""
    texts: list[str] = []
    for table in analysis.tables:
        texts += table_labels(table).all()
    columns = list(analysis.plain if skip_aggregated else analysis.columns)
    if naming is not None:
        columns += [c for agg in analysis.aggregates if agg is not naming for c in agg.columns
                    if c not in naming.columns]
    for table, column in columns:
        texts += column_labels(table, column).all()
    texts += analysis.literals
    for g in analysis.grains:
        texts += GRAIN_WORDS[g.unit]
    return {t for text in texts for t in tokenize(text)}


def _runs(question: str, explained: set[str]) -> list[str]:
    """Maximal runs of consecutive question words that are neither stop/query words, numbers (``528.3``) nor
    explained by the query (at most :data:`MAX_PHRASE_WORDS` words each), lower case."""
    runs: list[list[str]] = [[]]
    for word in re.split(r"[\s\-/]+", " ".join(words(question))):
        low = word.lower().strip("'")
        if (not low or low in QUESTION_STOP_WORDS or low in _CONNECTIVES or _NUMERAL.fullmatch(low)
                or stem(low) in explained or len(low) < 2):
            runs.append([])
        else:
            runs[-1].append(low.removesuffix("'s"))
    return [" ".join(r[:MAX_PHRASE_WORDS]) for r in runs if r]


def names_a_value(phrase: str, values: Iterable[str], lexicon: Lexicon | None = None) -> bool:
    """Whether ``phrase`` is another name of one of the text ``values``: a country's demonym or
    other name (:meth:`~evoonto.lexicon.Lexicon.place_names`: "american" for 'USA')."""
    names = {n.casefold() for n in (lexicon or Lexicon.packaged()).place_names(phrase)}
    return bool(names) and any(str(value).strip().casefold() in names for value in values)


def _sub_phrases(run: str) -> list[str]:
    parts = run.split()
    return [" ".join(parts[i:j]) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1)]


def _best_phrase(runs_per_query: Sequence[Sequence[str]]) -> str | None:
    """The phrase most of the queries share (a sub-phrase of one of their runs); ties → the longer,
    then the earlier one."""
    counts: dict[str, int] = defaultdict(int)
    order: dict[str, int] = {}
    for runs in runs_per_query:
        for phrase in dict.fromkeys(p for run in runs for p in _sub_phrases(run)):
            counts[phrase] += 1
            order.setdefault(phrase, len(order))
    if not counts:
        return None
    return max(counts, key=lambda p: (counts[p], len(p.split()), -order[p]))


def value_phrase(runs_per_query: Sequence[Sequence[str]], others: Iterable[str] = (), *,
                 value: str | None = None, lexicon: Lexicon | None = None) -> str | None:
    """The phrase a value goes by in the questions of the verified queries that filter on it without
    stating it (``runs_per_query``: each question's unexplained runs, :func:`_runs`): first, a phrase
    that general knowledge says names ``value`` (a country's demonym or other name,
    :meth:`~evoonto.lexicon.Lexicon.place_names`: "american" for 'USA'), the one most questions use;
    else the only run of a single question, or the phrase that most of two or more questions share
    (ties: the longer, then the earlier); never a phrase that one of ``others`` (questions of verified
    queries that do not filter on the value) contains as words. None when no phrase qualifies: which
    of several leftover phrases of one question names the value would be a guess ("spent" in "which
    American customers spent the most" is none of the value's names)."""
    others = [f" {' '.join(words(q.lower()))} " for q in others]

    def contradicted(phrase: str) -> bool:
        return any(f" {phrase} " in other for other in others)

    if value is not None:
        naming = [[p for run in runs for p in _sub_phrases(run)
                   if not contradicted(p) and names_a_value(p, [value], lexicon)]
                  for runs in runs_per_query]
        if any(naming):
            return _best_phrase(naming)

    if len(runs_per_query) == 1:
        runs = runs_per_query[0]
        return runs[0] if len(runs) == 1 and not contradicted(runs[0]) else None
    kept = [[r for r in runs if not contradicted(r)] for runs in runs_per_query]
    best = _best_phrase(kept)
    if best is None:
        return None
    shared = sum(1 for runs in kept if best in {p for r in runs for p in _sub_phrases(r)})
    return best if shared >= 2 and not contradicted(best) else None


# -- mining ------------------------------------------------------------------------------------------


@dataclass
class VerifiedMining:
    """What :func:`mine_verified` made for one source.

    Attributes:
        graph: the new content triples (records and added labels), to be added to the content graph.
        queries: the IRIs of the verified queries kept; skipped: ``(where, reason)`` of those left out.
        counts: ``verified_queries``, ``metrics``, ``filters``, ``grains``, ``synonyms``, ``joins``.
    """

    graph: Graph
    queries: list[URIRef] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)


def _existing(content: Graph, iri: URIRef, rdf_type: URIRef = EVO.Term) -> bool:
    return (iri, RDF.type, rdf_type) in content


#: The check_sql Warnings reported as doubts about a verified query besides every Violation: a literal
#: the recorded values do not hold, and an aggregate a join repeats (its metric would double-count).
DOUBTED_WARNINGS = frozenset({"unseen_value", "fan_trap"})


def _check(ontology: Any, item: VerifiedItem, source_id: str,
           dialect: str | None = None, source: Any = None) -> tuple[str | None, list[Any]]:
    """Why ``item`` is not a usable query of the source, or None: refused by the SQL guard every
    entry point shares (:func:`~evoonto.sources.guard.check_read_only` in the source's ``dialect``:
    size, nesting depth, one read-only query, no denied function), a parse error, an unknown table or
    column; and the doubts about a usable one (``check_sql``'s Violations and ``unseen_value``
    findings: a literal the data's recorded values do not hold), which the caller reports and keeps
    the query (a team's verified query is its knowledge, not a guess); fan traps
    (:data:`DOUBTED_WARNINGS`) are doubts too. With the open ``source``, check_sql's point probes run
    (a join no row satisfies is then a Violation, not a guess)."""
    from evoonto.errors import ToolArgumentError
    from evoonto.tools.sqlcheck import check_sql

    try:
        check_read_only(item.sql, dialect=dialect)
    except ReadOnlyViolation as exc:
        if exc.stage != "parse":  # a parse failure is reported by check_sql below, with its position
            return str(exc), []
    try:
        findings = check_sql(ontology, item.sql, source=source_id,
                             sources={source_id: source} if source is not None else None)
    except ToolArgumentError as exc:
        return str(exc), []
    except RecursionError:
        return "the SQL is nested too deeply to be checked", []
    bad = [f for f in findings if f.kind in ("parse_error", "unknown_table", "unknown_column")]
    if bad:
        return bad[0].message, []
    return None, [f for f in findings if f.severity == "Violation" or f.kind in DOUBTED_WARNINGS]


def mine_verified(items: Sequence[VerifiedItem], *, source: Any, catalog: Graph, content: Graph,
                  iris: IriFactory, at: datetime, ontology: Any = None, remine: bool = False) -> VerifiedMining:
    """Turn the verified queries of one source into content records (see the module docstring).

    Args:
        items: the verified queries meant for this source.
        source: the open source (``id``, ``kind``, ``dialect``, ``run``): each query is run once,
            read-only, through :func:`evoonto.sources.probe.run_probe` (:data:`RUN_LIMIT` rows).
        catalog, content: the source's catalog graph and the content graph built so far (read only).
        iris: the workspace's IRI factory; at: the logical time of the run probes.
        ontology: an Ontology over ``catalog`` + ``content`` for :func:`~evoonto.tools.sqlcheck.check_sql`
            (made from the two graphs when None).
        remine: mine a query whose ``evo:VerifiedQuery`` record ``content`` already holds (evolution
            mines a failed task's recorded verified query again for what it still lacks); its record
            is written again to the result graph, which the caller then leaves out. False (the
            default): such a query is skipped with a warning.

    Returns:
        A :class:`VerifiedMining`; every skipped query was also warned about (one line naming its
        file and line).
    """
    import sqlglot

    from evoonto.catalog import read_catalog
    from evoonto.sources.probe import result_digest, run_probe
    from evoonto.sources.quoting import dialect_of_kind

    result = VerifiedMining(bind_prefixes(Graph()))
    if not items:
        return result
    src_iri = iris.source(source.id)
    schema = read_catalog(catalog).source(src_iri)
    dialect = dialect_of_kind(source.kind, source.dialect)
    if ontology is None:
        from evoonto.ontology import Ontology
        from evoonto.resources import vocab_graph

        ontology = Ontology.from_graphs({"catalog": catalog, "content": content, "vocab": vocab_graph()},
                                       base_iri=iris.base)
    analyzer = _Analyzer(schema, dialect, JoinGraph.from_catalog(read_catalog(catalog), dialects={source.id: dialect}))
    kept: list[tuple[VerifiedItem, URIRef, _Analysis]] = []
    seen: set[URIRef] = set()
    for item in items:
        iri = verified_iri(iris, source.id, item.key)
        reason, doubts = _check(ontology, item, source.id, dialect, source)
        run = None
        if reason is None:
            run = run_probe(source, item.sql, limit=RUN_LIMIT, timeout_ms=10_000, at=at, errors="keep")
            if not run.ok:
                reason = f"the SQL does not run: {run.error}"
        if reason is None and (iri in seen or (not remine and _existing(content, iri, EVO.VerifiedQuery))):
            reason = f"a verified query with id {item.key!r} exists already"
        if reason is not None:
            where = item.where or f"verified query {item.key}"
            _warn(f"{where}: verified query {item.key!r} skipped: {reason}")
            result.skipped.append((where, reason))
            continue
        assert run is not None
        for doubt in doubts[:2]:
            _warn(f"{item.where or f'verified query {item.key}'}: verified query {item.key!r} kept, but "
                  f"check_sql finds: {doubt.message}")
        seen.add(iri)
        statement = sqlglot.parse_one(item.sql, read=dialect)
        analysis = analyzer.analyze(statement)
        # a join a probe found no row to satisfy is no join the team uses: not recorded as one
        empty = {d.subject for d in doubts if d.kind == "mismatched_join_keys" and d.severity == "Violation"}
        analysis.joins = [j for j in analysis.joins if f"{j[0]}-{j[2]}" not in empty and f"{j[2]}-{j[0]}" not in empty]
        ev_iri, probe_iri = iris.evidence(run.key), iris.probe(run.key)
        rows = len(run.rows)
        whole = run.result is not None and not run.result.truncated
        for record in (
            ProbeActivity(probe_iri, query=item.sql, used=src_iri, started_at=at, ended_at=at),
            Evidence(ev_iri, probe=probe_iri, generated_at=at, rows_observed=rows,
                     summary=f"the verified query ran: {rows}{'' if whole else '+'} row(s)",
                     value_digest=result_digest(run.rows) if whole else None),
        ):
            record.to_graph(result.graph)
        kept.append((item, iri, analysis))
    exercises: dict[URIRef, list[URIRef]] = defaultdict(list)
    counts = {"verified_queries": len(kept), "metrics": 0, "filters": 0, "grains": 0, "synonyms": 0, "joins": 0}
    miner = _Miner(result.graph, content, iris, source.id, src_iri, exercises, counts)
    for _item, iri, analysis in kept:
        miner.link_columns(iri, analysis)
        miner.joins(iri, analysis)
    miner.metrics(kept)
    miner.filters(kept)
    miner.grains(kept)
    miner.value_names(kept)
    miner.synonyms(kept)
    for item, iri, analysis in kept:
        agent = _agent_iri(iris, item.verified_by) if item.verified_by else None
        VerifiedQueryRecord(
            iri, question=item.question, sql=item.sql, identifier=item.key, source=src_iri, verified_by=agent,
            verifier=item.verified_by, verified_at=_parse_time(item.verified_at) if item.verified_at else None,
            exercises=sorted(dict.fromkeys(exercises[iri])),
            joins_used=[f"{a}.{b} = {c}.{d}" for a, b, c, d in dict.fromkeys(analysis.joins)],
            evidence=[iris.evidence(stable_key(source.id, item.sql))],
        ).to_graph(result.graph)
        result.queries.append(iri)
    result.counts = counts
    return result


class _Miner:
    def __init__(self, graph: Graph, content: Graph, iris: IriFactory, source_id: str, src_iri: URIRef,
                 exercises: dict[URIRef, list[URIRef]], counts: dict[str, int]):
        self.graph, self.content, self.iris = graph, content, iris
        self.src, self.src_iri = source_id, src_iri
        self.exercises, self.counts = exercises, counts
        self.claimed: dict[URIRef, set[str]] = defaultdict(set)   # query → phrases used as names

    def term(self, table: str, column: str | None = None) -> URIRef | None:
        iri = self.iris.term(self.src, term_slug(table, column))
        return iri if _existing(self.content, iri) else None

    def has(self, iri: URIRef, rdf_type: URIRef = EVO.Term) -> bool:
        return _existing(self.content, iri, rdf_type) or (iri, RDF.type, rdf_type) in self.graph

    def link_columns(self, query: URIRef, analysis: _Analysis) -> None:
        for table in analysis.tables:
            found = self.term(table)
            if found is not None:
                self.exercises[query].append(found)
        for table, column in analysis.columns:
            found = self.term(table, column)
            if found is not None:
                self.exercises[query].append(found)
                self.exercises[query].extend(URIRef(str(m)) for m in self.content.objects(found, EVO.hasMapping))

    def joins(self, query: URIRef, analysis: _Analysis) -> None:
        for a, b, c, d in dict.fromkeys(analysis.joins):
            left, right = self.term(a), self.term(c)
            if left is None or right is None or left == right:
                continue
            known = [URIRef(str(r)) for r in self.content.subjects(EVO.joinCondition, None)
                     if {self.content.value(r, OWL.annotatedSource), self.content.value(r, OWL.annotatedTarget)}
                     == {left, right}]
            if known:
                self.exercises[query].extend(known)
                continue
            rel = self.iris.relation("Association", left, right)
            if not self.has(rel, EVO.Relation):
                Relation(rel, type="Association", source=left, target=right,
                         join_condition=f"{a}.{b} = {c}.{d}", evidence=[query]).to_graph(self.graph)
                self.counts["joins"] += 1
            else:
                self.graph.add((rel, PROV.wasDerivedFrom, query))
            self.exercises[query].append(rel)

    def _runs(self, query: URIRef, question: str, analysis: _Analysis, skip_aggregated: bool,
              naming: _Aggregate | None = None) -> list[str]:
        runs = _runs(question, _explained_stems(analysis, skip_aggregated=skip_aggregated, naming=naming))
        return [r for r in runs if r not in self.claimed[query]]

    def metrics(self, kept: Sequence[tuple[VerifiedItem, URIRef, _Analysis]]) -> None:
        by_expression: dict[str, list[tuple[VerifiedItem, URIRef, _Aggregate, _Analysis]]] = defaultdict(list)
        for item, iri, analysis in kept:
            for agg in analysis.aggregates:
                by_expression[agg.expression].append((item, iri, agg, analysis))
        names: dict[str, str] = {}
        for expression in sorted(by_expression):
            uses = by_expression[expression]
            # a phrase that names a value the query filters on ("United States" for Country = 'USA')
            # names that filter, not the measure
            runs = [[r for r in self._runs(iri, item.question, analysis, True, naming=agg_use)
                     if not names_a_value(r, [value for _column, value in analysis.values])]
                    for item, iri, agg_use, analysis in uses]
            phrase = _best_phrase(runs)
            if phrase is None:
                continue
            agg = uses[0][2]
            own = {t for table, column in agg.columns for t in tokenize(" ".join(column_labels(table, column).all()))}
            if set(tokenize(phrase)) <= own:
                continue  # the phrase names the column itself: no new concept
            alts = [p for runs_of_use in runs if phrase not in {q for r in runs_of_use for q in _sub_phrases(r)}
                    for p in [_best_phrase([runs_of_use])] if p is not None and not set(tokenize(p)) <= own]
            self._metric(phrase, expression, agg, uses, names, alts)

    def _metric(self, phrase: str, expression: str, agg: _Aggregate,
                uses: Sequence[tuple[VerifiedItem, URIRef, _Aggregate, _Analysis]], names: dict[str, str],
                alts: Sequence[str] = ()) -> None:
        slug = "metric." + slugify(phrase, max_length=40)
        if slug in names and names[slug] != expression:
            slug += "-" + stable_key(expression, length=6)
        names[slug] = expression
        term = self.iris.term(self.src, slug)
        queries = sorted(dict.fromkeys(iri for _i, iri, _a, _an in uses))
        if self.has(term):  # a concept of that name exists (e.g. proposed for the workload): cite the queries
            for q in queries:
                self.graph.add((term, PROV.wasDerivedFrom, q))
                self.exercises[q].append(term)
            for _item, iri, _agg, _an in uses:  # its phrase names it, not a filter of the same query
                self.claimed[iri].update(p for name in (phrase, *alts) for p in _sub_phrases(name))
            return
        label = phrase[:1].upper() + phrase[1:]
        mapping = computed_term(
            self.graph, self.content, self.iris, self.src, slug, kind="Metric", label=label,
            alt_labels=[*alts, f"{phrase} ({agg.function.lower()})"], columns=agg.columns, expression=expression,
            aggregation=agg.function, evidence=queries,
            definition=f"{label} = {expression} (mined from {len(queries)} verified quer"
                       f"{'y' if len(queries) == 1 else 'ies'}).")
        for _item, iri, _agg, _an in uses:
            self.exercises[iri] += [term, mapping]
            self.claimed[iri].update(p for name in (phrase, *alts) for p in _sub_phrases(name))
        self.counts["metrics"] += 1

    def filters(self, kept: Sequence[tuple[VerifiedItem, URIRef, _Analysis]]) -> None:
        for item, iri, analysis in kept:
            stated = _stated_numbers(item.question)
            for filt in analysis.filters:
                runs = self._runs(iri, item.question, analysis, False)
                if len(runs) != 1 or any(_number(n) in stated for n in analysis.numbers):
                    continue  # a threshold the question states is spelled out, not a named filter
                phrase = runs[0]
                slug = "filter." + slugify(phrase, max_length=40)
                constraint = self.iris.constraint(f"{self.src}.{slug}")
                recorded = self.graph.value(constraint, EVO.condition) or self.content.value(constraint, EVO.condition)
                if recorded is not None and str(recorded) != filt.condition:
                    # one word, two conditions ('late' orders, 'late' products): a filter of its own
                    slug += "-" + stable_key(filt.condition, length=6)
                    constraint = self.iris.constraint(f"{self.src}.{slug}")
                targets = [t for t in (self.term(*c) for c in filt.columns) if t is not None]
                if not targets:
                    continue
                if self.has(constraint, EVO.Constraint):
                    self.graph.add((constraint, PROV.wasDerivedFrom, iri))
                else:
                    Constraint(constraint, constrains=targets, condition=filt.condition,
                               trigger_keywords=[phrase], severity="Info",
                               comment=f"{phrase!r} means {filt.condition} (named filter mined from the "
                                       f"verified query {item.key!r}).",
                               evidence=[iri]).to_graph(self.graph)
                    self.counts["filters"] += 1
                self._filter_term(phrase, slug, filt, item, iri)
                self.claimed[iri].update(_sub_phrases(phrase))

    def _filter_term(self, phrase: str, slug: str, filt: _Filter, item: VerifiedItem, query: URIRef) -> None:
        """The named filter as a Category Term too (``filter.<phrase>``, its condition on the Mapping's
        ``evo:filter``), so a browse of the phrase answers with it: the Constraint alone is found only
        by a search of constraints, and a term answer never showed it."""
        term = self.iris.term(self.src, slug)
        if self.has(term):  # the workload's concept of that name, or another query's filter
            filters = {str(f) for g in (self.graph, self.content) for m in g.objects(term, EVO.hasMapping)
                       for f in g.objects(m, EVO.filter)}
            if filt.condition not in filters:  # same name, another condition: a Term of its own
                slug += "-" + stable_key(filt.condition, length=6)
                term = self.iris.term(self.src, slug)
        if self.has(term):  # the same filter: cite it
            self.graph.add((term, PROV.wasDerivedFrom, query))
            self.exercises[query].append(term)
            return
        label = phrase[:1].upper() + phrase[1:]
        mapping = computed_term(
            self.graph, self.content, self.iris, self.src, slug, kind="Category", label=label, alt_labels=[],
            columns=filt.columns, evidence=[query], aggregation="COUNT", filter=filt.condition,
            definition=f"Rows of table {filt.columns[0][0]} where {filt.condition} (named filter mined from the "
                       f"verified query {item.key!r}).")
        self.exercises[query] += [term, mapping]

    def grains(self, kept: Sequence[tuple[VerifiedItem, URIRef, _Analysis]]) -> None:
        for _item, iri, analysis in kept:
            for g in analysis.grains:
                slug = f"{term_slug(g.table, g.column)}.grain-{g.unit}"
                term = self.iris.term(self.src, slug)
                if self.has(term):
                    self.graph.add((term, PROV.wasDerivedFrom, iri))
                    self.exercises[iri].append(term)
                    continue
                mapping = grain_term(self.graph, self.content, self.iris, self.src, g.table, g.column, g.unit,
                                     g.expression, [iri])
                self.exercises[iri] += [term, mapping]
                self.counts["grains"] += 1

    def value_names(self, kept: Sequence[tuple[VerifiedItem, URIRef, _Analysis]]) -> None:
        """The question's name for a value its SQL filters on: when queries compare one column with
        one text value that no word of their question states (``Country = 'UK'`` for "customers in the
        United Kingdom"), the phrase :func:`value_phrase` picks (the one unexplained phrase of a single
        question, or one that two or more of the questions share; never one a question without the
        value uses) becomes an ``skos:altLabel`` of that value's Term. Only a value the profile
        recorded for the column (a value Term exists: a probe saw it in the data) is named; the
        questions and the probe agree."""
        uses: dict[tuple[tuple[str, str], str], list[tuple[VerifiedItem, URIRef, _Analysis]]] = defaultdict(list)
        for item, iri, analysis in kept:
            unnamed = _unstated(item.question, analysis)
            if len(unnamed) == 1:  # two unstated values: which one a phrase names is a guess
                uses[unnamed[0]].append((item, iri, analysis))
        for ((table, column), value), group in sorted(uses.items(), key=lambda kv: kv[0]):
            target = self.iris.term(self.src, term_slug(table, column, value))
            if not _existing(self.content, target):
                continue
            others = [item.question for item, _iri, analysis in kept
                      if ((table, column), value) not in analysis.values]
            phrase = value_phrase([self._runs(iri, item.question, analysis, False) for item, iri, analysis in group],
                                  others, value=value)
            if phrase is None:
                continue
            self.graph.add((target, SKOS.altLabel, Literal(phrase, lang="en")))
            for _item, iri, _analysis in group:
                self.graph.add((target, PROV.wasDerivedFrom, iri))
                self.exercises[iri].append(target)
                self.claimed[iri].update(_sub_phrases(phrase))
            self.counts["synonyms"] += 1

    def synonyms(self, kept: Sequence[tuple[VerifiedItem, URIRef, _Analysis]]) -> None:
        support: dict[tuple[tuple[str, str], str], list[URIRef]] = defaultdict(list)
        for item, iri, analysis in kept:
            question = set(tokenize(item.question))
            unnamed = [c for c in dict.fromkeys(analysis.plain)
                       if not (set(tokenize(" ".join(column_labels(*c).all()))) & question)
                       and not _is_key(c, analysis)]
            runs = self._runs(iri, item.question, analysis, False)
            if len(unnamed) == 1 and len(runs) == 1:
                support[(unnamed[0], runs[0])].append(iri)
        for (column, phrase), queries in sorted(support.items()):
            target = self.term(*column)
            if target is None or len(queries) < MIN_SYNONYM_SUPPORT:
                continue  # one question's leftover word is as often a verb as a name: two must agree
            self.graph.add((target, SKOS.altLabel, Literal(phrase, lang="en")))
            for iri in queries:
                self.graph.add((target, PROV.wasDerivedFrom, iri))
                self.claimed[iri].add(phrase)
            self.counts["synonyms"] += 1


# -- computed Terms (shared with evoonto.builder.concepts) -----------------------------------------


def computed_term(graph: Graph, content: Graph, iris: IriFactory, source_id: str, slug: str, *, kind: str,
                  label: str, alt_labels: Sequence[str], columns: Sequence[tuple[str, str]], evidence: Sequence[URIRef],
                  definition: str, expression: str | None = None, aggregation: str | None = None,
                  filter: str | None = None, grain: str | None = None, confidence: float = 0.9) -> URIRef:
    """Write a Term computed from columns into ``graph``: the Term (kind ``Metric``, ``Category``,
    ``TimeDimension`` …, its expression as an ``skos:hiddenLabel``), one Mapping on the table of the
    first column (``evo:expression``, ``evo:aggregation``, ``evo:filter``, ``evo:grain``; ``evo:column``
    when one column) and a Derivation relation (``evo:formula``) to each column's Term found in
    ``content``. Everything cites ``evidence`` (``prov:wasDerivedFrom``). Returns the Mapping IRI.
    """
    src_iri = iris.source(source_id)
    term = iris.term(source_id, slug)
    table = columns[0][0]
    single = len(dict.fromkeys(columns)) == 1
    mapping = _sub_iri(iris.mapping(source_id, table, columns[0][1] if single else None), slug)
    formula = expression or filter
    Term(term, label=label, kinds=[kind], alt_labels=list(dict.fromkeys(a for a in alt_labels if a != label)),
         hidden_labels=[formula] if formula else [], definition=definition, scheme=iris.scheme(),
         mappings=[mapping], evidence=list(evidence)).to_graph(graph)
    MappingRecord(mapping, term=term, source=src_iri, table=iris.table(source_id, table),
                  column=iris.column(source_id, *columns[0]) if single else None, aggregation=aggregation,
                  expression=expression, filter=filter, grain=grain, confidence=confidence,
                  evidence=list(evidence)).to_graph(graph)
    for table_name, column in dict.fromkeys(columns):
        target = iris.term(source_id, term_slug(table_name, column))
        if _existing(content, target):
            Relation(iris.relation("Derivation", term, target), type="Derivation", source=term, target=target,
                     formula=formula, evidence=list(evidence)).to_graph(graph)
    return mapping


def grain_term(graph: Graph, content: Graph, iris: IriFactory, source_id: str, table: str, column: str, unit: str,
               expression: str, evidence: Sequence[URIRef]) -> URIRef:
    """A date-grain TimeDimension Term (``Invoice date by month``, also ``monthly invoice date`` …)
    with its truncation ``expression``, through :func:`computed_term`; returns the Mapping IRI."""
    column_label = column_labels(table, column).pref.lower()
    return computed_term(
        graph, content, iris, source_id, f"{term_slug(table, column)}.grain-{unit}", kind="TimeDimension",
        label=f"{column_label} by {unit}",
        alt_labels=[f"{GRAIN_WORDS[unit][0]} {column_label}", f"{unit} of {column_label}", *GRAIN_WORDS[unit][:-1]],
        columns=[(table, column)], expression=expression, grain=f"one value per {unit}", evidence=evidence,
        definition=f"{table}.{column} truncated to the {unit}: {expression}.")


def grain_expression(unit: str, column_sql: str, dialect: str | None) -> str | None:
    """The SQL that truncates a date column to ``unit`` in ``dialect``: SQLite ``strftime`` (no
    quarter), else ``DATE_TRUNC('unit', column)``; None when the dialect has no form for it."""
    if dialect == "sqlite":
        fmt = {"year": "%Y", "month": "%Y-%m", "week": "%Y-%W", "day": "%Y-%m-%d", "hour": "%Y-%m-%d %H"}.get(unit)
        return None if fmt is None else f"strftime('{fmt}', {column_sql})"
    return f"DATE_TRUNC('{unit}', {column_sql})"


def _is_key(column: tuple[str, str], analysis: _Analysis) -> bool:
    """A column only used to join (it names nothing the question asks for)."""
    return any(column in ((a, b), (c, d)) for a, b, c, d in analysis.joins)

