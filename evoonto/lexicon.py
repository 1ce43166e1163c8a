"""The Lexicon: general data-naming knowledge (abbreviations, synonym sets, cue words, word classes
and two-column concepts), packaged as
data files a user can read and extend, plus per-workspace additions.

The packaged knowledge lives in ``evoonto/data/lexicon/*.tsv`` (each file says in its header where
its knowledge comes from). A workspace may add its own in ``<workspace>/lexicon.tsv``; its rows are
merged over the packaged ones by :meth:`Lexicon.load`.

File format (every lexicon file, packaged or per workspace): UTF-8 text, one row per line, cells
separated by a TAB, ``#`` starts a comment line, blank lines are ignored. The first cell says what
the row is::

    abbreviation<TAB>short<TAB>expansion          # cyl -> cylinders (a later row replaces the earlier)
    synonyms<TAB>phrase<TAB>phrase[<TAB>...]      # a synonym set: each phrase is an alternative of the others
    cue<TAB>question word<TAB>data word[<TAB>...] # 'youngest' in a question points at age/birth columns
    class<TAB>class name<TAB>word[<TAB>...]       # words of column names that mark a kind of quantity or date
    concept<TAB>operation<TAB>class a<TAB>class b<TAB>phrase[<TAB>...]
                                                  # a concept made of two columns, named by the phrases

Word classes (``class`` rows; a later row adds words to a class): ``unaggregated``, ``intensive``
and ``additive`` quantities decide a Metric's default aggregation (none, ``AVG``, ``SUM``); the
others are named by ``concept`` rows. A ``concept`` row makes a candidate for a workload phrase no
Term covers, from two columns of one table whose names hold a word of ``class a`` and of ``class b``:
operation ``product`` (two numeric columns) is the metric ``SUM(a * b)``, ``after`` (two date
columns) the filter ``a > b``. Its phrases (the first is the label), each followed by its synonyms,
are what a question may call it.

Words are case-folded. An abbreviation row whose expansion is ``-`` removes the abbreviation (so a
workspace can drop a packaged one that misleads on its data, e.g. ``abbreviation<TAB>no<TAB>-``).

Users: the builder (labels: abbreviation expansion and synonym phrasings, via
``build(..., lexicon=)``) and evolution's offline candidate writers (cue words and synonyms).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType

from evoonto.errors import ConfigurationError
from evoonto.text import adjective_bases, common_english_word, normalize, stem

__all__ = ["Lexicon", "LexiconConcept", "CONCEPT_OPERATIONS", "WORKSPACE_FILE", "PACKAGED_FILES"]

#: The per-workspace additions file, in the workspace folder.
WORKSPACE_FILE = "lexicon.tsv"
#: The packaged lexicon files under ``evoonto/data/lexicon/``, merged in this order.
PACKAGED_FILES = ("abbreviations.tsv", "synonyms.tsv", "cues.tsv", "classes.tsv", "concepts.tsv")
_KINDS = ("abbreviation", "synonyms", "cue", "class", "concept")
#: Operations of ``concept`` rows (module docstring).
CONCEPT_OPERATIONS = ("product", "after")


@dataclass(frozen=True)
class LexiconConcept:
    """A ``concept`` row: ``operation`` (one of :data:`CONCEPT_OPERATIONS`) over a column of
    word class ``first`` and one of ``second``, named by ``phrases`` (the first is its label)."""

    operation: str
    first: str
    second: str
    phrases: tuple[str, ...]


@dataclass(frozen=True)
class Lexicon:
    """Abbreviations, synonym sets and cue words (all lower case).

    Attributes:
        abbreviations: ``{short: expansion}`` (``"qty"`` → ``"quantity"``).
        synonym_sets: tuples of phrases that are alternatives of each other, in file order.
        cues: ``{question word: data words}`` (``"young"`` → ``("age", "birth")``).
        classes: ``{class name: words}`` (``"intensive"`` → ``{"price", "rate", …}``).
        concepts: the ``concept`` rows, in file order.
        sources: the files the lexicon was read from, in merge order.
    """

    abbreviations: Mapping[str, str] = field(default_factory=dict)
    synonym_sets: tuple[tuple[str, ...], ...] = ()
    cues: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    classes: Mapping[str, frozenset[str]] = field(default_factory=dict)
    concepts: tuple[LexiconConcept, ...] = ()

    # ------------------------------------------------------------------ loading

    @classmethod
    def packaged(cls) -> Lexicon:
        """The lexicon of the packaged files only (cached; the same object on every call)."""
        return _packaged()

    @classmethod
    def load(cls, workspace_path: str | Path | None = None) -> Lexicon:
        """The packaged lexicon, extended by ``<workspace_path>/lexicon.tsv`` when that file exists.

        Args:
            workspace_path: a workspace folder (or ``None`` for the packaged lexicon only).
        Returns:
            The merged lexicon.
        Raises:
            ConfigurationError: the workspace file is malformed (the message names file and line).
        """
        base = cls.packaged()
        if workspace_path is None:
            return base
        path = Path(workspace_path) / WORKSPACE_FILE
        if not path.is_file():
            return base
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigurationError(f"{path}: cannot read the lexicon ({exc})") from None
        return base.extended(_parse(text, str(path)), source=str(path))

    @classmethod
    def from_text(cls, text: str, *, name: str = "<text>") -> Lexicon:
        """A lexicon of the rows in ``text`` alone (format in the module docstring).

        Raises:
            ConfigurationError: a malformed row (the message names ``name`` and the line).
        """
        return cls().extended(_parse(text, name), source=name)

    def extended(self, rows: Iterable[tuple[str, tuple[str, ...]]] | Lexicon, *, source: str = "") -> Lexicon:
        """A copy with ``rows`` (``(kind, cells)`` pairs, or another lexicon) merged over this one.

        Abbreviations and cues of ``rows`` replace those of the same word (a cue's data words are
        added to the existing ones); synonym sets are appended.
        """
        if isinstance(rows, Lexicon):
            other = rows
            rows = ([("abbreviation", (k, v)) for k, v in other.abbreviations.items()]
                    + [("synonyms", s) for s in other.synonym_sets]
                    + [("cue", (k, *v)) for k, v in other.cues.items()]
                    + [("class", (k, *sorted(v))) for k, v in other.classes.items()]
                    + [("concept", (c.operation, c.first, c.second, *c.phrases)) for c in other.concepts])
        abbreviations = dict(self.abbreviations)
        sets = list(self.synonym_sets)
        cues = dict(self.cues)
        classes = dict(self.classes)
        concepts = list(self.concepts)
        for kind, cells in rows:
            if kind == "abbreviation":
                if cells[1] == "-":
                    abbreviations.pop(cells[0], None)
                else:
                    abbreviations[cells[0]] = cells[1]
            elif kind == "synonyms":
                if cells not in sets:
                    sets.append(cells)
            elif kind == "class":
                classes[cells[0]] = classes.get(cells[0], frozenset()) | frozenset(cells[1:])
            elif kind == "concept":
                concept = LexiconConcept(cells[0], cells[1], cells[2], cells[3:])
                if concept not in concepts:
                    concepts.append(concept)
            else:
                cues[cells[0]] = tuple(dict.fromkeys([*cues.get(cells[0], ()), *cells[1:]]))
        return Lexicon(MappingProxyType(abbreviations), tuple(sets), MappingProxyType(cues),
                       (*self.sources, source) if source else self.sources, MappingProxyType(classes),
                       tuple(concepts))

    # ------------------------------------------------------------------ lookups

    def expand(self, word: str) -> str:
        """The expansion of an abbreviation (lower case), or ``word`` lower-cased when it is none."""
        low = word.lower()
        return self.abbreviations.get(low, low)

    def synonyms(self, phrase: str) -> tuple[str, ...]:
        """Alternatives of ``phrase`` from every synonym set that holds it (case-insensitive), in
        file order, without ``phrase`` itself."""
        key = normalize(phrase)
        out: dict[str, None] = {}
        for group in self._sets_by_phrase().get(key, ()):
            for alternative in group:
                if alternative != key:
                    out[alternative] = None
        return tuple(out)

    def words_of(self, name: str) -> frozenset[str]:
        """The words of the word class ``name`` (empty when the lexicon has no such class)."""
        return self.classes.get(name, frozenset())

    def concept_phrases(self, concept: LexiconConcept) -> tuple[str, ...]:
        """What a question may call ``concept``: each of its phrases followed by that phrase's
        synonyms (:meth:`synonyms`), without repeats, label first."""
        return tuple(dict.fromkeys(w for phrase in concept.phrases for w in (phrase, *self.synonyms(phrase))))

    def cue_targets(self, word: str) -> tuple[str, ...]:
        """Data words a question word points at: the cue rows of the word, of its stem, or of the
        positive form of a comparative/superlative (``"youngest"`` → ``("age", "birth")``)."""
        index = self._cues_by_stem()
        out: dict[str, None] = {}
        for form in adjective_bases(word):
            for target in index.get(stem(form), ()):
                out[target] = None
        return tuple(out)

    def place_names(self, phrase: str) -> tuple[str, ...]:
        """The other names of the country ``phrase`` names: its demonym (*French*), its name
        (*France*) or another spelling of it (*United States of America*).

        Knowledge from the ``countryinfo`` package's country records (MIT; name, alternative
        spellings and demonym of 250 countries and territories). A phrase that names several
        (a shared demonym: *American*, *Indian*, *French*) gives the most populous first (United
        States, India, France, then the territories). For each country: its name, its other
        spellings, its demonym, then its codes of three capitals ('USA', 'FRA'; two-letter codes
        are too short to probe for), without the phrase itself (compared case-insensitively,
        accents kept: *Reunion* still offers 'Réunion'). One-word spellings that are common
        English words ('Island' for Iceland) are never looked up, and a code of two or three
        letters only when the phrase writes it in capitals (*USA*, *UK*): *guy* or *island*
        names no country. ``()`` for a phrase that names no country; matching is whole-phrase
        (*Fren* names nothing).
        """
        asked = phrase.strip().casefold()
        # a code is looked up only as the question writes it, in capitals ("USA", not "usa")
        key = phrase.strip() if phrase.strip().isupper() and len(phrase.strip()) <= 3 else normalize(phrase)
        out: dict[str, None] = {}
        for names in _country_names().get(key, ()):
            for name in names:
                if name.casefold() != asked:
                    out[name] = None
        return tuple(out)

    def related_stems(self, word: str) -> set[str]:
        """Stems of the data words ``word`` may refer to: its cue targets, and the single-word members
        of every synonym set in which one phrase contains ``word`` (by stem)."""
        base = stem(word)
        out = {stem(t) for target in self.cue_targets(word) for t in target.split()}
        for group in self.synonym_sets:
            if any(base in {stem(w) for w in phrase.split()} for phrase in group):
                out.update(stem(p) for p in group if " " not in p and stem(p) != base)
        return out

    # ------------------------------------------------------------------ indexes (per instance)

    def _sets_by_phrase(self) -> dict[str, list[tuple[str, ...]]]:
        return self._phrase_index

    @functools.cached_property
    def _phrase_index(self) -> dict[str, list[tuple[str, ...]]]:
        # kept on the instance: looking the shared index up by ``synonym_sets`` hashed that whole tuple
        # on every ``synonyms`` call (85,566 calls while labelling the wide schema)
        return _sets_index(self.synonym_sets)

    def _cues_by_stem(self) -> dict[str, tuple[str, ...]]:
        return _cue_index(tuple(self.cues.items()))


@functools.lru_cache(maxsize=64)
def _sets_index(sets: tuple[tuple[str, ...], ...]) -> dict[str, list[tuple[str, ...]]]:
    index: dict[str, list[tuple[str, ...]]] = {}
    for group in sets:
        for phrase in group:
            index.setdefault(phrase, []).append(group)
    return index


@functools.lru_cache(maxsize=64)
def _cue_index(cues: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, tuple[str, ...]]:
    index: dict[str, tuple[str, ...]] = {}
    for word, targets in cues:
        key = stem(word)
        index[key] = tuple(dict.fromkeys([*index.get(key, ()), *targets]))
    return index


def _parse(text: str, name: str) -> list[tuple[str, tuple[str, ...]]]:
    """``(kind, cells)`` rows of one lexicon file (cells normalised, kind checked)."""
    rows = []
    for lineno, line in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        kind, *rest = [c.strip() for c in line.split("\t")]
        cells = tuple(normalize(c) for c in rest if c.strip())
        if kind not in _KINDS:
            raise ConfigurationError(f"{name}:{lineno}: unknown row kind {kind!r} "
                                     f"(expected one of {', '.join(_KINDS)}, TAB-separated)")
        need = {"abbreviation": 2, "synonyms": 2, "cue": 2, "class": 2, "concept": 4}[kind]
        if len(cells) < need or (kind == "abbreviation" and len(cells) != 2):
            raise ConfigurationError(f"{name}:{lineno}: a {kind} row needs "
                                     + ("exactly 2 cells after the kind" if kind == "abbreviation"
                                        else f"at least {need} cells after the kind"))
        if kind == "concept" and cells[0] not in CONCEPT_OPERATIONS:
            raise ConfigurationError(f"{name}:{lineno}: unknown concept operation {cells[0]!r} "
                                     f"(expected one of {', '.join(CONCEPT_OPERATIONS)})")
        rows.append((kind, cells))
    return rows


@functools.lru_cache(maxsize=1)
def _country_names() -> dict[str, list[tuple[str, ...]]]:
    """``{normalized name, spelling or demonym: [names of each country it names, most populous
    first]}`` from ``countryinfo`` (read once; about 0.05 s); see :meth:`Lexicon.place_names`."""
    from countryinfo import CountryInfo

    def code(text: str) -> bool:
        return len(text) <= 3 and text.isupper()

    def looked_up(text: str) -> bool:
        # a one-word spelling that is a common English word ('Island' for Iceland) or a code
        # ('GUY', 'ARM') names other things too: offered as a name to probe, never looked up
        return " " in text or not (code(text) or common_english_word(text.casefold()))

    index: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    for record in CountryInfo.all().values():
        name = str(record.get("name") or "").strip()
        if not name:
            continue
        every = [str(x).strip() for x in record.get("altSpellings") or ()]
        spellings = [x for x in every if len(x) >= 3]
        demonym = str(record.get("demonym") or "").strip()
        names = tuple(dict.fromkeys([name, *(x for x in spellings if not code(x)), *([demonym] if demonym else []),
                                     *(x for x in spellings if code(x))]))
        population = int(record.get("population") or 0)
        for known in {name, demonym, *(x for x in spellings if looked_up(x))} - {""}:
            index.setdefault(normalize(known), []).append((population, names))
        for known in (x for x in every if code(x) and len(x) >= 2):  # keyed in capitals: see place_names
            index.setdefault(known, []).append((population, names))
    return {key: [names for _population, names in sorted(found, key=lambda x: -x[0])]
            for key, found in index.items()}


@functools.lru_cache(maxsize=1)
def _packaged() -> Lexicon:
    lexicon = Lexicon()
    folder = resources.files("evoonto").joinpath("data", "lexicon")
    for name in PACKAGED_FILES:
        text = folder.joinpath(name).read_text(encoding="utf-8")
        lexicon = lexicon.extended(_parse(text, name), source=f"evoonto/data/lexicon/{name}")
    return lexicon
