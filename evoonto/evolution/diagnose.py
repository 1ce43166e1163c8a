"""Diagnosis: recurrent failure signatures across the failed tasks of a round.

Paper §"Evolution loop", step *diagnose*. Input: trajectories (question text, tool events, pass/fail),
the parent ontology (through :class:`~evoonto.evolution.view.OntologyView`) and, optionally, read-only
probes of the raw sources. Gold answers are not an input and cannot be (trajectories do not carry
them). Output: :class:`Signature` s ranked by frequency (number of failed tasks showing them).

Signature kinds:

``unlinked_phrase``   a content word of a failed question that nothing browse/resolve surfaced mentions
``missing_value``     a value the question names, absent from every Evidence, found in the source by a
                      new probe (the probe hits travel in ``details``); a value it quotes that no
                      column stores as a whole, also in the stored values that contain it
                      (``contained`` in ``details``); a place stored under another of its names
                      ("United States" → 'usa'; ``place`` in ``details``)
``unnamed_value``     the task's verified SQL (``reference_sql``) compares a column with a text value
                      that no word of the question states and the tools never showed: the question
                      names it in other words ("villains" for ``alignment = 'Bad'``); key:
                      ``table.column = value``; details: ``table``, ``column``, ``value``, ``queries``
                      (task id, question, SQL)
``shallow_retrieval`` the task failed although every content word was linked, or every browse answer
                      of the task was cut off at its result limit (more ranked candidates existed
                      below the cut): retrieval may be too shallow
``crowded_retrieval`` a browse answer of the failed task spends :data:`CROWDED` or more hits on Terms
                      mapping one table column (typically a column and its value Terms), so other
                      columns were pushed below the cut
``guessed_join``      the agent's SQL joins on a condition no relation/mapping records
``ignored_constraint``a Constraint's trigger keyword is in the question but its condition is not in
                      the final SQL
``repeated_probe``    the same tool call (tool + arguments) three or more times in one task
``unknown_column``    an SQL error naming a column that does not exist
``stale_evidence``    the failed task was shown a record that a drift check marked stale
                      (``prov:wasInvalidatedBy``, :mod:`evoonto.drift`); key: the record's IRI,
                      details: the drift note (re-probe, update or deprecate it)
``unused_column``     the task's own record names a column the tools never showed it: the column is
                      used by the task's verified SQL (``reference_sql``, a team's verified query), by
                      the agent's SQL, or named by a feedback note ("should use dest, not origin");
                      key: ``table.column``; details: the question words that linked to nothing
                      (``phrases``, task by task) and the literal values the SQL compared the column
                      with (``values``). Evidence from the task, never from letters of a name.
``missing_measure``   the task's verified SQL (``reference_sql``) computes an aggregate the builder's
                      miner makes metric Terms of, or compares with a condition it makes named
                      filters of (:func:`evoonto.builder.verified.verified_measures`), and the parent
                      has no metric Term with that expression, no Constraint with that condition;
                      key: ``metric EXPRESSION`` or ``filter CONDITION``; details: ``measure``
                      (``metric``/``filter``), ``expression``, ``queries`` (task id, question, SQL)
``answer_size``       the answers could be smaller (a cost signature over every task whose answer size
                      is measured, passed or failed, so a saving is screened on every outcome it must keep)
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterable

from rdflib import RDF

from evoonto.evolution import text as tx
from evoonto.evolution.probes import ValueProber
from evoonto.evolution.trajectories import TaskTrajectory
from evoonto.evolution.view import OntologyView
from evoonto.lexicon import Lexicon
from evoonto.namespaces import EVO
from evoonto.text import normalize
from evoonto.tools.browse import collapse_key

KINDS = ("unused_column", "missing_measure", "unlinked_phrase", "missing_value", "unnamed_value",
         "shallow_retrieval", "crowded_retrieval", "guessed_join", "ignored_constraint", "repeated_probe",
         "unknown_column", "stale_evidence", "answer_size")

#: Hits on one column in one browse answer from which the answer counts as crowded.
CROWDED = 3

_UNKNOWN_COLUMN = re.compile(
    r"no such column:\s*([\w.\"`\[\]]+)|column \"?([\w.]+)\"? (?:does not exist|not found)|"
    r"Referenced column \"([\w.]+)\" not found|Unknown column '([\w.]+)'", re.IGNORECASE)


@dataclass(frozen=True)
class Signature:
    """A recurrent failure pattern.

    ``kind`` (one of :data:`KINDS`), ``key`` (normalised phrase/value/condition/column/tool call),
    ``source_id`` (the database it concerns, or None), ``tasks`` (ids of the failed tasks showing it,
    sorted), ``examples`` (up to three question texts, for humans and the LLM evolver),
    ``details`` (kind-specific, JSON-serialisable: e.g. probe hits of a missing value).
    """

    kind: str
    key: str
    source_id: str | None
    tasks: tuple[str, ...]
    examples: tuple[str, ...] = ()
    details: tuple = field(default=(), compare=False)

    @property
    def frequency(self) -> int:
        return len(self.tasks)

    @property
    def id(self) -> str:
        """Stable text form, ``kind:source:key`` — recorded as ``evo:signature`` in history."""
        return f"{self.kind}:{self.source_id or '*'}:{self.key}"

    def detail(self, name: str, default=None):
        return dict(self.details).get(name, default)


def surfaced_texts(traj: TaskTrajectory) -> list[str]:
    """Everything the tools showed in a trajectory (browse hits, resolve records), as strings."""
    out: list[str] = []
    for event in traj.events:
        out.extend(event.result_ids)
        if event.result is None:
            continue
        if isinstance(event.result, list):
            for hit in event.result:
                out.append(json.dumps(hit, ensure_ascii=False, default=str) if not isinstance(hit, str) else hit)
        else:
            out.append(json.dumps(event.result, ensure_ascii=False, default=str))
    return out


def _surfaced_stems(traj: TaskTrajectory) -> set[str]:
    stems: set[str] = set()
    for text in surfaced_texts(traj):
        stems |= tx.text_stems(text)
    return stems


def _browse_cut_off(traj: TaskTrajectory, default_n: int) -> bool:
    """True when the task browsed and every browse answer held as many hits as its limit (the
    call's ``n``, else the version's default): the ranking went on below what the agent saw."""
    calls = traj.calls("browse")
    if not calls:
        return False
    for event in calls:
        shown = len(event.result) if isinstance(event.result, list) else len(event.result_ids)
        limit = event.arguments.get("n", default_n)
        if event.error or isinstance(limit, bool) or not isinstance(limit, (int, float)) or shown < limit:
            return False
    return True


def _crowded_columns(traj: TaskTrajectory, view: OntologyView) -> set[str]:
    """``table.column`` of every column that :data:`CROWDED` or more hits of one browse answer map."""
    out = set()
    for event in traj.calls("browse"):
        ids = [h.get("id") for h in event.result if isinstance(h, dict)] if isinstance(event.result, list) \
            else list(event.result_ids)
        counts: dict[tuple, int] = defaultdict(int)
        for ident in ids:
            term = view.term_of_id(str(ident or ""))
            if term is None:
                continue
            # the browse tool's own collapsing key, so a collapse patch addresses exactly this crowding
            key = collapse_key("term", [f"{table}.{column}" for _, table, column in term.locations if column])
            if key is not None:
                counts[key] += 1
        out |= {key[1] for key, n in counts.items() if n >= CROWDED}
    return out


def _ids_in(text: str) -> set[str]:
    """The record ids (``evidence/…``, ``mapping/…``, ``constraint/…``, ``relation/…``) in a text."""
    return set(re.findall(r"\b(?:evidence|mapping|constraint|relation)/[^\s\"',\]}]+", text))


def _sqls(traj: TaskTrajectory) -> list[str]:
    out = [str(e.arguments.get("sql") or e.arguments.get("query")) for e in traj.events
           if e.tool in ("run_sql", "sql", "query") and (e.arguments.get("sql") or e.arguments.get("query"))]
    if traj.final_sql:
        out.append(traj.final_sql)
    if traj.reference_sql:
        out.append(traj.reference_sql)
    return out


def sql_columns(sql: str, columns) -> tuple[set[tuple[str, str]], dict[tuple[str, str], set[str]]]:
    """The catalog columns an SQL statement reads and the string literals it compares them with.

    Args:
        sql: one statement (SQLite dialect; unparsable → nothing).
        columns: the source's :class:`~evoonto.catalog.ColumnInfo` s (resolve names, any case).
    Returns:
        ``({(table, column)}, {(table, column): {literal, …}})`` with the catalog's spelling; an
        unqualified column is resolved to the one table of the statement that has it (skipped when
        none or several do). Literals come from ``=``, ``IN`` and wildcard-free ``LIKE`` comparisons.
    """
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except Exception:
        return set(), {}
    by_table: dict[str, dict[str, tuple[str, str]]] = {}
    for c in columns:
        by_table.setdefault(c.table.lower(), {})[c.column.lower()] = (c.table, c.column)
    aliases: dict[str, str] = {}
    for t in tree.find_all(exp.Table):
        aliases[(t.alias_or_name or t.name).lower()] = t.name.lower()
        aliases.setdefault(t.name.lower(), t.name.lower())
    tables = set(aliases.values())

    def resolve(col: exp.Column) -> tuple[str, str] | None:
        name = col.name.lower()
        if col.table:
            return by_table.get(aliases.get(col.table.lower(), col.table.lower()), {}).get(name)
        owners = [by_table[t][name] for t in tables if name in by_table.get(t, {})]
        return owners[0] if len(owners) == 1 else None

    used = {hit for col in tree.find_all(exp.Column) if (hit := resolve(col)) is not None}
    values: dict[tuple[str, str], set[str]] = {}
    for node in tree.find_all(exp.EQ, exp.In, exp.Like):
        col = node.this if isinstance(node.this, exp.Column) else None
        if isinstance(node, exp.EQ) and col is None and isinstance(node.expression, exp.Column):
            col, lits = node.expression, [node.this]
        else:
            lits = node.expressions if isinstance(node, exp.In) else [node.args.get("expression")]
        hit = resolve(col) if col is not None else None
        for lit in lits:
            if hit is None or not isinstance(lit, exp.Literal) or not lit.is_string:
                continue
            text = str(lit.this)
            if isinstance(node, exp.Like) and ("%" in text or "_" in text):
                continue
            values.setdefault(hit, set()).add(text)
    return used, values


_USE_NOTE = re.compile(r"\b(?:use|using|used|needs?|should be)\s+(?:the\s+)?[\"'`]?([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?)",
                       re.IGNORECASE)


def note_columns(note: str, columns) -> set[tuple[str, str]]:
    """Columns a feedback note asks for ("should use dest, not origin" → every column named
    ``dest``; ``table.column`` names one): names after *use / using / need / should be* that are
    catalog columns (``columns``: ColumnInfo). The negated name ("not origin") is not returned."""
    out: set[tuple[str, str]] = set()
    for match in _USE_NOTE.finditer(note or ""):
        name = match.group(1).lower()
        table, _, column = name.rpartition(".")
        out |= {(c.table, c.column) for c in columns
                if c.column.lower() == column and (not table or c.table.lower() == table)}
    return out


def _shown_columns(traj: TaskTrajectory, view: OntologyView, text: str) -> set[tuple[str, str]]:
    """``(table, column)`` (lower case) the task's tool answers showed: the locations of the Terms
    their ids name, and every catalog column whose table and column names both occur as words in
    the shown text (an over-estimate: a column counted as shown is never a candidate)."""
    shown: set[tuple[str, str]] = set()
    for event in traj.events:
        ids = list(event.result_ids)
        if isinstance(event.result, list):
            ids += [str(h.get("id")) for h in event.result if isinstance(h, dict) and h.get("id")]
        for ident in ids:
            term = view.term_of_id(ident)
            if term is not None:
                shown |= {(t.lower(), c.lower()) for _, t, c in term.locations if c}
    words = set(re.findall(r"[a-z0-9_]+", text.lower()))
    for col in view.columns:
        if col.column.lower() in words and col.table.lower() in words:
            shown.add((col.table.lower(), col.column.lower()))
    return shown


def _join_conditions(sql: str) -> list[str]:
    """Join conditions of an SQL statement as ``table.col = table.col`` (aliases resolved, sorted sides)."""
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except Exception:
        return []
    aliases = {}
    for t in tree.find_all(exp.Table):
        aliases[(t.alias_or_name or t.name).lower()] = t.name.lower()
    out = []
    for join in tree.find_all(exp.Join):
        on = join.args.get("on")
        if on is None:
            continue
        for eq in on.find_all(exp.EQ):
            left, right = eq.left, eq.right
            if isinstance(left, exp.Column) and isinstance(right, exp.Column):
                sides = sorted(f"{aliases.get(c.table.lower(), c.table.lower())}.{c.name.lower()}"
                               for c in (left, right))
                out.append(f"{sides[0]} = {sides[1]}")
    return out


def _normalise_condition(text: str) -> set[str]:
    conds = set()
    for part in re.split(r"\band\b|,|;", text, flags=re.IGNORECASE):
        sides = [s.strip().strip('"`').lower().replace('"', "") for s in part.split("=")]
        if len(sides) == 2 and all(sides):
            conds.add(" = ".join(sorted(sides)))
    return conds


def known_measures(view: OntologyView) -> tuple[set[str], set[str]]:
    """``(metric expressions, filter conditions)`` the parent already records, each as
    :func:`evoonto.tools.semantic_from_sql.normalized` text: the ``evo:expression`` of every Mapping of
    an ``evo:Metric`` Term and the ``evo:condition`` of every Constraint."""
    metrics = {text for m in view.content.subjects(EVO.expression, None)
               if (view.content.value(m, EVO.mapsTerm), RDF.type, EVO.Metric) in view.content
               for text in [_normalized_sql(str(view.content.value(m, EVO.expression)))] if text}
    filters = {text for c in view.content.subjects(RDF.type, EVO.Constraint)
               for cond in view.content.objects(c, EVO.condition)
               for text in [_normalized_sql(str(cond))] if text}
    return metrics, filters


def _normalized_sql(text: str, dialect: str | None = "sqlite") -> str | None:
    """``text`` (an SQL expression) with columns case-folded as written (the miner writes
    ``table.column``), or None when it does not parse."""
    import sqlglot

    from evoonto.tools.semantic_from_sql import normalized

    try:
        node = sqlglot.parse_one(text, read=dialect)
    except sqlglot.errors.SqlglotError:
        return None
    return normalized(node, lambda c: c.table)


def measure_gaps(view: OntologyView, source_id: str, sql: str,
                 known: tuple[set[str], set[str]] | None = None, cache: dict | None = None) -> list[tuple[str, str]]:
    """What a verified SQL statement computes that the parent has no named record for.

    Args:
        view: the parent; source_id: the statement's source; sql: the statement (the source's
            dialect); known: :func:`known_measures` of ``view`` (computed when None); cache: a dict
            this function keeps each source's schema, dialect and join graph in between calls.
    Returns:
        ``[("metric", expression) | ("filter", condition)]`` in the miner's spelling
        (:func:`evoonto.builder.verified.verified_measures`), without those the parent records; []
        for an unknown source or SQL that does not parse.
    """
    from evoonto.builder.verified import verified_measures

    analysis = _source_analysis(view, source_id, {} if cache is None else cache)
    if analysis is None:
        return []
    schema, dialect, joins = analysis
    metrics, filters = known if known is not None else known_measures(view)
    found = verified_measures(sql, schema, dialect=dialect, joins=joins)
    out = [("metric", expr) for _fn, expr in found.metrics if _normalized_sql(expr, dialect) not in metrics]
    out += [("filter", cond) for cond in found.filters if _normalized_sql(cond, dialect) not in filters]
    return out


def _source_analysis(view: OntologyView, source_id: str, cache: dict) -> tuple | None:
    """``(schema, dialect, join graph)`` of a source of ``view`` (kept in ``cache``), None when unknown."""
    from evoonto.catalog import Catalog
    from evoonto.sources.quoting import dialect_of_kind
    from evoonto.tools.joinpaths import JoinGraph

    if source_id not in cache:
        schema = view.catalog.get(source_id)
        dialect = dialect_of_kind(schema.kind) if schema is not None else None
        cache[source_id] = None if schema is None else (
            schema, dialect, JoinGraph.from_catalog(Catalog((schema,)), dialects={source_id: dialect}))
    return cache[source_id]


def unnamed_values(traj: TaskTrajectory, view: OntologyView, src: str, cache: dict | None = None) -> list:
    """The :class:`~evoonto.builder.verified.UnstatedValue` s of the task's verified SQL (text values
    compared with a column that no word of the question states) that no tool result of the task
    shows (as a whole word, any case); ``cache`` as for :func:`measure_gaps`."""
    from evoonto.builder.verified import unstated_values

    found = _source_analysis(view, src, {} if cache is None else cache)
    if found is None or not traj.reference_sql:
        return []
    schema, dialect, joins = found
    shown = normalize("\n".join(surfaced_texts(traj)))
    out = []
    for u in unstated_values(traj.question, traj.reference_sql, schema, dialect=dialect, joins=joins):
        if re.search(r"(?<!\w)" + re.escape(normalize(u.value)) + r"(?!\w)", shown):
            continue
        out.append(u)
    return out


def _value_phrases(groups: dict, trajectories: list[TaskTrajectory], view: OntologyView, cache: dict) -> None:
    """Each ``unnamed_value`` group's ``phrase``: :func:`evoonto.builder.verified.value_phrase` of the
    unexplained phrases of every verified task that filters on the value without stating it (the
    group's failed tasks, and passed ones: they name the value too), against the questions of the
    verified tasks whose SQL does not filter on the value (a phrase one of them uses names something
    else); a task whose question leaves two or more values unstated gives no phrase. None when none
    qualifies."""
    from evoonto.builder.verified import unstated_values, value_phrase

    # task -> ({(table, column, value): phrases} of its unstated values, every (table, column, value) it filters on)
    seen: dict[str, tuple[dict[tuple[str, str, str], tuple[str, ...]], set[tuple[str, str, str]]]] = {}

    def filters_of(t: TaskTrajectory, src: str):
        if t.task_id not in seen:
            found = _source_analysis(view, src, cache)
            unstated = {} if found is None else {
                (u.table, u.column, u.value): u.phrases
                for u in unstated_values(t.question, t.reference_sql or "", found[0], dialect=found[1], joins=found[2])}
            _used, literals = sql_columns(t.reference_sql or "", [c for c in view.columns if c.source_id == src])
            seen[t.task_id] = (unstated, set(unstated) | {(table, column, v) for (table, column), vs
                                                           in literals.items() for v in vs})
        return seen[t.task_id]

    by_id = {t.task_id: t for t in trajectories if t.reference_sql}
    for (kind, _key, src), g in groups.items():
        if kind != "unnamed_value":
            continue
        details = g["details"]
        target = (details["table"], details["column"], details["value"])
        # a question that leaves two or more values unstated names none of them: which value its
        # phrase names would be a guess (the builder's miner skips such questions too)
        runs = {task: phrases for task, phrases in details["phrases"].items()
                if task not in by_id or len(filters_of(by_id[task], src)[0]) == 1}  # task -> its phrases
        others = []
        for t in trajectories:
            if not t.reference_sql or t.task_id in details["phrases"] or t.db_id != src:
                continue
            unstated, filtered = filters_of(t, src)
            if target in unstated:
                if len(unstated) == 1:
                    runs[t.task_id] = unstated[target]  # a passed task naming the same value: support
            elif target not in filtered:
                others.append(t.question)
        details["phrase"] = value_phrase([runs[task] for task in sorted(runs)], others, value=details["value"])
        details["phrases"] = tuple(sorted(details["phrases"].items()))


def diagnose(trajectories: Iterable[TaskTrajectory], view: OntologyView, *,
             prober: ValueProber | None = None, min_frequency: int = 1,
             kinds: Iterable[str] = KINDS, lexicon: Lexicon | None = None) -> list[Signature]:
    """Find recurrent failure signatures in the failed trajectories.

    Args:
        trajectories: tasks with events and pass/fail; only failed ones (``passed is False``) count.
        view: snapshot of the parent ontology (labels, Evidence values, relations, constraints).
        prober: read-only value prober over the raw sources; without it ``missing_value`` is not
            diagnosed.
        min_frequency: drop signatures seen in fewer failed tasks.
        kinds: the signature kinds to look for.
        lexicon: the place names a ``missing_value`` probe also tries
            (:meth:`~evoonto.lexicon.Lexicon.place_names`; default: the packaged lexicon).
    Returns:
        Signatures sorted by frequency (descending), then kind and key (deterministic).
    """
    kinds = set(kinds)
    lexicon = lexicon or Lexicon.packaged()
    groups: dict[tuple, dict] = {}

    def add(kind, key, src, traj, **details):
        g = groups.setdefault((kind, key, src), {"tasks": set(), "examples": [], "details": {}})
        g["tasks"].add(traj.task_id)
        if len(g["examples"]) < 3 and traj.question not in g["examples"]:
            g["examples"].append(traj.question)
        for name, value in details.items():
            g["details"].setdefault(name, value)

    joins_known = set()
    for pred in (EVO.joinCondition, EVO.joinPath):
        for o in view.content.objects(None, pred):
            joins_known |= _normalise_condition(str(o))
    constraints = []
    for c in view.content.subjects(RDF.type, EVO.Constraint):
        kws = [normalize(str(k)) for k in view.content.objects(c, EVO.triggerKeyword)]
        cond = view.content.value(c, EVO.condition)
        if kws and cond is not None:
            constraints.append((str(c), kws, str(cond)))

    from rdflib.namespace import PROV, SKOS

    stale = {str(node): str(view.content.value(node, SKOS.changeNote) or "")
             for node in set(view.content.subjects(PROV.wasInvalidatedBy, None))} \
        if "stale_evidence" in kinds else {}

    known = known_measures(view) if "missing_measure" in kinds else None
    measure_cache: dict = {}
    trajectories = list(trajectories)
    for traj in trajectories:
        if not traj.failed:
            continue
        src = traj.db_id
        if known is not None and src is not None and traj.reference_sql:
            for measure, text in measure_gaps(view, src, traj.reference_sql, known, measure_cache):
                key = f"{measure} {text}"
                add("missing_measure", key, src, traj, measure=measure, expression=text)
                groups[("missing_measure", key, src)]["details"].setdefault("queries", {})[traj.task_id] = \
                    (traj.question, traj.reference_sql)
        if "unused_column" in kinds and src is not None and (traj.reference_sql or traj.final_sql or traj.notes):
            cols = [c for c in view.columns if c.source_id == src]
            used: set[tuple[str, str]] = set()
            values: dict[tuple[str, str], set[str]] = {}
            for sql in filter(None, (traj.reference_sql, traj.final_sql)):
                found, literals = sql_columns(sql, cols)
                used |= found
                for col_key, vals in literals.items():
                    values.setdefault(col_key, set()).update(vals)
            for note in traj.notes:
                used |= note_columns(note, cols)
            shown_text = "\n".join(surfaced_texts(traj))
            shown_columns = _shown_columns(traj, view, shown_text)
            stems = tx.text_stems(shown_text)
            phrases = tuple(dict.fromkeys(w for w in tx.content_words(traj.question) if tx.stem(w) not in stems))
            for table, column in sorted(used):
                if (table.lower(), column.lower()) in shown_columns:
                    continue
                key = f"{table}.{column}"
                add("unused_column", key, src, traj)
                g = groups[("unused_column", key, src)]
                g["details"].setdefault("phrases", {})[traj.task_id] = phrases
                g["details"].setdefault("values", set()).update(values.get((table, column), ()))
        if "unnamed_value" in kinds and src is not None and traj.reference_sql:
            for found in unnamed_values(traj, view, src, measure_cache):
                key = f"{found.table}.{found.column} = {found.value}"
                add("unnamed_value", key, src, traj, table=found.table, column=found.column, value=found.value)
                details = groups[("unnamed_value", key, src)]["details"]
                details.setdefault("queries", {})[traj.task_id] = (traj.question, traj.reference_sql)
                details.setdefault("phrases", {})[traj.task_id] = found.phrases
        if stale:
            shown = "\n".join(surfaced_texts(traj))
            for iri, note in sorted(stale.items()):
                # resolve shows ids relative to the workspace base: match the IRI's tail
                if iri in shown or any(iri.endswith("/" + ident) for ident in _ids_in(shown)):
                    add("stale_evidence", iri, src, traj, note=note)
        words = tx.content_words(traj.question)
        if words and ({"unlinked_phrase", "shallow_retrieval"} & kinds) and traj.events:
            stems = _surfaced_stems(traj)
            unlinked = [w for w in words if tx.stem(w) not in stems]
            for w in dict.fromkeys(unlinked):
                if "unlinked_phrase" in kinds:
                    add("unlinked_phrase", w, src, traj)
            if "shallow_retrieval" in kinds and (not unlinked or _browse_cut_off(traj, view.browse_default)):
                add("shallow_retrieval", "browse-depth", None, traj)
        if "crowded_retrieval" in kinds and traj.events and _crowded_columns(traj, view):
            add("crowded_retrieval", "browse-collapse", None, traj)
        if "missing_value" in kinds and prober is not None and src is not None:
            quoted = {normalize(q) for q in tx.quoted_literals(traj.question)}
            for value in tx.literal_values(traj.question):
                if normalize(value) in view.evidence_values:
                    continue
                hits = prober.find(src, value, view.columns)
                contained = place = False
                if not hits and normalize(value) in quoted:
                    # a quoted part of a value ("having 'Hey' in its name"): the stored values holding it
                    hits = prober.find_containing(src, value, view.columns)
                    contained = bool(hits)
                if not hits and normalize(value) not in quoted:
                    # a place stored under another of its names ("United States" → 'usa', "French" →
                    # 'France')
                    hits = prober.find_place(src, value, view.columns, lexicon)
                    place = bool(hits)
                if hits:
                    add("missing_value", normalize(value), src, traj,
                        hits=tuple((h.table, h.column, h.value, h.query, h.rows) for h in hits[:3]),
                        surface=value, contained=contained, place=place)
        if "guessed_join" in kinds:
            for sql in _sqls(traj):
                for cond in _join_conditions(sql):
                    if cond not in joins_known and not any(
                            cond.split(" = ")[0].split(".", 1)[-1] in k and cond.split(" = ")[1].split(".", 1)[-1] in k
                            for k in joins_known):
                        add("guessed_join", cond, src, traj)
        if "ignored_constraint" in kinds and constraints:
            q = normalize(traj.question)
            final = (traj.final_sql or "").lower()
            for iri, kws, cond in constraints:
                if any(k and k in q for k in kws):
                    idents = [w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", cond)
                              if w.upper() not in ("AND", "OR", "NOT", "IN", "IS", "NULL", "LIKE")]
                    if final and idents and not all(i in final for i in idents[:1]):
                        add("ignored_constraint", iri, src, traj, condition=cond)
        if "repeated_probe" in kinds:
            counts: dict[str, int] = defaultdict(int)
            for e in traj.events:
                counts[e.tool + " " + json.dumps(e.arguments, sort_keys=True, default=str)] += 1
            for call, n in counts.items():
                if n >= 3:
                    add("repeated_probe", call[:200], src, traj, times=n)
        if "unknown_column" in kinds:
            for e in traj.events:
                if not e.error:
                    continue
                m = _UNKNOWN_COLUMN.search(str(e.error))
                if m:
                    col = next(x for x in m.groups() if x).strip('"`[]').lower()
                    add("unknown_column", col, src, traj)

    if "unnamed_value" in kinds:
        _value_phrases(groups, trajectories, view, measure_cache)
    if "answer_size" in kinds:
        # every measured task, passed or failed: a saving must keep each outcome (a failed task's
        # partial recall too, e.g. the values it did surface)
        for t in trajectories:
            if t.events and t.tokens is not None:
                add("answer_size", "answer-size", None, t)
    out = []
    for (kind, key, src), g in groups.items():
        if len(g["tasks"]) < min_frequency:
            continue
        if kind in ("missing_measure", "unnamed_value"):
            g["details"]["queries"] = tuple((task, *pair) for task, pair in sorted(g["details"]["queries"].items()))
        if kind == "unused_column":  # JSON-serialisable, deterministic details
            g["details"]["phrases"] = tuple(sorted(g["details"].get("phrases", {}).items()))
            g["details"]["values"] = tuple(sorted(g["details"].get("values", ())))
        out.append(Signature(kind, key, src, tuple(sorted(g["tasks"])), tuple(g["examples"]),
                             tuple(sorted(g["details"].items()))))
    out.sort(key=lambda s: (-s.frequency, KINDS.index(s.kind), s.source_id or "", s.key))
    return out
