"""New read-only probes of the raw sources, run by diagnosis and candidate writing.

When a failed question mentions a value (``'France'``, ``French``, ``2014``) that no Evidence records,
evolution asks the sources where that value lives: one ``SELECT`` per text-like column, through the
read-only source layer (``Source.run(sql, limit=…, timeout_ms=…)``, docs/architecture.md §4), so the
statement guard and row caps apply. The queries run through the one probe path
(:func:`evoonto.sources.probe.run_probe`) and quote names and values for each source's dialect
(:mod:`evoonto.sources.quoting`). Each hit carries the exact query, which becomes the new Evidence's
probe activity (PROV-O ``prov:Activity`` with ``evo:query``). Gold answers are never consulted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

from evoonto.builder.labels import normalize
from evoonto.errors import EvoontoError
from evoonto.evolution.view import ColumnInfo
from evoonto.sources.base import QueryResult
from evoonto.sources.probe import run_probe
from evoonto.sources.quoting import column_as_text, quote_identifier, quote_literal
from evoonto.lexicon import Lexicon
from evoonto.text import singularize

if TYPE_CHECKING:
    from evoonto.sources.base import Source

#: Other names of a place probed per question word (:meth:`evoonto.lexicon.Lexicon.place_names`: the
#: country's name and spellings first, then the territories that share its demonym): a bound on the
#: read-only probes a demonym such as *French* costs.
PLACE_NAMES_PROBED = 8

_NUMERIC = ("INT", "REAL", "FLOA", "DOUB", "NUM", "DEC", "BOOL")


def numeric_column(column: ColumnInfo) -> bool:
    """Whether the column's declared type is a number or a boolean (the probes compare such a
    column with a number, never with text)."""
    return any(t in column.declared_type.upper() for t in _NUMERIC)


@dataclass(frozen=True)
class ValueHit:
    """A value found by a probe: where (source id, table, column), the stored spelling, the query."""

    source_id: str
    table: str
    column: str
    value: str
    query: str
    rows: int


def _value_and_count(row) -> tuple[object, int]:
    """A probe row ``(stored value, COUNT(*))`` (a tuple, or a mapping from a source that answers
    with one) as ``(value, count)``; a row without a count counts 1."""
    if isinstance(row, (list, tuple)):
        return row[0], int(row[1] or 1) if len(row) > 1 else 1
    return next(iter(dict(row).values())), 1


def _rows(result: QueryResult | Mapping | None) -> list:
    """The rows of a probe's answer (a :class:`QueryResult`, or a ``{"rows": …}`` mapping from a
    source that answers with one); ``[]`` when the probe failed (no result)."""
    if isinstance(result, QueryResult):
        return list(result.rows)
    return list(result.get("rows") or []) if isinstance(result, Mapping) else []


class ValueProber:
    """Finds where a question's value is stored, by read-only probes.

    Args:
        sources: source id -> Source (anything with ``run(sql, *, limit, timeout_ms)`` returning an
            object or dict with ``rows``).
        timeout_ms: per-probe time limit in milliseconds. max_columns: text columns probed per
            source per value (cost bound).

    ``find(source_id, value, columns)`` returns :class:`ValueHit` s: stored values equal to ``value``
    case-insensitively (with ``inflected=True``, a plural word's regular singular too), nothing
    else. A value that merely shares its first letters with the question's word (``LIKE 'co%'`` →
    a title "Contact"; the code ``NEW`` for *Newark*) is not evidence that the word means it, so no
    prefix or look-alike match is probed. ``find_containing`` is for a literal
    the question quotes as part of a value: the stored values holding it as a whole word. Probes
    that fail (timeouts, refused statements) are skipped. Results are cached per (source, column,
    value) for ``find`` and per (source, text) for ``find_containing``. ``queries`` counts the probes run.
    """

    def __init__(self, sources: Mapping[str, Source], *, timeout_ms: int = 2000, max_columns: int = 200):
        self.sources = dict(sources)
        self.timeout_ms = timeout_ms
        self.max_columns = max_columns
        self._cache: dict[tuple[str, str], list[ValueHit]] = {}  # find_containing, per (source, text)
        self._column_hits: dict[tuple, ValueHit | None] = {}  # find, per (source, table, column, forms)
        self.queries = 0

    def _run(self, source, sql: str) -> list:
        self.queries += 1
        try:
            return _rows(run_probe(source, sql, limit=50, timeout_ms=self.timeout_ms).result)
        except EvoontoError:
            return []

    def find(self, source_id: str, value: str, columns: list[ColumnInfo], *,
             inflected: bool = False) -> list[ValueHit]:
        """Columns of ``source_id`` (among ``columns``) whose stored values equal ``value``
        case-insensitively, one hit per column (the most frequent spelling).

        ``inflected=True`` (for a word of a question, not a literal of SQL): a plural word also
        finds its regular singular stored whole (:func:`evoonto.text.singularize`: "Masters" finds
        'Master'); the hit's ``value`` is then the stored singular. Never a prefix or look-alike.
        Hits of the word itself come first, in column order, then those of its singular.
        """
        text = value.strip()
        numeric = text.replace(".", "", 1).isdigit()
        forms = [text]
        if inflected and not numeric and singularize(text) != text:
            forms.append(singularize(text))
        wanted = [normalize(form) for form in forms]  # the word itself first, then its singular
        source = self.sources.get(source_id)
        hits: list[ValueHit] = []
        if source is None or not text:
            return hits
        probed = 0
        for col in columns:
            if col.source_id != source_id:
                continue
            is_num_col = numeric_column(col)
            if is_num_col != numeric and not (numeric and not col.declared_type):
                continue
            if probed >= self.max_columns:
                break
            probed += 1
            # cached per column: a caller that asks about one column gets that column's answer,
            # never a hit another caller's wider question found elsewhere
            key = (source_id, col.table, col.column, *(form.casefold() for form in forms))  # as the SQL asks
            if key not in self._column_hits:
                self._column_hits[key] = self._probe_column(source, source_id, col, text, forms, numeric)
            best = self._column_hits[key]
            if best is not None:
                hits.append(best)
        # the word itself stored in any column before its singular in another ('Williams' in
        # last_name before 'William' in first_name); column order within each
        hits.sort(key=lambda hit: wanted.index(normalize(hit.value)))
        return hits

    def find_place(self, source_id: str, phrase: str, columns: list[ColumnInfo],
                   lexicon: Lexicon) -> list[ValueHit]:
        """The hits of the first other name of the place ``phrase`` names that is stored whole
        (:meth:`find`, exact): ``lexicon.place_names(phrase)`` in its order (the most populous country
        first), at most :data:`PLACE_NAMES_PROBED` names; ``[]`` when none is stored."""
        for name in lexicon.place_names(phrase)[:PLACE_NAMES_PROBED]:
            hits = self.find(source_id, name, columns)
            if hits:
                return hits
        return []

    def _probe_column(self, source: Source, source_id: str, col: ColumnInfo, text: str, forms: list[str],
                      numeric: bool) -> ValueHit | None:
        """One read-only probe of ``col`` for ``forms`` (see :meth:`find`); None when not stored."""
        dialect = source.dialect
        c, t = quote_identifier(col.column, dialect), quote_identifier(col.table, dialect)
        if numeric:
            cond = f"{column_as_text(col.column, dialect)} = {quote_literal(text, dialect)}"
        elif len(forms) == 1:
            cond = f"LOWER({column_as_text(col.column, dialect)}) = LOWER({quote_literal(text, dialect)})"
        else:
            listed = ", ".join(f"LOWER({quote_literal(form, dialect)})" for form in forms)
            cond = f"LOWER({column_as_text(col.column, dialect)}) IN ({listed})"
        sql = f"SELECT {c}, COUNT(*) FROM {t} WHERE {cond} GROUP BY {c} ORDER BY COUNT(*) DESC LIMIT 50"
        wanted = [normalize(form) for form in forms]
        best = None
        for row in self._run(source, sql):
            stored, n = _value_and_count(row)
            if stored is None:
                continue
            stored_text = str(stored)
            if normalize(stored_text) not in wanted:
                continue  # e.g. case folding of the database differs from Python's: not the value
            if best is None or wanted.index(normalize(stored_text)) < wanted.index(normalize(best.value)):
                best = ValueHit(source_id, col.table, col.column, stored_text, sql, n)
        return best

    def find_containing(self, source_id: str, text: str, columns: list[ColumnInfo]) -> list[ValueHit]:
        """Text columns of ``source_id`` (among ``columns``) whose stored values contain ``text`` as a
        whole word or phrase, case-insensitively: for a literal the question quotes as part of a
        value ("the song having 'Hey' in its name"), the stored values it is part of (``'Hey Oh'``).
        Only for what a question quotes (the caller's duty): a word it merely uses is never probed
        this way (see the class docstring). One probe per text column, ``LIKE '%text%'`` with the
        pattern characters escaped, read-only like :meth:`find`.

        Returns:
            One :class:`ValueHit` per column that holds such a value: its most frequent one, the
            probe's query and that value's row count; ``[]`` for ``text`` under 3 characters, a
            number, or an unknown source. Cached per (source, text).
        """
        stripped = text.strip()
        key = (source_id, "\0contains\0" + normalize(stripped))
        if key in self._cache:
            return self._cache[key]
        source = self.sources.get(source_id)
        hits: list[ValueHit] = []
        if source is None or len(stripped) < 3 or stripped.replace(".", "", 1).isdigit():
            self._cache[key] = hits
            return hits
        whole = re.compile(r"(?<!\w)" + re.escape(stripped.lower()) + r"(?!\w)")  # (\w: any script's letters)
        # "!" escapes the pattern characters: portable, unlike a backslash (MySQL reads it in literals)
        pattern = "%" + stripped.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%"
        probed = 0
        for col in columns:
            if col.source_id != source_id or any(t in col.declared_type.upper() for t in _NUMERIC):
                continue
            if probed >= self.max_columns:
                break
            probed += 1
            dialect = source.dialect
            c, t = quote_identifier(col.column, dialect), quote_identifier(col.table, dialect)
            sql = (f"SELECT {c}, COUNT(*) FROM {t} WHERE LOWER({column_as_text(col.column, dialect)}) LIKE LOWER("
                   f"{quote_literal(pattern, dialect)}) ESCAPE '!' GROUP BY {c} ORDER BY COUNT(*) DESC, {c} LIMIT 50")
            for row in self._run(source, sql):
                stored, n = _value_and_count(row)
                if stored is not None and whole.search(str(stored).lower()):
                    hits.append(ValueHit(source_id, col.table, col.column, str(stored), sql, n))
                    break
        self._cache[key] = hits
        return hits
