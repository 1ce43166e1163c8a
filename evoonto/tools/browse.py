"""``browse(q, kind, n)``: ranked candidates for a query (paper §3, Tool layer; DESIGN.md §5).

Ranking: per-field BM25 (bm25s, weights from the Tool graph) over the query terms, where query
terms missing from the vocabulary are replaced by close vocabulary tokens (rapidfuzz ``ratio``), and
identifier words that truncate a term (``visib`` for "visibility", ``dewp`` for "dew point") stand
for it at :data:`ABBREVIATION_WEIGHT` (:func:`abbreviations`).
On the BM25 shortlist each score is multiplied by the share of query terms the record matches (the
coord factor of Lucene's classic similarity), then fused with rapidfuzz ``token_sort_ratio`` between
the query and the record's labels::

    score = (1 - f) * s / max_s + f * label_similarity / 100     (s = bm25 * coverage; f = 0.3)

Text given with the question that explains it (BIRD's evidence, a hint) is passed as ``context``:
its terms are searched too, at :data:`CONTEXT_WEIGHT` of a question term, so its many other words
do not outweigh the question's own. Long queries (up to :data:`MAX_QUERY_CHARS` characters) are
searched by their first :data:`MAX_QUERY_TERMS` distinct terms (terms the index knows first), never
refused for their length; a query none of whose terms is indexed falls back to fuzzy label similarity, so
it still returns the best partial candidates.

**Values under their column**: value Terms (the builder's Terms for ``column = value``) never crowd
the answer: in the verbose format the value Terms of one column after the first are merged into the
first one's snippet; in the compact format every hit of a column is one line with the matched values
inline.

**Two formats** (``format=``, default ``evo:answerFormat`` of the tools graph, ``verbose``):

* ``verbose``: ``[{id, kind, label, snippet, score}]``, ``n`` hits;
* ``compact``: ``{id, kind, label}`` entries: for the best matches one line each,
  ``"table"."column" TYPE = 'matched value' -- meaning`` (identifiers quoted so the text can be
  pasted into SQL; values sharing only some words with the query follow as ``holds 'value'``),
  then further candidates named tersely in one line per table
  (``"t"("a", "b")``, as schema-linking prompts list a table; a column keeps the value the query
  named in it, ``"t"("a", "b" = 'v')``, else one it holds that shares words with the query,
  ``"b" holds 'v'``). Two stages, as schema-linking
  systems do: the tables of the ranked hits
  are ranked by their best hit, then the other columns of those tables join the candidates with
  :data:`TABLE_PRIOR` times their table's score; candidates are kept in score order while the
  answer's compact JSON fits the character ``budget`` (default ``evo:answerBudget``, 6,000), so the
  budget, not a fixed ``n``, decides the depth (see :func:`compact_answer`).

A verbose hit whose match came from Evidence values (``evo:sampleValue``, ``evo:valueDistribution``)
says so in its snippet, with the value quoted: data is always returned as a quoted string inside a field.
"""

from __future__ import annotations

import bisect
import functools
import heapq
import json
import logging
import math
import re
import weakref
from typing import Any, Collection, Iterable, Iterator, Mapping, Sequence

import numpy as np

from evoonto.errors import ToolArgumentError
from evoonto.records import DEFINITION_KEY_LEAD, DEFINITION_LINK_LEAD
from evoonto.text import common_english_word
from evoonto.tools.index import KINDS, Document, SearchIndex, tokenize, value_of
from evoonto.tools.settings import ANSWER_FORMATS, BrowseSettings

#: Longest query accepted (characters); longer queries are searched by their terms, not refused,
#: up to this hard bound on input size.
MAX_QUERY_CHARS = 20_000
#: Distinct query terms searched; a longer query keeps its indexed terms first, in query order.
MAX_QUERY_TERMS = 64
SHORTLIST = 50
#: Shortlist of the compact format (it lists more candidates per answer).
COMPACT_SHORTLIST = 300
KIND_CHOICES = KINDS + ("any",)
#: Compact answer, stage two: an unmatched column of a matched table scores this share of its
#: table's best hit, so the columns of the most relevant tables (attributes to select) come before
#: weak matches in unrelated tables; its key columns (primary, referencing or referenced) score as
#: much as the table, since any join needs them (schema filters such as RESDSQL's and CHESS's keep
#: the keys of every selected table). Priors, not fitted to any benchmark.
TABLE_PRIOR = 0.5
#: Share of a compact answer's budget given to full lines (the best matches, with type, values and
#: meaning); the rest names further candidates tersely, table by table, so the budget buys breadth.
HEAD_SHARE = 0.3
#: Compact answer: a family member named by its key ranks its family with the best table when
#: another query word matched the family too ("matched"), always ("always") or never ("off").
FAMILY_KEY_RANK = "matched"
#: Compact answer: share of a value-index hit's score (0..1) its column gets (a value that is a
#: name or code; numbers and dates only ride in lines of columns that are candidates anyway).
VALUE_HIT_SHARE = 0.5
#: Compact answer: bridge tables are looked for between the pairs of this many best tables, and a
#: pair joined through more than MAX_BRIDGES tables (a hub) adds none (see :func:`bridge_tables`).
BRIDGE_TABLES = 6
MAX_BRIDGES = 3
#: Share of a compact answer's budget one table's line of further columns may take with columns
#: no query word matched (a 200-column table listed in schema order would eat the budget): past it,
#: the table's unmatched columns give way to other tables' candidates.
LINE_SHARE = 0.25
#: Characters of a compact line's meaning and of one inline value.
MEANING_CHARS = 80
VALUE_CHARS = 40
#: Longest meaning (characters) a compact line stretches to so that a computed Term's formula (a
#: mined metric's ``SUM(…)``, a named filter's condition) is shown whole; a longer one is left out.
FORMULA_MEANING_CHARS = 3 * MEANING_CHARS
#: Smallest and largest ``budget`` a caller may ask for (characters).
MIN_BUDGET, MAX_BUDGET = 200, 200_000
#: Weight of a query term that only the context given with the question (``context=``, e.g. BIRD
#: evidence) holds, relative to a term of the question itself: the context explains the question's
#: words, and its many other words (``refers to``, formulas, every column it names in passing)
#: must not outweigh them. A prior, not fitted to any benchmark.
CONTEXT_WEIGHT = 0.5
#: The zero-hit fallback: rapidfuzz WRatio (0..100) a label needs, and the query terms it needs.
FALLBACK_CUTOFF = 60.0
FALLBACK_TERMS = 3
LABEL_FIELDS = {"prefLabel", "altLabel", "hiddenLabel"}
#: Fewest letters of a question word an identifier must keep to count as its truncation
#: (:func:`abbreviations`): three-letter beginnings (``pro``, ``per``, ``con``) start too many words.
ABBREVIATION_MIN = 4
#: Longest identifier word the abbreviation search considers (letters): longer ones are names, not
#: shortened words, and the search's cost grows with the square of this length.
ABBREVIATION_MAX = 20
#: Weight of an identifier word that abbreviates a query term (:func:`abbreviations`), relative to
#: the term itself, in the BM25 sum and in the coverage share: a guess from the letters alone. A
#: prior, not fitted to any benchmark.
ABBREVIATION_WEIGHT = 0.5


def check_browse_args(q: Any, kind: Any, n: Any, settings: BrowseSettings) -> tuple[str, str, int]:
    """Validate browse arguments; returns ``(q, kind, n)`` with ``n`` defaulted.

    Raises:
        ToolArgumentError: ``q`` not a non-blank string of at most :data:`MAX_QUERY_CHARS` characters; ``kind`` not one
            of term/mapping/constraint/evidence/relation/any; ``n`` not an integer in
            1..``settings.max_results``.
    """
    if not isinstance(q, str) or not q.strip():
        raise ToolArgumentError("browse: query must be a non-empty string")
    if len(q) > MAX_QUERY_CHARS:
        raise ToolArgumentError(f"browse: query is {len(q)} characters long; the maximum is {MAX_QUERY_CHARS}")
    if not isinstance(kind, str) or kind not in KIND_CHOICES:
        shown = kind[:40] if isinstance(kind, str) else type(kind).__name__
        raise ToolArgumentError(f"browse: unknown kind {shown!r}; use one of {', '.join(KIND_CHOICES)}")
    if n is None:
        n = settings.default_results
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= settings.max_results:
        raise ToolArgumentError(f"browse: n must be an integer from 1 to {settings.max_results}")
    return q, kind, n


def _value_snippet(query_tokens: set[str], values: list[str]) -> str | None:
    for value in values[:200]:
        if query_tokens & set(tokenize(value)):
            return f"value {json.dumps(value[:60], ensure_ascii=False)}"
    return None


def collapse_key(kind: str, locations) -> tuple[str, str] | None:
    """The collapsing key of a document: (its kind, its first ``table.column`` location in sorted
    order), or None when it maps no column (table-level Terms and Mappings are never collapsed).
    :mod:`evoonto.evolution.diagnose` uses the same key to find crowded answers."""
    columns = sorted(loc for loc in locations if "." in loc)
    return (kind, columns[0]) if columns else None


def collapse_by_column(ranked: list[tuple[float, int]], documents: Sequence[Any],
                       per_column: int) -> list[tuple[float, int]]:
    """Result collapsing (``evo:hitsPerColumn``): keep at most ``per_column`` entries of ``ranked``
    ((score, document index) pairs, best first) with the same :func:`collapse_key` (documents of one
    kind mapping the same table column, e.g. a column's Term and its value Terms); documents without
    a column are never collapsed. ``per_column`` 0 keeps everything. Order is preserved."""
    if per_column <= 0:
        return ranked
    seen: dict[tuple[str, str], int] = {}
    kept = []
    for pair in ranked:
        doc = documents[pair[1]]
        key = collapse_key(doc.kind, doc.locations)
        if key is not None:
            if seen.get(key, 0) >= per_column:
                continue
            seen[key] = seen.get(key, 0) + 1
        kept.append(pair)
    return kept


def query_terms(index: SearchIndex, q: str, context: str | None = None) -> list[str]:
    """The terms a query is searched by: its distinct tokens in order, then those of ``context``
    it does not already hold, at most :data:`MAX_QUERY_TERMS` (when there are more, the ones the
    index knows, exactly or fuzzily, come first, the question's before the context's), so a long
    question with its evidence is cut by terms instead of refused."""
    tokens = list(dict.fromkeys(tokenize(q) + compounds(index, q)
                                + (tokenize(context) + compounds(index, context) if context else [])))
    if len(tokens) <= MAX_QUERY_TERMS:
        return tokens
    known = [t for t, group in zip(tokens, index.expand(tokens), strict=True) if group]
    kept = set((known + [t for t in tokens if t not in set(known)])[:MAX_QUERY_TERMS])
    return [t for t in tokens if t in kept]


def compounds(index: SearchIndex, text: str) -> list[str]:
    """Two adjacent words of ``text`` written as one word, when the index holds that word: "New
    Delhi wind" also searches ``newdelhi`` (a column ``newdelhi_wind``), "birth date" ``birthdate``.
    Identifiers often close up a compound that prose writes apart, and the tokenizer can split a
    ``camelCase`` or ``snake_case`` name but not a closed-up lower-case one.

    Returns:
        The index tokens (stemmed, as :func:`tokenize` writes them) of the closed-up pairs found, in
        text order, without repeats; ``[]`` for text over 2,000 characters (a question's words are
        paired, not a document's).
    """
    if len(text) > 2_000:
        return []
    plain = tokenize(text, stemmed=False)
    found = []
    for first, second in zip(plain, plain[1:], strict=False):
        if first.isdigit() or second.isdigit():
            continue
        joined = tokenize(first + second)
        if len(joined) == 1 and joined[0] in index.vocab:
            found.append(joined[0])
    return list(dict.fromkeys(found))


#: Per index, the identifier words that may abbreviate a query term (see :func:`abbreviations`):
#: sorted, and each with its index token.
_ABBREVIATION_WORDS: "weakref.WeakKeyDictionary[SearchIndex, tuple[list[str], dict[str, str]]]" = \
    weakref.WeakKeyDictionary()



def abbreviation_words(index: SearchIndex) -> tuple[list[str], dict[str, str]]:
    """The words of table and column names (the index's ``column`` field, as written) that can
    abbreviate a query term: :data:`ABBREVIATION_MIN` to :data:`ABBREVIATION_MAX` letters, and not a common English
    word (:func:`common_english_word`: a schema's ``count`` or ``code`` is that word, not a
    shortened ``country`` or ``company department``). Built once per index.

    Returns:
        ``(words sorted, {word: its index token})``.
    """
    known = _ABBREVIATION_WORDS.get(index)
    if known is None:
        try:
            tokens = {word: token for word, token in index.identifier_words.items()
                      if ABBREVIATION_MIN <= len(word) <= ABBREVIATION_MAX and word.isalpha()
                      and not common_english_word(word)}
        except Exception as exc:  # wordfreq missing or its data unreadable: no abbreviations, browse goes on
            logging.getLogger(__name__).warning("abbreviation search off: wordfreq unavailable (%s)", exc)
            tokens = {}
        known = _ABBREVIATION_WORDS[index] = (sorted(tokens), tokens)
    return known


def abbreviations(index: SearchIndex, tokens: Sequence[str]) -> list[list[str]]:
    """Identifier words that abbreviate query terms by truncation, as schemas often do: a column
    ``visib`` for "visibility", ``cust`` for "customer", and for two adjacent terms a closed-up
    form of their beginnings, ``dewp`` for "dew point". Candidates are the words of
    :func:`abbreviation_words` (identifier words of at least :data:`ABBREVIATION_MIN` letters that
    are not common English words), compared as written, not stemmed; a truncation keeps at least
    :data:`ABBREVIATION_MIN` letters of one term, or two letters of a term and at least one of the
    next (the whole pair closed up is :func:`compounds`' form); a query term itself is never
    another's abbreviation. General knowledge of how identifiers are shortened; no list of
    abbreviations is involved. A guess: :func:`rank` weighs them :data:`ABBREVIATION_WEIGHT` of
    the term they abbreviate, in its score and in its coverage.

    Args:
        index: the :class:`SearchIndex` searched.
        tokens: query terms in text order (stemmed, as :func:`query_terms` returns them; a stem
            begins as its word does, up to its last letters).
    Returns:
        One list per distinct term of ``tokens``, in order: the index tokens abbreviating it (a
        closed-up pair's under both terms), without repeats (``[]`` for most terms). A term costs at
        most about :data:`ABBREVIATION_MAX` squared sorted-list lookups (a few in practice: the
        search stops at the first beginning no candidate word has).
    """
    terms = list(dict.fromkeys(tokens))
    out: list[list[str]] = [[] for _ in terms]
    words, token_of = abbreviation_words(index)
    if not words:
        return out
    own = set(terms)

    def begins(text: str) -> bool:  # some candidate word begins with text
        k = bisect.bisect_left(words, text)
        return k < len(words) and words[k].startswith(text)

    def keep(k: int, text: str) -> None:
        token = token_of.get(text)
        if token is not None and token not in own:
            out[k].append(token)

    for k, term in enumerate(terms):
        if not term.isalpha():
            continue
        for end in range(2, len(term)):
            if not begins(term[:end]):
                break
            if end >= ABBREVIATION_MIN:
                keep(k, term[:end])
        second = terms[k + 1] if k + 1 < len(terms) else ""
        if not second.isalpha():
            continue
        for i in range(2, len(term) + 1):
            if not begins(term[:i]):
                break
            for j in range(1, len(second) + 1):
                short = term[:i] + second[:j]
                if not begins(short):
                    break
                if len(short) >= ABBREVIATION_MIN and (i, j) != (len(term), len(second)) \
                        and not term.startswith(short):  # (a longer beginning of the first term alone)
                    keep(k, short)
                    keep(k + 1, short)
    return [list(dict.fromkeys(group)) for group in out]


def rank(index: SearchIndex, settings: BrowseSettings, tokens: list[str], kind: str,
         shortlist: int = SHORTLIST, *, fallback: bool = True,
         context_tokens: Collection[str] = ()) -> tuple[list[tuple[float, int]], set[str]]:
    """Ranked documents for query terms (the module docstring's score), best first.

    ``fallback``: when no term is indexed and the query has at least :data:`FALLBACK_TERMS` terms
    (a question, not a phrase) and labels are searched fields, rank by fuzzy label similarity.
    ``context_tokens``: the terms of ``tokens`` that came only from the query's context (text
    given with the question, e.g. BIRD evidence): they count :data:`CONTEXT_WEIGHT` of a question
    term in the BM25 sum and in the coverage share, and not in the label similarity.

    Returns:
        ``(ranked, matched)``: ``[(score in 0..1, document position)]`` over the BM25 shortlist of
        ``shortlist`` documents of ``kind`` (or the fuzzy-label fallback when no term is indexed),
        and the vocabulary tokens the query matched.
    """
    from rapidfuzz import fuzz, process

    if not tokens or index.size == 0:
        return [], set()
    start, end = (0, index.size) if kind == "any" else index.kind_ranges.get(kind, (0, 0))
    if start == end:
        return [], set()
    context_tokens = set(context_tokens)
    share = [CONTEXT_WEIGHT if t in context_tokens else 1.0 for t in dict.fromkeys(tokens)]
    groups = index.expand(tokens)
    # identifier words abbreviating a term: searched at ABBREVIATION_WEIGHT of it, and a record
    # holding one covers that share of the term (below; a closed-up pair covers both its terms)
    token_groups = [{t for t, _ in group} for group in groups]  # (also the coverage's, below)
    shorter = [[token for token in short if token not in have]
               for have, short in zip(token_groups, abbreviations(index, tokens), strict=True)]
    weighted = [(token, weight * w) for group, w in zip(groups, share, strict=True) for token, weight in group]
    # (searched once: a closed-up pair stands for two terms, but is one word)
    abbreviated: dict[str, float] = {}
    for short, w in zip(shorter, share, strict=True):
        for token in short:
            abbreviated[token] = max(abbreviated.get(token, 0.0), ABBREVIATION_WEIGHT * w)
    weighted += list(abbreviated.items())
    query_text = " ".join(t for t in tokens if t not in context_tokens) or " ".join(tokens)
    docs, scores = index.candidates(weighted, settings.weights, start, end) if weighted else (np.empty(0), None)
    if len(docs) == 0:
        if not (fallback and len(tokens) >= FALLBACK_TERMS and set(settings.weights) & LABEL_FIELDS):
            return [], set()
        # a question none of whose terms is indexed: the best partial candidates by label
        # similarity (rapidfuzz WRatio), not "no match"
        labels = {i: index.label_norm[i] for i in range(start, end) if index.label_norm[i]}
        found = process.extract(query_text, labels, scorer=fuzz.WRatio,
                                score_cutoff=FALLBACK_CUTOFF, limit=shortlist)
        ranked = [(round(score / 100.0 * (1 - settings.fuzzy_weight), 6), int(i)) for _label, score, i in found]
        ranked.sort(key=lambda pair: (-pair[0], index.documents[pair[1]].iri))
        return ranked, set()
    assert scores is not None
    k = min(shortlist, len(docs))
    top_k = np.argpartition(-scores, k - 1)[:k] if k < len(docs) else np.arange(len(docs))
    bm25 = {int(docs[j]): float(scores[j]) for j in top_k}
    # coverage (Lucene's classic coord factor): the share of query tokens a record matches
    total = sum(share)
    raw = {}
    for i, score in bm25.items():
        present = set(index.doc_tokens[i].split())
        raw[i] = score * sum(w if g & present else ABBREVIATION_WEIGHT * w if short and present.intersection(short)
                             else 0.0 for g, short, w in zip(token_groups, shorter, share, strict=True)) / total
    top = max(raw.values()) or 1.0
    f = settings.fuzzy_weight
    ranked = []
    for i in bm25:
        similarity = fuzz.token_sort_ratio(query_text, index.label_norm[i])
        ranked.append(((1 - f) * raw[i] / top + f * similarity / 100.0, i))
    ranked.sort(key=lambda pair: (-pair[0], index.documents[pair[1]].iri))
    return ranked, {t for t, _ in weighted}


def _json_size(obj: Any) -> int:
    return len(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))


def _fit(hits: list[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """The longest prefix of ``hits`` whose compact JSON list fits ``budget`` characters (at least one)."""
    size = 1
    for count, hit in enumerate(hits):
        size += _json_size(hit) + 1
        if count and size > budget:
            return hits[:count]
    return hits


def browse(index: SearchIndex, settings: BrowseSettings, q: str, *, kind: str = "term", n: int | None = None,
           id_of=lambda iri: iri, format: str | None = None, budget: int | None = None,
           fallback: bool = True, value_hits: Iterable[tuple[str, str, float] | tuple[str, str, float, bool]] = (),
           joins: Mapping[str, Collection[str]] | None = None,
           context: str | None = None) -> list[dict[str, Any]]:
    """Ranked records for ``q``.

    Args:
        index: the :class:`SearchIndex` of the ontology version.
        settings: browse settings (field weights, limits, fuzzy weight, answer format and budget).
        q: free text or identifiers (``singer age``, ``Singer_ID``, a value like ``Banned``), or a
            whole question (searched by its terms, see :func:`query_terms`; text given with it
            goes to ``context``).
        kind: term, mapping, constraint, evidence, relation, verified (verified queries) or any.
        n: number of hits (verbose default ``settings.default_results``; with a ``budget`` or in the
            compact format, at most ``n`` hits, default ``settings.max_results`` / no limit).
        id_of: maps a record IRI to the id shown to the agent.
        format: ``verbose`` or ``compact`` (default ``settings.answer_format``); see the module docstring.
        budget: characters of the answer as compact JSON (compact default ``settings.answer_budget``;
            verbose: no budget unless given).
        fallback: allow the fuzzy-label fallback of :func:`rank` (coverage turns it off).
        value_hits: compact format: stored values the query names, ``(table.column, value, score in
            0..1[, named])`` (the value index's hits, :mod:`evoonto.tools.values`): each value is carried in
            its column's line and, for a value with letters, the column ranks at least at
            :data:`VALUE_HIT_SHARE` × that score. ``named`` False (a fuzzy match: 'Untitled' for
            "United") writes it ``holds 'v'``, not ``= 'v'``; default True.
        joins: compact format: table -> the tables it joins (:func:`bridge_tables`), or None.
        context: text given with the question that explains it (BIRD's evidence, a glossary
            note, the agent's own notes), or None: its terms are searched too, at
            :data:`CONTEXT_WEIGHT` of a question term (see :func:`rank`).
    Returns:
        verbose: up to ``n`` dicts ``{id, kind, label, snippet, score}`` (score in 0..1, 3 decimals);
        compact: dicts ``{id, kind, label}`` with the one-line candidate as ``label``; best first;
        ``[]`` when nothing matches.
    Raises:
        ToolArgumentError: see :func:`check_browse_args`; an unknown ``format``; ``budget`` not an
            integer in 200..200,000.
    """
    fmt = settings.answer_format if format is None else format
    if fmt not in ANSWER_FORMATS:
        raise ToolArgumentError(f"browse: unknown format {str(fmt)[:40]!r}; use one of {', '.join(ANSWER_FORMATS)}")
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int)
                               or not MIN_BUDGET <= budget <= MAX_BUDGET):
        raise ToolArgumentError(f"browse: budget must be an integer from {MIN_BUDGET} to {MAX_BUDGET} characters")
    limit = n
    if n is None and (budget is not None or fmt == "compact"):
        n = settings.max_results  # only validated below; the budget decides the depth
    q, kind, n = check_browse_args(q, kind, n, settings)
    context = check_context(context)
    tokens = query_terms(index, q, context)
    asked = set(tokenize(q)) | set(compounds(index, q))
    weak = [t for t in tokens if t not in asked]
    if fmt == "compact":
        ranked, matched = rank(index, settings, tokens, kind, shortlist=max(COMPACT_SHORTLIST, n), fallback=fallback,
                               context_tokens=weak)
        return compact_answer(index, ranked, matched, kind=kind, id_of=id_of, limit=limit,
                              budget=settings.answer_budget if budget is None else budget,
                              value_hits=value_hits, query_tokens=tokens, words_said=query_words(q, context),
                              joins=joins, full_lines_matched_only=settings.full_lines_matched_only)
    ranked, token_set = rank(index, settings, tokens, kind, shortlist=max(SHORTLIST, n), fallback=fallback,
                             context_tokens=weak)
    ranked = collapse_by_column(ranked, index.documents, settings.hits_per_column)
    hits: list[dict[str, Any]] = []
    value_hit_of: dict[str, dict[str, Any]] = {}  # column -> the first value-Term hit shown for it
    for score, i in ranked:
        if len(hits) >= n:
            break
        doc = index.documents[i]
        value = value_of(doc)
        if value is not None and doc.locations[0] in value_hit_of:
            # values under their column: later value Terms of a column never take a slot of their own
            first = value_hit_of[doc.locations[0]]
            if len(first["snippet"]) < 300:
                first["snippet"] += f"; also {json.dumps(value[:VALUE_CHARS], ensure_ascii=False)}"
            continue
        snippet = doc.snippet
        if not (token_set & set(tokenize(doc.label))):
            value_hit = _value_snippet(token_set, doc.values)
            if value_hit:
                snippet = f"{value_hit}; {snippet}" if snippet else value_hit
        hit = {"id": id_of(doc.iri), "kind": doc.kind, "label": doc.label, "snippet": snippet,
               "score": round(score, 3)}
        if value is not None:
            value_hit_of[doc.locations[0]] = hit
        hits.append(hit)
    return hits if budget is None else _fit(hits, budget)


def value_words(doc: Document, value: str, location: str | None) -> set[str]:
    """The tokens that name a value Term's value itself: the value's own words, those of its
    alternative labels (a documented meaning such as ``female`` for ``'F'``, :mod:`evoonto.builder`)
    and those of its hidden labels (a word that points at the value without naming it, such as
    *fastest* for the attribute ``'Speed'``, :mod:`evoonto.evolution`), less the words of its table
    and column, which every value Term of the column carries (the builder's hidden label
    ``table.column = value`` adds nothing else)."""
    value_tokens = set(tokenize(value))
    labels = (*doc.fields.get("altLabel", ()), *doc.fields.get("hiddenLabel", ()))
    own = value_tokens | set(tokenize(" ".join(labels)))
    if location is None:
        return own
    return own - (set(tokenize(location.replace(".", " "))) - value_tokens)


def query_words(*texts: str | None) -> frozenset[str]:
    """The words ``texts`` (a question and its context) write, case-folded and not stemmed, with
    each two adjacent words also closed up (``newdelhi``, as :func:`compounds` searches): what
    :func:`names_value` checks a value's words against."""
    out: set[str] = set()
    for text in texts:
        if not text:
            continue
        words = tokenize(text, stemmed=False)
        out.update(words)
        out.update(a + b for a, b in zip(words, words[1:], strict=False))
    return frozenset(out)


def _inflects(word: str, other: str) -> bool:
    """Whether ``word`` and ``other`` (case-folded, with the same stem) are one word inflected:
    one begins the other ("teacher"/"teachers", "run"/"running"). Two words a stemmer merely
    folds together ("units"/"United", both ``unit``) are not."""
    return word.startswith(other) or other.startswith(word)


def names_value(said: set[str] | frozenset[str], value: str, words: Collection[str] | None = None) -> bool:
    """Whether a query whose own words are ``said`` (index tokens, as :func:`query_terms` gives them;
    not the spellings ranking expands them to) names ``value``: every word of the value (its
    :func:`~evoonto.text.tokenize` tokens; a value of stop words only is never named). One word of
    several is another value: "customers in the United States" does not name ``'United Kingdom'``,
    which a compact line would otherwise write as ``"Country" = 'United Kingdom'``.

    With ``words`` (the query's own words, :func:`query_words`), each word of the value must also be
    a query word inflected (:func:`_inflects`), not only share its stem: "units in each state" does
    not name ``'United States'`` (Snowball stems "units" and "United" alike)."""
    tokens = set(tokenize(value))
    if not tokens or not tokens <= said:
        return False
    if words is None:
        return True
    for word in tokenize(value, stemmed=False):
        stems = tokenize(word)
        if stems and not any(_inflects(word, w) and tokenize(w) == stems for w in words if w[:1] == word[:1]):
            return False
    return True


def _meaning(doc: Document, type_name: str) -> str:
    """The first definition of ``doc``, without a repeated ``(TYPE)``, cut to :data:`MEANING_CHARS`."""
    texts = doc.fields.get("definition") or [doc.snippet]
    text = " ".join(texts[0].split())
    if type_name:
        text = text.replace(f" ({type_name})", "")
    if len(text) <= MEANING_CHARS:
        return text
    cut = MEANING_CHARS - 1
    key = text.find(DEFINITION_KEY_LEAD)  # kept whole, past MEANING_CHARS if need be
    if key < 0:
        key = text.find(DEFINITION_LINK_LEAD)
    if 0 <= key < cut:
        # a key is given whole or not at all: "identified by Order Details.OrderID, …" read as a
        # one-column key of a table whose key is (OrderID, ProductID)
        end = next((i for i in (text.find(";", key), text.find(", named by", key)) if i > 0), len(text))
        cut = max(cut, end) if end <= 2 * MEANING_CHARS else key
    for formula in doc.fields.get("hiddenLabel", ()):
        # a computed Term's formula likewise: half of "SUM(a * b * (1 - …" pasted is broken SQL
        at = text.find(formula) if len(formula) > 3 else -1
        if 0 <= at < cut < at + len(formula):
            end = at + len(formula)
            cut = end if end <= FORMULA_MEANING_CHARS else at
            break
    return text if cut >= len(text) else text[:cut].rstrip(" ,;=") + "…"


def compact_line(doc: Document, location: str | None, values: list[str], partial: Sequence[str] = ()) -> str:
    """One compact candidate: ``"table"."column" TYPE = 'v1', 'v2' -- meaning`` (identifiers and
    values quoted with :mod:`evoonto.sources.quoting`, ANSI double quotes), or ``label -- meaning``
    for a record that maps no table. ``values`` are those the query names (every word of each:
    :func:`names_value`), written ``= …``; ``partial`` values share only some words with it
    (``'North Carolina'`` for "contains 'North'", ``'United Kingdom'`` for "United States"), written
    ``holds …``: the column holds them, the query does not name them. Three values in all at most."""
    from evoonto.sources.quoting import quote_literal

    type_name = doc.types.get(location or "", "")
    name = _quoted(location) if location else doc.label
    parts = [name]
    if type_name:
        parts.append(type_name)
    if values:
        parts.append("= " + ", ".join(quote_literal(v[:VALUE_CHARS]) for v in values[:3]))
    if partial and len(values) < 3:
        parts.append("holds " + ", ".join(quote_literal(v[:VALUE_CHARS]) for v in partial[:3 - len(values)]))
    meaning = _meaning(doc, type_name)
    if meaning:
        parts.append(f"-- {meaning}")
    return " ".join(parts)


def bridge_tables(table_score: Mapping[str, float], joins: Mapping[str, Collection[str]]) -> dict[str, float]:
    """Tables on the join path between two of the best-ranked tables that do not join directly:
    the tables that join both (a bridge, e.g. ``enrollment`` between ``student`` and ``course``),
    scored :data:`TABLE_PRIOR` × the lower of the two tables' scores, so a bridge's keys come early
    (a query rarely names the table it must join through). Pairs among the :data:`BRIDGE_TABLES`
    best tables only; a pair with more than :data:`MAX_BRIDGES` bridges (a hub) adds none.

    Args:
        table_score: table -> score of its best candidate (0..1).
        joins: table -> the tables it joins (declared or probed joins, both directions).
    Returns:
        ``{bridge table: score}`` for the bridges this scores higher than ``table_score`` does.
    """
    top = [t for t, score in sorted(table_score.items(), key=lambda pair: (-pair[1], pair[0]))[:BRIDGE_TABLES]
           if score > 0]
    found: dict[str, float] = {}
    for i, a in enumerate(top):
        for b in top[i + 1:]:
            if b in joins.get(a, ()):
                continue
            middle = sorted(set(joins.get(a, ())) & set(joins.get(b, ())) - {a, b})
            if not middle or len(middle) > MAX_BRIDGES:
                continue
            score = TABLE_PRIOR * min(table_score[a], table_score[b])
            for bridge in middle:
                if score > max(table_score.get(bridge, 0.0), found.get(bridge, 0.0)):
                    found[bridge] = score
    return found


def joined_columns(table: str, score: float, columns: Sequence[str], table_score: Mapping[str, float],
                   joins: Mapping[str, Collection[str]] | None) -> list[tuple[str, float]]:
    """The columns of ``table`` (``table.column`` locations among ``columns``, in their order) by which
    it joins another table of the answer (one with a score above 0), when ``table`` itself scored
    above 0: the join keys of the answer's tables that no declared key marks (a probed inclusion or
    two columns referencing one key; see :func:`evoonto.tools.joinpaths.table_joins`). Each comes
    with the lower of the two tables' scores (the best such pair): a join key is needed once both of
    its tables are in the answer, so it ranks no earlier than the later of them.

    Args:
        table: the table; score: its score in the answer (0..1).
        columns: its mapped columns (``SchemaLayout.table_columns``).
        table_score: table -> score of the answer's tables.
        joins: table -> {joined table -> own join column names}; a plain collection of joined tables
            (no columns known) or None gives none.
    Returns:
        ``[(location, score)]`` without repeats; ``[]`` when none.
    """
    partners = joins.get(table) if joins and score > 0 else None
    if not isinstance(partners, Mapping):
        return []
    wanted: dict[str, float] = {}
    for other, names in partners.items():
        other_score = table_score.get(other, 0.0)
        if other_score > 0:
            for name in names:
                key = name.casefold()
                wanted[key] = max(wanted.get(key, 0.0), min(score, other_score))
    return [(location, wanted[column]) for location in columns
            if (column := location.partition(".")[2].casefold()) in wanted]


def check_context(context: Any) -> str | None:
    """Validate browse's ``context``: None, or a string of at most :data:`MAX_QUERY_CHARS`
    characters (a blank one counts as None).

    Raises:
        ToolArgumentError: ``context`` is neither None nor a string, or is too long.
    """
    if context is None:
        return None
    if not isinstance(context, str):
        raise ToolArgumentError(f"browse: context must be a string, not {type(context).__name__}")
    if len(context) > MAX_QUERY_CHARS:
        raise ToolArgumentError(f"browse: context is {len(context)} characters long; the maximum is {MAX_QUERY_CHARS}")
    return context if context.strip() else None


def compact_answer(index: SearchIndex, ranked: list[tuple[float, int]], matched: set[str], *, kind: str,
                   budget: int, id_of=lambda iri: iri, limit: int | None = None,
                   value_hits: Iterable[tuple[str, str, float] | tuple[str, str, float, bool]] = (),
                   query_tokens: Iterable[str] = (), words_said: Collection[str] | None = None,
                   joins: Mapping[str, Collection[str]] | None = None,
                   full_lines_matched_only: bool = False) -> list[dict[str, Any]]:
    """The compact answer of a ranked list, best first, within ``budget`` characters of compact JSON.

    Stage one groups the hits by the column (or table) they map: the column's own Term stands for
    the group, value Terms and the values matching the query become its inline values. Stage two
    ranks tables by their best group and adds their other columns at :data:`TABLE_PRIOR` × that
    score (key columns just below the table's score, also when a query word matched them weakly:
    the prior is their floor; a column a query word or value matched never ranks below that prior,
    so it comes before its table's unmatched columns); stage three adds the remaining tables' columns at
    score 0 (stages two and three only for
    Term answers: ``kind`` term or any). Candidates, best first, get a full line
    (:func:`compact_line`) while every remaining candidate still fits tersely; when not all of them
    can fit, the matched ones (a floored key only when one of its values matched) may also take up
    to :data:`HEAD_SHARE` of the budget for full lines (at most ``limit`` full lines in all), also
    after a prior-only candidate was named tersely; every other candidate is named in a per-table
    line ``"t"("a", "b", …)`` (id: the table's Term), in score order, while the answer fits.
    With ``full_lines_matched_only`` (``evo:fullLinesMatchedOnly``), a candidate no query word or
    value matched (a key or column its table's prior brought in) never gets a full line, also when
    everything would fit: it is named in its table's line, and the matches after it keep their
    full lines (the answer is only as long as the question's matches need).
    Returns:
        ``[{id, kind, label}]``; at least one entry when anything matched.
    """
    documents, layout = index.documents, index.layout()
    # the words the query (and its context) wrote, as index tokens: a value is named by these, not by
    # the spellings ranking expanded them to ("unit" reaches "untitl": 'Untitled' is held, not named)
    said = set(query_tokens)

    def most_words_first(values: Iterable[str]) -> list[str]:
        # distinct values, those sharing more words with the query first (stable otherwise)
        return sorted(dict.fromkeys(values), key=lambda v: -len(matched & set(tokenize(v))))

    groups: dict[str, dict[str, Any]] = {}
    for score, i in ranked:
        doc = documents[i]
        location = doc.locations[0] if doc.kind == "term" and doc.locations else None
        key = location or doc.iri
        if location:
            table, dot, _ = location.partition(".")
            own = layout.column_term.get(location) if dot else layout.table_term.get(table)
            shown = own if own is not None else i
            if own is not None and own != i and (not dot or value_of(doc) is None):
                # a Term of its own over a table or column, not its own Term nor a value Term (a
                # metric a verified query defines, "Revenue = SUM(…)", "Sales volume =
                # SUM(line.quantity)"): a line of its own, besides ranking its table or column as before
                groups.setdefault(doc.iri, {"score": score, "doc": i, "location": None, "values": [],
                                            "partial": [], "matched": True})
        else:
            shown = i
        group = groups.setdefault(key, {"score": score, "doc": shown, "location": location, "values": [],
                                        "partial": [], "matched": True})
        value = value_of(doc)
        if not matched:
            continue
        if location and "." in location and not group.get("own"):
            # matched by its own name or label, not only by its table's name (which every column
            # of a table carries): only such a column may lengthen a table's line past its share
            table, _, column = location.partition(".")
            table_words = set(tokenize(table))
            # ... except a column named like its table (schools."School", race."race"): the table's
            # naming column, whose name is its own even though the table's name holds it
            column_words = set(tokenize(column))
            naming = column_words <= table_words and bool(matched & column_words)
            group["own"] = naming or bool((matched - table_words) & set(tokenize(f"{column} {doc.label}")))
            # matched by any word of its own (its name, label, description or values)
            group["word"] = (group.get("word") or naming
                             or bool((matched - table_words) & set(index.doc_tokens[i].split())))
        if value is not None:
            # the value itself matched, or one of its own names did (a documented meaning: "female"
            # for 'F'), not only its column's words, which every value Term of the column carries
            words = value_words(doc, value, location)
            if matched & words:
                # named: every word of the value, or a word of its documented meaning ("running
                # contract" for 'C'); a value only some of whose own words the query has is held
                whole = names_value(said, value, words_said) or bool(said & (words - set(tokenize(value))))
                group["values" if whole else "partial"].append(value)
        else:
            for v in doc.values[:200]:
                if names_value(said, v, words_said):
                    group["values"].append(v)
                elif matched & set(tokenize(v)):
                    group["partial"].append(v)
    if kind in ("term", "any"):
        # stored values the query names (the value index): the value goes into its column's line,
        # listed first, and the column ranks at least at the hit's score
        for location, value, value_score, *named_flag in value_hits:
            own = layout.column_term.get(location)
            if own is None:
                continue
            # a number, a date or a one-letter code found in some column says little about which
            # column the question means (on a wide schema many hold '2012', '0.3' or 'C'): it only
            # rides in a column's line that is a candidate anyway; a name or a longer code also
            # brings its column in
            wordy = any(ch.isalpha() for ch in value) and len(value.strip()) > 1
            if location not in groups:
                if not wordy:
                    continue
                groups[location] = {"score": 0.0, "doc": own, "location": location, "values": [], "partial": [],
                                    "matched": True}
            group = groups[location]
            if wordy:
                group["score"] = max(group["score"], VALUE_HIT_SHARE * value_score)
                group["matched"] = group["own"] = True
            if not named_flag or named_flag[0]:
                group.setdefault("found", []).append(value)
            else:  # a spelling the query comes close to, not one it names
                group["partial"].append(value)
    if not groups and layout.terse_floor > budget:
        # nothing matched and the schema does not fit: no arbitrary columns in its place (the
        # caller says what to try); a schema that fits is listed whole (below), which is the answer
        return []
    # family members the query names by their key ("1990" -> sales_1990): shown in place of the
    # family's representative table in every line of that table
    asked = {table: [members[key] for key in dict.fromkeys(query_tokens) if key in members]
             for table, members in layout.families.items()}
    asked = {table: names for table, names in asked.items() if names}
    representative = {member: table for table, members in layout.families.items()
                      for member in members.values() if member != table}
    line_cap = LINE_SHARE * budget
    lazy = False  # stage three generated while read (see below)
    table_score: dict[str, float] = {}
    streams: list[Iterable[dict[str, Any]]] = []  # per table, its other non-key columns in order

    def order(group: dict[str, Any]) -> tuple[float, str]:
        return (-group["score"], documents[group["doc"]].iri)

    def terse_name(group: dict[str, Any], bare: bool = False) -> str:
        # a column named in its table's line: its quoted name, and the value the query named in it
        # (the value index's find first, else a value Term that matched), so the value survives
        # when the column gets no full line
        from evoonto.sources.quoting import quote_literal

        column = _quoted(group["location"].partition(".")[2])
        named = group.get("found") or most_words_first(group["values"])
        held = [] if named else most_words_first(group.get("partial", ()))
        if not (named or held) or bare:
            return column
        value = " ".join((named or held)[0].split())  # one line: a value's line breaks and tabs fold to spaces
        return f"{column} {'=' if named else 'holds'} {quote_literal(value[:VALUE_CHARS])}"

    def others(table: str, score: float, columns: list[str], first: int) -> Iterator[dict[str, Any]]:
        # a table's non-key columns from position ``first`` on, at TABLE_PRIOR × its score a hair
        # apart: already in the answer's order (-score, then IRI), so generated only as far as read
        for rank_in_table in range(first, len(columns)):
            location = columns[rank_in_table]
            if location not in groups:
                yield {"score": TABLE_PRIOR * score - (rank_in_table + 1) * 1e-9,
                       "doc": layout.column_term[location], "location": location, "values": [], "matched": False}

    if kind in ("term", "any"):
        for group in groups.values():
            if group["location"]:
                table = group["location"].partition(".")[0]
                table_score[table] = max(table_score.get(table, 0.0), group["score"])
        if asked and table_score and FAMILY_KEY_RANK != "off":
            # a family member the query names by its key is a table the query names: its family
            # ranks with the best table (its keys then come early, its columns at TABLE_PRIOR) when
            # another word of the query matched it too (a year alone also dates rows of other tables)
            best = max(table_score.values())
            for table in asked:
                if table in layout.table_columns and (FAMILY_KEY_RANK == "always" or table_score.get(table, 0.0) > 0):
                    table_score[table] = max(table_score.get(table, 0.0), best)
        if joins:
            table_score.update(bridge_tables(table_score, joins))
        # a column a query word matched (by its own name, description or value, a value the value
        # index found in it included; not only by its table's name) is at least as relevant as its
        # table's columns no word matched (stage two gives them TABLE_PRIOR × the table's score): it
        # comes before them, not after (a weak match, e.g. one word of several or a truncated name,
        # would)
        for group in groups.values():
            location = group["location"]
            if location and "." in location and (group.get("word") or group.get("own") or group["values"]
                                                 or group.get("partial")):
                prior = TABLE_PRIOR * table_score.get(location.partition(".")[0], 0.0)
                if group["score"] < prior:  # raised, in the order of their own scores
                    group["score"] = prior + 1e-6 * group["score"]
        ranked_tables = sorted(table_score.items(), key=lambda pair: -pair[1])
        # stage three: the other tables, unranked (score 0), when the budget has room for them;
        # on a schema whose names alone exceed twice the budget, generated lazily (below)
        lazy = layout.terse_floor > 2 * budget
        if not lazy:
            ranked_tables += [(table, 0.0) for table in layout.table_columns if table not in table_score]
        for table, score in ranked_tables:
            # keys first, then schema order (SchemaLayout.table_columns), a hair apart so they stay
            # in that order after the score sort; the keys here (a key may raise a matched group),
            # the other columns as the table's stream, merged in while read: on a wide schema the
            # matched tables' columns are thousands, of which the answer names a few hundred
            columns = layout.table_columns.get(table, [])
            floors = []  # (key column, the score its table's prior gives it)
            for rank_in_table, location in enumerate(columns):
                if location not in documents[layout.column_term[location]].keys:
                    streams.append(others(table, score, columns, rank_in_table))
                    break
                floors.append((location, score - (rank_in_table + 1) * 1e-9))  # keys: as relevant as their table
            # the columns joining it to another ranked table (a probed or shared key no constraint
            # declares, e.g. two tables both holding a customer id) are keys of this answer too
            floors += [(location, pair_score - (len(columns) + k + 1) * 1e-9) for k, (location, pair_score)
                       in enumerate(joined_columns(table, score, columns, table_score, joins))]
            for location, floor in floors:
                if location not in groups:
                    groups[location] = {"score": floor, "doc": layout.column_term[location],
                                        "location": location, "values": [], "matched": False}
                elif groups[location]["score"] < floor:
                    # a key's prior is a floor: a key that matched a query word weakly (a "uuid"
                    # named "id" by the evidence) never ranks below the keys its table would get;
                    # it then counts as a prior candidate (named in its table's line) unless a
                    # value of it matched (a code the question names keeps its full line)
                    groups[location].update(score=floor, matched=bool(groups[location]["values"]
                                                                      or groups[location].get("partial")))

    ordered: Iterable[dict[str, Any]] = heapq.merge(sorted(groups.values(), key=order), *streams, key=order)
    tail_cost: dict[int, int] = {}
    if lazy:
        # The unmatched tables' columns follow at score -(position + 1) * 1e-9, in the order the
        # layout keeps (position, IRI): merged in as the loop below reads them, never all built.
        # Naming every column tersely takes more than twice the budget, so no full line ever
        # leaves room for all the rest (the full lines take at most the budget): the exact count
        # below could not change any decision.
        rest = ({"score": -(k + 1) * 1e-9, "doc": layout.column_term[loc], "location": loc, "values": [],
                 "matched": False} for k, _iri, loc in layout.by_position if loc.partition(".")[0] not in table_score)
        ordered = heapq.merge(ordered, rest, key=order)
        tail_left = math.inf
    else:
        ordered = list(ordered)
        # what naming every remaining column tersely would cost (a table line's own overhead included)
        tail_cost = {id(g): len(json.dumps(terse_name(g), ensure_ascii=False))
                     for g in ordered if g["location"] and "." in g["location"]}  # name, escaped quotes, ", "

        def table_overhead(table: str) -> int:
            owner = layout.table_term.get(table)
            ident = id_of(documents[owner].iri) if owner is not None else table
            return _json_size({"id": ident, "kind": "term", "label": f"{_quoted(table)}()"}) + 1

        tail_left = sum(tail_cost.values()) + sum(table_overhead(t) for t in {
            g["location"].partition(".")[0] for g in ordered if id(g) in tail_cost})
    # when every candidate fits tersely, full lines may only use the room that leaves; when not,
    # the best matches may take up to HEAD_SHARE of the budget for their full lines
    share = HEAD_SHARE * budget if tail_left + 1 > budget else 0.0
    out: list[dict[str, Any]] = []
    size = 1  # the list's brackets; each entry adds its JSON and a separator
    head = True  # until the first candidate named tersely
    full = 0
    tails: dict[str, dict[str, Any]] = {}  # table -> its tail entry
    listed: dict[str, dict[str, str]] = {}  # table -> {a column's bare name: how its line names it}
    valued: set[tuple] = set()  # member_value of the family members' columns named with their values
    overhead_paid: set[str] = set()  # tables whose line a prior-only candidate opened while full lines go on

    def member_value(group: dict[str, Any]) -> tuple | None:
        # (family, column, the values the query named in it) of a column of a family's table:
        # a further member holding the same values adds nothing an agent needs once one names them
        table, dot, column = (group["location"] or "").partition(".")
        if not dot or not (table in representative or table in layout.families):
            return None
        values = tuple(sorted(dict.fromkeys(group.get("found", []) + group["values"])))
        return (representative.get(table, table), column, values) if values else None

    for group in ordered:
        doc = documents[group["doc"]]
        location = group["location"]
        repeated = member_value(group)
        if repeated is not None and repeated in valued:
            continue
        # past the head, a full line fits only within the share: once the answer has reached it, no
        # full line can be taken any more (its cost is at least 1), so none is built
        # only matches take full lines (full_lines_matched_only): a prior-only candidate is named
        # tersely without ending the head, so the matches after it still get theirs
        terse_only = full_lines_matched_only and bool(out) and not group["matched"]
        if not terse_only and (head or (group["matched"] and size < share)) and (limit is None or full < limit):
            values = list(dict.fromkeys(group.get("found", []) + most_words_first(group["values"])))
            partial = most_words_first(v for v in group.get("partial", ()) if v not in values)
            label = compact_line(doc, location, values, partial)
            # a family member the question names by its key stands for the family, unless the line
            # shows values seen in this table (they were not seen in the member)
            members = asked.get(location.partition(".")[0], ()) if location and repeated is None else ()
            if members:
                rest = location.partition(".")[2]
                named = [f"{m}.{rest}" if rest else m for m in members]
                label = label.replace(_quoted(location), _quoted(named[0]), 1)
                if len(named) > 1:
                    label += " (also " + ", ".join(_quoted(loc) for loc in named[1:]) + ")"
            entry = {"id": id_of(doc.iri), "kind": doc.kind, "label": label}
            cost = _json_size(entry) + 1
            left = tail_left - tail_cost.get(id(group), 0)
            # a full line when the rest still fits tersely, or a match within the head's share (a
            # candidate that only its table's prior brought in, e.g. a key, never takes that share
            # from the matches after it: it is named in its table's line instead)
            if not out or (head and size + cost + left <= budget) or (group["matched"] and size + cost <= share):
                out.append(entry)
                if repeated is not None:
                    valued.add(repeated)
                full += 1
                size += cost
                tail_left = left
                continue
        head = head and terse_only
        if not location or "." not in location:
            continue  # tables and records without a column: named by their columns in the tail
        table, _dot, column = location.partition(".")
        # with the value the query named in it, or its bare name when only that still fits
        names = list(dict.fromkeys((terse_name(group), terse_name(group, bare=True))))
        bare = names[-1]
        full_stop = False
        # a member that kept Terms of its own is named in its family's line (the representative's,
        # or the members the query names by key): one line for a family, not one per member. A
        # value the query named stays in the line of the table it was seen in (it was not seen in
        # the others), once per family (member_value); a member whose own line exists keeps its
        # other columns there too (a second line would cost its overhead again)
        if repeated is not None or table in tails:
            shown_tables: Sequence[str] = (table,)
        else:
            family = representative.get(table, table)
            shown_tables = asked.get(family, (family,))
        in_a_line = False  # named in at least one table line
        for shown_table in shown_tables:
            tail = tails.get(shown_table)
            if tail is None:
                owner = layout.table_term.get(shown_table, layout.table_term.get(table))
                ident = id_of(documents[owner].iri if owner is not None else doc.iri)
                for name in names:
                    tail = {"id": ident, "kind": "term", "label": f"{_quoted(shown_table)}({name})"}
                    cost = _json_size(tail) + 1
                    if not out or size + cost <= budget:
                        break
                else:
                    full_stop = True
                    break
                tails[shown_table] = tail
                listed[shown_table] = {bare: name}
                out.append(tail)
            else:
                in_line = listed[shown_table]
                if bare in in_line:
                    # a family member shown in place of its family's table has columns of the same
                    # name as the table's own (issue 33): a line names each column once, with the
                    # value the query named in it when one of the two carries it and it still fits
                    if in_line[bare] != bare or len(names) == 1:
                        continue
                    names_now = {**in_line, bare: names[0]}
                    label = f"{_quoted(shown_table)}({', '.join(names_now.values())})"
                    cost = len(json.dumps(label, ensure_ascii=False)) - len(json.dumps(tail["label"],
                                                                                       ensure_ascii=False))
                    if size + cost <= budget:
                        tail["label"], listed[shown_table] = label, names_now
                        size += cost
                    continue
                if not group.get("own") and len(tail["label"]) >= line_cap:
                    continue  # this table's line has its share: the rest of the budget goes to others
                for name in names:
                    cost = len(json.dumps(", " + name, ensure_ascii=False)) - 2
                    if size + cost <= budget:
                        break
                else:
                    full_stop = True
                    break
                tail["label"] = f"{tail['label'][:-1]}, {name})"
                in_line[bare] = name
            size += cost
            in_a_line = True
            if repeated is not None and name != bare:
                valued.add(repeated)
        if in_a_line and terse_only and not lazy:
            # named tersely while full lines go on: what is left to name tersely no longer counts
            # it (once, though a family's column is named in each member line the query asks for),
            # nor, once per table, its table line's overhead
            tail_left -= tail_cost.get(id(group), 0)
            if table not in overhead_paid:
                overhead_paid.add(table)
                tail_left -= table_overhead(table)
        if full_stop:
            break
    return out


def _quoted(location: str) -> str:
    """``"table"."column"`` (ANSI quotes) of a ``table.column`` location, ``"name"`` of a bare name
    (the text itself when a name cannot be quoted)."""
    from evoonto.errors import SourceError

    table, _dot, column = location.partition(".")
    try:
        return _quoted_name(table) + (f".{_quoted_name(column)}" if column else "")
    except SourceError:
        return location


@functools.lru_cache(maxsize=1 << 18)
def _quoted_name(name: str) -> str:
    """One quoted identifier (:func:`evoonto.sources.quoting.quote_identifier`, ANSI quotes),
    memoized: a schema's names recur in every compact answer (a table's in each of its lines), and
    sqlglot's generator takes ~35 µs per name, a few hundred per answer at 70,000 columns. Kept
    across reloads (a name quotes the same in every version). Raises SourceError as it does."""
    from evoonto.sources.quoting import quote_identifier

    return quote_identifier(name)


# -- coverage (issue 15, item 3) ---------------------------------------------------------------------

#: Coverage statuses: every phrase found Terms, some did, none did.
COVERAGE_STATUSES = ("supported", "partial", "unavailable")


def question_phrases(q: str) -> list[str]:
    """The concept phrases of a question: maximal runs of words that are neither function words nor
    query words (:data:`evoonto.text.QUESTION_STOP_WORDS`), in order, without repeats.

    ``"What is the average age of singers from France?"`` → ``["age", "singers", "France"]``.
    """
    from evoonto.text import QUESTION_STOP_WORDS, words

    phrases, run = [], []
    for word in words(q) + [""]:
        if word and tokenize(word, stop_words=QUESTION_STOP_WORDS):
            run.append(word)
            continue
        if run:
            phrases.append(" ".join(run))
        run = []
    return list(dict.fromkeys(phrases))


#: A declared SQL type of dates or times (DATE, DATETIME, TIMESTAMP, TIMESTAMP WITH TIME ZONE, TIME).
_DATE_TYPE = re.compile(r"DATE|TIME", re.IGNORECASE)


def coverage(index: SearchIndex, settings: BrowseSettings, q: str, *, n: int = 3,
             id_of=lambda iri: iri) -> dict[str, Any]:
    """What the ontology covers of a question, phrase by phrase, so an agent can ask or abstain.

    Each phrase of :func:`question_phrases` is browsed (``kind="any"``, ``n`` hits); a word of the
    phrase is *covered* when one of those hits contains it, *approximate* when a hit contains only a
    close spelling of it (as browse matches a misspelling: 'Atlantis' finds the territory 'Atlanta',
    which is another place). A phrase is ``supported`` when all its words are covered, ``partial``
    when some are covered or approximate, ``unavailable`` when none is either (or nothing matches);
    the question is ``supported`` when every phrase is, ``unavailable`` when none is covered at all
    (or it has no concept phrase), else ``partial``. A month's name ("opened in March") is covered
    when the ontology maps a date or time column (the first one is added to the phrase's ids).

    Returns:
        ``{"status", "phrases": [{"phrase", "status", "ids", "uncovered", "approximate"}]}``
        (``ids``: the hits' ids, best first; ``uncovered``: the words no hit contains, not even
        spelled closely; ``approximate``: the words only a close spelling of which a hit contains).
    Raises:
        ToolArgumentError: see :func:`check_browse_args` (``q`` empty or too long).
    """
    from evoonto.tools.values import month_number

    q, _kind, _n = check_browse_args(q, "any", None, settings)
    # a month's name asks for a part of a date: any date or time column can answer it (the Terms of
    # such columns are looked up only when a question names a month: it reads every document)
    dated_terms: list[str] | None = None

    def dated() -> list[str]:
        nonlocal dated_terms
        if dated_terms is None:
            dated_terms = [doc.iri for doc in index.documents if doc.kind == "term" and value_of(doc) is None
                           and any(_DATE_TYPE.search(t) for t in doc.types.values())]
        return dated_terms

    phrases = []
    for phrase in question_phrases(q):
        hits = browse(index, settings, phrase, kind="any", n=min(n, settings.max_results),
                      id_of=lambda iri: iri, format="verbose", fallback=False)
        present: set[str] = set()
        for hit in hits:
            i = index.position(hit["id"])
            if i is not None:
                present |= set(index.doc_tokens[i].split())
        uncovered, approximate = [], []
        for word in phrase.split():
            tokens = tokenize(word)
            if tokens and set(tokens) <= present:
                continue  # the word itself is in a hit
            if month_number(word) is not None and dated():  # (tools.values: a lower-case "may" is the verb)
                hits += [{"id": iri} for iri in dated()[:1] if all(h["id"] != iri for h in hits)]
                continue  # "opened in March": the month of a date column
            groups = index.expand(tokens) if tokens else []
            if any({t for t, _w in group} & present for group in groups):
                approximate.append(word)  # only a close spelling is ('Atlantis' -> 'Atlanta'): another thing, maybe
            else:
                uncovered.append(word)
        words = len(phrase.split())
        status = ("unavailable" if not hits or len(uncovered) == words
                  else "partial" if uncovered or approximate else "supported")
        phrases.append({"phrase": phrase, "status": status, "ids": [id_of(h["id"]) for h in hits],
                        "uncovered": uncovered, "approximate": approximate})
    statuses = {p["status"] for p in phrases}
    overall = ("supported" if statuses == {"supported"} else
               "unavailable" if not phrases or statuses == {"unavailable"} else "partial")
    return {"status": overall, "phrases": phrases}
