"""Human-readable labels from database identifiers (SKOS prefLabel / altLabel / hiddenLabel).

Identifiers such as ``Song_release_year``, ``customerID``, ``addr_line2`` or
``Free Meal Count (K-12)`` become labels a question can match: ``Song release year``,
``customer identifier``, ``address line 2``. Following SKOS (W3C SKOS Reference §5),
the readable form is the ``skos:prefLabel``, expansions and synonyms are ``skos:altLabel``s, and the
raw identifiers stay searchable as ``skos:hiddenLabel``s.

Words are split and inflected by :mod:`evoonto.text` (re-exported here: ``normalize``,
``split_identifier``, ``singularize``, ``pluralize``). Abbreviations and synonyms come from a
:class:`evoonto.lexicon.Lexicon`: the one passed in, else the one set for the current build with
:func:`use_lexicon` (``build(..., lexicon=)`` does this), else the packaged lexicon.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from evoonto.lexicon import Lexicon
from evoonto.text import STOP_WORDS, normalize, pluralize, singularize, split_identifier

__all__ = [
    "LabelSet", "split_identifier", "expand_tokens", "humanize", "pluralize", "singularize",
    "synonym_phrases", "table_labels", "column_labels", "normalize", "use_lexicon", "current_lexicon",
]

_SPACE = re.compile(r"\s+")
_LEXICON: contextvars.ContextVar[Lexicon | None] = contextvars.ContextVar("evoonto_lexicon", default=None)


def current_lexicon() -> Lexicon:
    """The lexicon set by :func:`use_lexicon` in this context, else the packaged one."""
    return _LEXICON.get() or Lexicon.packaged()


@contextlib.contextmanager
def use_lexicon(lexicon: Lexicon | None) -> Iterator[Lexicon]:
    """Within the ``with`` block, label functions called without ``lexicon=`` use ``lexicon``
    (``None``: the packaged lexicon). Context-local, so concurrent builds do not interfere."""
    token = _LEXICON.set(lexicon)
    try:
        yield current_lexicon()
    finally:
        _LEXICON.reset(token)


def expand_tokens(tokens: Iterable[str], abbreviations: Mapping[str, str] | None = None, *,
                  lexicon: Lexicon | None = None) -> list[str]:
    """Lower-case words with abbreviations expanded (``["amt", "Paid"]`` → ``["amount", "paid"]``).

    Args:
        tokens: words of an identifier (:func:`split_identifier`).
        abbreviations: ``{short: expansion}`` to use instead of the lexicon's.
        lexicon: the lexicon (default :func:`current_lexicon`).
    """
    table = abbreviations if abbreviations is not None else (lexicon or current_lexicon()).abbreviations
    out: list[str] = []
    for token in tokens:
        low = token.lower()
        out.extend(table.get(low, low).split())
    return out


def _display(token: str) -> str:
    # Acronyms (GNP, HP, URL) and codes (A11) keep their case; everything else is lower case.
    return token if len(token) >= 2 and token.isupper() else token.lower()  # codes too: A11, CO2


def humanize(name: str) -> str:
    """The readable form of an identifier, in sentence case, without expanding abbreviations.

    ``"Song_release_year"`` → ``"Song release year"``; ``"GNPOld"`` → ``"GNP old"``. Returns the
    stripped name itself when it has no word characters.
    """
    tokens = [_display(t) for t in split_identifier(name)]
    if not tokens:
        return name.strip()
    text = " ".join(tokens)
    return text[0].upper() + text[1:]






def synonym_phrases(words: list[str], lexicon: Lexicon | None = None) -> list[str]:
    """Alternative phrasings of ``words`` (lower case): synonyms of the whole phrase, the head (last)
    word replaced by each of its synonyms, those synonyms on their own (with the set gender/sex:
    ``["singer", "sex"]`` → ``"singer gender"``, ``"gender"``), and the synonyms of the other words on
    their own.

    Args:
        words: lower-case words of a label.
        lexicon: the lexicon (default :func:`current_lexicon`).
    """
    if not words:
        return []
    lexicon = lexicon or current_lexicon()
    head = words[-1]
    phrases = list(lexicon.synonyms(" ".join(words))) if len(words) > 1 else []
    for alternative in lexicon.synonyms(head):
        # a question phrase ("how much" for price, "how old" for age) stands on its own but cannot
        # replace the head noun of a longer name ("unit price" is not "unit how much")
        if len(words) == 1 or not _is_phrase_cue(alternative):
            phrases.append(" ".join(words[:-1] + [alternative]))
        phrases.append(alternative)
    for word in words[:-1]:
        phrases.extend(lexicon.synonyms(word))
    return phrases


def _is_phrase_cue(phrase: str) -> bool:
    """True for a synonym that holds a function word (``"how much"``, ``"years of age"``): a
    question cue, not a noun that can stand in a compound name."""
    return any(w in STOP_WORDS for w in phrase.lower().split())


@dataclass(frozen=True)
class LabelSet:
    """SKOS labels of one Term.

    Attributes:
        pref: the ``skos:prefLabel`` (sentence case, language ``en``).
        alt: ``skos:altLabel`` values (sorted, unique, none equal to ``pref`` ignoring case).
        hidden: ``skos:hiddenLabel`` values: raw identifiers (sorted, unique, no language tag).
    """

    pref: str
    alt: tuple[str, ...] = field(default_factory=tuple)
    hidden: tuple[str, ...] = field(default_factory=tuple)

    @classmethod
    def make(cls, pref: str, alt: Iterable[str] = (), hidden: Iterable[str] = ()) -> LabelSet:
        """Build a LabelSet, de-duplicating ``alt`` against ``pref`` (case- and space-insensitive)."""
        seen = {normalize(pref)}
        alts = []
        for label in alt:
            key = normalize(label)
            if key and key not in seen:
                seen.add(key)
                alts.append(_SPACE.sub(" ", label).strip())
        hiddens = sorted({h for h in hidden if h and h != pref})
        return cls(pref=pref, alt=tuple(sorted(alts, key=lambda s: (normalize(s), s))), hidden=tuple(hiddens))

    def merged(self, alt: Iterable[str] = (), hidden: Iterable[str] = ()) -> LabelSet:
        """A copy with more alternative / hidden labels."""
        return LabelSet.make(self.pref, [*self.alt, *alt], [*self.hidden, *hidden])

    def all(self) -> list[str]:
        """Every label (pref, alt, hidden), in that order."""
        return [self.pref, *self.alt, *self.hidden]


def _variants(words: list[str], lexicon: Lexicon, *, plural: bool = False) -> list[str]:
    """The phrase, its synonym phrases and (for entity nouns, ``plural=True``) its plural form."""
    if not words:
        return []
    phrase = " ".join(words)
    out = [phrase, *synonym_phrases(words, lexicon)]
    if plural and words[-1].isalpha() and not words[-1].endswith("s"):
        out.append(" ".join(words[:-1] + [pluralize(words[-1])]))
    return out


def table_labels(table: str, *, lexicon: Lexicon | None = None) -> LabelSet:
    """Labels of the Entity Term of a table: ``"singer_in_concert"`` → pref ``"Singer in concert"``,
    alt ``["singer in concert", "singers in concert", …]``, hidden ``["singer_in_concert"]``.

    Args:
        table: the table name as the source spells it.
        lexicon: abbreviations and synonyms to use (default :func:`current_lexicon`).
    """
    lexicon = lexicon or current_lexicon()
    raw = split_identifier(table)
    pref = humanize(table)
    plain = [t.lower() for t in raw]
    expanded = expand_tokens(raw, lexicon=lexicon)
    singular = [singularize(w) for w in plain]
    alts = [*_variants(plain, lexicon, plural=True), *_variants(expanded, lexicon, plural=True),
            *_variants(singular, lexicon, plural=True)]
    return LabelSet.make(pref, alts, [table])


def column_labels(table: str, column: str, *, lexicon: Lexicon | None = None,
                  qualify: bool = True) -> LabelSet:
    """Labels of a column Term, qualified by its table so they read on their own.

    ``("singer", "Age")`` → pref ``"Singer age"``, alt ``["age", "how old", "ages", …]``, hidden
    ``["Age", "singer.Age"]``. The table prefix is omitted when the column name already starts with
    the table's words (``concert.concert_Name`` → ``"Concert name"``).

    Args:
        table: the table name; column: the column name (as the source spells them).
        lexicon: abbreviations and synonyms to use (default :func:`current_lexicon`).
        qualify: prefix the table's words (default). ``False`` for tables named after files
            (``flag-14.csv``), whose name is no word of the domain: ``("flag-14", "assigned_to")``
            → pref ``"Assigned to"`` (the ``flag-14.assigned_to`` hidden label still names the table).
    """
    lexicon = lexicon or current_lexicon()
    if not qualify:
        raw = split_identifier(column)
        plain = [t.lower() for t in raw]
        pref = " ".join(_display(t) for t in raw) or column
        pref = pref[0].upper() + pref[1:]
        alts = [*_variants(plain, lexicon), *_variants(expand_tokens(raw, lexicon=lexicon), lexicon)]
        return LabelSet.make(pref, alts, [column, f"{table}.{column}"])
    table_words = [singularize(t.lower()) for t in split_identifier(table)]
    raw = split_identifier(column)
    plain = [t.lower() for t in raw]
    expanded = expand_tokens(raw, lexicon=lexicon)
    starts_with_table = [singularize(w) for w in plain[: len(table_words)]] == table_words
    display = [_display(t) for t in raw] or [column]
    if starts_with_table:
        words = display
    else:
        words = [_display(singularize(t)) for t in split_identifier(table)] + display
    pref = " ".join(words)
    pref = pref[0].upper() + pref[1:] if pref else column
    rest_plain = plain[len(table_words):] if starts_with_table else plain
    rest_expanded = expand_tokens(raw[len(table_words):], lexicon=lexicon) if starts_with_table else expanded
    table_phrase = " ".join(t.lower() for t in split_identifier(table))
    alts = [
        *_variants(plain, lexicon), *_variants(expanded, lexicon), *_variants(rest_plain, lexicon),
        *_variants(rest_expanded, lexicon),
        " ".join([table_phrase, *rest_expanded]) if rest_expanded else "",
    ]
    return LabelSet.make(pref, alts, [column, f"{table}.{column}"])
