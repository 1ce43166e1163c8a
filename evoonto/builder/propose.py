"""Proposal: candidate concepts from the schema and from the question workload (paper §3.1).

Two directions, merged into one :class:`Proposal`:

* **schema-driven** — every table becomes an Entity Term and every column a Term of the kind its
  profile shows (Identifier, Metric, Dimension, Category, TimeDimension); small closed vocabularies
  give one value Term per value (``status = 'Banned'``); declared and name-matched foreign keys
  give join candidates; numeric columns of a table give derivation candidates; profiles give
  constraint candidates (numbers stored as text, closed vocabularies, code columns with a lookup
  table). Concepts nobody asked about are thus not lost. (Undeclared joins are suggested by the
  source layer's :func:`evoonto.sources.joins.discover_joins`, see the pipeline.)
* **workload-driven** — phrases of the questions (word n-grams without stop words at their ends)
  linked to the schema by lexical evidence (a phrase close to a Term's label becomes a synonym
  candidate) and value evidence (a phrase equal to a value of a column becomes a value candidate).

Proposers share the :class:`Proposer` protocol; :class:`OfflineProposer` is deterministic and needs no
network, :class:`evoonto.builder.llm.ClaudeProposer` asks Claude and returns the same candidate types.
Nothing here reads a gold answer: questions arrive as :class:`~evoonto.builder.workload.Question`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from rapidfuzz import fuzz

from evoonto.builder.labels import (
    LabelSet, column_labels, current_lexicon, expand_tokens, normalize, singularize, split_identifier, table_labels,
)
from evoonto.builder.probe import ColumnProfile, quote_identifier, sql_literal
from evoonto.builder.workload import Question
from evoonto.catalog import ColumnInfo, SourceSchema, TableInfo, foreign_keys
from evoonto.iris import slugify, stable_key
from evoonto.lexicon import LexiconConcept
from evoonto.records import (DEFINITION_KEY_LEAD, DEFINITION_LINK_LEAD, DEFINITION_SAMPLE_VALUES_LEAD,
                             DEFINITION_VALUES_LEAD, definition_value_list)
from evoonto.sources.joins import JoinCandidate
from evoonto.text import QUESTION_STOP_WORDS

__all__ = [
    "TermCandidate", "SynonymCandidate", "ValueCandidate",
    "DerivationCandidate", "ConstraintCandidate", "ConceptCandidate", "Proposal", "Proposer", "OfflineProposer",
    "schema_candidates", "workload_candidates", "phrase_concepts", "unmatched_phrases", "term_slug",
    "default_aggregation",
]

#: Columns with at most this many distinct text values get one value Term per value.
VALUE_TERM_CAP = 30
#: Closed vocabularies of at most this many values are listed in the column Term's definition.
DEFINITION_VALUES = 30
#: Text columns with at most this many distinct values are Categories.
CATEGORY_CAP = 30
#: Minimum rapidfuzz ratio (0–100) for a workload phrase to count as a spelling variant of a label.
FUZZY_THRESHOLD = 88

#: Words a workload phrase may not start or end with: evoonto.text's question stop words (function
#: words, request verbs, query-operation words) and identifier words.
_STOPWORDS = QUESTION_STOP_WORDS | {"id", "ids"}
_ID_WORDS = {"id", "ids", "code", "key", "no", "num", "number", "uuid", "identifier"}
_TIME_WORDS = {"date", "time", "year", "day", "month", "timestamp", "dt", "datetime", "born", "birth"}
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-\.]*[A-Za-z0-9]|[A-Za-z0-9]")


@dataclass(frozen=True)
class TermCandidate:
    """A proposed Term with its (single) location.

    Attributes:
        slug: stable, unique within the source (``term/{src}/{slug}``).
        kind: one of :data:`evoonto.records.TERM_KINDS`.
        table: table name; ``column``: column name or ``None`` for an Entity.
        labels: SKOS labels.
        definition: one sentence (``skos:definition``).
        value: for value Terms, the column value the Term stands for (mapping filter ``column = value``).
        aggregation: default aggregation (``SUM``, ``AVG``, …) or ``None``.
        origin: ``schema``, ``workload`` or ``llm``.
        confidence: in [0, 1] (``sssom:confidence`` of the Mapping).
    """

    slug: str
    kind: str
    table: str
    column: str | None
    labels: LabelSet
    definition: str
    value: str | None = None
    aggregation: str | None = None
    origin: str = "schema"
    confidence: float = 0.9


@dataclass(frozen=True)
class SynonymCandidate:
    """A phrase proposed as ``skos:altLabel`` of the Term ``slug``; ``question_ids`` that used it."""

    slug: str
    label: str
    origin: str = "workload"
    question_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class ValueCandidate:
    """A phrase of the workload that may be a value of ``table.column`` (checked by a probe)."""

    table: str
    column: str
    value: str
    phrase: str
    origin: str = "workload"
    question_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class DerivationCandidate:
    """Numeric ``columns`` of ``table`` among which one may be computed from two others."""

    table: str
    columns: tuple[str, ...]


@dataclass(frozen=True)
class ConstraintCandidate:
    """A usage rule the data suggests.

    Attributes:
        slug: stable, unique within the source (``constraint/{src}/{slug}``).
        rule: ``numeric-text`` (numbers stored as text), ``domain`` (closed vocabulary) or
            ``lookup`` (code column decoded by a lookup table).
        table, column: the constrained column (its Term and Mapping are the targets).
        condition: executable SQL predicate.
        triggers: trigger keywords (lower case).
        comment: prose for the agent.
        severity: ``Violation``, ``Warning`` or ``Info`` (``sh:`` severities).
    """

    slug: str
    rule: str
    table: str
    column: str
    condition: str
    triggers: tuple[str, ...]
    comment: str
    severity: str = "Info"


@dataclass(frozen=True)
class ConceptCandidate:
    """A concept computed from columns, proposed for workload phrases that name no Term (issue 18.3).

    Attributes:
        kind: ``metric`` (an aggregate expression over numeric columns), ``filter`` (a condition,
            e.g. a comparison of two date columns) or ``grain`` (a date column truncated to a unit).
        label: the preferred label; alt_labels: other wordings (the workload phrases first).
        table: the table; columns: the columns it is computed from (``(table, column)``).
        expression: the SQL expression (metric), condition (filter) or the date column (grain),
            with table-qualified column names (quoted where a name needs it).
        aggregation: SUM/AVG/… for a metric; unit: the grain's unit (``month`` …).
        phrases: the workload phrases it answers; origin: ``workload`` or ``llm``;
        question_ids: the questions that use the phrases.
    """

    kind: str
    label: str
    table: str
    columns: tuple[tuple[str, str], ...]
    expression: str
    alt_labels: tuple[str, ...] = ()
    aggregation: str | None = None
    unit: str | None = None
    phrases: tuple[str, ...] = ()
    origin: str = "workload"
    question_ids: tuple[str, ...] = ()


@dataclass
class Proposal:
    """Everything a proposer suggests for one source (lists are kept sorted by :meth:`normalized`)."""

    terms: list[TermCandidate] = field(default_factory=list)
    synonyms: list[SynonymCandidate] = field(default_factory=list)
    values: list[ValueCandidate] = field(default_factory=list)
    joins: list[JoinCandidate] = field(default_factory=list)
    derivations: list[DerivationCandidate] = field(default_factory=list)
    constraints: list[ConstraintCandidate] = field(default_factory=list)
    #: concepts for workload phrases that name no Term (verified and built by evoonto.builder.concepts)
    concepts: list[ConceptCandidate] = field(default_factory=list)

    def extend(self, other: Proposal) -> Proposal:
        """Add ``other``'s candidates (duplicates are merged by :meth:`normalized`)."""
        self.terms.extend(other.terms)
        self.synonyms.extend(other.synonyms)
        self.values.extend(other.values)
        self.joins.extend(other.joins)
        self.derivations.extend(other.derivations)
        self.constraints.extend(other.constraints)
        self.concepts.extend(other.concepts)
        return self

    def normalized(self) -> Proposal:
        """A copy with duplicates merged and every list in a stable order (determinism)."""
        terms: dict[str, TermCandidate] = {}
        for t in self.terms:
            old_term = terms.get(t.slug)
            if old_term is None:
                terms[t.slug] = t
            else:  # keep the first location, merge labels
                labels = old_term.labels.merged(t.labels.alt, t.labels.hidden)
                terms[t.slug] = TermCandidate(**{**old_term.__dict__, "labels": labels})
        synonyms: dict[tuple[str, str], SynonymCandidate] = {}
        for s in self.synonyms:
            synonym_key = (s.slug, normalize(s.label))
            old_synonym = synonyms.get(synonym_key)
            ids = tuple(sorted(set(s.question_ids) | set(old_synonym.question_ids if old_synonym else ())))
            first_synonym = old_synonym or s
            synonyms[synonym_key] = SynonymCandidate(s.slug, first_synonym.label, first_synonym.origin, ids)
        values: dict[tuple[str, str, str], ValueCandidate] = {}
        for v in self.values:
            value_key = (v.table, v.column, v.value)
            old_value = values.get(value_key)
            ids = tuple(sorted(set(v.question_ids) | set(old_value.question_ids if old_value else ())))
            first_value = old_value or v
            values[value_key] = ValueCandidate(v.table, v.column, v.value, first_value.phrase, first_value.origin, ids)
        return Proposal(
            terms=sorted(terms.values(), key=lambda t: t.slug),
            synonyms=sorted(synonyms.values(), key=lambda s: (s.slug, normalize(s.label))),
            values=sorted(values.values(), key=lambda v: (v.table, v.column, v.value)),
            joins=sorted(set(self.joins),
                         key=lambda j: (j.child, j.child_columns, j.parent, j.parent_columns, not j.declared)),
            derivations=sorted(set(self.derivations), key=lambda d: (d.table, d.columns)),
            constraints=sorted({c.slug: c for c in self.constraints}.values(), key=lambda c: c.slug),
            concepts=sorted({(c.kind, c.expression): c for c in self.concepts}.values(),
                            key=lambda c: (c.kind, c.expression)),
        )


class Proposer(Protocol):
    """The interface every proposer implements."""

    name: str

    def propose(self, schema: SourceSchema, profiles: Mapping[tuple[str, str], ColumnProfile],
                questions: Sequence[Question]) -> Proposal:
        """Candidates for one source.

        Args:
            schema: the source's catalog view.
            profiles: ``(table, column)`` → profile from :func:`evoonto.sources.profiling.profile`.
            questions: the workload questions for this source (no gold fields).

        Returns:
            A :class:`Proposal` (not yet normalized).
        """


# -- schema-driven ----------------------------------------------------------------------------

_SAFE_NAME = re.compile(r"^[A-Za-z0-9_\-]{1,60}$")


def term_slug(table: str, column: str | None = None, value: str | None = None) -> str:
    """The slug of a Term: ``table``, ``table.column`` or ``table.column=value``.

    Names made of ASCII letters, digits, ``_`` and ``-`` are kept as they are (readable and
    injective: ``singer.Singer_ID``); other names are slugified (:func:`evoonto.iris.slugify`) with a
    short hash of the raw name, so distinct names never share a slug.
    """
    def part(name: str) -> str:
        if _SAFE_NAME.match(name):
            return name
        return f"{slugify(name, max_length=40)}-{stable_key(name, length=6)}"
    slug = part(table)
    if column is not None:
        slug += "." + part(column)
    if value is not None:
        slug += "=" + part(value)
    return slug


def column_kind(table: TableInfo, col: ColumnInfo, profile: ColumnProfile | None) -> str:
    """The Term kind of a column, from keys, name words, declared type and observed values."""
    words = {w.lower() for w in split_identifier(col.name)}
    pattern = (profile.pattern if profile else None) or "empty"
    dtype = col.declared_type
    single_key = col.primary_key and len(table.primary_key) == 1
    if single_key or col.references or (words & _ID_WORDS and pattern in ("integer", "code", "text")
                                              and (profile is None or profile.distinct_count > 1)):
        if not (words & _TIME_WORDS):
            return "Identifier"
    if pattern in ("date", "datetime", "year") or words & _TIME_WORDS or any(t in dtype for t in ("DATE", "TIME")):
        return "TimeDimension"
    if pattern == "boolean" or (profile is not None and profile.complete and 0 < profile.distinct_count <= CATEGORY_CAP
                                and pattern in ("text", "code")
                                and profile.distinct_count <= 0.5 * (profile.rows - profile.null_count)):
        return "Category"
    if pattern in ("integer", "decimal") or (pattern == "empty" and any(
            t in dtype for t in ("INT", "REAL", "FLOA", "DOUB", "NUM", "DEC"))):
        return "Metric"
    return "Dimension"


def _definition(table: TableInfo, col: ColumnInfo, kind: str, profile: ColumnProfile | None,
                keys: Sequence[tuple[tuple[str, ...], str, tuple[str, ...]]] = ()) -> str:
    what = {"Identifier": "identifier", "Metric": "numeric measure", "Dimension": "attribute",
            "Category": "category", "TimeDimension": "time attribute"}[kind]
    # a column named by its kind's own word ("category", "measure") is not called "the category category"
    named = [w.lower() for w in split_identifier(col.name)]
    same = bool(named) and what.split()[-len(named):] == named
    text = f"The {'column' if same else what} {col.name} of table {table.name}"
    if col.declared_type:
        text += f" ({col.declared_type})"
    if col.references:
        # a column of a composite key (``keys``: the table's foreign keys, :func:`foreign_keys`) is
        # named with the whole key: half of it references no row by itself
        composite = {ref: cols for cols, ref, _r in keys if len(cols) > 1 and col.name in cols}
        whole = [(ref, cols, ref_cols) for cols, ref, ref_cols in keys if ref in composite and cols == composite[ref]]
        single = [f"{t}.{c}" for t, c in col.references if t not in composite]
        parts = [f"{ref} ({', '.join(ref_cols)}) together with {', '.join(c for c in cols if c != col.name)}"
                 for ref, cols, ref_cols in whole]
        text += "; references " + ", ".join(single + parts)
    if profile is not None and profile.vocabulary and len(profile.vocabulary) <= DEFINITION_VALUES:
        # a sample's values are said to be a sample's: the table may hold others
        lead = (DEFINITION_VALUES_LEAD if profile.whole_table
                else DEFINITION_SAMPLE_VALUES_LEAD.format(rows=profile.rows))
        text += lead + definition_value_list(profile.vocabulary)
    return text + "."


# Measurement vocabulary of English (general knowledge, not read from any benchmark), used by
# :func:`default_aggregation` on a column name's words after abbreviations are expanded.
def default_aggregation(kind: str, column: str | None = None, profile: ColumnProfile | None = None) -> str | None:
    """The default aggregation of a Term, or ``None`` when no single one is safe to sign.

    * Entity: ``COUNT`` (rows); Identifier, Category, Dimension, TimeDimension (ids, codes, years,
      dates): ``None``.
    * Metric, by the words of the column name (abbreviations expanded): a position or ordinal
      (latitude, rank, postal code) → ``None``; an explicit total (``total``, ``sum``) → ``SUM``;
      an intensive quantity (price, rate, percentage, age, score, discount, per-unit values) →
      ``AVG``; an extensive one (amount, quantity, cost, bytes, seconds, population) → ``SUM``;
      otherwise values profiled within [0, 1] with decimals (a fraction) → ``AVG``; else ``None``.

    Args:
        kind: the Term kind (:data:`evoonto.records.TERM_KINDS`).
        column: the column name (``None`` for an Entity).
        profile: the column profile (its ``pattern``, ``min_value`` and ``max_value`` are read).
    """
    if kind == "Entity":
        return "COUNT"
    if kind != "Metric" or column is None:
        return None
    words = expand_tokens(split_identifier(column))
    singular = {singularize(w) for w in words} | set(words)
    lexicon = current_lexicon()
    if singular & lexicon.words_of("unaggregated"):
        return None
    if singular & {"total", "sum"}:
        return "SUM"
    if singular & lexicon.words_of("intensive"):
        return "AVG"
    if singular & lexicon.words_of("additive") or words[:1] == ["number"]:
        return "SUM"
    if profile is not None and profile.pattern == "decimal" and _within_unit_interval(profile):
        return "AVG"
    return None


def _within_unit_interval(profile: ColumnProfile) -> bool:
    try:
        low, high = float(profile.min_value or "nan"), float(profile.max_value or "nan")
    except ValueError:
        return False
    return 0.0 <= low and high <= 1.0


def _is_value_term_column(kind: str, profile: ColumnProfile | None) -> bool:
    return (kind == "Category" and profile is not None and profile.pattern in ("text", "code")
            and 1 < len(profile.vocabulary) <= VALUE_TERM_CAP)


def value_term(table: str, column: str, value: str, *, origin: str = "schema",
               confidence: float = 0.9) -> TermCandidate:
    """A Category Term standing for the rows where ``column = value``."""
    column_words = " ".join(w.lower() for w in split_identifier(column)) or column
    value_words = " ".join(w.lower() for w in split_identifier(value))
    alts = [value_words, f"{value} {column_words}", f"{column_words} {value}"]
    return TermCandidate(
        slug=term_slug(table, column, value), kind="Category", table=table, column=column,
        labels=LabelSet.make(value, alts, [f"{table}.{column} = {value}"]),
        definition=f"Rows of table {table} whose {column} is {sql_literal(value)}.",
        value=value, origin=origin, confidence=confidence,
    )


def schema_candidates(schema: SourceSchema, profiles: Mapping[tuple[str, str], ColumnProfile]) -> Proposal:
    """The schema-driven candidates of one source (see the module docstring)."""
    proposal = Proposal()
    tables = {t.name: t for t in schema.tables}
    for table in schema.tables:
        proposal.terms.append(TermCandidate(
            slug=term_slug(table.name), kind="Entity", table=table.name, column=None,
            labels=table_labels(table.name), definition=_entity_definition(table), aggregation="COUNT",
        ))
        numeric = []
        keys = foreign_keys(table, schema.tables)
        for col in table.columns:
            profile = profiles.get((table.name, col.name))
            kind = column_kind(table, col, profile)
            proposal.terms.append(TermCandidate(
                slug=term_slug(table.name, col.name), kind=kind, table=table.name, column=col.name,
                labels=column_labels(table.name, col.name, qualify=schema.kind != "files"),
                definition=_definition(table, col, kind, profile, keys),
                aggregation=default_aggregation(kind, col.name, profile),
            ))
            if profile is not None and _is_value_term_column(kind, profile):
                for value in profile.vocabulary:
                    proposal.terms.append(value_term(table.name, col.name, value))
            if (kind == "Metric" and profile is not None and profile.pattern in ("integer", "decimal")
                    and not profile.stored_as_text):
                numeric.append(col.name)
            proposal.constraints.extend(_constraint_candidates(table, col, kind, profile, tables))
        # one candidate per declared key, a composite key whole (all its column pairs)
        for columns, ref_table, ref_columns in keys:
            proposal.joins.append(JoinCandidate(table.name, columns, ref_table, ref_columns, declared=True))
        if len(numeric) >= 3:
            proposal.derivations.append(DerivationCandidate(table.name, tuple(numeric[:12])))
    return proposal


def _entity_definition(table: TableInfo) -> str:
    """``"A row of table country (239 rows), identified by country.Code, named by country.Name;
    columns: …"`` (key and name columns table-qualified, so resolving the Entity shows them). A table
    with no declared primary key is "linked by" its foreign-key columns instead: they are not its key."""
    rows = "?" if table.row_count is None else table.row_count
    text = f"A row of table {table.name} ({rows} rows)"
    if table.primary_key:
        text += DEFINITION_KEY_LEAD + ", ".join(f"{table.name}.{k}" for k in table.primary_key)
    else:  # no declared key: the columns that refer to other tables are named, not called its key
        linked = [c.name for c in table.columns if c.references]
        if linked:
            text += DEFINITION_LINK_LEAD + ", ".join(f"{table.name}.{k}" for k in linked)
    names = [c.name for c in table.columns if not c.primary_key and
             {w.lower() for w in split_identifier(c.name)} & {"name", "title"}]
    if names:
        text += ", named by " + ", ".join(f"{table.name}.{n}" for n in names[:3])
    return text + "; columns: " + ", ".join(c.name for c in table.columns) + "."


def _constraint_candidates(table: TableInfo, col: ColumnInfo, kind: str, profile: ColumnProfile | None,
                           tables: Mapping[str, TableInfo]) -> list[ConstraintCandidate]:
    if profile is None:
        return []
    out = []
    name = f"{table.name}.{col.name}"
    qcol = quote_identifier(col.name)
    words = [w.lower() for w in split_identifier(col.name)]
    numeric_type = any(t in col.declared_type for t in ("INT", "REAL", "NUM", "DEC", "FLOA", "DOUB"))
    if kind == "Metric" and profile.pattern in ("integer", "decimal") and profile.stored_as_text and not numeric_type:
        out.append(ConstraintCandidate(
            slug=f"{term_slug(table.name, col.name)}.numeric-text", rule="numeric-text", table=table.name,
            column=col.name, condition=f"CAST({qcol} AS REAL) IS NOT NULL",
            triggers=tuple(sorted({*words, "average", "maximum", "minimum", "more", "less", "greater", "larger"})),
            comment=(f"{name} holds numbers stored as {col.declared_type or 'text'}: CAST it to a number before "
                     f"comparing, ordering or aggregating (text order puts '9' after '10')."),
            severity="Warning",
        ))
    if _is_value_term_column(kind, profile) and profile.whole_table:  # a sample's values are not the domain
        values = ", ".join(sql_literal(v) for v in profile.vocabulary)
        out.append(ConstraintCandidate(
            slug=f"{term_slug(table.name, col.name)}.domain", rule="domain", table=table.name, column=col.name,
            condition=f"{qcol} IN ({values})",
            triggers=tuple(sorted({normalize(v) for v in profile.vocabulary})),
            comment=(f"{name} takes only the {len(profile.vocabulary)} values of the condition; compare "
                     f"with their exact spelling and case."),
            severity="Info",
        ))
    for ref_table, ref_col in col.references:
        parent = tables.get(ref_table)
        if parent is None or profile.pattern not in ("code", "text", "integer"):
            continue
        described = [c.name for c in parent.columns if c.name != ref_col and
                     {w.lower() for w in split_identifier(c.name)} & {"name", "description", "desc", "title", "label"}]
        if described and len(parent.columns) <= 4:
            out.append(ConstraintCandidate(
                slug=f"{term_slug(table.name, col.name)}.lookup", rule="lookup", table=table.name, column=col.name,
                condition=f"{table.name}.{col.name} = {ref_table}.{ref_col}",
                triggers=tuple(sorted({w.lower() for d in described for w in split_identifier(d)} |
                                      {w.lower() for w in split_identifier(ref_table)})),
                comment=(f"{name} holds codes; their readable {', '.join(described)} is in {ref_table} "
                         f"(join on {table.name}.{col.name} = {ref_table}.{ref_col})."),
                severity="Warning",
            ))
    return out


# -- workload-driven --------------------------------------------------------------------------

def question_phrases(text: str, *, max_words: int = 4) -> list[str]:
    """Word n-grams (1..``max_words``) of a question that neither start nor end with a stop word.

    ``"What is the average age of singers from France?"`` → ``["average age", "age", "singers",
    "France", …]``. Case is kept (value matching is case-insensitive later).
    """
    tokens = [t.strip("'.") for t in _TOKEN.findall(text)]
    tokens = [t for t in tokens if t]
    phrases = []
    for i in range(len(tokens)):
        for n in range(1, max_words + 1):
            window = tokens[i:i + n]
            if len(window) < n:
                break
            if window[0].lower() in _STOPWORDS or window[-1].lower() in _STOPWORDS:
                continue
            phrases.append(" ".join(window))
    quoted = re.findall(r"[\"“']([^\"”']{1,80})[\"”']", text)
    return phrases + [q.strip() for q in quoted if q.strip()]


def adjective_bases(word: str) -> list[str]:
    """Possible nouns behind an English adjective of place or origin (lower case):
    ``"european"`` → ``["europe", …]``, ``"asian"`` → ``["asia", …]``, ``"brazilian"`` → ``["brazil", …]``.

    Only single words ending in ``-an``/``-ian``/``-ese``/``-ish`` give bases; a base is used only if
    it is an observed value of some column (and then verified by a probe), so wrong guesses cost
    nothing.
    """
    if " " in word or len(word) < 5:
        return []
    bases = []
    if word.endswith("ian"):
        bases += [word[:-3], word[:-3] + "ia", word[:-2]]
    if word.endswith("an"):
        bases += [word[:-1], word[:-2]]
    if word.endswith(("ese", "ish")):
        bases += [word[:-3], word[:-3] + "a"]
    return [b for b in dict.fromkeys(bases) if len(b) >= 3]


def _phrase_key(phrase: str) -> str:
    return " ".join(singularize(w) for w in normalize(phrase).split())


def workload_candidates(schema: SourceSchema, profiles: Mapping[tuple[str, str], ColumnProfile],
                        questions: Sequence[Question], schema_terms: Sequence[TermCandidate]) -> Proposal:
    """Workload-driven candidates: value candidates and synonym candidates (see module docstring)."""
    proposal = Proposal()
    if not questions:
        return proposal
    value_index: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for (table, column), profile in profiles.items():
        if profile.pattern in ("text", "code"):
            for value in profile.vocabulary:
                value_index[normalize(value)].append((table, column, value))
    label_index: dict[str, set[str]] = defaultdict(set)
    for term in schema_terms:
        if term.value is None:
            for label in term.labels.all():
                label_index[_phrase_key(label)].add(term.slug)
    label_keys = sorted(label_index)
    by_first_letter: dict[str, list[str]] = defaultdict(list)
    for key in label_keys:
        by_first_letter[key[:1]].append(key)
    phrase_questions: dict[str, set[str]] = defaultdict(set)
    phrase_surface: dict[str, str] = {}
    for q in questions:
        for phrase in question_phrases(q.text):
            key = normalize(phrase)
            phrase_questions[key].add(q.id)
            phrase_surface.setdefault(key, phrase)
    for key in sorted(phrase_questions):
        ids = tuple(sorted(phrase_questions[key]))
        # an adjective is read as a place only when it is not itself a value ("Chinese" the language)
        for form in (key,) if key in value_index else adjective_bases(key):
            for table, column, value in value_index.get(form, ()):
                if len(key) >= 2 and not key.isdigit():
                    proposal.values.append(ValueCandidate(table, column, value, phrase_surface[key], question_ids=ids))
        pkey = _phrase_key(key)
        if pkey in label_index or len(pkey) < 5 or " " not in pkey and len(pkey) < 6:
            continue
        if key.split()[0] in _STOPWORDS or any(ch.isdigit() for ch in pkey):
            continue
        matches = [k for k in by_first_letter.get(pkey[:1], ()) if abs(len(k) - len(pkey)) <= 3
                   and fuzz.ratio(pkey, k) >= FUZZY_THRESHOLD]
        targets = {slug for k in matches for slug in label_index[k]}
        if len(targets) == 1:
            target = next(iter(targets))
            proposal.synonyms.append(SynonymCandidate(target, phrase_surface[key].lower(), question_ids=ids))
    return proposal


class OfflineProposer:
    """The deterministic proposer (no network): schema-driven plus workload-driven candidates."""

    name = "offline"

    def propose(self, schema: SourceSchema, profiles: Mapping[tuple[str, str], ColumnProfile],
                questions: Sequence[Question]) -> Proposal:
        """See :class:`Proposer`."""
        proposal = schema_candidates(schema, profiles)
        proposal.extend(workload_candidates(schema, profiles, questions, proposal.terms))
        proposal.concepts.extend(phrase_concepts(schema, profiles, questions, proposal.terms))
        return proposal


# -- concepts for workload phrases that name nothing (issue 18.3) -----------------------------------

#: Calendar grains and the English words of a question that ask for them (general English).
GRAIN_CUES: dict[str, tuple[str, ...]] = {
    "hour": ("hourly",), "day": ("daily",), "week": ("weekly",), "month": ("monthly",),
    "quarter": ("quarterly",), "year": ("yearly", "annual", "annually"),
}
_PERIOD_PREFIXES = ("per", "by", "each", "every")
def unmatched_phrases(questions: Sequence[Question], terms: Sequence[TermCandidate]) -> dict[str, tuple[str, ...]]:
    """Workload words and phrases (1–2 words, lower case) that no Term's label or value covers:
    ``{phrase: question ids}``. A phrase is covered when each of its stems occurs in some Term
    label (stems as :func:`evoonto.text.tokenize` makes them)."""
    from evoonto.text import tokenize

    covered = {t for term in terms for label in term.labels.all() for t in tokenize(label)}
    covered |= {t for term in terms if term.value is not None for t in tokenize(term.value)}
    found: dict[str, set[str]] = defaultdict(set)
    for q in questions:
        words = [w.lower() for w in re.split(r"[^A-Za-z]+", q.text) if w]
        for i, word in enumerate(words):
            for phrase in (word, " ".join(words[i:i + 2]) if i + 1 < len(words) else ""):
                if not phrase or phrase.split()[0] in _STOPWORDS or phrase.split()[-1] in _STOPWORDS:
                    continue
                stems = tokenize(phrase)
                if stems and not all(s in covered for s in stems):
                    found[phrase].add(q.id)
    return {p: tuple(sorted(ids)) for p, ids in sorted(found.items())}


def _question_grains(questions: Sequence[Question]) -> dict[str, set[str]]:
    """``{unit: question ids}`` of the questions that ask for a calendar grain (``monthly``, ``per month``)."""
    out: dict[str, set[str]] = defaultdict(set)
    for q in questions:
        words = [w.lower() for w in re.split(r"[^A-Za-z]+", q.text) if w]
        for unit, cues in GRAIN_CUES.items():
            pairs = {f"{p} {unit}" for p in _PERIOD_PREFIXES}
            if set(words) & set(cues) or any(" ".join(words[i:i + 2]) in pairs for i in range(len(words))):
                out[unit].add(q.id)
    return out


def phrase_concepts(schema: SourceSchema, profiles: Mapping[tuple[str, str], ColumnProfile],
                    questions: Sequence[Question], terms: Sequence[TermCandidate]) -> list[ConceptCandidate]:
    """Candidate concepts from the schema and data for workload phrases that match no Term.

    * **date grains**: a question asking for a calendar grain (``monthly``, ``per year``) gives one
      grain candidate per date column of the tables the question names (all date tables when it
      names none; at most 5);
    * **a concept of two columns** for each ``concept`` row of the lexicon
      (``evoonto/data/lexicon/concepts.tsv``, :mod:`evoonto.lexicon`), when an unmatched workload
      phrase is one of its phrases (or their synonyms): ``product``, a table with exactly one
      numeric column of each word class gives ``SUM(a * b)`` (packaged: unit price × unit count,
      "sales amount"); ``after``, two date columns of one table give the filter ``a > b``
      (packaged: an actual date after a due date, "late").

    Only general English is used; each candidate is verified by a probe before it enters
    (:mod:`evoonto.builder.concepts`).
    """
    if not questions:
        return []
    unmatched = unmatched_phrases(questions, terms)
    out: list[ConceptCandidate] = []
    date_columns = [(t, c) for t in schema.tables if not t.is_view for c in t.columns
                    if (profiles.get((t.name, c.name)) and profiles[(t.name, c.name)].pattern in ("date", "datetime"))
                    or any(x in c.declared_type.upper() for x in ("DATE", "TIME"))]
    by_id = {q.id: q for q in questions}
    for unit, ids in sorted(_question_grains(questions).items()):
        named = {t.name for q in (by_id[i] for i in ids) for t in schema.tables
                 if set(_table_stems(t.name)) & set(_stems(q.text))}
        chosen = [(t, c) for t, c in date_columns if t.name in named] or date_columns
        chosen = chosen[:5]
        for table, col in chosen:
            out.append(ConceptCandidate(
                "grain", f"{table.name}.{col.name} by {unit}", table.name, ((table.name, col.name),),
                expression=_qualified(table.name, col.name), unit=unit, phrases=GRAIN_CUES[unit][:1],
                question_ids=tuple(sorted(ids))))
    lexicon = current_lexicon()
    for concept in lexicon.concepts:
        out.extend(_lexicon_concept(concept, lexicon.concept_phrases(concept), unmatched, schema, profiles,
                                    date_columns))
    return out


def _lexicon_concept(concept: LexiconConcept, words: tuple[str, ...], unmatched: Mapping[str, tuple[str, ...]],
                     schema: SourceSchema, profiles: Mapping[tuple[str, str], ColumnProfile],
                     date_columns: Sequence[tuple[TableInfo, ColumnInfo]]) -> list[ConceptCandidate]:
    """Candidates for one ``concept`` row of the lexicon (:mod:`evoonto.lexicon`) when an unmatched
    workload phrase is one of its ``words``: ``product``, one per table with exactly one numeric
    column of each word class; ``after``, one per pair of date columns of one table."""
    asked = {p: ids for p, ids in unmatched.items() if p in words}
    if not asked:
        return []
    lexicon = current_lexicon()
    first, second = lexicon.words_of(concept.first), lexicon.words_of(concept.second)
    phrases = tuple(sorted(asked))
    question_ids = tuple(sorted({i for ids in asked.values() for i in ids}))
    label = concept.phrases[0]
    out: list[ConceptCandidate] = []
    for table in schema.tables:
        if concept.operation == "product":
            numeric = [c for c in table.columns if _numeric(table, c, profiles) and not c.primary_key
                       and not c.references]
            a_cols = [c for c in numeric if _name_words(c.name) & first]
            b_cols = [c for c in numeric if _name_words(c.name) & second and c not in a_cols]
            if len(a_cols) == 1 and len(b_cols) == 1:
                a, b = a_cols[0], b_cols[0]
                out.append(ConceptCandidate(
                    "metric", f"{table.name} {label}", table.name, ((table.name, a.name), (table.name, b.name)),
                    expression=f"SUM({_qualified(table.name, a.name)} * {_qualified(table.name, b.name)})",
                    alt_labels=tuple(dict.fromkeys([*phrases, *words])), aggregation="SUM",
                    phrases=phrases, question_ids=question_ids))
        else:  # "after"
            dates = [c for t, c in date_columns if t.name == table.name]
            for a in dates:
                for b in dates:
                    if a is b or not (_name_words(a.name) & first) or not (_name_words(b.name) & second):
                        continue
                    out.append(ConceptCandidate(
                        "filter", f"{table.name} {label} ({a.name} after {b.name})", table.name,
                        ((table.name, a.name), (table.name, b.name)),
                        expression=f"{_qualified(table.name, a.name)} > {_qualified(table.name, b.name)}",
                        alt_labels=tuple(dict.fromkeys([*phrases, *words])), phrases=phrases,
                        question_ids=question_ids))
    return out


def _qualified(table: str, column: str) -> str:
    """``table.column`` as SQL, each name quoted only where it must be (``"Order Details".Quantity``)."""
    from sqlglot import exp

    return exp.column(exp.to_identifier(column), table=exp.to_identifier(table)).sql()


def _name_words(name: str) -> set[str]:
    words = [w.lower() for w in split_identifier(name)]
    return set(words) | {singularize(w) for w in words} | set(expand_tokens(words))


def _stems(text: str) -> list[str]:
    from evoonto.text import tokenize

    return tokenize(text)


def _table_stems(name: str) -> list[str]:
    return _stems(" ".join(table_labels(name).all()))


def _numeric(table: TableInfo, col: ColumnInfo, profiles: Mapping[tuple[str, str], ColumnProfile]) -> bool:
    profile = profiles.get((table.name, col.name))
    if profile is not None and profile.pattern in ("integer", "decimal"):
        return True
    return any(t in col.declared_type.upper() for t in ("INT", "REAL", "NUM", "DEC", "FLOA", "DOUB", "MONEY"))
