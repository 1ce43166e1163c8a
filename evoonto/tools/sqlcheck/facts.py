"""What ``check_sql`` reads from one ontology version: the shared facts of every rule.

:func:`check_facts` reads them with a few SPARQL queries on first use and caches them per ontology
object and version. Stale records are left out: an Evidence, Mapping, Relation or Constraint that a
drift patch marked (``prov:invalidatedAtTime``, :mod:`evoonto.drift`) backs no finding.
"""

from __future__ import annotations

import re

import threading
import weakref
from dataclasses import dataclass, field
from typing import Any

from evoonto.catalog import SourceSchema, read_catalog
from evoonto.ontology import Ontology
from evoonto.records import boolean_text
from evoonto.sources.guard import MAX_STATEMENT_CHARS
from evoonto.text import normalize, tokenize
from evoonto.tools.findings import Severity
from evoonto.tools.joinpaths import JoinGraph, join_graph_of
from evoonto.tools.sparql import select

__all__ = ["ColumnFacts", "ConstraintFacts", "CheckFacts", "check_facts", "MAX_SQL_CHARS", "SUGGESTIONS"]

#: Longest statement accepted: the one statement-size limit of ``run_sql`` and verified queries
#: (:data:`evoonto.sources.guard.MAX_STATEMENT_CHARS`).
MAX_SQL_CHARS = MAX_STATEMENT_CHARS
#: How many alternatives a suggestion lists.
SUGGESTIONS = 3


@dataclass(frozen=True)
class ColumnFacts:
    """What the Evidence says about one column's values.

    Attributes:
        values: the observed values (``evo:sampleValue``), in sorted order.
        distinct: ``evo:distinctCount`` (None when unknown).
        complete: the values are all the distinct values the probe saw (as many as ``distinct``);
            whether the probe read the whole table is :attr:`whole_table`.
        low, high: the smallest and largest value observed (``evo:minValue``/``evo:maxValue``) when
            both are numbers, else None.
        nulls: the share of NULL values observed (``evo:nullFraction``), or None.
        rows_observed: the rows the probe read (``evo:rowsObserved``), None when unrecorded.
        table_rows: the table's row count in the catalog (``evo:rowCount``), None when unknown.
        whole_table: the Evidence read the whole table (below).
    """

    values: tuple[str, ...]
    distinct: int | None
    complete: bool
    low: float | None = None
    high: float | None = None
    nulls: float | None = None
    rows_observed: int | None = None
    table_rows: int | None = None
    whole_table: bool = False
    """True only when the Evidence records that its probe read every row of the table
    (``evo:wholeTable true``, the rule of :func:`evoonto.records.describes_whole_table`); a sample, or
    Evidence that does not say, is False."""
    years: tuple[int, int] | None = None
    """The years of the earliest and latest value observed, when both (``evo:minValue``,
    ``evo:maxValue``) are ISO dates or timestamps (``2009-01-01``, ``2013-12-22 00:00:00``), else None."""
    dates: tuple[str, str] | None = None
    """The earliest and latest value observed as written, when both are ISO dates or timestamps
    (``("2023-01-02 01:07:00", "2024-01-31 10:00:00")``; ISO text orders as the dates do), else None."""

    def seen(self) -> str:
        """How the values were observed, for a message: ``"the 7 values seen reading the whole table
        (1,200 rows)"`` or ``"the 12 values seen in a sample of 1,000 of 336,776 rows"``."""
        n = len(self.values)
        if self.whole_table:
            return f"the {n} values seen reading the whole table ({self.table_rows:,} rows)"
        if self.rows_observed is not None and self.table_rows is not None and self.rows_observed < self.table_rows:
            return f"the {n} values seen in a sample of {self.rows_observed:,} of {self.table_rows:,} rows"
        if self.rows_observed is not None:
            return f"the {n} values seen in {self.rows_observed:,} rows read"
        return f"the {n} values the Evidence shows"


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
    #: ``(source id, table casefold, column casefold)`` of columns with a Mapping or Evidence that a
    #: drift patch marked stale (``prov:invalidatedAtTime``)
    stale_columns: frozenset[tuple[str, str, str]] = frozenset()


_CACHE: "weakref.WeakKeyDictionary[Any, tuple[Any, CheckFacts]]" = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def _ontology_of(ontology_or_tools: Any) -> Any:
    """The ontology of an :class:`~evoonto.tools.toolkit.OntologyTools` (or the argument itself)."""
    # an OntologyTools is told by its registry (toolkit imports this package, so it is not imported here)
    return ontology_or_tools.ontology if hasattr(ontology_or_tools, "registry") else ontology_or_tools


def check_facts(ontology: Any) -> CheckFacts:
    """The facts of ``ontology`` (an :class:`~evoonto.ontology.Ontology` or anything ``select`` can
    query), read with a few SPARQL queries on first use and cached per ontology object and version."""
    version = ontology.version if isinstance(ontology, Ontology) else None
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
    observed: dict[tuple[str, str], int | None] = {}
    years: dict[tuple[str, str], tuple[int, int] | None] = {}
    dates: dict[tuple[str, str], tuple[str, str]] = {}
    whole: set[tuple[str, str]] = set()  # (column, Evidence) read from the whole table
    for row in select(ontology, """SELECT ?col ?e ?dc ?v ?lo ?hi ?nf ?ro ?wt WHERE {
            ?m a evo:Mapping ; evo:column ?col ; prov:wasDerivedFrom ?e .
            ?e evo:distinctCount ?dc . OPTIONAL { ?e evo:sampleValue ?v }
            OPTIONAL { ?e evo:minValue ?lo ; evo:maxValue ?hi } OPTIONAL { ?e evo:nullFraction ?nf }
            OPTIONAL { ?e evo:rowsObserved ?ro } OPTIONAL { ?e evo:wholeTable ?wt }
            FILTER NOT EXISTS { ?e prov:invalidatedAtTime ?stale_e }
            FILTER NOT EXISTS { ?m prov:invalidatedAtTime ?stale_m } }"""):
        key = (row["col"], row["e"])
        count, values, _stats = evidence.setdefault(
            key, (_int(row.get("dc")), set(),
                  (_float(row.get("lo")), _float(row.get("hi")), _float(row.get("nf")))))
        if key not in years:
            first, last = _year(row.get("lo")), _year(row.get("hi"))
            years[key] = (first, last) if first is not None and last is not None and first <= last else None
            if years[key] is not None:
                dates[key] = (str(row["lo"]).strip(), str(row["hi"]).strip())
        observed.setdefault(key, _int(row.get("ro")))
        if boolean_text(str(row.get("wt", ""))):
            whole.add(key)
        if "v" in row:
            values.add(row["v"])
    row_counts = {(s.id, t.name.casefold()): t.row_count for s in facts.sources.values() for t in s.tables}
    for (col, e), (count, values, (low, high, nulls)) in evidence.items():
        place = where.get(col)
        if place is None:
            continue
        column_key = (place[0], place[1].casefold(), place[2].casefold())
        complete = bool(values) and count is not None and len(values) >= count
        known = facts.columns.get(column_key)
        if known is None or (complete, len(values)) > (known.complete, len(known.values)):
            bounded = low is not None and high is not None
            facts.columns[column_key] = ColumnFacts(tuple(sorted(values)), count, complete,
                                                    low if bounded else None, high if bounded else None, nulls,
                                                    observed.get((col, e)), row_counts.get(column_key[:2]),
                                                    (col, e) in whole, years.get((col, e)), dates.get((col, e)))
    # Term labels per table (suggestions for unknown tables)
    for row in select(ontology, """SELECT ?tbl ?label WHERE {
            ?m a evo:Mapping ; evo:table ?tbl ; evo:mapsTerm ?t . ?t skos:prefLabel ?label }"""):
        place_t = tables.get(row["tbl"])
        if place_t is not None:
            facts.table_labels.setdefault(place_t, []).append(row["label"])
    facts.constraints = _read_constraints(ontology, where, tables)
    facts.stale_columns = frozenset(
        (place[0], place[1].casefold(), place[2].casefold())
        for row in select(ontology, """SELECT DISTINCT ?col WHERE { ?m a evo:Mapping ; evo:column ?col .
                { ?m prov:invalidatedAtTime ?t }
                UNION { ?m prov:wasDerivedFrom ?e . ?e prov:invalidatedAtTime ?t } }""")
        for place in [where.get(row["col"])] if place is not None)
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
            FILTER NOT EXISTS { ?c owl:deprecated true } FILTER NOT EXISTS { ?c prov:invalidatedAtTime ?stale }
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


#: An ISO date or timestamp: its year (group 1).
_ISO_DATE = re.compile(r"^(\d{4})-\d{2}-\d{2}(?:[T ][0-9:.+-Z]*)?$")


def _year(text: str | None) -> int | None:
    """The year of an ISO date or timestamp literal (``2013-12-22 00:00:00`` → 2013), else None."""
    found = _ISO_DATE.match(str(text).strip()) if text is not None else None
    return int(found.group(1)) if found else None


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
