"""The one text module: normalise, split identifiers, tokenize, stem, stop words, singularize.

Every place that compares words (the browse index, diagnosis of trajectories, the builder's labels and
workload proposal, evolution's candidate writers) goes through these functions, so "the same word"
means the same thing everywhere.

* :func:`normalize` — case-folded, accent-folded, whitespace-collapsed text.
* :func:`split_identifier` — ``Song_release_year`` → ``Song release year``, ``customerID`` →
  ``customer ID``, ``GNPOld`` → ``GNP Old``; digits are separated from words (``addr_line2`` →
  ``addr line 2``) but stay with one or two letters where they form a code (``A11``, ``K12``,
  ``H1N1``, ``CO2``, ``2nd``).
* :func:`tokenize` — identifier-aware word tokens, case-folded, possessive ``'s`` dropped, stop words
  removed, each token stemmed with :func:`stem`.
* :func:`stem` — the Snowball English stemmer (Porter2, https://snowballstem.org/algorithms/english/
  stemmer.html) through PyStemmer, the maintained C implementation: ``hosted``/``host`` → ``host``,
  ``companies``/``company`` → ``compani``. Stems are matching keys, not words to display.
* :data:`STOP_WORDS` / :data:`QUERY_WORDS` — general English function words and request verbs
  (dropped everywhere), and words that name a query operation rather than a data concept (``count``,
  ``average``, ``sorted``…; dropped only where a *question* is searched for concept words). Both are
  read from the packaged file ``evoonto/data/lexicon/stopwords.tsv``.
* :func:`singularize` / :func:`pluralize` — regular English noun inflection for labels.
* :func:`adjective_bases` — the positive form behind a comparative or superlative (``youngest`` →
  ``young``, ``bigger`` → ``big``, ``easiest`` → ``easy``).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from importlib import resources

import Stemmer

__all__ = [
    "STOP_WORDS", "QUERY_WORDS", "QUESTION_STOP_WORDS", "normalize", "split_identifier", "tokenize",
    "stem", "singularize", "pluralize", "adjective_bases", "words", "common_english_word",
]

_SPACE = re.compile(r"\s+")
_RUN = re.compile(r"[^\W_]+", re.UNICODE)
_POSSESSIVE = re.compile(r"(?<=[^\W_])['’]s\b", re.UNICODE)
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d+(?:\.\d+)?")
#: A letter piece this short next to digits is part of a code (A11, K12, CO2, 2nd), not a word.
_CODE_LETTERS = 2


def _read_stop_words() -> dict[str, frozenset[str]]:
    """``{class: words}`` from the packaged ``stopwords.tsv`` (``word<TAB>class`` lines, ``#`` comments)."""
    text = resources.files("evoonto").joinpath("data", "lexicon", "stopwords.tsv").read_text(encoding="utf-8")
    classes: dict[str, set[str]] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = [c.strip() for c in line.split("\t")]
        if len(cells) != 2 or not cells[0] or not cells[1]:
            raise ValueError(f"stopwords.tsv:{lineno}: expected 'word<TAB>class'")
        classes.setdefault(cells[1], set()).add(cells[0].casefold())
    return {name: frozenset(ws) for name, ws in classes.items()}


_CLASSES = _read_stop_words()
#: General English function words (articles, pronouns, prepositions, conjunctions, auxiliaries,
#: question words) and request verbs ("show", "list", "give me"): never part of a concept name.
STOP_WORDS: frozenset[str] = _CLASSES.get("function", frozenset()) | _CLASSES.get("request", frozenset())
#: Words that name a query operation (aggregation, ordering, counting, number words), not a concept.
QUERY_WORDS: frozenset[str] = _CLASSES.get("query", frozenset())
#: What a question is stripped of before its remaining words are read as concept mentions.
QUESTION_STOP_WORDS: frozenset[str] = STOP_WORDS | QUERY_WORDS


#: Texts up to this many characters are normalised and split once each and remembered (labels, names,
#: phrases repeat across the columns of a wide schema); longer texts (questions, documents) are not kept.
_MEMO_CHARS = 200


def normalize(text: str) -> str:
    """Lower-cased, accent-folded, whitespace-collapsed form used to compare labels and phrases.

    ``"  Café  Owner"`` → ``"cafe owner"``. A pure function; short texts are memoised.
    """
    if len(text) <= _MEMO_CHARS:
        return _normalize_cached(text)
    return _normalize(text)


def _normalize(text: str) -> str:
    if text.isascii():  # NFKD and the combining-mark filter leave ASCII text as it is
        return _SPACE.sub(" ", text.casefold()).strip()
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return _SPACE.sub(" ", folded.casefold()).strip()


_normalize_cached = functools.lru_cache(maxsize=1 << 16)(_normalize)


def _segments(run: str) -> list[str]:
    """Split one alphanumeric run at case changes and letter/digit boundaries."""
    if run.isdigit() or (run.isalpha() and (len(run) < 2 or run[1:].islower())):
        # no boundary can occur: all digits, or letters with no upper-case letter after the first
        # (every boundary needs a digit/letter change or an upper-case letter at position >= 1);
        # most runs of labels and prose are such words (5.8 million runs of a 70,000-column index
        # took 58 s in the loop below under cProfile)
        return [run]
    out: list[str] = []
    start = 0
    for i in range(1, len(run)):
        prev, ch = run[i - 1], run[i]
        nxt = run[i + 1] if i + 1 < len(run) else ""
        if (prev.isdigit() != ch.isdigit()
                or (prev.islower() and ch.isupper())
                # "HTTPServer" -> HTTP | Server, but an acronym's plural stays whole ("SMEs", "IDs")
                or (prev.isupper() and ch.isupper() and nxt.islower() and not _plural_tail(run, i + 1))):
            out.append(run[start:i])
            start = i
    out.append(run[start:])
    return out


def _plural_tail(run: str, at: int) -> bool:
    """True when ``run`` ends at ``at`` with the plural ``s`` of an acronym (``SMEs``, ``IDs``)."""
    return at == len(run) - 1 and run[at] == "s"


def acronym_singular(word: str) -> str:
    """An acronym's plural read as the acronym: ``"SMEs"`` → ``"SME"``, ``"IDs"`` → ``"ID"``; any
    other word unchanged. English writes the plural of an upper-case acronym with a lower-case
    ``s``, which neither case-folding nor the Snowball stemmer undoes (``smes`` stays ``smes``)."""
    return word[:-1] if len(word) >= 3 and word[-1] == "s" and word[:-1].isupper() else word


def _trailing_letters(piece: str) -> int:
    n = 0
    for ch in reversed(piece):
        if ch.isdigit():
            break
        n += 1
    return n


def _joins_code(prev: str, seg: str) -> bool:
    """True when ``seg`` continues a code with ``prev`` (``A``+``11``, ``H1``+``N``, ``2``+``nd``)."""
    if seg.isdigit():
        letters = _trailing_letters(prev)
        return 0 < letters <= _CODE_LETTERS and (letters == len(prev) or prev[-letters - 1].isdigit())
    return prev[-1].isdigit() and len(seg) <= _CODE_LETTERS and (seg.islower() or seg.isupper())


def split_identifier(name: str) -> list[str]:
    """Split an identifier (or any text) into its words, keeping their case.

    ``"Song_release_year"`` → ``["Song", "release", "year"]``; ``"customerID"`` →
    ``["customer", "ID"]``; ``"GNPOld"`` → ``["GNP", "Old"]``; ``"addr_line2"`` →
    ``["addr", "line", "2"]``; ``"Free Meal Count (K-12)"`` → ``["Free", "Meal", "Count", "K", "12"]``;
    codes stay whole: ``"district_A11"`` → ``["district", "A11"]``, ``"H1N1_cases"`` →
    ``["H1N1", "cases"]``. A pure function; short texts are memoised (a new list is returned each call).
    """
    if len(name) <= _MEMO_CHARS:
        return list(_split_cached(name))
    return list(_split_identifier(name))


def _split_identifier(name: str) -> tuple[str, ...]:
    words: list[str] = []
    for run in _RUN.findall(name):
        merged: list[str] = []
        for seg in _segments(run):
            if merged and _joins_code(merged[-1], seg):
                merged[-1] += seg
            else:
                merged.append(seg)
        words.extend(merged)
    return tuple(words)


_split_cached = functools.lru_cache(maxsize=1 << 16)(_split_identifier)


@functools.lru_cache(maxsize=1)
def _stemmer() -> Stemmer.Stemmer:
    return Stemmer.Stemmer("english")


@functools.lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """The Snowball English stem of one word, case-folded (``"Hosted"`` → ``"host"``).

    Args:
        word: one word (a token of :func:`tokenize` or any single word; apostrophes/hyphens at the
            ends are stripped, a possessive ``'s`` is dropped).
    Returns:
        The stem (a matching key, possibly not an English word: ``"companies"`` → ``"compani"``).
    """
    low = _POSSESSIVE.sub("", normalize(word)).strip("'’-")
    return _stemmer().stemWord(low) if low else low


def _tokenize_chunk(chunk: str, drop: frozenset[str], stemmed: bool) -> tuple[str, ...]:
    tokens = []
    for part in split_identifier(_POSSESSIVE.sub("", chunk)):
        token = acronym_singular(part).casefold()
        if token and token not in drop:
            tokens.append(stem(token) if stemmed else token)
    return tuple(tokens)


#: the tokens of one whitespace-free chunk (a word, an identifier), memoised: the texts of an index
#: are mostly new as wholes but made of chunks seen before (at 70,000 columns, 410,000 distinct field
#: texts hold 120,000 distinct chunks: tokenized chunk by chunk they take 3.8 CPU s, 7.5 when each
#: text was tokenized whole and memoised as a whole)
_tokenize_chunk_cached = functools.lru_cache(maxsize=1 << 18)(_tokenize_chunk)


def tokenize(text: str, *, stop_words: frozenset[str] = STOP_WORDS, stemmed: bool = True) -> list[str]:
    """Identifier-aware tokens of ``text``: split with :func:`split_identifier`, case-folded, possessive
    ``'s`` dropped, ``stop_words`` removed, then stemmed with :func:`stem` (unless ``stemmed=False``).

    ``"Singer_ID"`` → ``["singer", "id"]``; ``"totalRevenue2024"`` → ``["total", "revenu", "2024"]``;
    ``"the singer's age in district A11"`` → ``["singer", "age", "district", "a11"]``; an acronym's
    plural is the acronym: ``"customer IDs"`` → ``["custom", "id"]`` (:func:`acronym_singular`).

    Args:
        text: prose or identifiers (any length).
        stop_words: case-folded words to drop (default :data:`STOP_WORDS`).
        stemmed: stem each token (default) or keep the case-folded word.
    Returns:
        Tokens in text order (duplicates kept).
    """
    # chunk by chunk: no run, segment or possessive spans whitespace, so the concatenation is the
    # tokens of the whole text
    tokens: list[str] = []
    for chunk in text.split():
        tokens.extend(_tokenize_chunk_cached(chunk, stop_words, stemmed) if len(chunk) <= _MEMO_CHARS
                      else _tokenize_chunk(chunk, stop_words, stemmed))
    return tokens


def words(text: str) -> list[str]:
    """The word tokens of prose in order (letters with inner apostrophes/hyphens, or numbers), unchanged.

    ``"Who's the oldest singer-songwriter in 1999?"`` → ``["Who's", "the", "oldest",
    "singer-songwriter", "in", "1999"]``.
    """
    return _WORD.findall(text)


def pluralize(word: str) -> str:
    """A regular English plural (``country`` → ``countries``, ``class`` → ``classes``)."""
    low = word.lower()
    if low.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def singularize(word: str) -> str:
    """A regular English singular (``countries`` → ``country``, ``singers`` → ``singer``, ``status``
    and ``analysis`` kept); case is kept."""
    low = word.lower()
    if len(low) > 4 and low.endswith("ies"):
        return word[:-3] + "y"
    if len(low) > 4 and low.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(low) > 3 and low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def common_english_word(word: str) -> bool:
    """Whether ``word`` (lower-case) is one of the common English words of wordfreq's ``small``
    list (a frequency of about one per million words or more): ``count``, ``code``, ``date``,
    ``temp`` are; ``visib``, ``dewp``, ``cust`` are not."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en", wordlist="small") > 0


def adjective_bases(word: str) -> list[str]:
    """``word`` and the positive forms it may inflect, lower case, for comparatives (``-er``) and
    superlatives (``-est``): ``"youngest"`` → ``["youngest", "young", "younge"]``, ``"bigger"`` →
    ``["bigger", "bigg", "bigge", "big"]``, ``"easiest"`` → ``[..., "easy"]``. Wrong guesses are
    harmless: callers only look the forms up in a word list."""
    low = normalize(word)
    out = [low]
    for suffix in ("est", "er"):
        if len(low) > len(suffix) + 2 and low.endswith(suffix):
            base = low[: -len(suffix)]
            out += [base, base + "e"]
            if len(base) > 2 and base[-1] == base[-2]:
                out.append(base[:-1])
            if base.endswith("i"):
                out.append(base[:-1] + "y")
    return list(dict.fromkeys(out))
