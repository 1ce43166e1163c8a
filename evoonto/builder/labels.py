"""Human-readable labels from database identifiers (SKOS prefLabel / altLabel / hiddenLabel).

Identifiers such as ``Song_release_year``, ``customerID``, ``GNPOld``, ``addr_line2`` or
``Free Meal Count (K-12)`` become labels a question can match: ``Song release year``,
``customer identifier``, ``GNP old``, ``address line 2``. Following SKOS (W3C SKOS Reference §5),
the readable form is the ``skos:prefLabel``, expansions and synonyms are ``skos:altLabel``s, and the
raw identifiers stay searchable as ``skos:hiddenLabel``s.

The abbreviation and synonym tables are small, general-purpose data dictionaries (not tuned to any
benchmark); callers may pass their own.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = [
    "ABBREVIATIONS", "SYNONYMS", "LabelSet", "split_identifier", "expand_tokens", "humanize",
    "pluralize", "singularize", "synonym_phrases", "table_labels", "column_labels", "normalize",
]

#: Common abbreviations in column and table names → their expansion (lower case).
ABBREVIATIONS: Mapping[str, str] = {
    "acct": "account", "addr": "address", "amt": "amount", "avg": "average", "bal": "balance",
    "cat": "category", "cnt": "count", "cntry": "country", "ctry": "country", "cust": "customer",
    "dept": "department", "desc": "description", "descr": "description", "dob": "date of birth",
    "dt": "date", "emp": "employee", "eval": "evaluation", "fname": "first name",
    "lname": "last name", "gnp": "gross national product", "hp": "horsepower", "id": "identifier",
    "indep": "independence",
    "info": "information", "lang": "language", "lat": "latitude", "lng": "longitude",
    "lon": "longitude", "loc": "location", "max": "maximum", "min": "minimum", "mgr": "manager",
    "mpg": "miles per gallon", "no": "number", "num": "number", "nbr": "number", "org": "organization",
    "pct": "percent", "perc": "percent", "pop": "population", "pos": "position", "prod": "product",
    "qty": "quantity", "ref": "reference", "seq": "sequence", "stu": "student", "tel": "telephone",
    "temp": "temperature", "ts": "timestamp", "txn": "transaction", "yr": "year", "yrs": "years",
    "wt": "weight", "ht": "height", "cyl": "cylinders", "accel": "acceleration", "std": "standard",
    "tot": "total", "sem": "semester", "dob_": "date of birth", "zip": "postal code",
}

#: General synonyms of data vocabulary (word → alternative phrasings a question may use).
SYNONYMS: Mapping[str, tuple[str, ...]] = {
    "age": ("how old", "years old", "old", "older", "oldest", "young", "younger", "youngest"),
    "amount": ("sum", "value"),
    "address": ("location", "where"),
    "area": ("size", "land", "surface"),
    "independence": ("founded", "established"),
    "birth": ("born",),
    "capacity": ("size", "seats"),
    "city": ("town",),
    "cost": ("price", "how much"),
    "count": ("number", "how many"),
    "country": ("nation", "nationality"),
    "customer": ("client", "buyer"),
    "date": ("when", "day"),
    "description": ("details", "about"),
    "duration": ("how long", "length"),
    "employee": ("staff", "worker"),
    "gender": ("sex", "male", "female"),
    "sex": ("gender", "male", "female"),
    "male": ("gender", "sex", "men", "women", "female"),
    "height": ("tall", "how tall"),
    "language": ("speak", "spoken", "tongue"),
    "number": ("count", "how many"),
    "official": ("main",),
    "percentage": ("percent", "share"),
    "population": ("people", "inhabitants", "residents", "populated", "populous"),
    "price": ("cost", "how much"),
    "rank": ("ranking", "position"),
    "rating": ("score", "rank"),
    "salary": ("pay", "wage", "earnings", "income"),
    "score": ("rating", "points"),
    "student": ("pupil",),
    "weight": ("heavy", "how heavy"),
    "year": ("when",),
    "horsepower": ("power",),
    "life": ("lifespan",),
    "expectancy": ("expected",),
    "owner": ("owned",),
    "earnings": ("earned", "income", "money"),
    "citizenship": ("nationality", "country"),
    "nationality": ("citizenship", "country"),
    "abbreviation": ("code", "short name"),
}

_RUN = re.compile(r"[^\W_]+", re.UNICODE)
_SPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Lower-cased, accent-folded, whitespace-collapsed form used to compare labels and phrases."""
    folded = unicodedata.normalize("NFKD", text)
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    return _SPACE.sub(" ", folded.casefold()).strip()


def split_identifier(name: str) -> list[str]:
    """Split an identifier into its words, keeping their case.

    ``"Song_release_year"`` → ``["Song", "release", "year"]``; ``"customerID"`` →
    ``["customer", "ID"]``; ``"GNPOld"`` → ``["GNP", "Old"]``; ``"addr_line2"`` →
    ``["addr", "line", "2"]``; ``"Free Meal Count (K-12)"`` → ``["Free", "Meal", "Count", "K", "12"]``.
    """
    words: list[str] = []
    for run in _RUN.findall(name):
        start = 0
        for i in range(1, len(run)):
            prev, ch = run[i - 1], run[i]
            nxt = run[i + 1] if i + 1 < len(run) else ""
            if (prev.isdigit() != ch.isdigit()
                    or (prev.islower() and ch.isupper())
                    or (prev.isupper() and ch.isupper() and nxt.islower())):
                words.append(run[start:i])
                start = i
        words.append(run[start:])
    return words


def expand_tokens(tokens: Iterable[str], abbreviations: Mapping[str, str] = ABBREVIATIONS) -> list[str]:
    """Lower-case words with abbreviations expanded (``["amt", "Paid"]`` → ``["amount", "paid"]``)."""
    out: list[str] = []
    for token in tokens:
        low = token.lower()
        out.extend(abbreviations.get(low, low).split())
    return out


def _display(token: str) -> str:
    # Acronyms (GNP, HP, URL) keep their case; everything else is lower case.
    return token if len(token) >= 2 and token.isupper() and token.isalpha() else token.lower()


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


def pluralize(word: str) -> str:
    """A regular English plural (``country`` → ``countries``, ``class`` → ``classes``)."""
    low = word.lower()
    if low.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def singularize(word: str) -> str:
    """A regular English singular (``countries`` → ``country``, ``singers`` → ``singer``)."""
    low = word.lower()
    if len(low) > 4 and low.endswith("ies"):
        return word[:-3] + "y"
    if len(low) > 4 and low.endswith(("ches", "shes", "sses", "xes", "zes")):
        return word[:-2]
    if len(low) > 3 and low.endswith("s") and not low.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def synonym_phrases(words: list[str], synonyms: Mapping[str, tuple[str, ...]] = SYNONYMS) -> list[str]:
    """Alternative phrasings of ``words`` (lower case): the head (last) word replaced by each of its
    synonyms, those synonyms on their own (``["is", "male"]`` → ``"is gender"``, ``"gender"``, …), and
    the synonyms of the other words on their own (``["indep", "year"]`` → ``"founded"``)."""
    if not words:
        return []
    head = words[-1]
    phrases = []
    for alternative in synonyms.get(head, ()):
        phrases.append(" ".join(words[:-1] + [alternative]))
        phrases.append(alternative)
    for word in words[:-1]:
        phrases.extend(synonyms.get(word, ()))
    return phrases


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


def _variants(words: list[str], *, plural: bool = False) -> list[str]:
    """The phrase, its synonym phrases and (for entity nouns, ``plural=True``) its plural form."""
    if not words:
        return []
    phrase = " ".join(words)
    out = [phrase, *synonym_phrases(words)]
    if plural and words[-1].isalpha() and not words[-1].endswith("s"):
        out.append(" ".join(words[:-1] + [pluralize(words[-1])]))
    return out


def table_labels(table: str) -> LabelSet:
    """Labels of the Entity Term of a table: ``"singer_in_concert"`` → pref ``"Singer in concert"``,
    alt ``["singer in concert", "singers in concert", …]``, hidden ``["singer_in_concert"]``."""
    raw = split_identifier(table)
    pref = humanize(table)
    plain = [t.lower() for t in raw]
    expanded = expand_tokens(raw)
    singular = [singularize(w) for w in plain]
    alts = [*_variants(plain, plural=True), *_variants(expanded, plural=True), *_variants(singular, plural=True)]
    return LabelSet.make(pref, alts, [table])


def column_labels(table: str, column: str) -> LabelSet:
    """Labels of a column Term, qualified by its table so they read on their own.

    ``("singer", "Age")`` → pref ``"Singer age"``, alt ``["age", "how old", "ages", …]``, hidden
    ``["Age", "singer.Age"]``. The table prefix is omitted when the column name already starts with
    the table's words (``concert.concert_Name`` → ``"Concert name"``).
    """
    table_words = [singularize(t.lower()) for t in split_identifier(table)]
    raw = split_identifier(column)
    plain = [t.lower() for t in raw]
    expanded = expand_tokens(raw)
    starts_with_table = [singularize(w) for w in plain[: len(table_words)]] == table_words
    display = [_display(t) for t in raw] or [column]
    if starts_with_table:
        words = display
    else:
        words = [_display(singularize(t)) for t in split_identifier(table)] + display
    pref = " ".join(words)
    pref = pref[0].upper() + pref[1:] if pref else column
    rest_plain = plain[len(table_words):] if starts_with_table else plain
    rest_expanded = expand_tokens(raw[len(table_words):]) if starts_with_table else expanded
    table_phrase = " ".join(t.lower() for t in split_identifier(table))
    alts = [
        *_variants(plain), *_variants(expanded), *_variants(rest_plain), *_variants(rest_expanded),
        " ".join([table_phrase, *rest_expanded]) if rest_expanded else "",
    ]
    return LabelSet.make(pref, alts, [column, f"{table}.{column}"])
