"""Candidates: one-level bundles of typed edits, and the offline patch writers that propose them.

Paper §"Evolution loop", step *patch*. A :class:`Candidate` is what the gate judges: a signature (why),
an intervention (what, one line), a level and its edits (:mod:`evoonto.evolution.edits`). It compiles
to additions/removals graphs per target graph — a :class:`~evoonto.patch.Patch` — and has a stable
**fingerprint** (SHA-256 of the level and the sorted N-Triples of both sides), so a rejected candidate
is recognised and never proposed again.

The offline writers (:func:`propose`) are deterministic heuristics over the question text, the parent
ontology and new read-only probes of the sources; they never see gold answers. They return several
alternatives per signature, best first; the gate decides.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
from dataclasses import dataclass, replace
from typing import Any

import rdflib
from rdflib import OWL, RDF
from rdflib.namespace import DCTERMS, PROV, SKOS

from evoonto.errors import EvoontoError
from evoonto.evolution import text as tx
from evoonto.evolution.attribute import Attribution
from evoonto.evolution.edits import (LEVEL_TARGETS, AddEvidence, AddManifestNote, AddMinedRecords, AddRelation,
                                     AddRelationType, AddSynonym, AddTerm, AddValueTerm, Compiled, Edit, EditContext,
                                     EditError, SetFieldWeight, SetToolSetting)
from evoonto.evolution.probes import ValueHit, ValueProber, numeric_column
from evoonto.evolution.view import ColumnInfo, OntologyView, TermInfo
from evoonto.iris import IriFactory
from evoonto.lexicon import Lexicon
from evoonto.text import normalize
from evoonto.namespaces import EVO
from evoonto.tools.resolve import IdCodec
from evoonto.tools.semantic_from_sql import NotExpressible, metric_specs, translate_sql


#: Result-collapsing limits (hits per column) the crowded_retrieval Tool candidates propose, in order.
COLLAPSE_STEPS = (1, 2)

#: Factors of the compact answer budget (``evo:answerBudget``) the deeper-retrieval Tool candidates
#: propose when the served answer is compact (shallow_retrieval), smallest first.
BUDGET_STEPS = (1.5, 2.0)

#: Factors of the compact answer budget the saving candidates propose (answer_size), the largest
#: saving first: the loop takes the first one the screen admits (every seen outcome kept), so one
#: round goes as far down as the seen questions allow, and the 0.9 step still saves where a quarter
#: less would change a seen outcome (mildest first, 0.75 then 0.5, walked a quarter per round and
#: stopped there: no saving at all on one fold of bird_synth_dev).
SAVING_STEPS = (0.5, 0.75, 0.9)

#: How many more browse results the "deeper retrieval" Tool candidates ask for (shallow_retrieval),
#: smallest first: a rejected step is followed by a larger one in a later round.
DEPTH_STEPS = (4, 8, 16)


class CandidateError(EvoontoError):
    """A candidate mixes levels or has no edits."""


@dataclass(frozen=True)
class Candidate:
    """A proposed patch: ``signature`` (the Signature id(s) it addresses), ``intervention`` (one line),
    ``level`` (``content``/``tool``/``schema``), ``edits`` (all of that level), ``reason`` (the
    attribution's reason), ``frequency`` (failed tasks showing the signature; ranks candidates),
    ``tasks`` (ids of the failed trajectory tasks it addresses; the loop screens the candidate on
    them before the gate, see :func:`evoonto.evolution.loop.screen`; empty = not screened),
    ``aim`` (``"score"``: meant to fix the failures of ``tasks``; ``"cost"``: meant to keep the
    outcomes of ``tasks`` with a smaller answer, e.g. a smaller answer budget).

    Raises:
        CandidateError: when ``edits`` is empty or an edit's level differs from ``level``.
    """

    signature: str
    intervention: str
    level: str
    edits: tuple[Edit, ...]
    reason: str = ""
    frequency: int = 0
    tasks: tuple[str, ...] = ()
    aim: str = "score"

    def __post_init__(self):
        if not self.edits:
            raise CandidateError("a candidate needs at least one edit")
        if self.aim not in ("score", "cost"):
            raise CandidateError(f"a candidate's aim is 'score' or 'cost', not {self.aim!r}")
        wrong = [e for e in self.edits if e.level != self.level]
        if wrong:
            raise CandidateError(f"candidate of level {self.level!r} contains a {wrong[0].level!r} edit "
                                 f"({wrong[0].describe()}); one level per patch")

    def compile(self, ctx: EditContext) -> Compiled:
        """All edits' triples; raises EditError when an edit does not apply to the parent."""
        out = Compiled()
        for edit in self.edits:
            out.extend(ctx.compile(edit))
        allowed = LEVEL_TARGETS[self.level]
        for target in list(out.additions) + list(out.removals):
            if target not in allowed:
                raise CandidateError(f"{self.level} candidate writes graph {target!r}")
        return out

    def graphs(self, ctx: EditContext) -> tuple[dict[str, rdflib.Graph], dict[str, rdflib.Graph]]:
        """(additions, removals) as rdflib Graphs per target graph name (additions minus removals).

        Computed once per context (``ctx.derived``); the graphs are shared, do not modify them."""
        key = ("graphs", self.level, self.edits)
        hit = ctx.derived.get(key)
        if hit is None:
            compiled = self.compile(ctx)
            adds = {t: _graph(ts) for t, ts in compiled.additions.items() if ts}
            rems = {t: _graph(ts) for t, ts in compiled.removals.items() if ts}
            hit = ctx.derived[key] = (adds, rems)
        return hit

    def fingerprint(self, ctx: EditContext | None = None) -> str:
        """Stable identity of the change, 16 hex characters of SHA-256 over the level and either the
        edit descriptions (no ``ctx``) or, with ``ctx``, the triples it compiles to against the parent,
        ignoring time stamps (``prov:generatedAtTime``/``startedAtTime``/``endedAtTime``), so a
        re-proposal matches: the identity the loop records and skips rejected candidates by.

        With ``ctx`` it is computed once per candidate and context (``ctx.derived``).

        Raises:
            EditError, CandidateError: with ``ctx``, the candidate does not compile against the parent.
        """
        h = hashlib.sha256(self.level.encode())
        if ctx is None:
            for line in sorted(repr(e) for e in self.edits):
                h.update(line.encode())
            return h.hexdigest()[:16]
        from rdflib.namespace import PROV

        key = ("stable_fingerprint", self.level, self.edits)
        hit = ctx.derived.get(key)
        if hit is not None:
            return hit
        skip = {PROV.generatedAtTime, PROV.startedAtTime, PROV.endedAtTime}
        adds, rems = self.graphs(ctx)
        for sign, graphs in (("+", adds), ("-", rems)):
            for target in sorted(graphs):
                lines = sorted(" ".join(t.n3() for t in tr) for tr in graphs[target] if tr[1] not in skip)
                for line in lines:
                    h.update(f"{sign}{target} {line}\n".encode())
        ctx.derived[key] = fingerprint = h.hexdigest()[:16]
        return fingerprint

    def split(self) -> tuple["Candidate", "Candidate"] | None:
        """Two halves of a multi-edit candidate (bisection after a rejection), or None for one edit."""
        if len(self.edits) < 2:
            return None
        mid = len(self.edits) // 2
        halves = [Candidate(self.signature, f"{len(part)} edit(s): " + "; ".join(e.describe() for e in part[:3]),
                            self.level, tuple(part), self.reason, tasks=self.tasks, aim=self.aim)
                  for part in (self.edits[:mid], self.edits[mid:])]
        return halves[0], halves[1]


def _graph(triples) -> rdflib.Graph:
    g = rdflib.Graph()
    for t in triples:
        g.add(t)
    return g


def merge(candidates: list[Candidate]) -> Candidate:
    """One candidate holding the edits of several same-level candidates (deduplicated, in order;
    two value Terms of one stored value become one, with the labels of both; a label one Term gets
    twice, in another case or as both an alternative and a hidden label, is added once: the first)."""
    if not candidates:
        raise CandidateError("nothing to merge")
    if len(candidates) == 1:
        return candidates[0]
    level = candidates[0].level
    edits: list[Edit] = []
    seen: set[str] = set()
    value_terms: dict[tuple, tuple[int, AddValueTerm]] = {}  # one per stored value: where in ``edits``
    labelled: set[tuple[str, str]] = set()  # (Term, label) a batched synonym adds: once, whatever the case
    for c in candidates:
        for e in c.edits:
            if repr(e) in seen:
                continue
            seen.add(repr(e))
            if isinstance(e, AddSynonym):
                if (e.term, normalize(e.label)) in labelled:
                    continue  # 'French' after 'french' on one Term (an altLabel already covers a hidden one)
                labelled.add((e.term, normalize(e.label)))
            if isinstance(e, AddValueTerm):
                key = (e.source_id, e.table, e.column, e.value)
                if key in value_terms:  # the same value found by two words: one Term with both
                    at, first = value_terms[key]
                    joined = replace(first, alt_labels=_labels_once(first.alt_labels, e.alt_labels),
                                     hidden_labels=_labels_once(first.hidden_labels, e.hidden_labels))
                    edits[at] = joined
                    value_terms[key] = (at, joined)
                    continue
                value_terms[key] = (len(edits), e)
            edits.append(e)
    sig = " | ".join(dict.fromkeys(c.signature for c in candidates))
    text = f"{len(edits)} edits: " + "; ".join(e.describe() for e in edits[:3]) + ("; …" if len(edits) > 3 else "")
    aim = "cost" if all(c.aim == "cost" for c in candidates) else "score"
    # a fix bundled with savings is meant to fix the fixes' tasks (a saving's tasks are what it keeps)
    tasks = tuple(sorted({t for c in candidates if c.aim == aim for t in c.tasks}))
    return Candidate(sig, text, level, tuple(edits), candidates[0].reason,
                     max(c.frequency for c in candidates), tasks, aim)


def _labels_once(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    """The labels of ``first`` then ``second``, each once (case-folded: 'French' and 'french' are one)."""
    out: dict[str, str] = {}
    for label in (*first, *second):
        out.setdefault(normalize(label), label)
    return tuple(out.values())


# ---------------------------------------------------------------- offline writers

def _term_texts(term: TermInfo) -> list[str]:
    return [*term.labels, *(column or table for _, table, column in term.locations)]


def _term_stems(term: TermInfo) -> set[str]:
    return {s for text in _term_texts(term) for s in tx.text_stems(text)}


def _rank_terms_for_word(word: str, terms: list[TermInfo], lexicon: Lexicon
                         ) -> list[tuple[float, TermInfo, str]]:
    """Terms that a question word refers to by general word knowledge (the lexicon's cue words and
    synonym sets), scored (higher is better), with the reason. Spelling likeness alone is not a
    reason: a synonym from letters ("contain" for a title column) is a guess, not evidence."""
    related = lexicon.related_stems(word)  # cue words (youngest -> age) and synonym sets
    w = tx.stem(word)
    scored = []
    for t in terms:
        if t.filtered:
            continue  # a value Term (e.g. France) names a value, not the concept a question word refers to
        stems = _term_stems(t)
        if w in stems:
            continue  # already named by this word: a synonym adds nothing
        score, why = 0.0, ""
        if related & stems:
            score, why = 2.0, "cue word"
        if score > 0:
            # prefer column-level Terms (they carry the recall) over table Entities
            if any(loc[2] for loc in t.locations):
                score += 0.1
            scored.append((score, t, why))
    scored.sort(key=lambda x: (-x[0], str(x[1].iri)))
    return scored


def _column_terms(view: OntologyView, source_id: str, table: str, column: str) -> list[TermInfo]:
    return view.terms_at(source_id, table, column)


def _evidence_candidate(sig_id: str, reason: str, source_id: str, hits, terms: list[TermInfo],
                        synonym: str | None) -> Candidate | None:
    table, column, value, query, rows = hits
    edits: list[Edit] = []
    supports = tuple(str(m) for t in terms for m in t.mappings[:1]) or tuple(str(t.iri) for t in terms)
    if not supports:
        return None
    edits.append(AddEvidence(source_id, query, (value,), supports, rows_observed=rows))
    if synonym and normalize(synonym) != normalize(value):
        edits.extend(AddSynonym(str(t.iri), synonym) for t in terms[:1])
    return Candidate(sig_id, "; ".join(e.describe() for e in edits), "content", tuple(edits), reason)


def propose(attribution: Attribution, view: OntologyView, *, prober: ValueProber | None = None,
            max_alternatives: int = 3, lexicon: Lexicon | None = None, iris: IriFactory | None = None,
            now: _dt.datetime | None = None) -> list[Candidate]:
    """Offline patch writer: candidates for one attributed signature, best first.

    * ``unlinked_phrase`` → the word (or its singular) stored whole, found by a probe: Evidence of
      the value on that column's Term; else a value the word points at, stored whole under another
      name (a cue target: *fastest* → 'Speed' in an attribute-name column; a country's demonym:
      *french* → 'France'): the word as the value Term's hidden label
      (:func:`_pointer_value_candidates`); and a synonym on the Terms the word refers to by the
      lexicon's cue words and synonym sets (*youngest* → age), one candidate per target Term; never
      from spelling likeness alone.
    * ``unused_column`` → Evidence of the probed literal the tasks' SQL compared the column with, or
      a synonym joining a question word that linked to nothing with the column the tasks' own SQL
      (or feedback note) used (:func:`_unused_column_candidates`).
    * ``missing_measure`` → the metric Term (with its expression, Mapping and Derivations) or the
      named-filter Constraint the builder's verified-query miner makes of the tasks' verified SQL,
      citing the verified query and the Evidence of its read-only run; kept only when the SQL is
      expressible as a semantic query over the patched version (:func:`_measure_candidates`; needs
      ``prober`` for the source and ``iris`` for the workspace's IRIs).
    * ``unnamed_value`` → the questions' phrase for the value as a synonym of the value's Term, or,
      for a column without value Terms, the probed value as a new value Term named by the phrase
      (:func:`_value_name_candidates`; needs ``iris``, and ``prober`` for the new Term).
    * ``answer_size`` → a saving (``aim="cost"``): full lines only for a question's matches
      (``browse.fullLinesMatchedOnly``), a smaller compact budget, or fewer verbose hits.
    * ``missing_value`` → Evidence of the probed value on the Term(s) of the column that holds it
      (a new Term for the column when none maps it); for a quoted part of a value, Evidence of the
      stored value that contains it, without a synonym; for a place stored under another of its
      names ("United States" → 'usa'), the question's name as the value Term's hidden label.
    * ``unknown_column`` → a hidden label with the wrong name on the closest real column's Term.
    * ``guessed_join`` → an Association between the two tables' Entity Terms with the join condition.
    * ``shallow_retrieval`` → a larger answer budget (compact served format) or more results by
      default (verbose), or re-weight one browse field up or down (Tool level).
    * ``crowded_retrieval`` → collapse browse results to at most 1 (then 2) hits per column (Tool level).
    * ``ignored_constraint`` / ``repeated_probe`` → a manifest note (Tool level).

    ``iris`` (the workspace's :class:`~evoonto.iris.IriFactory`) and ``now`` (UTC time stamp of new
    Evidence) are used by the ``missing_measure`` writer; without ``iris`` it writes nothing.

    ``lexicon`` supplies the cue words and synonym sets (default: the packaged
    :class:`~evoonto.lexicon.Lexicon`; pass ``Lexicon.load(workspace_path)`` for a workspace's additions).

    Returns an empty list when nothing sensible can be written (the loop then moves on).
    """
    lexicon = lexicon or Lexicon.packaged()
    sig = attribution.signature
    sid, reason = sig.id, attribution.reason
    src = sig.source_id
    out: list[Candidate] = []
    if sig.kind == "unlinked_phrase" and src:
        terms = view.terms_of(src)
        if prober is not None and len(sig.key) >= 3:
            # the word itself stored whole (or its singular: "masters" finds 'Master'): Evidence of the
            # value; the stored spelling is the value's name, so no synonym
            hits = prober.find(src, sig.key, view.columns, inflected=True)[:1]
            for hit in hits:
                targets = _column_terms(view, src, hit.table, hit.column)
                c = _evidence_candidate(sid, reason, src, (hit.table, hit.column, hit.value, hit.query, hit.rows),
                                        targets, None)
                if c:
                    out.append(c)
            if not hits and iris is not None:
                out.extend(_pointer_value_candidates(sig, reason, view, prober, iris, lexicon, max_alternatives))
        for _score, term, why in _rank_terms_for_word(sig.key, terms, lexicon)[:max_alternatives]:
            out.append(Candidate(sid, f"add synonym {sig.key!r} to {term.pref_labels[:1] or [term.iri]} ({why})",
                                 "content", (AddSynonym(str(term.iri), sig.key),), reason))
    elif sig.kind == "missing_value" and src:
        for table, column, value, query, rows in sig.detail("hits", ())[:max_alternatives]:
            targets = _column_terms(view, src, table, column)
            if sig.detail("place"):
                # stored under another name of the place the question names ('usa' for "United
                # States"): the question's name points at the stored value, it is not the column's name
                if iris is not None:
                    hit = ValueHit(src, table, column, value, query, rows)
                    c = _hidden_name_candidate(sid, reason, view, iris, hit, sig.detail("surface"),
                                               "a name of the same country")
                    if c:
                        out.append(c)
            elif targets:
                # a quoted part of the stored value is not another name of it: no synonym then
                c = _evidence_candidate(sid, reason, src, (table, column, value, query, rows), targets,
                                        None if sig.detail("contained") else sig.detail("surface"))
                if c:
                    out.append(c)
            else:
                ev = AddEvidence(src, query, (value,), ())
                out.append(Candidate(sid, f"add Term for {table}.{column} with value {value!r}", "content",
                                     (ev, AddTerm(f"{column}", "Category", src, table, column,
                                                  alt_labels=(value,))), reason))
    elif sig.kind == "unknown_column" and src:
        from rapidfuzz import process, fuzz

        name = sig.key.split(".")[-1]
        cols = [c for c in view.columns if c.source_id == src]
        best = process.extract(name, [c.column for c in cols], scorer=fuzz.ratio, limit=max_alternatives)
        for _, score, idx in best:
            if score < 60:
                continue
            for term in _column_terms(view, src, cols[idx].table, cols[idx].column)[:1]:
                out.append(Candidate(sid, f"hidden label {name!r} on {cols[idx].table}.{cols[idx].column}",
                                     "content", (AddSynonym(str(term.iri), name, hidden=True),), reason))
    elif sig.kind == "guessed_join" and attribution.level == "schema":
        # the vocab lacks the relation type that records joins: declare it (the Content candidate,
        # an Association with the join condition, follows once the schema has it)
        out.append(Candidate(sid, "declare the relation type evo:Association (joinable Terms)", "schema",
                             (AddRelationType("association", "Two Terms that are related, typically joinable.",
                                              iri=str(EVO.Association), direct_property=str(SKOS.related)),),
                             reason))
    elif sig.kind == "guessed_join" and src:
        left, right = sig.key.split(" = ")
        lt, rt = left.split(".")[0], right.split(".")[0]
        a = [t for t in view.terms_of(src) if any(loc[1].lower() == lt and loc[2] is None for loc in t.locations)]
        b = [t for t in view.terms_of(src) if any(loc[1].lower() == rt and loc[2] is None for loc in t.locations)]
        if a and b and a[0].iri != b[0].iri:
            out.append(Candidate(sid, f"record join {sig.key}", "content",
                                 (AddRelation("Association", str(a[0].iri), str(b[0].iri), join_condition=sig.key),),
                                 reason))
    elif sig.kind == "shallow_retrieval":
        # the needed items may rank below the cut: first return more results by default (deeper
        # retrieval, one candidate per step of DEPTH_STEPS), then re-weight one browse field per
        # candidate (up, then down)
        fmt, budget = view.answer_settings
        if fmt == "compact":  # the served answer is bounded by characters, not by a count of hits
            for factor in BUDGET_STEPS:
                larger = min(int(budget * factor), 200_000)
                if larger > budget:
                    out.append(Candidate(sid, f"browse answers within {larger} characters by default (was {budget})",
                                         "tool", (SetToolSetting("browse.answerBudget", larger),), reason))
        else:
            current, ceiling = view.browse_counts
            for deeper in sorted({min(current + step, ceiling) for step in DEPTH_STEPS} - {current}):
                out.append(Candidate(sid, f"browse returns {deeper} results by default (was {current})",
                                     "tool", (SetToolSetting("browse.defaultResults", deeper),), reason))
        weights = _current_weights(view)
        for name in ("altLabel", "value", "column", "hiddenLabel", "definition", "prefLabel"):
            for factor in ((1.5, 0.5) if weights[name] > 0 else ()):  # a zero weight scales to itself
                value = round(weights[name] * factor, 3)
                out.append(Candidate(sid, f"browse weight {name} {weights[name]:g} -> {value:g}", "tool",
                                     (SetFieldWeight(name, value),), reason))
    elif sig.kind == "answer_size":
        # a saving: the same answers in fewer characters (the gate accepts it only when no outcome
        # of V changes and the mean answer shrinks)
        fmt, budget = view.answer_settings
        if fmt == "compact" and not view.browse_flag("fullLinesMatchedOnly"):
            # first, the saving that follows each question: full lines only for what it matched
            # (a key or column its table brought in is named in its table's line), where a smaller
            # budget cuts every answer alike, the matches a long question needs included
            out.append(Candidate(sid, "browse gives full lines only to the candidates a question matched (was: "
                                      "every candidate that fits)", "tool",
                                 (SetToolSetting("browse.fullLinesMatchedOnly", 1),), reason, aim="cost"))
        if fmt == "compact":
            for factor in SAVING_STEPS:
                smaller = max(int(budget * factor), 200)
                if smaller < budget:
                    out.append(Candidate(sid, f"browse answers within {smaller} characters by default (was "
                                              f"{budget})", "tool", (SetToolSetting("browse.answerBudget", smaller),),
                                         reason, aim="cost"))
        else:
            current, _ceiling = view.browse_counts
            for fewer in sorted({max(current - step, 1) for step in (2, 4)} - {current}, reverse=True):
                out.append(Candidate(sid, f"browse returns {fewer} results by default (was {current})", "tool",
                                     (SetToolSetting("browse.defaultResults", fewer),), reason, aim="cost"))
    elif sig.kind == "unused_column" and src:
        out.extend(_unused_column_candidates(sig, reason, view, prober, max_alternatives))
    elif sig.kind == "missing_measure" and src and prober is not None and iris is not None:
        out.extend(_measure_candidates(sig, reason, view, prober, iris, now))
    elif sig.kind == "unnamed_value" and src and iris is not None:
        out.extend(_value_name_candidates(sig, reason, view, iris, prober))
    elif sig.kind == "crowded_retrieval":
        # collapse results per column (at most COLLAPSE_STEPS hits per column), tightest first
        current = view.browse_setting("hitsPerColumn", 0)
        for per in COLLAPSE_STEPS:
            if current == 0 or per < current:
                out.append(Candidate(sid, f"browse keeps at most {per} hit(s) per column (was "
                                          f"{current or 'no limit'})", "tool",
                                     (SetToolSetting("browse.hitsPerColumn", per),), reason))
    elif sig.kind == "ignored_constraint":
        cond = sig.detail("condition", "")
        out.append(Candidate(sid, "manifest note on the ignored constraint", "tool",
                             (AddManifestNote(f"Always resolve a Term's constraints before writing SQL; "
                                              f"apply conditions such as {cond!r} when the question implies them."),),
                             reason))
    elif sig.kind == "repeated_probe":
        out.append(Candidate(sid, "manifest note against repeated calls", "tool",
                             (AddManifestNote("Do not repeat an identical tool call: resolve the ids a browse "
                                              "returned to get mappings, joins and value evidence."),), reason))
    return out


def _unused_column_candidates(sig, reason: str, view: OntologyView, prober: ValueProber | None,
                              max_alternatives: int) -> list[Candidate]:
    """Content candidates for a column the failed tasks' own records used but the tools never showed.

    The task says which column (its verified SQL, the agent's SQL or a feedback note) and which of
    its words linked to nothing; the candidates join the two:

    * each literal the SQL compared the column with that a probe finds stored in that column
      (exact match, read-only) and no Evidence records → Evidence of the value on the column's Term;
    * each question word that linked to nothing → a synonym on the column's Term, words shared by
      more of the tasks first (the screen replays the tasks to keep only the word that fixes them).

    Value Terms (filtered Mappings) are never targets. Returns [] when no Term maps the column.
    """
    src = sig.source_id
    table, _, column = sig.key.rpartition(".")
    terms = [t for t in view.terms_at(src, table, column) if not t.filtered]
    if not terms:
        return []
    term = terms[0]
    out: list[Candidate] = []
    supports = tuple(str(m) for m in term.mappings[:1]) or (str(term.iri),)
    if prober is not None:
        for value in sig.detail("values", ())[:max_alternatives]:
            if normalize(value) in view.evidence_values:
                continue
            for hit in prober.find(src, value, [c for c in view.columns if c.source_id == src
                                                and c.table == table and c.column == column])[:1]:
                out.append(Candidate(sig.id, f"record value {hit.value!r} of {table}.{column} (the tasks' SQL "
                                             f"compares it; a probe found it stored)", "content",
                                     (AddEvidence(src, hit.query, (hit.value,), supports, rows_observed=hit.rows),),
                                     reason + f"; the tasks' SQL uses {table}.{column} = {value!r}"))
    counts: dict[str, int] = {}
    for _task, words in sig.detail("phrases", ()):
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    known = {normalize(label) for label in term.labels}
    ranked = sorted((w for w in counts if normalize(w) not in known), key=lambda w: (-counts[w], w))
    for word in ranked[:max_alternatives]:
        out.append(Candidate(sig.id, f"add synonym {word!r} to {table}.{column} (the tasks' SQL uses the column; "
                                     f"the word linked to nothing)", "content", (AddSynonym(str(term.iri), word),),
                             reason + f"; {counts[word]} task(s) used {table}.{column} and asked {word!r}"))
    return out


def _measure_candidates(sig, reason: str, view: OntologyView, prober: ValueProber, iris: IriFactory,
                        now: _dt.datetime | None) -> list[Candidate]:
    """The metric Term or named filter a ``missing_measure`` signature asks for, as the builder mines it.

    The tasks' verified queries (question + SQL, from ``sig.detail("queries")``) go through
    :func:`evoonto.builder.verified.mine_verified` against the parent's catalog and content, exactly
    as ``evoonto build --verified`` would mine them (it runs each query once, read-only, on the
    prober's source, and names the metric or filter by the question phrase the query leaves
    unexplained). Of what it mints, the candidate keeps the metric Term whose Mapping's
    ``evo:expression`` is the signature's expression (with that Mapping and its Derivation
    relations), or the Constraint whose ``evo:condition`` is the signature's condition, plus the
    ``evo:VerifiedQuery`` records they cite and the Evidence and probe of those queries' runs.

    The candidate is written only when every task's SQL is expressible as a semantic query over the
    parent with the candidate applied (:func:`evoonto.tools.semantic_from_sql.translate_sql`) and, for a
    metric, that query names the new metric Term. Returns [] when the source is not open, the
    miner names nothing (no phrase of the questions is left unexplained, e.g. "total price") or the
    SQL stays inexpressible.
    """
    from evoonto.patch import Patch

    ontology: Any = getattr(view, "ontology", None)
    g = _mine_tasks(sig, view, prober, iris, now)
    if g is None:
        return []
    measure, wanted = sig.detail("measure"), sig.detail("expression")
    queries = sig.detail("queries", ())
    records: list[Any] = []
    if measure == "metric":
        for term in sorted(map(str, g.subjects(RDF.type, EVO.Metric))):
            mapping = g.value(rdflib.URIRef(term), EVO.hasMapping)
            if mapping is not None and str(g.value(mapping, EVO.expression)) == wanted:
                records = [rdflib.URIRef(term), mapping,
                           *sorted(r for r in g.subjects(OWL.annotatedSource, rdflib.URIRef(term))
                                   if isinstance(r, rdflib.URIRef))]
    else:
        records = [c for c in sorted(map(str, g.subjects(RDF.type, EVO.Constraint)))
                   if str(g.value(rdflib.URIRef(c), EVO.condition)) == wanted][:1]
        records = [rdflib.URIRef(c) for c in records]
        # the filter's Category Term too (as `build --verified` writes it), so a term answer shows it
        terms = [rdflib.URIRef(t) for t in sorted(map(str, g.subjects(RDF.type, EVO.Term)))] if records else []
        for term in terms:
            mapping = g.value(term, EVO.hasMapping)
            if mapping is not None and str(g.value(mapping, EVO.filter)) == wanted:
                records += [term, mapping, *sorted(r for r in g.subjects(OWL.annotatedSource, term)
                                                   if isinstance(r, rdflib.URIRef))]
                break
    if not records:
        return []
    cited = [q for q in dict.fromkeys(g.objects(records[0], PROV.wasDerivedFrom))
             if (q, RDF.type, EVO.VerifiedQuery) in g]
    # a verified query the parent records already is cited, not rewritten (nor is its run's Evidence)
    cited = [q for q in cited if (q, RDF.type, None) not in view.content]
    support = [n for q in cited for ev in g.objects(q, PROV.wasDerivedFrom)
               for n in (ev, g.value(ev, PROV.wasGeneratedBy))
               if isinstance(n, rdflib.URIRef) and (n, RDF.type, None) not in view.content]
    kept = set(records) | set(cited) | set(support)
    fresh = list(dict.fromkeys([*records, *cited, *support]))
    triples = []
    for subject in fresh:
        for s, p, o in g.triples((subject, None, None)):
            # a query's links to what it exercises: only records of the parent or of this candidate
            if p == EVO.exercises and o not in kept and (o, RDF.type, None) not in view.content:
                continue
            triples.append((s, p, o))
    label = str(g.value(records[0], SKOS.prefLabel) or g.value(records[0], EVO.triggerKeyword) or wanted)
    what = "metric Term" if measure == "metric" else "named filter"
    tasks = tuple(task for task, _q, _s in queries)
    edit = AddMinedRecords(f"add {what} {label!r} = {wanted} (mined from the verified SQL of task(s) "
                           f"{', '.join(tasks[:3])}{'…' if len(tasks) > 3 else ''})",
                           (str(records[0]),), tuple(triples))
    patched = ontology.with_patch(Patch.from_graphs("content", additions={"content": triples}))
    codec = IdCodec(iris.base)
    for _task, _question, sql in queries:
        try:
            query = translate_sql(patched, sql, codec=codec)
        except NotExpressible:
            return []
        if measure == "metric" and codec.to_id(str(records[0])) not in metric_specs(query):
            return []
    return [Candidate(sig.id, edit.describe(), "content", (edit,),
                      reason + f"; the verified SQL stays expressible as a semantic query with the {what}")]


def _mine_tasks(sig, view: OntologyView, prober: ValueProber, iris: IriFactory,
                now: _dt.datetime | None) -> rdflib.Graph | None:
    """What :func:`evoonto.builder.verified.mine_verified` makes of the verified queries of a signature's
    tasks (``sig.detail("queries")``: task id, question, SQL) against the parent's catalog and content,
    exactly as ``evoonto build --verified`` would (each query run once, read-only, on the prober's
    source); None when the source is not open or the view has no ontology to mine against."""
    import warnings

    from evoonto.builder.verified import as_verified, mine_verified
    from evoonto.sources.base import SourceWarning

    source = prober.sources.get(sig.source_id)
    ontology: Any = getattr(view, "ontology", None)
    if source is None or not hasattr(ontology, "with_patch"):
        return None
    # a query the parent records already (e.g. `build --verified`) keeps its record: the same id
    recorded = {str(view.content.value(q, EVO.sql)): str(view.content.value(q, DCTERMS.identifier))
                for q in view.content.subjects(RDF.type, EVO.VerifiedQuery)
                if view.content.value(q, EVO.source) == view.sources.get(sig.source_id)
                and view.content.value(q, DCTERMS.identifier) is not None}
    pairs = dict.fromkeys((question, sql) for _task, question, sql in sig.detail("queries", ()))
    items = as_verified([{"question": question, "sql": sql, **({"id": recorded[sql]} if sql in recorded else {})}
                         for question, sql in pairs])  # a question asked twice: once
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SourceWarning)  # a query the miner leaves out gives no candidate
        mined = mine_verified(items, source=source, catalog=ontology.graph("catalog"), content=view.content, iris=iris,
                              at=now or _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0),
                              ontology=ontology, remine=True)
    return mined.graph


def _value_name_candidates(sig, reason: str, view: OntologyView, iris: IriFactory,
                           prober: ValueProber | None = None) -> list[Candidate]:
    """The question's name for a value its verified SQL filters on, as a synonym of the value's Term.

    The phrase is the diagnosis's (``sig.detail("phrase")``, :func:`evoonto.builder.verified.value_phrase`:
    the one phrase a single question leaves unexplained, or one that two or more verified questions
    naming the value share, never one a verified question without the value uses). The probe and the
    tasks must agree the value is stored there: either the value's Term exists (the profile saw the
    value) and gets the phrase as an ``skos:altLabel``, or, for a column the builder gave no value
    Terms (a lookup table's names: one row per value), a probe finds the value stored in the column
    and the candidate adds its Evidence and the value Term named by the phrase (:class:`AddValueTerm`).
    Returns [] when there is no phrase, the Term has the label already, or no probe finds the value.
    """
    from evoonto.builder.propose import term_slug

    phrase = sig.detail("phrase")
    table, column, value = sig.detail("table"), sig.detail("column"), sig.detail("value")
    if not phrase:
        return []
    target = iris.term(sig.source_id, term_slug(table, column, value))
    tasks = [task for task, _q, _s in sig.detail("queries", ())]
    why = (f"(the verified SQL of task(s) {', '.join(tasks[:3])}{'…' if len(tasks) > 3 else ''} filters on it; "
           f"their question says {phrase!r})")
    if (target, rdflib.RDF.type, EVO.Term) in view.content:
        if normalize(phrase) in {normalize(str(o)) for o in view.content.objects(target, SKOS.altLabel)}:
            return []
        return [Candidate(sig.id, f"add synonym {phrase!r} to the value {table}.{column} = {value!r} {why}", "content",
                          (AddSynonym(str(target), phrase),), reason + f"; the questions name it {phrase!r}")]
    if prober is None:
        return []
    columns = [c for c in view.columns if c.source_id == sig.source_id and c.table == table and c.column == column]
    hits = [h for h in prober.find(sig.source_id, value, columns) if h.value == value][:1]
    if not hits:
        return []
    return [_new_value_term(sig.id, reason + f"; the questions name it {phrase!r}; a probe found it stored",
                            f"named {phrase!r} {why}", iris, hits[0], alt_labels=(phrase,))]


def _new_value_term(sig_id: str, reason: str, why: str, iris: IriFactory, hit: ValueHit, *,
                    alt_labels: tuple[str, ...] = (), hidden_labels: tuple[str, ...] = ()) -> Candidate:
    """A candidate adding the probed value ``hit`` as a value Term (:class:`AddValueTerm`) with the
    Evidence of the probe that found it stored; ``why`` ends the intervention's description."""
    evidence = AddEvidence(hit.source_id, hit.query, (hit.value,), (), rows_observed=hit.rows)
    edits = (evidence, AddValueTerm(hit.source_id, hit.table, hit.column, hit.value, alt_labels,
                                    str(evidence.iri(iris)), hidden_labels=hidden_labels))
    return Candidate(sig_id, f"add the value {hit.table}.{hit.column} = {hit.value!r} as a Term {why}", "content",
                     edits, reason)


def _pointer_value_candidates(sig, reason: str, view: OntologyView, prober: ValueProber, iris: IriFactory,
                              lexicon: Lexicon, max_alternatives: int) -> list[Candidate]:
    """A question word that points at a value stored under another name.

    * a cue word of an attribute the data stores as a *value*: *fastest* → the lexicon's cue target
      ``speed`` (:meth:`~evoonto.lexicon.Lexicon.cue_targets`) → the stored 'Speed', probed only in
      the name columns of attribute tables (:func:`attribute_name_columns`: a song titled 'Time' is
      no target of *latest*);
    * a country's demonym or other name: *french* → 'France', *United States* → 'usa'
      (:meth:`~evoonto.evolution.probes.ValueProber.find_place`): the first name a probe finds
      stored whole, one place per word.

    The targets are probed as whole stored values (read-only, case-insensitive, never a prefix or
    look-alike: the probe and the word must agree). Each value found becomes findable by the word as
    a ``skos:hiddenLabel`` (the word points at the value; it is not its name), so the answer shows
    the stored value: on the value Term the builder made, when there is one, else on a new value
    Term with the probe's Evidence (:func:`_hidden_name_candidate`). Returns [] when the word has no
    target or none is stored whole.
    """
    word, src = sig.key, sig.source_id
    out: list[Candidate] = []
    targets = [t for t in lexicon.cue_targets(word) if len(t) >= 3]
    attribute_names = attribute_name_columns(view, src) if targets else []
    for target in targets:
        for hit in prober.find(src, target, attribute_names)[:1]:
            c = _hidden_name_candidate(sig.id, reason, view, iris, hit, word, f"a cue word of {target!r}")
            if c is not None:
                out.append(c)
    for hit in prober.find_place(src, word, view.columns, lexicon)[:1]:
        c = _hidden_name_candidate(sig.id, reason, view, iris, hit, word, "a name of the same country")
        if c is not None:
            out.append(c)
    return out[:max_alternatives]


def attribute_name_columns(view: OntologyView, source_id: str) -> list[ColumnInfo]:
    """The name columns of the attribute tables of ``source_id``: the tables of an
    entity–attribute–value layout, where attributes are rows ('Speed', 'Strength') instead of columns.

    A table qualifies when its only non-key text column names its rows (a lookup table: a key and
    one name), and another table refers to it by a foreign key and holds a numeric non-key column
    beside that reference (the value of the attribute for an entity: ``hero_attribute(hero_id,
    attribute_id, attribute_value)``). Keys are primary-key columns and columns that refer to
    another table. Returns the qualifying name columns, in catalog order."""
    columns = [c for c in view.columns if c.source_id == source_id]
    by_table: dict[str, list[ColumnInfo]] = {}
    for c in columns:
        by_table.setdefault(c.table, []).append(c)

    def key(c: ColumnInfo) -> bool:
        return c.primary_key or bool(c.references)

    valued = {table for table, cols in by_table.items() if any(not key(c) and numeric_column(c) for c in cols)}
    # (referenced table, referring table) for every reference from a table that holds a value
    referred = {(ref[0].lower(), c.table) for c in columns if c.table in valued for ref in c.references}
    out: list[ColumnInfo] = []
    for table, cols in by_table.items():
        names = [c for c in cols if not key(c) and not numeric_column(c)]
        if len(names) != 1 or table in valued:
            continue
        if any(target == table.lower() and source != table for target, source in referred):
            out.append(names[0])
    return out


def _hidden_name_candidate(sig_id: str, reason: str, view: OntologyView, iris: IriFactory, hit: ValueHit,
                           word: str, relation: str) -> Candidate | None:
    """``word`` as a hidden label of the stored value ``hit`` (see :func:`_pointer_value_candidates`);
    ``relation`` says how the word points at it. None when the value's Term has the word already."""
    from evoonto.builder.propose import term_slug

    why = f"({relation}; a probe found {hit.value!r} stored whole)"
    because = reason + f"; {word!r} points at {hit.value!r}, stored in {hit.table}.{hit.column}"
    term = iris.term(hit.source_id, term_slug(hit.table, hit.column, hit.value))
    if (term, rdflib.RDF.type, EVO.Term) not in view.content:
        return _new_value_term(sig_id, because, f"found by {word!r} {why}", iris, hit, hidden_labels=(word,))
    if normalize(word) in {normalize(str(o)) for p in (SKOS.altLabel, SKOS.hiddenLabel, SKOS.prefLabel)
                           for o in view.content.objects(term, p)}:
        return None
    # the probe that found the value stored backs the new label (Evidence derived from the Term)
    evidence = AddEvidence(hit.source_id, hit.query, (hit.value,), (str(term),), rows_observed=hit.rows)
    return Candidate(sig_id, f"add hidden label {word!r} to the value {hit.table}.{hit.column} = {hit.value!r} {why}",
                     "content", (evidence, AddSynonym(str(term), word, hidden=True)), because)


def _current_weights(view: OntologyView) -> dict[str, float]:
    """Browse field weights in effect: the tool layer's defaults overridden by the tools graph."""
    from evoonto.namespaces import EVO
    from evoonto.tools.settings import DEFAULT_WEIGHTS

    weights = dict(DEFAULT_WEIGHTS)
    for node in view.tools.subjects(EVO.field, None):
        name, value = view.tools.value(node, EVO.field), view.tools.value(node, EVO.weight)
        try:
            if str(name) in weights and value is not None:
                weights[str(name)] = float(value)
        except ValueError:
            continue
    return weights


def compile_check(candidate: Candidate, ctx: EditContext) -> str | None:
    """None when the candidate compiles against the parent, else the one-line reason it does not."""
    try:
        candidate.compile(ctx)
    except (EditError, CandidateError) as exc:
        return str(exc)
    return None


__all__ = ["Candidate", "CandidateError", "merge", "propose", "compile_check", "AddTerm"]
