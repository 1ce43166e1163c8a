"""The value index: which column holds a data value an agent asks about (issue 19).

A question names ``'France'``, ``'Anthony'`` or ``'AKO'``; the ontology's Evidence keeps only a few
sampled values per column, so such a value is findable only when the builder happened to sample it.
The value index holds the **distinct values of the text, date and time columns** of every tabular
source (dates as their ISO text), bounded:

- at most :attr:`ValueBounds.per_column` distinct values per column (a column with more is indexed
  with its first ``per_column`` distinct values and marked ``complete = False``),
- at most :attr:`ValueBounds.total` values over all columns (columns met after the total is reached
  are recorded with status ``"total bound reached"``),
- values longer than :attr:`ValueBounds.max_value_chars` characters are not indexed (free text is
  not a lookup value), and each column's query has a time limit (``timeout_ms``).

Each column's values come from one read-only probe through :func:`evoonto.sources.probe.run_probe`
(``SELECT DISTINCT "c" FROM "t" WHERE "c" IS NOT NULL LIMIT per_column + 1``); the hit carries that
query and its Evidence key (``stable_key(source id, query)``, the key of ``evidence/…`` IRIs), so a
hit is Evidence-backed knowledge of the column, reproducible by re-running the probe.

The index is a SQLite file (``<workspace>/cache/values.sqlite``): a table of values with their
normalised key (B-tree index: exact and normalised lookups; fuzzy lookups score the distinct keys of
a reachable length with rapidfuzz, see :meth:`ValueIndex._fuzzy`). Its ``meta`` table records the
bounds and a fingerprint of the sources (ids, locations, file sizes and modification times, tables, columns and
row counts); :func:`ensure_value_index` rebuilds it only when that fingerprint changes.

Query (:meth:`ValueIndex.value_hits`): the quoted strings and the word n-grams (1 to 4 words) of the
query are looked up by **exact** spelling (score 1.0) and by **normalised** key (case, accents and
punctuation folded: ``north bohemia`` finds ``North-Bohemia``; score 0.95); phrases of at least 4
characters that found nothing are matched **fuzzily** (rapidfuzz ``ratio`` ≥ ``fuzzy_cutoff`` against
the distinct keys of a length that can reach it; score 0.9 × ratio/100), except numbers and dates
(``2012 08 25`` is no spelling of ``2012 08 24``). Phrases made only of stop
words or short numbers (``the``, ``1``) are not looked up. Dates and months the query writes
(``2012/8/24``, ``August 24, 2012``, ``September, 2013``) are also looked up in the forms columns
store them in (``2012-08-24``, ``20120824``, ``201309``; :func:`date_phrases`). Example::

    with open_source("world.sqlite") as src:
        index = ensure_value_index(Path("ws/cache/values.sqlite"), {src.id: src})
    index.value_hits("cities in france")
    # [ValueHit(source='world', table='country', column='Name', value='France', match='normalized', ...)]
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import math
import os
import re
import sqlite3
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from evoonto.errors import SourceError
from evoonto.text import QUESTION_STOP_WORDS, normalize

__all__ = ["ValueBounds", "ValueHit", "ValueIndex", "build_value_index", "ensure_value_index",
           "value_key", "VALUE_INDEX_FILE"]

#: Most distinct keys a fuzzy phrase matches (the best by ``ratio``).
FUZZY_KEYS = 200
#: Where a workspace keeps its value index, relative to the workspace folder.
VALUE_INDEX_FILE = Path("cache") / "values.sqlite"
#: Bumped when what is indexed changes (2: date and time columns too), so older files are rebuilt.
_SCHEMA_VERSION = "2"
_WORD = re.compile(r"\w+")
_QUOTED = re.compile(r"'([^']{1,200})'|\"([^\"]{1,200})\"|`([^`]{1,200})`")


@dataclass(frozen=True)
class ValueBounds:
    """How much the value index holds.

    Attributes:
        per_column: most distinct values indexed per column.
        total: most values indexed over all columns of all sources.
        max_value_chars: longer values (characters) are not indexed.
        timeout_ms: time limit of each column's probe, in milliseconds.
    """

    per_column: int = 2_000
    total: int = 1_000_000
    max_value_chars: int = 120
    timeout_ms: int = 2_000


@dataclass(frozen=True)
class ValueHit:
    """A stored value that matches a phrase of the query.

    Attributes:
        source, table, column: where the value is stored (names exactly as the engine knows them).
        value: the stored value's exact spelling (quote it as a SQL string literal to use it).
        phrase: the text of the query that matched it.
        match: ``"exact"``, ``"normalized"`` (case/accents/punctuation folded) or ``"fuzzy"``.
        score: 1.0 exact, 0.95 normalized, 0.9 × rapidfuzz ratio/100 fuzzy.
        probe_sql: the read-only query that listed the column's values (the Evidence's query).
        evidence_key: ``stable_key(source, probe_sql)``, the key of the Evidence/probe IRIs.
        complete: whether every distinct value of the column is indexed (else the first
            ``per_column`` of them).
    """

    source: str
    table: str
    column: str
    value: str
    phrase: str
    match: str
    score: float
    probe_sql: str
    evidence_key: str
    complete: bool

    @property
    def location(self) -> str:
        """``table.column`` (unquoted, as in Mapping locations)."""
        return f"{self.table}.{self.column}"


def value_key(text: str) -> str:
    """The normalised lookup key of a value or phrase: case-folded, accent-folded, words joined by
    one space (``"North-Bohemia"`` → ``"north bohemia"``); the case-folded text when it has no word
    character (``"{1}{R}"`` → ``"{1}{r}"``)."""
    folded = normalize(text)
    return " ".join(_WORD.findall(folded)) or folded


# --- building ---------------------------------------------------------------------------------------


def _is_lookup_column(declared_type: str) -> bool:
    """Text columns (names, codes) and date/time columns (a question's "2012/8/24" or "August
    2012" is looked up in their stored form, see :func:`date_phrases`)."""
    from evoonto.sources.joins import type_family

    return type_family(declared_type) in ("text", "any", "time")


def _stored_text(value: Any) -> str | None:
    """A probed value as the index stores it: a string as it is, a date, time or timestamp the
    driver returned as an object in its ISO text (``str``: ``2012-08-24``, ``2012-08-24 16:25:00``,
    the form an SQL literal compares with); None for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, (dt.date, dt.time)):  # datetime is a date
        return str(value)
    return None


def source_fingerprint(sources: Mapping[str, Any], bounds: ValueBounds) -> str:
    """A hash of what the index is built from: the bounds, each source's id and location (with the
    size and modification time of a local file or folder), its tables, columns and row counts."""
    parts: list[Any] = [_SCHEMA_VERSION, asdict(bounds)]
    for sid in sorted(sources):
        src = sources[sid]
        location = str(src.location)
        stat: list[Any] = []
        path = Path(location)
        try:
            if path.is_file():
                stat = [path.stat().st_size, path.stat().st_mtime_ns]
            elif path.is_dir():
                stat = sorted([p.name, p.stat().st_size, p.stat().st_mtime_ns] for p in path.iterdir() if p.is_file())
        except OSError:
            stat = []
        try:
            tables = [[t.name, t.kind, t.row_count, [[c.name, c.declared_type] for c in t.columns]]
                      for t in src.tables()]
        except SourceError:
            tables = []
        parts.append([sid, src.kind, location, stat, tables])
    return hashlib.sha256(json.dumps(parts, default=str).encode()).hexdigest()


_DDL = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE columns (id INTEGER PRIMARY KEY, source TEXT NOT NULL, table_name TEXT NOT NULL,
                      column_name TEXT NOT NULL, probe_sql TEXT NOT NULL, evidence_key TEXT NOT NULL,
                      n_values INTEGER NOT NULL, complete INTEGER NOT NULL, status TEXT NOT NULL);
CREATE TABLE vals (id INTEGER PRIMARY KEY, col INTEGER NOT NULL, value TEXT NOT NULL, norm TEXT NOT NULL);
"""
_POST_DDL = """
CREATE INDEX vals_norm ON vals(norm);
"""


def build_value_index(path: str | os.PathLike, sources: Mapping[str, Any], *,
                      bounds: ValueBounds = ValueBounds(), progress: bool = False) -> "ValueIndex":
    """Build the value index of ``sources`` into the SQLite file ``path`` (replaced atomically).

    Args:
        path: the index file (its folder is created).
        sources: source id -> open source (anything :func:`run_probe` accepts, with ``tables()``
            and ``quote``); documents sources are skipped.
        bounds: the bounds (recorded in the file's ``meta`` table).
        progress: draw a progress bar over columns (on a terminal only).
    Returns:
        The opened :class:`ValueIndex`.
    Raises:
        OSError: the file cannot be written. A column whose probe fails or times out is recorded
        with its error as status and contributes no value.
    """
    from evoonto.iris import stable_key
    from evoonto.progress import progress_bar
    from evoonto.sources.guard import SqlTemplate
    from evoonto.sources.probe import run_probe

    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.unlink(missing_ok=True)
    fingerprint = source_fingerprint(sources, bounds)
    con = sqlite3.connect(tmp)
    try:
        con.executescript(_DDL)
        work = []
        for sid in sorted(sources):
            src = sources[sid]
            if src.kind == "documents":
                continue
            for table in src.tables():
                if table.kind == "view":
                    continue
                for column in table.columns:
                    if _is_lookup_column(column.declared_type):
                        work.append((sid, src, table, column))
        # names and codes first: date and time columns (often one distinct value per row) come after
        # every text column, so they never use up the total before a text column is read
        from evoonto.sources.joins import type_family

        work.sort(key=lambda item: type_family(item[3].declared_type) == "time")
        total = 0
        # one query shape for every column: the guard checks it once per dialect and each rendering
        # runs unparsed (parsing 43,000 renderings cost 60 CPU s at 70,000 columns)
        template = SqlTemplate(f"SELECT DISTINCT {{col}} FROM {{table}} WHERE {{col}} IS NOT NULL "
                               f"LIMIT {bounds.per_column + 1}")
        with progress_bar(len(work), desc="value index", unit="col", enabled=progress) as bar:
            for sid, src, table, column in work:
                sql: str = template.text.format(col=src.quote(column.name), table=src.quote(table.name))
                with contextlib.suppress(SourceError, AttributeError):  # (a NUL in a name; a source with no dialect)
                    checked = template.render(src.dialect, col=column.name, table=table.name)
                    if checked == sql:  # quoted as the source quotes (a pool, a BaseSource): the same text, checked
                        sql = checked
                key = stable_key(sid, sql)
                values: list[str] = []
                complete, status = True, "ok"
                if total >= bounds.total:
                    complete, status = False, "total bound reached"
                else:
                    try:
                        run = run_probe(src, sql, limit=bounds.per_column + 1, timeout_ms=bounds.timeout_ms)
                        rows = run.rows
                        complete = len(rows) <= bounds.per_column
                        room = min(bounds.per_column, bounds.total - total)
                        complete = complete and len(rows) <= room
                        texts = (_stored_text(v) for (v, *_) in rows[:room])
                        values = [v for v in texts if v is not None and v.strip() and len(v) <= bounds.max_value_chars]
                    except SourceError as err:
                        complete, status = False, f"failed: {str(err).splitlines()[0][:200]}"
                cur = con.execute(
                    "INSERT INTO columns (source, table_name, column_name, probe_sql, evidence_key, n_values,"
                    " complete, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (sid, table.name, column.name, sql, key, len(values), int(complete), status))
                col = cur.lastrowid
                con.executemany("INSERT INTO vals (col, value, norm) VALUES (?, ?, ?)",
                                [(col, v, value_key(v)) for v in values])
                total += len(values)
                bar.update(1)
        con.executescript(_POST_DDL)
        meta = {"fingerprint": fingerprint, "bounds": json.dumps(asdict(bounds)), "values": str(total),
                "columns": str(len(work)), "schema": _SCHEMA_VERSION}
        con.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
        con.commit()
    except BaseException:
        con.close()
        tmp.unlink(missing_ok=True)
        raise
    con.close()
    os.replace(tmp, target)
    return ValueIndex(target)


def ensure_value_index(path: str | os.PathLike, sources: Mapping[str, Any], *,
                       bounds: ValueBounds = ValueBounds(), progress: bool = False) -> "ValueIndex":
    """The value index at ``path``, rebuilt (:func:`build_value_index`) only when it is missing,
    unreadable, or was built from other sources or bounds (fingerprint in its ``meta`` table)."""
    target = Path(path)
    if target.is_file():
        try:
            index = ValueIndex(target)
            if index.meta.get("fingerprint") == source_fingerprint(sources, bounds):
                return index
            index.close()
        except sqlite3.DatabaseError:
            pass
    return build_value_index(target, sources, bounds=bounds, progress=progress)


# --- querying ---------------------------------------------------------------------------------------


class ValueIndex:
    """A built value index (read-only SQLite connection; safe to query from several threads).

    Args:
        path: the file written by :func:`build_value_index`.
    Raises:
        sqlite3.DatabaseError: not a value index file.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        uri = f"file:{self.path.resolve().as_posix()}?mode=ro"
        self._con = sqlite3.connect(uri, uri=True, check_same_thread=False)
        self._lock = threading.Lock()
        self._sorted_keys: tuple[list[int], list[str]] | None = None  # see _keys
        #: the ``meta`` table: fingerprint, bounds (JSON), values, columns, schema
        self.meta: dict[str, str] = dict(self._con.execute("SELECT key, value FROM meta").fetchall())

    def close(self) -> None:
        """Close the connection."""
        self._con.close()

    def stats(self) -> dict[str, Any]:
        """``{values, columns, incomplete_columns, failed_columns, bounds, bytes}`` of the index."""
        with self._lock:
            incomplete = self._con.execute("SELECT COUNT(*) FROM columns WHERE complete = 0").fetchone()[0]
            failed = self._con.execute("SELECT COUNT(*) FROM columns WHERE status != 'ok'").fetchone()[0]
        return {"values": int(self.meta.get("values", 0)), "columns": int(self.meta.get("columns", 0)),
                "incomplete_columns": incomplete, "failed_columns": failed,
                "bounds": json.loads(self.meta.get("bounds", "{}")), "bytes": self.path.stat().st_size}

    def value_hits(self, query: str, *, limit: int = 10, per_column: int = 2,
                   fuzzy_cutoff: float = 85.0) -> list[ValueHit]:
        """The stored values that a phrase of ``query`` names, best first.

        Args:
            query: a question, a phrase or a value (any length; quoted strings are looked up whole).
            limit: most hits returned.
            per_column: most hits per column (one column's values do not crowd the others out).
            fuzzy_cutoff: least rapidfuzz ``ratio`` (0..100) of a fuzzy match.
        Returns:
            :class:`ValueHit` list ordered by score, then longer phrase, then location and value.
        """
        phrases = list(dict.fromkeys(_phrases(query) + date_phrases(query)))
        if not phrases:
            return []
        by_key: dict[str, list[str]] = {}
        for phrase in phrases:
            by_key.setdefault(value_key(phrase), []).append(phrase)
        found: dict[tuple[int, str], tuple[float, str, str]] = {}  # (col, value) -> (score, match, phrase)

        def offer(col: int, value: str, score: float, match: str, phrase: str) -> None:
            old = found.get((col, value))
            if old is None or (score, len(phrase)) > (old[0], len(old[2])):
                found[(col, value)] = (score, match, phrase)

        keys = list(by_key)
        with self._lock:
            for start in range(0, len(keys), 500):
                chunk = keys[start:start + 500]
                marks = ",".join("?" * len(chunk))
                for col, value, norm in self._con.execute(
                        f"SELECT col, value, norm FROM vals WHERE norm IN ({marks})", chunk):
                    for phrase in by_key[norm]:
                        exact = value == phrase
                        offer(col, value, 1.0 if exact else 0.95, "exact" if exact else "normalized", phrase)
            matched = {found[k][2] for k in found}
            # numbers and dates are matched exactly or not at all: '2012 08 25' is not a spelling
            # of '2012 08 24'
            fuzzy = [p for p in phrases if p not in matched and len(value_key(p)) >= 4
                     and not value_key(p).replace(" ", "").isdigit()][:24]
            for phrase in fuzzy:
                for col, value, score in self._fuzzy(phrase, fuzzy_cutoff):
                    offer(col, value, 0.9 * score / 100.0, "fuzzy", phrase)
            if not found:
                return []
            cols = {col for col, _ in found}
            marks = ",".join("?" * len(cols))
            info = {row[0]: row[1:] for row in self._con.execute(
                f"SELECT id, source, table_name, column_name, probe_sql, evidence_key, complete FROM columns "
                f"WHERE id IN ({marks})", sorted(cols))}
        hits = []
        for (col, value), (score, match, phrase) in found.items():
            source, table, column, sql, key, complete = info[col]
            hits.append(ValueHit(source, table, column, value, phrase, match, round(score, 3), sql, key,
                                 bool(complete)))
        hits.sort(key=lambda h: (-h.score, -len(h.phrase), h.source, h.table, h.column, h.value))
        seen: dict[tuple[str, str, str], int] = {}
        kept = []
        for hit in hits:
            where = (hit.source, hit.table, hit.column)
            if seen.get(where, 0) >= per_column:
                continue
            seen[where] = seen.get(where, 0) + 1
            kept.append(hit)
            if len(kept) >= limit:
                break
        return kept

    def warm(self) -> None:
        """Read the distinct keys of the fuzzy lookup now rather than on the first query."""
        with self._lock:
            self._keys()

    def _keys(self) -> tuple[list[int], list[str]]:
        """The distinct normalised keys, sorted by (length, key), and their lengths (read once; the
        caller holds the lock)."""
        if self._sorted_keys is None:
            keys = sorted((norm for (norm,) in self._con.execute("SELECT DISTINCT norm FROM vals")),
                          key=lambda k: (len(k), k))
            self._sorted_keys = ([len(k) for k in keys], keys)
        return self._sorted_keys

    def _fuzzy(self, phrase: str, cutoff: float) -> list[tuple[int, str, float]]:
        """Fuzzy matches of one phrase: every distinct normalised key whose rapidfuzz ``ratio`` with
        the phrase's key is at least ``cutoff`` (the best :data:`FUZZY_KEYS` keys), with their values.

        ``ratio`` is ``100 * (1 - d / (m + n))`` for lengths ``m``, ``n`` and indel distance
        ``d >= |m - n|``, so only keys of length ``m * c / (200 - c)`` to ``m * (200 - c) / c``
        (``c`` = cutoff) can reach it: those are scored (one rapidfuzz call), no others are read.
        (Was an FTS5 trigram shortlist ranked by bm25: on 85,000 values each phrase cost 60-150 ms,
        since every value sharing one common trigram was ranked.)"""
        from bisect import bisect_left, bisect_right

        from rapidfuzz import fuzz, process

        key = value_key(phrase)
        if not key or cutoff <= 0:
            return []
        lengths, keys = self._keys()
        m = len(key)
        lo = bisect_left(lengths, math.ceil(m * cutoff / (200.0 - cutoff) - 1e-9))
        hi = bisect_right(lengths, math.floor(m * (200.0 - cutoff) / cutoff + 1e-9))
        found = process.extract(key, keys[lo:hi], scorer=fuzz.ratio, score_cutoff=cutoff, limit=None)
        found.sort(key=lambda match: (-match[1], match[0]))
        scores = {norm: float(score) for norm, score, _ in found[:FUZZY_KEYS]}
        if not scores:
            return []
        marks = ",".join("?" * len(scores))
        rows = self._con.execute(f"SELECT col, value, norm FROM vals WHERE norm IN ({marks}) ORDER BY id",
                                 sorted(scores)).fetchall()
        return [(col, value, scores[norm]) for col, value, norm in rows]


_MONTHS = {name: number for number, names in enumerate(
    (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
     ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
     ("november", "nov"), ("december", "dec")), start=1) for name in names}
_MONTH = r"(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_DATE_PATTERNS = (  # (pattern, order of its groups)
    (re.compile(r"(?<![\d/.-])(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?![\d/.-])"), "ymd"),
    (re.compile(r"(?<![\d/.-])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/.-])"), "mdy"),
    (re.compile(r"\b" + _MONTH + r"\s+" + _DAY + r",?\s+(\d{4})\b", re.I), "Mdy"),
    (re.compile(r"\b" + _DAY + r"\s+(?:of\s+)?" + _MONTH + r",?\s+(\d{4})\b", re.I), "dMy"),
    (re.compile(r"\b" + _MONTH + r",?\s+(?:of\s+)?(\d{4})\b", re.I), "My"),
)


def month_number(name: str) -> int | None:
    """The month a month's name or abbreviation stands for (``"March"``, ``"sept"`` -> 3, 9); None for
    another word and for a lower-case ``may`` (the verb)."""
    return None if name == "may" else _MONTHS.get(name.lower())


def date_phrases(text: str) -> list[str]:
    """The stored forms of the calendar dates and months ``text`` writes: ``2012/8/24``,
    ``8/24/2012``, ``August 24, 2012``, ``24th of August 2012`` → ``2012-08-24``, ``20120824``,
    ``08/24/2012``, ``8/24/2012``; ``September, 2013`` → ``2013-09``, ``201309``. A numeric
    ``d/m/yyyy`` that could be either order gives both dates; a lower-case ``may`` is the verb, not
    the month. Only valid calendar dates count.
    The value index looks these up exactly (``-``, ``/`` and ``.`` fold alike), never fuzzily."""
    found: list[str] = []
    for pattern, order in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            groups = match.groups()
            readings: list[tuple[int, int, int | None]] = []
            if order == "ymd":
                readings = [(int(groups[0]), int(groups[1]), int(groups[2]))]
            elif order == "mdy":
                first, second, year = int(groups[0]), int(groups[1]), int(groups[2])
                readings = [(year, first, second), (year, second, first)]
            else:
                month = month_number(groups[1] if order == "dMy" else groups[0])
                if month is None:
                    continue
                if order == "Mdy":
                    readings = [(int(groups[2]), month, int(groups[1]))]
                elif order == "dMy":
                    readings = [(int(groups[2]), month, int(groups[0]))]
                else:
                    readings = [(int(groups[1]), month, None)]
            for year, month, day in readings:
                try:
                    dt.date(year, month, day or 1)
                except ValueError:
                    continue
                if day is None:
                    found += [f"{year:04d}-{month:02d}", f"{year:04d}{month:02d}"]
                else:
                    found += [f"{year:04d}-{month:02d}-{day:02d}", f"{year:04d}{month:02d}{day:02d}",
                              f"{month:02d}/{day:02d}/{year:04d}", f"{month}/{day}/{year:04d}"]
    return list(dict.fromkeys(found))


def _phrases(query: str) -> list[str]:
    """The quoted strings and the word n-grams (1..4 words) of ``query`` worth looking up, in order,
    without repeats: no n-gram made only of stop words, none starting or ending with one (``of
    France`` is looked up as ``France``), no lone number shorter than 3 digits."""
    phrases: list[str] = []
    for match in _QUOTED.finditer(query):
        text = next(g for g in match.groups() if g is not None)
        if text.strip():
            phrases.append(text)
    # word n-grams keep the query's own spelling (exact matches), split on whitespace, punctuation
    # stripped at the ends of each word
    tokens = [w.strip(".,;:!?()[]{}\"'`") for w in query.split()]
    tokens = [w for w in tokens if w]
    stop = [_is_stop(w) for w in tokens]
    for n in (4, 3, 2, 1):
        for i in range(len(tokens) - n + 1):
            if stop[i] or stop[i + n - 1]:
                continue
            words = tokens[i:i + n]
            key = value_key(" ".join(words))
            if n == 1 and key.isdigit() and len(key) < 3:
                continue
            phrases.append(" ".join(words))
    return list(dict.fromkeys(phrases))[:600]


def _is_stop(word: str) -> bool:
    key = value_key(word)
    return not key or key in QUESTION_STOP_WORDS or (len(key) == 1 and not key.isdigit())


def workspace_value_index(workspace_path: str | os.PathLike, sources: Mapping[str, Any], *,
                          bounds: ValueBounds = ValueBounds(), progress: bool = False) -> ValueIndex | None:
    """The value index of a workspace (``<workspace>/cache/values.sqlite``), built or rebuilt when its
    sources changed; ``None`` when there is no tabular source or the cache cannot be written: a
    read-only folder (silently), or SQLite failing to write it (a full disk: ``database or disk is
    full``), which gives one :class:`~evoonto.sources.base.SourceWarning` and the server runs without it."""
    from evoonto.sources.base import warn

    tabular = {sid: s for sid, s in sources.items() if s.kind != "documents"}
    if not tabular:
        return None
    target = Path(workspace_path) / VALUE_INDEX_FILE
    try:
        return ensure_value_index(target, tabular, bounds=bounds, progress=progress)
    except OSError:
        return None
    except sqlite3.Error as err:  # the disk is full or the file cannot be written: run without it
        from evoonto.errors import first_line

        warn(f"value index {target} not written ({first_line(err, 200)}); running without value matches")
        return None


def iter_columns(index: ValueIndex) -> Iterable[tuple[str, str, str, int, bool, str]]:
    """Every indexed column: ``(source, table, column, n_values, complete, status)``."""
    with index._lock:
        rows = index._con.execute(
            "SELECT source, table_name, column_name, n_values, complete, status FROM columns ORDER BY id").fetchall()
    for source, table, column, n, complete, status in rows:
        yield source, table, column, int(n), bool(complete), status


# --- browse hook --------------------------------------------------------------------------------------

#: A value hit enters browse with its score times this weight (browse scores are in 0..1).
VALUE_WEIGHT = 0.8


def column_document(index: Any, location: str, kind: str = "term") -> int | None:
    """The position in ``index.documents`` of the record that stands for column ``location``
    (``table.column``): among the documents of ``kind`` (``any``: terms first) mapping it, the one
    naming the column itself (its hidden label is the location: the column's Term, not a value
    Term), then the one with most Evidence values, then the smallest IRI; None when none maps it."""
    positions = index.documents_at(location)
    kinds = ("term", "mapping") if kind == "any" else (kind,)
    best: tuple | None = None
    for i in positions:
        doc = index.documents[i]
        if doc.kind not in kinds:
            continue
        rank = (kinds.index(doc.kind), location not in doc.fields.get("hiddenLabel", ()), -len(doc.values), doc.iri)
        if best is None or rank < best[0]:
            best = (rank, i)
    return None if best is None else best[1]


def merge_value_hits(hits: list[dict[str, Any]], value_hits: list[ValueHit], index: Any, *, kind: str,
                     n: int, id_of: Any = lambda iri: iri) -> list[dict[str, Any]]:
    """Browse hits with the value index's hits folded in (at most ``n``).

    A value hit becomes a mention in the snippet of its column's record (:func:`column_document`):
    ``value "France" in country.Name (exact); …``. When that record is not among ``hits`` it is added
    with score ``VALUE_WEIGHT × hit score`` and the list is re-ordered by score (stable), if the value
    has letters (a name or code): a number or date found in some column says little about which
    column the question means, so it only annotates a record that is a hit already (as in the compact
    answer). Value hits whose column no record of ``kind`` maps are dropped.
    """
    if not value_hits or kind not in ("term", "mapping", "any"):
        return hits
    out = [dict(h) for h in hits]
    by_id = {h["id"]: h for h in out}
    for hit in value_hits:
        i = column_document(index, hit.location, kind)
        if i is None:
            continue
        doc = index.documents[i]
        ident = id_of(doc.iri)
        note = f"value {json.dumps(hit.value, ensure_ascii=False)} in {hit.location} ({hit.match})"
        entry = by_id.get(ident)
        if entry is None:
            if not any(ch.isalpha() for ch in hit.value):
                continue
            entry = by_id[ident] = {"id": ident, "kind": doc.kind, "label": doc.label, "snippet": doc.snippet,
                                    "score": round(VALUE_WEIGHT * hit.score, 3)}
            out.append(entry)
        if note not in entry["snippet"]:
            entry["snippet"] = f"{note}; {entry['snippet']}" if entry["snippet"] else note
    out.sort(key=lambda h: -h["score"])
    return out[:n]
