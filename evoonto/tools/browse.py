"""``browse(q, kind, n)``: ranked candidates for a query (paper §3, Tool layer; DESIGN.md §5).

Ranking: per-field BM25 (bm25s, weights from the Tool graph) over the query tokens, where query
tokens missing from the vocabulary are replaced by close vocabulary tokens (rapidfuzz ``ratio``).
On the BM25 shortlist (50 records) each score is multiplied by the share of query tokens the record
matches (the coord factor of Lucene's classic similarity), then fused with rapidfuzz
``token_sort_ratio`` between the query and the record's labels::

    score = (1 - f) * s / max_s + f * label_similarity / 100     (s = bm25 * coverage; f = 0.3)

A hit whose match came from Evidence values (``evo:sampleValue``, ``evo:valueDistribution``) says so
in its snippet, with the value quoted: data is always returned as a quoted string inside a field.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from evoonto.errors import ToolArgumentError
from evoonto.tools.index import KINDS, SearchIndex, tokenize
from evoonto.tools.settings import BrowseSettings

MAX_QUERY_CHARS = 1000
SHORTLIST = 50
KIND_CHOICES = KINDS + ("any",)


def check_browse_args(q: Any, kind: Any, n: Any, settings: BrowseSettings) -> tuple[str, str, int]:
    """Validate browse arguments; returns ``(q, kind, n)`` with ``n`` defaulted.

    Raises:
        ToolArgumentError: ``q`` not a non-blank string of at most 1,000 characters; ``kind`` not one
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


def collapse_by_column(ranked: list[tuple[float, int]], documents: list, per_column: int) -> list[tuple[float, int]]:
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


def browse(index: SearchIndex, settings: BrowseSettings, q: str, *, kind: str = "term", n: int | None = None,
           id_of=lambda iri: iri) -> list[dict[str, Any]]:
    """Ranked records for ``q``.

    Args:
        index: the :class:`SearchIndex` of the ontology version.
        settings: browse settings (field weights, limits, fuzzy weight).
        q: free text or identifiers (``singer age``, ``Singer_ID``, a value like ``Banned``).
        kind: term, mapping, constraint, evidence, relation or any.
        n: number of hits (default ``settings.default_results``).
        id_of: maps a record IRI to the id shown to the agent.
    Returns:
        Up to ``n`` dicts ``{id, kind, label, snippet, score}`` (score in 0..1, 3 decimals), best
        first; ``[]`` when nothing matches.
    Raises:
        ToolArgumentError: see :func:`check_browse_args`.
    """
    from rapidfuzz import fuzz

    q, kind, n = check_browse_args(q, kind, n, settings)
    tokens = tokenize(q)
    if not tokens or index.size == 0:
        return []
    groups = index.expand(tokens)
    weighted = [pair for group in groups for pair in group]
    if not weighted:
        return []
    start, end = (0, index.size) if kind == "any" else index.kind_ranges.get(kind, (0, 0))
    if start == end:
        return []
    docs, scores = index.candidates(weighted, settings.weights, start, end)
    if len(docs) == 0:
        return []
    k = min(max(SHORTLIST, n), len(docs))
    top_k = np.argpartition(-scores, k - 1)[:k] if k < len(docs) else np.arange(len(docs))
    bm25 = {int(docs[j]): float(scores[j]) for j in top_k}
    # coverage (Lucene's classic coord factor): the share of query tokens a record matches
    token_groups = [{t for t, _ in group} for group in groups]
    raw = {}
    for i, score in bm25.items():
        present = set(index.doc_tokens[i].split())
        raw[i] = score * sum(1 for g in token_groups if g & present) / len(token_groups)
    top = max(raw.values()) or 1.0
    query_text = " ".join(tokens)
    f = settings.fuzzy_weight
    ranked = []
    for i in bm25:
        similarity = fuzz.token_sort_ratio(query_text, index.label_norm[i])
        ranked.append(((1 - f) * raw[i] / top + f * similarity / 100.0, i))
    ranked.sort(key=lambda pair: (-pair[0], index.documents[pair[1]].iri))
    ranked = collapse_by_column(ranked, index.documents, settings.hits_per_column)
    token_set = {t for t, _ in weighted}
    hits = []
    for score, i in ranked[:n]:
        doc = index.documents[i]
        snippet = doc.snippet
        if not (token_set & set(tokenize(doc.label))):
            value_hit = _value_snippet(token_set, doc.values)
            if value_hit:
                snippet = f"{value_hit}; {snippet}" if snippet else value_hit
        hits.append({"id": id_of(doc.iri), "kind": doc.kind, "label": doc.label, "snippet": snippet,
                     "score": round(score, 3)})
    return hits


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


def coverage(index: SearchIndex, settings: BrowseSettings, q: str, *, n: int = 3,
             id_of=lambda iri: iri) -> dict[str, Any]:
    """What the ontology covers of a question, phrase by phrase, so an agent can ask or abstain.

    Each phrase of :func:`question_phrases` is browsed (``kind="any"``, ``n`` hits); a word of the
    phrase is *covered* when one of those hits contains it (or a close vocabulary token, as browse
    matches it). A phrase is ``supported`` when all its words are covered, ``partial`` when some
    are, ``unavailable`` when none are (or nothing matches); the question is ``supported`` when
    every phrase is, ``unavailable`` when none is covered at all (or it has no concept phrase),
    else ``partial``.

    Returns:
        ``{"status", "phrases": [{"phrase", "status", "ids", "uncovered"}]}`` (``ids``: the hits'
        ids, best first; ``uncovered``: the words no hit contains).
    Raises:
        ToolArgumentError: see :func:`check_browse_args` (``q`` empty or too long).
    """
    q, _kind, _n = check_browse_args(q, "any", None, settings)
    position = {doc.iri: i for i, doc in enumerate(index.documents)}
    phrases = []
    for phrase in question_phrases(q):
        hits = browse(index, settings, phrase, kind="any", n=min(n, settings.max_results),
                      id_of=lambda iri: iri)
        present: set[str] = set()
        for hit in hits:
            i = position.get(hit["id"])
            if i is not None:
                present |= set(index.doc_tokens[i].split())
        uncovered = []
        for word in phrase.split():
            tokens = tokenize(word)
            groups = index.expand(tokens) if tokens else []
            if not any({t for t, _w in group} & present for group in groups):
                uncovered.append(word)
        status = ("unavailable" if not hits or len(uncovered) == len(phrase.split())
                  else "partial" if uncovered else "supported")
        phrases.append({"phrase": phrase, "status": status, "ids": [id_of(h["id"]) for h in hits],
                        "uncovered": uncovered})
    statuses = {p["status"] for p in phrases}
    overall = ("supported" if statuses == {"supported"} else
               "unavailable" if not phrases or statuses == {"unavailable"} else "partial")
    return {"status": overall, "phrases": phrases}
