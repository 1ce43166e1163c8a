"""Join discovery: declared foreign keys plus candidate joins backed by measured value overlap.

Candidates ``A.x → B.y`` (``x`` references ``y``) come from:

- declared foreign keys (``declared=True``, always reported);
- names: ``B.y`` is key-like (the single-column primary key of ``B``, or an id-like column when
  ``B`` declares no key) and ``x`` is named like it (same name, ``<table>_<key>``, the table name,
  or a close fuzzy match by rapidfuzz), with compatible declared types (exact same names may differ
  in type: Spider stores some keys as text);
- values, when the source declares no key at all (a folder of CSV files, a schema without
  constraints): ``B.y`` is a text column whose non-null values are unique (checked with
  ``COUNT(DISTINCT y) = COUNT(y)``), ``A.x`` is a text column that repeats its values (a
  many-to-one reference) and a sample of its distinct values lies in ``B.y`` (``assigned_to`` →
  ``sysuser.name``, whatever the names). For each left column only the best-covering target is
  kept (ties: the longest common table-name prefix, so ``flag-14`` pairs with ``flag-14-sysuser``
  rather than ``flag-15-sysuser``); tables with the same columns (copies) are not paired; the
  candidate is then measured like any other.

Each candidate is measured by one read-only probe, the **inclusion ratio**: the share of distinct
non-null values of ``A.x`` (at most :data:`DEFAULT_LEFT_VALUES` of them) that occur in ``B.y``::

    WITH l AS (SELECT DISTINCT "Stadium_ID" AS v FROM "concert" WHERE "Stadium_ID" IS NOT NULL LIMIT 10000),
         r AS (SELECT DISTINCT "Stadium_ID" AS v FROM "stadium" WHERE "Stadium_ID" IS NOT NULL)
    SELECT (SELECT COUNT(*) FROM l) AS left_values,
           (SELECT COUNT(*) FROM l WHERE v IN (SELECT v FROM r)) AS matched,
           (SELECT COUNT(*) FROM r) AS right_values,
           (SELECT COUNT("Stadium_ID") FROM "stadium") AS right_rows

A composite key is one candidate with all its column pairs, probed on the whole tuple
(:func:`tuple_inclusion_sql`: a left tuple counts when some right row holds every value of it): a
declared one, or a composite primary key and another table holding columns of all its names.

Discovery looks at base tables (and files), not views. Discovered candidates are kept when the
ratio reaches ``min_inclusion`` and the right values are unique (a many-to-one join); declared keys
are kept whatever the ratio is (a low ratio on a declared key is itself worth knowing). Every measurement is an
:class:`evoonto.records.ProbeActivity` + :class:`evoonto.records.Evidence` pair, keyed by
``stable_key(source id, query)``.

Example::

    from evoonto.iris import IriFactory
    from evoonto.sources import discover_joins, open_source

    iris = IriFactory("https://example.org/evoonto/demo/")
    with open_source("concert_singer.sqlite") as src:
        for join in discover_joins(src, iris):
            print(join.condition(), join.declared, join.inclusion, join.evidence.summary)
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from evoonto.errors import SourceError
from evoonto.sources.base import (
    FIRST_ROWS,
    WHOLE_TABLE,
    BaseSource,
    ColumnInfo,
    TableInfo,
    resolve_foreign_key,
    warn,
)
from evoonto.sources.guard import SqlTemplate
from evoonto.sources.probe import run_probe
from evoonto.sources.profiling import share_text
from evoonto.sources.quoting import quote_identifier

__all__ = ["JoinCandidate", "JoinDiscovery", "discover_joins", "probe_joins", "declared_joins",
           "name_score", "exact_reference_names", "normalized_name", "inclusion_sql", "tuple_inclusion_sql",
           "type_family"]

#: Distinct left-side values checked per candidate.
DEFAULT_LEFT_VALUES = 10_000
#: Most candidates measured per source (highest name scores first).
DEFAULT_MAX_PROBES = 300
#: Value-based discovery: distinct values sampled per left column, most values of a right column.
VALUE_SAMPLE = 200
VALUE_RIGHT_MAX = 100_000
#: Value-based discovery counts the distinct values of all text columns of a table in one query when
#: the table has at most this many cells (rows × text columns); larger tables, one query per column.
BATCHED_COUNT_CELLS = 1_000_000
# The probes' query shapes: the guard checks each once, not once per column (issue 19).
_COUNT_DISTINCT = SqlTemplate("SELECT COUNT(DISTINCT {col}), COUNT({col}) FROM {table}")
_DISTINCT = SqlTemplate("SELECT DISTINCT {col} FROM {table} WHERE {col} IS NOT NULL")
_DISTINCT_SAMPLE = SqlTemplate(f"SELECT DISTINCT {{col}} FROM {{table}} WHERE {{col}} IS NOT NULL LIMIT {VALUE_SAMPLE}")
_UNIQUE = SqlTemplate("SELECT COUNT(DISTINCT {col}) = COUNT({col}) FROM {table}")
#: Column-name words too generic to tell two columns apart (``id``, ``name``, ``date``).
GENERIC_NAME_WORDS = frozenset({"id", "code", "key", "no", "num", "number", "name", "type", "value", "date", "year"})
_ID_LIKE = re.compile(r"(id|code|key|no|num|number)$")


@dataclass(frozen=True)
class JoinCandidate:
    """A join ``child.child_columns → parent.parent_columns`` (the child's columns reference the
    parent's, pairwise; AND-joined for a composite key): a declared foreign key, a join discovered
    here by names and values, one a data dictionary documents, or one the builder proposes. The one
    join-candidate type of evoonto (discovery here, the builder's proposal and verification).

    Attributes:
        child, child_columns: the referencing side; parent, parent_columns: the referenced side
            (same length).
        declared: a declared foreign key of the source.
        origin: where it comes from: ``schema`` (declared), ``source`` (discovered by
            :func:`discover_joins`), ``documentation`` or ``workload``.
        name_score: name similarity in [0, 1] (1.0 for declared keys).
        inclusion: share of distinct non-null child values found in the parent, in [0, 1]
            (``None`` when not measured, or when the child side has no value).
        child_values, matched, parent_values, parent_rows: the probe's counts (``parent_values ==
            parent_rows`` means the parent side is unique: a many-to-one join).
        evidence, probe: the PROV records of the measurement (``None`` when not measured). The
            measurement is not part of equality or the hash: one join measured or not is one join.
    """

    child: str
    child_columns: tuple[str, ...]
    parent: str
    parent_columns: tuple[str, ...]
    declared: bool = True
    origin: str = "schema"
    name_score: float = 1.0
    # the measurement (not part of the join's identity: equal joins compare and hash equal)
    inclusion: float | None = field(default=None, compare=False)
    child_values: int | None = field(default=None, compare=False)
    matched: int | None = field(default=None, compare=False)
    parent_values: int | None = field(default=None, compare=False)
    parent_rows: int | None = field(default=None, compare=False)
    evidence: Any = field(default=None, compare=False)
    probe: Any = field(default=None, compare=False)

    @property
    def parent_unique(self) -> bool | None:
        """Whether the parent values are unique (``None`` when not measured)."""
        if self.parent_values is None or self.parent_rows is None:
            return None
        return self.parent_values == self.parent_rows

    def pairs(self) -> list[tuple[str, str]]:
        """``[(child column, parent column), …]``."""
        return list(zip(self.child_columns, self.parent_columns, strict=False))

    def condition(self, dialect: str | None = None, *, quoted: bool = False) -> str:
        """The join condition, AND-joined for composite keys: readable ``"child.a = parent.b"`` by
        default; with ``quoted``, executable SQL with every identifier quoted for ``dialect``
        (a sqlglot dialect, :func:`evoonto.sources.quoting.quote_identifier`):
        ``"Order Details"."OrderID" = "Orders"."OrderID"``."""
        def name(table: str, column: str) -> str:
            if not quoted:
                return f"{table}.{column}"
            return f"{quote_identifier(table, dialect)}.{quote_identifier(column, dialect)}"

        # strict=False keeps the historical behaviour (extra columns of the longer side are ignored);
        # every constructor in evoonto passes equal-length tuples.
        return " AND ".join(f"{name(self.child, a)} = {name(self.parent, b)}" for a, b in self.pairs())

    def records(self) -> list:
        """``[evidence, probe]`` when measured, else ``[]``."""
        return [self.evidence, self.probe] if self.evidence is not None else []


@functools.lru_cache(maxsize=1 << 16)
def _norm(name: str) -> str:
    return re.sub(r"[^0-9a-z]", "", name.casefold())


@functools.lru_cache(maxsize=1 << 16)
def _singular(name: str) -> str:
    if name.endswith("ies") and len(name) > 4:
        return name[:-3] + "y"
    if name.endswith("ses") or name.endswith("xes"):
        return name[:-2]
    if name.endswith("s") and not name.endswith("ss") and len(name) > 3:
        return name[:-1]
    return name


def name_score(left_column: str, right_table: str, right_column: str, *, right_is_key: bool) -> float:
    """How much ``left_column`` looks like a reference to ``right_table.right_column``, in [0, 1].

    1.0: same non-generic name (``Singer_ID``/``Singer_ID``) or ``<table><key>`` (``singer_id`` →
    ``singer.id``); 0.9: the left name ends with the non-generic right name (``current_address_id``
    → ``address_id``); 0.85: the right side is a key and the left name ends with the (singular)
    table name or the table name ends with it (``lost_in_battle`` → ``battle.id``, ``Channel`` →
    ``TV_Channel.id``); otherwise the rapidfuzz ratio of the names when at least 0.9 and the name
    is not generic; else 0. Names are compared case-folded without punctuation.
    """
    from rapidfuzz import fuzz

    x, y = _norm(left_column), _norm(right_column)
    table, single = _norm(right_table), _singular(_norm(right_table))
    if not x or not y:
        return 0.0
    if x == y and y not in GENERIC_NAME_WORDS:
        return 1.0
    if x in (table + y, single + y) or (right_is_key and x in (table + "id", single + "id")):
        return 1.0
    if y not in GENERIC_NAME_WORDS and len(y) >= 4 and x.endswith(y):
        return 0.9
    if right_is_key and len(x) >= 3 and (table.endswith(x) or x.endswith(single) or x.endswith(table)):
        return 0.85
    if y in GENERIC_NAME_WORDS or len(y) < 4:
        return 0.0
    ratio = fuzz.ratio(x, y) / 100.0
    return ratio if ratio >= 0.9 else 0.0


def normalized_name(name: str) -> str:
    """``name`` case-folded without punctuation, the form :func:`name_score` compares
    (``"Singer_ID"`` -> ``"singerid"``)."""
    return _norm(name)


def exact_reference_names(right_table: str, right_column: str, *, right_is_key: bool) -> frozenset[str]:
    """The normalized left column names (:func:`normalized_name`) for which :func:`name_score` is 1.0.

    ``name_score(c, right_table, right_column, right_is_key=k) == 1.0`` holds exactly when
    ``normalized_name(c)`` is in this set, so a caller can look candidates up in an index of column names
    instead of scoring every column of a schema against every key (70,000 columns × thousands of keys).
    Empty when the right column's name is empty after normalization.
    """
    y = _norm(right_column)
    if not y:
        return frozenset()
    table, single = _norm(right_table), _singular(_norm(right_table))
    names = {table + y, single + y}
    if y not in GENERIC_NAME_WORDS:
        names.add(y)
    if right_is_key:
        names |= {table + "id", single + "id"}
    return frozenset(n for n in names if n)


def type_family(declared: str) -> str:
    """Type family by SQLite affinity rules: ``number``, ``text``, ``time``, ``other``, ``any``."""
    t = declared.upper()
    if not t:
        return "any"
    if "DATE" in t or "TIME" in t:
        return "time"
    if "INT" in t or any(k in t for k in ("REAL", "FLOA", "DOUB", "NUM", "DEC", "BOOL")):
        return "number"
    if any(k in t for k in ("CHAR", "CLOB", "TEXT", "STRING", "UUID")):
        return "text"
    return "other"


def _compatible(a: ColumnInfo, b: ColumnInfo) -> bool:
    fa, fb = type_family(a.declared_type), type_family(b.declared_type)
    return fa == fb or "any" in (fa, fb)


def _compared_as_text(source: BaseSource, a: ColumnInfo, b: ColumnInfo) -> bool:
    """Whether an inclusion probe compares columns ``a`` and ``b`` as text: columns of two type
    families, except on SQLite (its type affinity already compares ``'1'`` and ``1`` as equal)."""
    return source.dialect != "sqlite" and not _compatible(a, b)


def inclusion_sql(source: BaseSource, left: TableInfo, left_column: ColumnInfo, right: TableInfo,
                  right_column: ColumnInfo, *, left_values: int = DEFAULT_LEFT_VALUES) -> str:
    """The inclusion-ratio probe of ``left.left_column → right.right_column`` (module docstring).

    Columns of different type families are compared as text, except on SQLite (its type
    affinity already compares ``'1'`` and ``1`` as equal).
    """
    cast = _compared_as_text(source, left_column, right_column)
    return _inclusion_template(cast, int(left_values)).render(
        source.dialect, lx=left_column.name, ry=right_column.name, left=left.name, right=right.name)


def tuple_inclusion_sql(source: BaseSource, left: TableInfo, left_columns: list[ColumnInfo], right: TableInfo,
                        right_columns: list[ColumnInfo], *, left_values: int = DEFAULT_LEFT_VALUES) -> str:
    """The inclusion-ratio probe of a multi-column join ``left.(a, b, ..) → right.(x, y, ..)``:
    distinct non-null left tuples (at most ``left_values``), how many occur whole as right tuples,
    distinct non-null right tuples and right rows with no null key column (equal counts: the right
    side is unique). Columns paired across type families are compared as text (not on SQLite)."""
    dialect = source.dialect
    casts = tuple(_compared_as_text(source, a, b) for a, b in zip(left_columns, right_columns, strict=True))
    names = {"left": left.name, "right": right.name,
             **{f"lx{i}": c.name for i, c in enumerate(left_columns)},
             **{f"ry{i}": c.name for i, c in enumerate(right_columns)}}
    return _tuple_inclusion_template(casts, int(left_values)).render(dialect, **names)


@functools.lru_cache(maxsize=64)
def _tuple_inclusion_template(casts: tuple[bool, ...], left_values: int) -> SqlTemplate:
    """The shape of :func:`tuple_inclusion_sql` for ``len(casts)`` column pairs."""
    n = range(len(casts))
    lv = ", ".join(f"CAST({{lx{i}}} AS VARCHAR) AS v{i}" if casts[i] else f"{{lx{i}}} AS v{i}" for i in n)
    rv = ", ".join(f"CAST({{ry{i}}} AS VARCHAR) AS v{i}" if casts[i] else f"{{ry{i}}} AS v{i}" for i in n)
    left_nn = " AND ".join(f"{{lx{i}}} IS NOT NULL" for i in n)
    right_nn = " AND ".join(f"{{ry{i}}} IS NOT NULL" for i in n)
    same = " AND ".join(f"r.v{i} = l.v{i}" for i in n)
    return SqlTemplate(
        f"WITH l AS (SELECT DISTINCT {lv} FROM {{left}} WHERE {left_nn} LIMIT {left_values}), "
        f"r AS (SELECT DISTINCT {rv} FROM {{right}} WHERE {right_nn}) "
        "SELECT (SELECT COUNT(*) FROM l) AS left_values, "
        f"(SELECT COUNT(*) FROM l WHERE EXISTS (SELECT 1 FROM r WHERE {same})) AS matched, "
        "(SELECT COUNT(*) FROM r) AS right_values, "
        f"(SELECT COUNT(*) FROM {{right}} WHERE {right_nn}) AS right_rows"
    )


@functools.lru_cache(maxsize=64)
def _inclusion_template(cast: bool, left_values: int) -> SqlTemplate:
    """The shape of :func:`inclusion_sql` (checked by the guard once per dialect, not once per probe)."""
    lv = "CAST({lx} AS VARCHAR)" if cast else "{lx}"
    rv = "CAST({ry} AS VARCHAR)" if cast else "{ry}"
    return SqlTemplate(
        f"WITH l AS (SELECT DISTINCT {lv} AS v FROM {{left}} WHERE {{lx}} IS NOT NULL "
        f"LIMIT {left_values}), "
        f"r AS (SELECT DISTINCT {rv} AS v FROM {{right}} WHERE {{ry}} IS NOT NULL) "
        "SELECT (SELECT COUNT(*) FROM l) AS left_values, "
        "(SELECT COUNT(*) FROM l WHERE v IN (SELECT v FROM r)) AS matched, "
        "(SELECT COUNT(*) FROM r) AS right_values, "
        "(SELECT COUNT({ry}) FROM {right}) AS right_rows"
    )


def declared_joins(source: BaseSource) -> list[JoinCandidate]:
    """The declared foreign keys as unmeasured candidates (one per key, a composite key with all
    its column pairs).

    Keys naming a missing table or column are skipped with a :class:`SourceWarning`.
    """
    tables = source.tables()
    found = []
    for table in tables:
        for fk in table.foreign_keys:
            pairs = resolve_foreign_key(table, fk, tables)
            if pairs is None:
                warn(f"source {source.id!r}: foreign key {table.name}({', '.join(fk.columns)}) -> "
                     f"{fk.ref_table} names a missing table or column; skipped")
                continue
            candidate = JoinCandidate(table.name, tuple(c for c, _t, _r in pairs), pairs[0][1],
                                      tuple(r for _c, _t, r in pairs))
            if candidate not in found:  # some schemas declare the same key twice
                found.append(candidate)
    return found


def _key_columns(table: TableInfo) -> list[ColumnInfo]:
    if len(table.primary_key) == 1:
        return [table.column(table.primary_key[0])]
    if table.primary_key:
        return []
    return [c for c in table.columns if _ID_LIKE.search(_norm(c.name))]


def _name_candidates(source: BaseSource, declared: set[tuple[str, str, str, str]]) -> list[JoinCandidate]:
    """Name-based candidates: every key-like column against every column of the other tables named
    like a reference to it (:func:`name_score` > 0), in table and column order.

    Each key is scored once per distinct column name (:class:`_NameIndex`), and only the columns
    whose name scores are visited, so a wide schema that repeats names across per-year tables is
    not scored column by column.
    """
    tables = [t for t in source.tables() if t.kind != "view"]
    by_name = {t.name: t for t in tables}
    index = _NameIndex(tables)
    found: dict[frozenset, list[JoinCandidate]] = {}
    for right in tables:
        keys = _key_columns(right)
        has_pk = bool(right.primary_key)
        for key in keys:
            for left, column, score in index.references(right.name, key.name, right_is_key=has_pk):
                if left.name == right.name:
                    continue
                ident = (left.name, column.name, right.name, key.name)
                if ident in declared:
                    continue
                if score < 1.0 and left.primary_key == (column.name,):
                    continue
                if score < 1.0 and not _compatible(column, key):
                    continue
                pair = frozenset({(left.name, column.name), (right.name, key.name)})
                candidate = JoinCandidate(left.name, (column.name,), right.name, (key.name,), declared=False,
                                          origin="source", name_score=score)
                kept = found.setdefault(pair, [])
                rank = _rank(candidate, by_name)
                if not kept or rank > _rank(kept[0], by_name):
                    kept[:] = [candidate]
                elif rank == _rank(kept[0], by_name) and candidate not in kept:
                    # neither direction is preferred by names and keys (two id-like columns, no
                    # declared key): keep both until the uniqueness check picks the many-to-one one
                    kept.append(candidate)
    reverse_declared = {frozenset({(a, b), (c, d)}) for a, b, c, d in declared}
    return [c for p, kept in found.items() if p not in reverse_declared for c in kept]


def _composite_candidates(source: BaseSource, declared: set[tuple[str, str, str, str]]) -> list[JoinCandidate]:
    """Name-based candidates for composite primary keys: a key ``(a, b, …)`` of one table against
    every other table holding a column of each key column's own name (:func:`normalized_name`) with
    a compatible type, one candidate per such table, probed on the whole tuple like a declared
    composite key (``sale_return.(store_id, sale_no) → sale_line.(store_id, sale_no)``). Before,
    only single-column keys were candidates, so a table referencing a composite key it does not
    declare was joined on one of its columns alone, through a table both reference.

    Not a table whose own primary key is those same columns or has the same columns as the key's
    table (a sibling keyed alike, such as per-year copies of one table, declared with a key or made
    without one), nor one whose own single-column primary key is among them (``orders.id`` is the
    order, not a document's id: ``orders.(id, version)`` is no reference to ``doc_version.(id,
    version)``), nor a reference the source declares. In table order."""
    tables = [t for t in source.tables() if t.kind != "view"]
    names = {t.name: {normalized_name(c.name): c for c in t.columns} for t in tables}
    out: list[JoinCandidate] = []
    for right in tables:
        if len(right.primary_key) < 2:
            continue
        keys = [right.column(k) for k in right.primary_key]
        wanted = [normalized_name(k.name) for k in keys]
        if len(set(wanted)) != len(wanted) or not all(wanted):
            continue
        for left in tables:
            columns = names[left.name]
            if left.name == right.name or not all(w in columns for w in wanted):
                continue
            own_key = {normalized_name(c) for c in left.primary_key}
            if own_key == set(wanted) or (len(own_key) == 1 and own_key <= set(wanted)):
                continue
            if set(columns) == set(names[right.name]):  # a copy of the key's table
                continue
            child = [columns[w] for w in wanted]
            if not all(_compatible(a, b) for a, b in zip(child, keys, strict=True)):
                continue
            if all((left.name, a.name, right.name, b.name) in declared for a, b in zip(child, keys, strict=True)):
                continue
            out.append(JoinCandidate(left.name, tuple(c.name for c in child), right.name,
                                     tuple(k.name for k in keys), declared=False, origin="source", name_score=1.0))
    return out


class _NameIndex:
    """The columns of some tables indexed by normalized name (:func:`normalized_name`), for scoring a
    key against every column with one :func:`name_score` per distinct name.

    :meth:`references` gives exactly the columns with ``name_score(column, table, key) > 0`` and
    their scores, in table and column order.
    """

    def __init__(self, tables: list[TableInfo]) -> None:
        self.columns: list[tuple[TableInfo, ColumnInfo]] = []
        self.positions: dict[str, list[int]] = {}  # normalized name -> positions in self.columns
        for table in tables:
            for column in table.columns:
                self.positions.setdefault(_norm(column.name), []).append(len(self.columns))
                self.columns.append((table, column))
        self.positions.pop("", None)  # name_score is 0 for a name without letters or digits
        self.names = list(self.positions)
        self._by_key: dict[str, tuple[dict[str, float], dict[str, float]]] = {}

    def _key_scores(self, y: str) -> tuple[dict[str, float], dict[str, float]]:
        """Scores that depend on the key's normalized name ``y`` alone: ``(same name (1.0) or a name
        ending with it (0.9), close fuzzy matches (rapidfuzz ratio ≥ 0.9))``; generic names get
        neither, short ones only the first."""
        cached = self._by_key.get(y)
        if cached is not None:
            return cached
        suffix: dict[str, float] = {}
        fuzzy: dict[str, float] = {}
        if y not in GENERIC_NAME_WORDS:
            if y in self.positions:
                suffix[y] = 1.0
            if len(y) >= 4:
                from rapidfuzz import fuzz, process

                for x in self.names:
                    if x not in suffix and x.endswith(y):
                        suffix[x] = 0.9
                for x, ratio, _ in process.extract(y, self.names, scorer=fuzz.ratio, processor=None,
                                                   score_cutoff=90, limit=None):
                    fuzzy[x] = ratio / 100.0
        self._by_key[y] = (suffix, fuzzy)
        return suffix, fuzzy

    def references(self, right_table: str, right_column: str, *,
                   right_is_key: bool) -> list[tuple[TableInfo, ColumnInfo, float]]:
        """``(table, column, name_score)`` of every indexed column named like a reference to
        ``right_table.right_column`` (score > 0), in table and column order."""
        y = _norm(right_column)
        if not y:
            return []
        # in name_score's order of rules: the first rule that holds gives the score
        scores = {x: 1.0 for x in exact_reference_names(right_table, right_column, right_is_key=right_is_key)
                  if x in self.positions}
        suffix, fuzzy = self._key_scores(y)
        for x, score in suffix.items():
            scores.setdefault(x, score)
        if right_is_key:  # the left name ends with the table name, or the table name with it
            table, single = _norm(right_table), _singular(_norm(right_table))
            for x in self.names:
                if x not in scores and len(x) >= 3 and (table.endswith(x) or x.endswith(single)
                                                        or x.endswith(table)):
                    scores[x] = 0.85
        for x, score in fuzzy.items():
            scores.setdefault(x, score)
        positions = sorted(i for x in scores for i in self.positions[x])
        return [(*self.columns[i], scores[_norm(self.columns[i][1].name)]) for i in positions]


def _rank(candidate: JoinCandidate, by_name: dict[str, TableInfo]) -> tuple[bool, float]:
    """Between the two directions of one column pair, prefer the one whose right side is a PK,
    then the better name score."""
    return (by_name[candidate.parent].primary_key == candidate.parent_columns, candidate.name_score)


def _one_per_pair(candidates: list[JoinCandidate]) -> list[JoinCandidate]:
    """The first candidate of each unordered column pair (a one-to-one pair survives the uniqueness
    check in both directions; it is reported once, in the direction discovery met first)."""
    seen: set[frozenset] = set()
    kept = []
    for c in candidates:
        pair = frozenset({(c.child, c.child_columns), (c.parent, c.parent_columns)})
        if pair not in seen:
            seen.add(pair)
            kept.append(c)
    return kept


@dataclass(frozen=True)
class JoinDiscovery:
    """What :func:`probe_joins` found.

    Attributes:
        joins: what :func:`discover_joins` returns (declared keys, then the kept discovered joins).
        refuted: discovered candidates the data refutes, each with its measurement and Evidence, in
            probe order: the probe found none of the child's distinct values (those it read) in the
            parent, compared as the database compares them (no column cast to text: a text ``'0001'``
            and a number ``1`` are equal to a join in some engines), and no other measurement or
            declared key links the two columns. A name-suggested join that matches no row
            (``transactions_1k.CustomerID`` -> ``customers.CustomerID`` when no customer id of the
            transactions is a customer's); a key with orphan rows is not refuted.
    """

    joins: list[JoinCandidate]
    refuted: list[JoinCandidate]


def discover_joins(
    source: BaseSource,
    iris,
    *,
    min_inclusion: float = 0.9,
    measure_declared: bool = True,
    max_probes: int = DEFAULT_MAX_PROBES,
    left_values: int = DEFAULT_LEFT_VALUES,
    timeout_ms: int = 5000,
    at: datetime | None = None,
) -> list[JoinCandidate]:
    """Declared foreign keys and name-suggested joins (single-column keys, and composite primary keys
    against tables holding columns of all their names), measured by inclusion-ratio probes.
    (:func:`probe_joins` also returns the candidates the data refuted.)

    Args:
        source: an open tabular source (documents sources give ``[]``).
        iris: an :class:`evoonto.iris.IriFactory` (for Evidence/Probe IRIs).
        min_inclusion: keep a discovered candidate only when at least this share of its distinct
            left values occur on the right (0..1) and the right values are unique.
        measure_declared: also measure declared keys (default) or report them unmeasured.
        max_probes: most discovered candidates measured (best name scores first, spread over the
            referencing tables: :func:`_probe_order`).
        left_values: distinct left values checked per probe.
        timeout_ms: time limit per probe, in milliseconds.
        at: the time stamped on every probe's Evidence (a build's clock; default: the wall clock).

    Returns:
        Declared keys first (in table order), then discovered candidates by decreasing inclusion
        and name score. A probe that fails leaves its candidate unmeasured (declared) or drops it
        (discovered), with a :class:`SourceWarning`.
    """
    return probe_joins(source, iris, min_inclusion=min_inclusion, measure_declared=measure_declared,
                       max_probes=max_probes, left_values=left_values, timeout_ms=timeout_ms, at=at).joins


def probe_joins(
    source: BaseSource,
    iris,
    *,
    min_inclusion: float = 0.9,
    measure_declared: bool = True,
    max_probes: int = DEFAULT_MAX_PROBES,
    left_values: int = DEFAULT_LEFT_VALUES,
    timeout_ms: int = 5000,
    at: datetime | None = None,
) -> JoinDiscovery:
    """:func:`discover_joins` with the candidates the data refuted (:class:`JoinDiscovery`); the same
    arguments, probes and errors.
    """
    if not 0.0 <= min_inclusion <= 1.0:
        raise SourceError(f"min_inclusion must be in [0, 1], got {min_inclusion!r}")
    if source.kind == "documents":
        return JoinDiscovery([], [])
    declared = declared_joins(source)
    ids = {(c.child, a, c.parent, b) for c in declared for a, b in c.pairs()}
    candidates = _one_per_pair(_unique_targets(source, _name_candidates(source, ids), timeout_ms)
                               + _composite_candidates(source, ids))
    if not _declares_keys(source):
        taken = {_ident(c) for c in candidates}
        candidates += [c for c in _value_candidates(source, min_inclusion, timeout_ms)
                       if _ident(c) not in taken]
    discovered = _probe_order(candidates)[:max_probes]
    results: list[JoinCandidate] = []
    for candidate in declared:
        if not measure_declared:
            results.append(candidate)
            continue
        results.append(_measure(source, iris, candidate, left_values, timeout_ms, at) or candidate)
    kept, refuted = [], []
    linked = {_columns_pair(c) for c in results}  # pairs a declared key or a probe that matched links
    for candidate in discovered:
        measured = _measure(source, iris, candidate, left_values, timeout_ms, at)
        if measured is None or measured.inclusion is None:
            continue
        if measured.inclusion >= min_inclusion and measured.parent_unique:
            kept.append(measured)
        if measured.matched:
            linked.add(_columns_pair(measured))
        elif _compared_natively(source, measured) and measured not in kept:
            refuted.append(measured)
    kept.sort(key=lambda c: (-(c.inclusion or 0.0), -c.name_score, c.condition()))
    # the two directions of one column pair are one join: with a sample of distinct values (the first
    # ``left_values``), one direction may see no match where the other saw some
    return JoinDiscovery(results + kept, [c for c in refuted if _columns_pair(c) not in linked])


def _compared_natively(source: BaseSource, candidate: JoinCandidate) -> bool:
    """Whether the inclusion probe of ``candidate`` compared its columns as a join on the database
    does: no pair cast to text (:func:`_compared_as_text`), so "no value matched" is what the join
    itself finds."""
    left, right = source.table(candidate.child), source.table(candidate.parent)
    return not any(_compared_as_text(source, left.column(a), right.column(b)) for a, b in candidate.pairs())


def _probe_order(candidates: list[JoinCandidate]) -> list[JoinCandidate]:
    """The order in which discovered candidates are probed (the first ``max_probes`` are): best name
    score first and, among equal scores, round by round over the referencing tables (each table's
    best candidate, then each one's second, …), in the order found within a round. By score alone,
    the pairs among the members of a wide table family (seventy per-year tables sharing a column
    name make thousands of equal candidates) took every probe, and no other table's reference was
    probed (7,761 columns: 300 of 300)."""
    turn: dict[tuple[float, str], int] = {}
    ranked = []
    for position, candidate in enumerate(sorted(candidates, key=lambda c: -c.name_score)):
        key = (candidate.name_score, candidate.child)
        ranked.append((-candidate.name_score, turn.get(key, 0), position, candidate))
        turn[key] = turn.get(key, 0) + 1
    return [candidate for *_, candidate in sorted(ranked, key=lambda r: r[:3])]


def _columns_pair(candidate: JoinCandidate) -> frozenset:
    """The column pairs of a join, direction-free (``{(table, column), (table, column)}`` per pair)."""
    return frozenset(frozenset({(candidate.child, a), (candidate.parent, b)}) for a, b in candidate.pairs())


def _unique_targets(source: BaseSource, candidates: list[JoinCandidate], timeout_ms: int) -> list[JoinCandidate]:
    """Drop candidates whose right column is not a declared primary key and has repeated values.

    One ``COUNT(DISTINCT …) = COUNT(…)`` check per such column (a filter, not recorded as
    Evidence; the kept candidates are measured and recorded by :func:`_measure`).
    """
    unique: dict[tuple[str, tuple[str, ...]], bool] = {}
    kept = []
    for candidate in candidates:
        target = (candidate.parent, candidate.parent_columns)
        if target not in unique:
            table = source.table(candidate.parent)
            if table.primary_key == candidate.parent_columns:
                unique[target] = True
            else:
                sql = _UNIQUE.render(source.dialect, col=candidate.parent_columns[0],
                                     table=table.name)
                try:
                    unique[target] = bool(run_probe(source, sql, limit=1, timeout_ms=timeout_ms).scalar())
                except SourceError:
                    unique[target] = False
        if unique[target]:
            kept.append(candidate)
    return kept


def _ident(c: JoinCandidate) -> tuple[str, tuple[str, ...], str, tuple[str, ...]]:
    return (c.child, c.child_columns, c.parent, c.parent_columns)


def _declares_keys(source: BaseSource) -> bool:
    """Whether any table of ``source`` declares a primary or foreign key."""
    return any(t.primary_key or t.foreign_keys for t in source.tables())


def _text_columns(table: TableInfo) -> list[ColumnInfo]:
    return [c for c in table.columns if type_family(c.declared_type) == "text"]


def _value_candidates(source: BaseSource, min_inclusion: float, timeout_ms: int) -> list[JoinCandidate]:
    """Joins suggested by values alone (module docstring): text columns whose sampled distinct values
    lie in a unique text column of another table; the best target per left column.

    Probes here are filters (not recorded); kept candidates are measured by :func:`_measure`.
    """
    from rapidfuzz import fuzz

    tables = [t for t in source.tables() if t.kind != "view" and _text_columns(t)]
    targets: dict[tuple[str, str], set] = {}
    samples: dict[tuple[str, str], set] = {}
    dialect = source.dialect
    for table in tables:
        columns = _text_columns(table)
        counts = _distinct_counts(source, table, columns, timeout_ms)
        for column in columns:
            names = {"col": column.name, "table": table.name}
            try:
                if column.name in counts:
                    distinct, non_null = counts[column.name]
                else:  # the table's batched count failed: this column's own count
                    run = run_probe(source, _COUNT_DISTINCT.render(dialect, **names), limit=1, timeout_ms=timeout_ms)
                    distinct, non_null = (int(v or 0) for v in run.rows[0])
                if distinct == non_null >= 2 and distinct <= VALUE_RIGHT_MAX:
                    unique = run_probe(source, _DISTINCT.render(dialect, **names),
                                       limit=VALUE_RIGHT_MAX, timeout_ms=timeout_ms).rows
                    targets[(table.name, column.name)] = {v[0] for v in unique}
                elif 2 <= distinct < non_null:  # a reference repeats its values (many-to-one)
                    sample = run_probe(source, _DISTINCT_SAMPLE.render(dialect, **names),
                                       limit=VALUE_SAMPLE, timeout_ms=timeout_ms)
                    samples[(table.name, column.name)] = {v[0] for v in sample.rows}
            except SourceError:
                continue
    columns_of = {t.name: frozenset(c.name for c in t.columns) for t in tables}
    found = []
    for (left_table, left_column), sampled in samples.items():
        best: tuple | None = None
        for (right_table, right_column), domain in targets.items():
            if right_table == left_table or columns_of[right_table] == columns_of[left_table]:
                continue  # a table and its copy (same columns) are not joined
            share = len(sampled & domain) / len(sampled)
            if share < min_inclusion:
                continue
            a, b = left_table.casefold(), right_table.casefold()
            rank = (share, len(os.path.commonprefix([a, b])), fuzz.ratio(a, b),
                    name_score(left_column, right_table, right_column, right_is_key=True))
            if best is None or rank > best[0]:
                best = (rank, right_table, right_column)
        if best is not None:
            found.append(JoinCandidate(left_table, (left_column,), best[1], (best[2],), declared=False, origin="source",
                                       name_score=best[0][3]))
    return found


def _distinct_counts(source: BaseSource, table: TableInfo, columns: list[ColumnInfo],
                     timeout_ms: int) -> dict[str, tuple[int, int]]:
    """``column name -> (COUNT(DISTINCT c), COUNT(c))`` for ``columns`` of ``table``, read by one query
    (one :data:`_COUNT_DISTINCT` per column gives the same numbers, at one query per column). These
    counts only select candidates and are not recorded as Evidence.

    Only small tables are counted together (at most :data:`BATCHED_COUNT_CELLS` rows × columns, row
    count known): there one query per column costs more in per-query work than in scanning, while on
    a large table one query per column keeps each within its time limit. Empty when the table is
    larger, has fewer than two such columns, or the query fails; the caller then counts column by
    column."""
    rows = table.row_count
    if len(columns) < 2 or rows is None or rows * len(columns) > BATCHED_COUNT_CELLS:
        return {}
    pairs = ", ".join(f"COUNT(DISTINCT {{c{i}}}), COUNT({{c{i}}})" for i in range(len(columns)))
    template = SqlTemplate(f"SELECT {pairs} FROM {{table}}")
    names = {f"c{i}": c.name for i, c in enumerate(columns)}
    try:
        row = run_probe(source, template.render(source.dialect, table=table.name, **names),
                        limit=1, timeout_ms=timeout_ms).rows[0]
    except (SourceError, IndexError):
        return {}
    return {c.name: (int(row[2 * i] or 0), int(row[2 * i + 1] or 0)) for i, c in enumerate(columns)}


def _measure(source, iris, candidate: JoinCandidate, left_values: int, timeout_ms: int,
             at: datetime | None = None) -> JoinCandidate | None:
    from dataclasses import replace

    left, right = source.table(candidate.child), source.table(candidate.parent)
    pairs = candidate.pairs()
    if len(pairs) == 1:
        left_column, right_column = pairs[0]
        sql = inclusion_sql(source, left, left.column(left_column), right, right.column(right_column),
                            left_values=left_values)
    else:  # a composite key: probed on the whole tuple
        left_column = "(" + ", ".join(a for a, _b in pairs) + ")"
        right_column = "(" + ", ".join(b for _a, b in pairs) + ")"
        sql = tuple_inclusion_sql(source, left, [left.column(a) for a, _b in pairs], right,
                                  [right.column(b) for _a, b in pairs], left_values=left_values)
    try:
        run = run_probe(source, sql, limit=1, timeout_ms=timeout_ms, at=at)
    except SourceError as err:
        warn(f"source {source.id!r}: join probe {candidate.condition()} failed ({err})")
        return None
    n_left, matched, n_right, right_rows = (int(v or 0) for v in run.rows[0])
    inclusion = matched / n_left if n_left else None
    unique = "unique" if n_right == right_rows else "not unique"
    share = share_text(inclusion) if inclusion is not None else "n/a"
    capped = n_left >= left_values  # the first left_values distinct values only: a sample, said so
    summary = (f"inclusion {share}: {matched:,} of {n_left:,} distinct {candidate.child}."
               f"{left_column} values occur in {candidate.parent}.{right_column} "
               f"({n_right:,} distinct values, {unique})")
    if capped:
        summary += f" (a sample: the first {left_values:,} distinct values the database returned)"
    evidence, probe = run.records(iris, summary, rows_observed=n_left, distinct_count=n_left,
                                  whole_table=not capped, sampling_method=FIRST_ROWS if capped else WHOLE_TABLE,
                                  table_rows=left.row_count)
    return replace(candidate, inclusion=inclusion, child_values=n_left, matched=matched,
                   parent_values=n_right, parent_rows=right_rows, evidence=evidence, probe=probe)
