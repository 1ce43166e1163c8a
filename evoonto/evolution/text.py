"""Question text helpers for diagnosis: content words, phrases, literal values, lexical matching.

Only the question text (what the agent saw) is analysed here, never gold SQL. Normalisation reuses the
builder's label functions (:func:`evoonto.builder.labels.normalize` / ``singularize``) so evolution
and construction agree on what "the same word" is.
"""

from __future__ import annotations

import re

from evoonto.builder.labels import normalize, singularize

#: Function words and question scaffolding that never name a data concept.
STOPWORDS = frozenset("""
a an the of in on at to for from by with and or not no nor but than then that this these those there
their they them it its is are was were be been being has have had do does did done can could should
would will shall may might must what which who whom whose where when why how all any each every both
either neither some such only own same so too very just also as if into out up down over under about
between through during before after above below again further once here other more most less least
give list show find tell return display me my we our you your he she his her i us many much number
count total per what's whats name names please order ordered sort sorted descending ascending
value values one two three four five different distinct""".split())

_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d+(?:\.\d+)?")
_QUOTED = re.compile(r"[\"“'‘]([^\"”'’]{1,60})[\"”'’]")
_CAPITALISED = re.compile(r"(?<![.?!]\s)(?<!^)\b([A-Z][A-Za-z0-9&\-]*(?:\s+[A-Z][A-Za-z0-9&\-]*)*)")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")


def stem(word: str) -> str:
    """A crude but stable stem: normalised, singular, and cut to 6 characters for long words."""
    low = singularize(normalize(word).strip("'-"))
    for suffix in ("ing", "est", "ed", "er"):
        if len(low) > len(suffix) + 3 and low.endswith(suffix):
            low = low[: -len(suffix)]
            break
    return low[:6]


def words(text: str) -> list[str]:
    """The word tokens of ``text`` in order (letters/apostrophes/hyphens, or numbers)."""
    return _WORD.findall(text)


def content_words(question: str) -> list[str]:
    """Normalised words of a question that may name a concept (stopwords and 1-letter words dropped)."""
    out = []
    for token in words(question):
        low = normalize(token).strip("'-")
        if len(low) < 2 or low in STOPWORDS or low.isdigit():
            continue
        out.append(low)
    return out


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
    """Stems of every word in ``text`` (identifiers are split on ``_`` and camelCase first)."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", str(text)).replace("_", " ")
    return {stem(w) for w in words(spaced)}


def mentions(word: str, texts) -> bool:
    """True when the stem of ``word`` equals the stem of a word in any of ``texts``."""
    target = stem(word)
    return any(target in text_stems(t) for t in texts)
