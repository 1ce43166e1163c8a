"""Question text helpers for diagnosis: content words, literal values, lexical matching.

Only the question text (what the agent saw) is analysed here, never gold SQL. Every word operation
(tokenizing, stop words, stemming) is :mod:`evoonto.text`'s, the same the browse index and the
builder use, so diagnosis, browse and construction agree on what "the same word" is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from evoonto.text import QUESTION_STOP_WORDS, normalize, stem, tokenize, words

__all__ = ["STOPWORDS", "stem", "words", "content_words", "literal_values", "text_stems", "mentions"]

#: Function words, request verbs and query-operation words: never the name of a data concept
#: (:data:`evoonto.text.QUESTION_STOP_WORDS`).
STOPWORDS = QUESTION_STOP_WORDS
_NO_STOP: frozenset[str] = frozenset()

#: a quoted string: the opening quote not inside a word (the apostrophe of "artist's" opens
#: nothing), the closing one not followed by a letter or digit ("don't" closes nothing)
_QUOTED = re.compile(r"(?<!\w)[\"“'‘]([^\"”'’]{1,60})[\"”'’](?!\w)")
_CAPITALISED = re.compile(r"(?<![.?!]\s)(?<!^)\b([A-Z][A-Za-z0-9&\-]*(?:\s+[A-Z][A-Za-z0-9&\-]*)*)")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")


def content_words(question: str) -> list[str]:
    """Case-folded words of a question that may name a concept, in order: :func:`evoonto.text.tokenize`
    without stemming, with :data:`STOPWORDS`, one-letter words and plain numbers dropped (codes such
    as ``a11`` are kept)."""
    return [w for w in tokenize(question, stop_words=STOPWORDS, stemmed=False)
            if len(w) >= 2 and not w.isdigit()]


def quoted_literals(question: str) -> list[str]:
    """The strings a question quotes (``'Hey'``, ``"Hey Oh"``), stripped, in order of appearance."""
    return [m.group(1).strip() for m in _QUOTED.finditer(question) if m.group(1).strip()]


def literal_values(question: str) -> list[str]:
    """Candidate data values mentioned in a question: quoted strings, capitalised words after the
    first word, and years. Deduplicated, in order of appearance."""
    found: list[str] = []
    for m in _QUOTED.finditer(question):
        found.append(m.group(1).strip())
    body = question.strip()
    for m in _CAPITALISED.finditer(body):
        if m.start() == 0:
            continue
        value = m.group(1).strip()
        if normalize(value) not in STOPWORDS:
            found.append(value)
    found.extend(_YEAR.findall(question))
    seen, out = set(), []
    for value in found:
        key = normalize(value)
        if key and key not in seen:
            seen.add(key)
            out.append(value)
    return out


def text_stems(text: str) -> set[str]:
    """Stems of every word in ``text`` (identifiers split, stop words kept): :func:`evoonto.text.tokenize`."""
    return set(tokenize(str(text), stop_words=_NO_STOP))


def mentions(word: str, texts: Iterable[str]) -> bool:
    """True when the stem of ``word`` equals the stem of a word in any of ``texts``."""
    target = stem(word)
    return any(target in text_stems(t) for t in texts)
