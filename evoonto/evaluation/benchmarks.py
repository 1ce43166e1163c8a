"""Benchmark loaders: Spider-format, BIRD-format and plain workloads, with gold kept apart.

A loaded :class:`Benchmark` has two halves that never mix:

* ``questions``: :class:`~evoonto.builder.workload.Question` objects (``id``, ``db_id``, ``text``) —
  the only thing the builder, the evolution loop and agents receive;
* ``gold``: a :class:`GoldStore` of :class:`Gold` records (gold SQL, difficulty) — handed only to
  scorers (:mod:`evoonto.evaluation.linking`, :mod:`evoonto.evaluation.execution`).

BIRD's ``evidence`` field is external knowledge given to the model *as input* in the official BIRD
protocol, so it is not gold; it is kept in ``Benchmark.hints`` (question id → text) for agents.

File layouts (as distributed):

* Spider: ``DIR/dev.json`` (``question``, ``query``, ``db_id``) and ``DIR/database/<db>/<db>.sqlite``.
* BIRD: ``DIR/dev.json`` (``question_id``, ``question``, ``evidence``, ``SQL``, ``difficulty``,
  ``db_id``) and ``DIR/dev_databases/<db>/<db>.sqlite``.
* JSON Lines: ``DIR/questions.jsonl`` (``{"id", "db_id", "question"}``, no gold), ``DIR/gold.jsonl``
  (``{"id", "db_id", "query"}``) and ``DIR/<db>.sqlite`` or ``DIR/database/<db>/<db>.sqlite`` — the
  layout of the bundled demo data (``evoonto/data/concert_singer``); :func:`load_benchmark` detects it.
* plain workload: JSON Lines (``{"id", "question", "db_id"}``) or text (one question per line), no gold.

A question whose database file is missing is skipped; one :class:`MissingDatabaseWarning` is issued
per missing database.
"""

from __future__ import annotations

import json
import sqlite3
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, Mapping

from evoonto.errors import GoldAccessError, WorkloadError
from evoonto.fileio import record_lines

from evoonto.builder.workload import Question  # the builder owns the type (architecture §4)

if TYPE_CHECKING:
    from evoonto.evaluation.gold import GoldAnalysis

DATABASE_FOLDERS = ("database", "dev_databases", "train_databases", "databases", ".")
"""Sub-folders searched, in order, for ``<db>/<db>.sqlite`` (Spider, BIRD, generic layouts)."""


class MissingDatabaseWarning(UserWarning):
    """Questions were skipped because their database file is missing."""


class DuplicateQuestionIdWarning(UserWarning):
    """A question file repeats an id; the later questions were kept under a suffixed id."""


@dataclass(frozen=True)
class Gold:
    """The gold answer of one question; only scorers receive it.

    Attributes:
        question_id: id of the :class:`Question` it answers.
        db_id: database id.
        sql: the gold SQL (SQLite dialect).
        difficulty: BIRD difficulty (``simple``/``moderate``/``challenging``) or Spider hardness, or None.
    """

    question_id: str
    db_id: str
    sql: str
    difficulty: str | None = None


class GoldStore:
    """Gold answers by question id; passed to scorers only.

    ``store[qid]`` returns the :class:`Gold`; ``qid in store`` tests presence; ``len(store)``.
    The store is deliberately not a sequence of questions: code that needs questions must use
    ``Benchmark.questions``. A missing id raises :class:`~evoonto.errors.GoldAccessError`.
    """

    def __init__(self, items: Mapping[str, Gold] | None = None):
        self._items: dict[str, Gold] = dict(items or {})

    def __getitem__(self, question_id: str) -> Gold:
        try:
            return self._items[question_id]
        except KeyError:
            raise GoldAccessError(f"no gold answer for question {question_id!r}") from None

    def __contains__(self, question_id: object) -> bool:
        return question_id in self._items

    def __len__(self) -> int:
        return len(self._items)

    def ids(self) -> list[str]:
        """Question ids that have gold, in load order."""
        return list(self._items)

    def __repr__(self) -> str:  # never print gold SQL by accident (logs, trajectories)
        return f"GoldStore({len(self._items)} answers)"


@dataclass(frozen=True)
class Benchmark:
    """A loaded benchmark.

    Attributes:
        name: ``spider``, ``bird`` or ``workload``.
        questions: the questions whose database exists, in file order.
        databases: db id → SQLite file path, or a SQLAlchemy URL (text, e.g. ``postgresql://…``) for
            a workspace whose source is a database server (:func:`database_location`).
        gold: the gold answers (empty for plain workloads).
        hints: question id → BIRD evidence text (input knowledge, not gold).
        skipped: ids of the questions skipped because their database is missing.
    """

    name: str
    questions: tuple[Question, ...]
    databases: Mapping[str, Path | str]
    gold: GoldStore = field(default_factory=GoldStore, repr=False)
    hints: Mapping[str, str] = field(default_factory=dict, repr=False)
    skipped: tuple[str, ...] = ()

    def db_ids(self) -> list[str]:
        """Database ids that have at least one question, sorted."""
        return sorted({q.db_id for q in self.questions if q.db_id is not None})

    def questions_for(self, db_id: str) -> list[Question]:
        """The questions on one database, in file order."""
        return [q for q in self.questions if q.db_id == db_id]

    def schema(self, db_id: str) -> dict[str, list[str]]:
        """``{table: [columns]}`` of a database (:func:`database_schema`)."""
        return database_schema(self.databases[db_id])

    def by_id(self) -> dict[str, Question]:
        """Question id → Question."""
        return {q.id: q for q in self.questions}


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """The source layer's read-only SQLite connection (no -wal/-shm files, authorizer); schema metadata only."""
    from evoonto.sources.sqlite import connect_read_only

    return connect_read_only(path)


def schema_ddl(path: Path | str) -> str:
    """The ``CREATE TABLE``/``CREATE VIEW`` statements of a SQLite database, as SQLite stores them."""
    con = _connect_read_only(Path(path))
    try:
        rows = con.execute("SELECT sql FROM sqlite_master WHERE type IN ('table', 'view') AND sql IS NOT NULL "
                           "AND name NOT LIKE 'sqlite_%' ORDER BY name").fetchall()
    finally:
        con.close()
    return ";\n".join(r[0].strip() for r in rows) + ";"


def database_location(location: Path | str) -> Path | str:
    """A database location as :class:`Benchmark` keeps it: a URL (``scheme://…``, any SQLAlchemy URL)
    stays text, anything else is a file path. (``Path("postgresql://u@h/db")`` would fold the
    ``//`` and name a file that does not exist.)"""
    from evoonto.sources.sqlalchemy import _is_url

    return location if isinstance(location, str) and _is_url(location) else Path(location)


def database_schema(location: Path | str) -> dict[str, list[str]]:
    """``{table: [columns]}`` of a database: a SQLite file through a read-only SQLite connection; a URL,
    a folder of data files or another file kind (CSV, Parquet, …) through the source layer
    (:func:`evoonto.sources.open_source`, read-only); cached per location.

    Raises:
        SourceError: the database cannot be opened or read.
    """
    from evoonto.sources.sqlite import is_sqlite_file

    location = database_location(location)
    if isinstance(location, Path) and (not location.exists() or (location.is_file() and is_sqlite_file(location))):
        return _sqlite_schema(location)  # (a missing path: the SQLite layer's error names it)
    location = str(location)
    cached = _URL_SCHEMAS.get(location)
    if cached is None:
        from evoonto.sources import open_source

        with open_source(location) as src:
            cached = {t.name: [c.name for c in t.columns] for t in src.tables()}
        _URL_SCHEMAS[location] = cached
    return {t: list(c) for t, c in cached.items()}


_URL_SCHEMAS: dict[str, dict[str, list[str]]] = {}


def _sqlite_schema(path: Path) -> dict[str, list[str]]:
    cached = _SCHEMAS.get(path)
    if cached is None:
        con = _connect_read_only(path)
        try:
            names = [r[0] for r in con.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table','view') AND name NOT LIKE 'sqlite_%' "
                "ORDER BY name")]
            cached = {n: [r[1] for r in con.execute("SELECT * FROM pragma_table_info(?)", (n,))] for n in names}
        finally:
            con.close()
        _SCHEMAS[path] = cached
    return {t: list(c) for t, c in cached.items()}


_SCHEMAS: dict[Path, dict[str, list[str]]] = {}


SQLITE_SUFFIXES = (".sqlite", ".db", ".sqlite3")
"""File name endings tried for a database file."""


def find_database(data_dir: Path, db_id: str) -> Path | None:
    """The SQLite file of ``db_id`` under ``data_dir``, or None.

    Tried in order: ``<folder>/<db>/<db><suffix>`` for each of :data:`DATABASE_FOLDERS`, then a flat
    ``<db><suffix>`` directly in ``data_dir`` (the JSON Lines layout), for each of :data:`SQLITE_SUFFIXES`.
    """
    candidates = [data_dir / folder / db_id / f"{db_id}{suffix}"
                  for folder in DATABASE_FOLDERS for suffix in SQLITE_SUFFIXES]
    candidates += [data_dir / f"{db_id}{suffix}" for suffix in SQLITE_SUFFIXES]
    return next((path for path in candidates if path.is_file()), None)


def _read_json_list(path: Path) -> list[dict]:
    if not path.is_file():
        raise WorkloadError(f"benchmark file not found: {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise WorkloadError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
        raise WorkloadError(f"{path}: expected a JSON list of question objects")
    return data


def _resolve_file(data: Path, default_name: str) -> tuple[Path, Path]:
    """(question file, data directory) from a directory or a file argument."""
    data = Path(data)
    if data.is_dir():
        return data / default_name, data
    return data, data.parent


def _assemble(name: str, rows: Iterator[tuple[Question, Gold | None, str | None]], data_dir: Path) -> Benchmark:
    questions: list[Question] = []
    gold: dict[str, Gold] = {}
    hints: dict[str, str] = {}
    skipped: list[str] = []
    databases: dict[str, Path] = {}
    missing: dict[str, int] = {}
    seen: set[str] = set()
    renamed: list[str] = []
    for question, answer, hint in rows:
        if question.id in seen:  # e.g. BIRD mini-dev repeats ids 137 and 138: keep both
            new_id = next(f"{question.id}_{n}" for n in range(2, len(seen) + 3) if f"{question.id}_{n}" not in seen)
            renamed.append(f"{question.id} -> {new_id}")
            question = replace(question, id=new_id)
            answer = replace(answer, question_id=new_id) if answer is not None else None
        seen.add(question.id)
        db_id = question.db_id
        if db_id is None:  # the loaders reject such rows before they get here
            raise WorkloadError(f"{name}: question {question.id!r} has no db_id")
        if db_id not in databases and db_id not in missing:
            path = find_database(data_dir, db_id)
            if path is None:
                missing[db_id] = 0
            else:
                databases[db_id] = path
        if db_id in missing:
            missing[db_id] += 1
            skipped.append(question.id)
            continue
        questions.append(question)
        if answer is not None:
            gold[question.id] = answer
        if hint:
            hints[question.id] = hint
    if renamed:
        warnings.warn(f"{name}: {len(renamed)} repeated question id(s) kept with a suffix: {', '.join(renamed)}",
                      DuplicateQuestionIdWarning, stacklevel=3)
    for db_id, count in missing.items():
        warnings.warn(f"database {db_id!r} not found under {data_dir}: skipped {count} question(s)",
                      MissingDatabaseWarning, stacklevel=3)
    return Benchmark(name, tuple(questions), databases, GoldStore(gold), hints, tuple(skipped))


def _field(row: dict, key: str, path: Path, index: int) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value.strip():
        raise WorkloadError(f"{path}: question #{index} has no {key!r} string")
    return value


def _load_json_list(name: str, data: Path, questions_file: str,
                    parse: Callable[[dict, int, Path, str], tuple[Question, Gold, str | None]]) -> Benchmark:
    """The benchmark ``name`` from a JSON list of question objects (Spider and BIRD layouts).

    Args:
        name: benchmark name (``spider``, ``bird``).
        data: the benchmark folder or the question file itself.
        questions_file: file name used when ``data`` is a folder.
        parse: ``(row, index in file, question file, db_id) -> (Question, Gold, hint or None)``;
            raises :class:`WorkloadError` for a malformed row.

    Raises:
        WorkloadError: missing or malformed file, or a row without a ``db_id`` string.
    """
    path, data_dir = _resolve_file(data, questions_file)
    entries = _read_json_list(path)
    rows = (parse(row, i, path, _field(row, "db_id", path, i)) for i, row in enumerate(entries))
    return _assemble(name, rows, data_dir)


def load_spider(data: Path | str, *, questions_file: str = "dev.json") -> Benchmark:
    """Load a Spider-format benchmark.

    Args:
        data: the Spider folder (holding ``questions_file`` and ``database/``) or a question file.
        questions_file: file name used when ``data`` is a folder.

    Returns:
        a :class:`Benchmark`; question ids are ``"<db_id>/<index in file>"`` (Spider has no ids).

    Raises:
        WorkloadError: missing or malformed file.
    """
    def parse(row: dict, i: int, path: Path, db_id: str) -> tuple[Question, Gold, None]:
        qid = f"{db_id}/{i:04d}"
        return (Question(id=qid, db_id=db_id, text=_field(row, "question", path, i).strip()),
                Gold(qid, db_id, _field(row, "query", path, i), row.get("hardness")), None)

    return _load_json_list("spider", Path(data), questions_file, parse)


def load_bird(data: Path | str, *, questions_file: str = "dev.json") -> Benchmark:
    """Load a BIRD-format benchmark (``question_id``, ``question``, ``evidence``, ``SQL``, ``difficulty``).

    Args:
        data: the BIRD folder (holding ``questions_file`` and ``dev_databases/``) or a question file.
        questions_file: file name used when ``data`` is a folder.

    Returns:
        a :class:`Benchmark`; ids are ``"<db_id>/<question_id>"``; evidence goes to ``hints``.

    Raises:
        WorkloadError: missing or malformed file.
    """
    def parse(row: dict, i: int, path: Path, db_id: str) -> tuple[Question, Gold, str | None]:
        qid = f"{db_id}/{row.get('question_id', i)}"  # a repeated id is suffixed by _assemble
        sql = row.get("SQL", row.get("query"))
        if not isinstance(sql, str):
            raise WorkloadError(f"{path}: question #{i} has no 'SQL' string")
        return (Question(id=qid, db_id=db_id, text=_field(row, "question", path, i).strip()),
                Gold(qid, db_id, sql, row.get("difficulty")), (row.get("evidence") or "").strip() or None)

    return _load_json_list("bird", Path(data), questions_file, parse)


def load_workload(path: Path | str, *, database: Path | str) -> Benchmark:
    """Load a plain workload (no gold) over one database.

    Args:
        path: any workload file :func:`evoonto.builder.workload.load_workload` reads (JSON Lines,
            JSON array, or one question per line); gold fields, if any, are dropped while parsing.
        database: the SQLite file the questions are about; its stem is the ``db_id``.

    Returns:
        a :class:`Benchmark` with an empty :class:`GoldStore` (only scorers without gold apply).

    Raises:
        WorkloadError: missing or malformed file, questions about another database, or a missing
            database file.
    """
    from evoonto.builder.workload import load_workload as read_questions

    database = Path(database)
    if not database.is_file():
        raise WorkloadError(f"database not found: {database}")
    db_id = database.stem
    questions = read_questions(path)
    others = sorted({q.db_id for q in questions if q.db_id is not None} - {db_id})
    if others:
        raise WorkloadError(f"{path}: questions name databases {others} other than {db_id!r}")
    questions = [Question(id=q.id, text=q.text, db_id=db_id) for q in questions]
    return Benchmark("workload", tuple(questions), {db_id: database})


JSONL_QUESTIONS = "questions.jsonl"
"""Question file of the JSON Lines layout (``{"id", "db_id", "question"}`` per line, no gold)."""

JSONL_GOLD = "gold.jsonl"
"""Gold file of the JSON Lines layout (``{"id", "db_id", "query"}`` per line), beside the questions."""


def is_jsonl_layout(data: Path | str) -> bool:
    """True when ``data`` is a folder holding :data:`JSONL_QUESTIONS` or a ``.jsonl`` question file."""
    data = Path(data)
    if data.is_dir():
        return (data / JSONL_QUESTIONS).is_file()
    return data.suffix == ".jsonl" and data.is_file()


def _read_jsonl_gold(path: Path, questions: Mapping[str, Question]) -> Iterator[tuple[str, Gold]]:
    """``(question id, Gold)`` per non-blank line of a gold JSON Lines file; the db id comes from the
    line or, when absent, from its question."""
    try:
        lines = record_lines(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WorkloadError(f"gold file not found: {path}") from None
    except (UnicodeDecodeError, OSError) as exc:
        raise WorkloadError(f"{path}: cannot read gold ({exc})") from None
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            qid, sql = str(row["id"]), row.get("query", row.get("SQL"))
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
            raise WorkloadError(f"{path}:{n}: expected {{\"id\", \"db_id\", \"query\"}}") from None
        if not isinstance(sql, str) or not sql.strip():
            raise WorkloadError(f"{path}:{n}: expected {{\"id\", \"db_id\", \"query\"}}")
        if qid not in questions:
            raise WorkloadError(f"{path}:{n}: gold for unknown question id {qid!r}")
        yield qid, Gold(qid, str(row.get("db_id") or questions[qid].db_id), sql, row.get("hardness"))


def load_jsonl(data: Path | str, *, gold_file: Path | str | None = None, name: str = "spider") -> Benchmark:
    """Load a JSON Lines benchmark: questions and gold in separate files (the bundled demo data).

    The question file is read by :func:`evoonto.builder.workload.load_workload` (whitespace folded,
    ids unique), so the questions equal what the builder reads from the same file. The gold file is
    parsed only into the :class:`GoldStore`; it is optional (an absent file gives an empty store).

    Args:
        data: a folder with :data:`JSONL_QUESTIONS`, :data:`JSONL_GOLD` and the databases
            (``<db>.sqlite`` or any :func:`find_database` layout), or the question file itself (gold
            and databases are then looked up beside it).
        gold_file: the gold file (default :data:`JSONL_GOLD` beside the questions); when given it must exist.
        name: the benchmark name to report (default ``spider``: the bundled data is Spider dev).

    Returns:
        a :class:`Benchmark`; question ids as in the file.

    Raises:
        WorkloadError: a missing or malformed file, a question without ``db_id``, or gold for an
            unknown question id (the message names file and line).
    """
    from evoonto.builder.workload import load_workload as read_questions

    path, data_dir = _resolve_file(Path(data), JSONL_QUESTIONS)
    if not path.is_file():
        raise WorkloadError(f"benchmark file not found: {path}")
    questions = read_questions(path)
    for q in questions:
        if not q.db_id:
            raise WorkloadError(f"{path}: question {q.id!r} has no 'db_id'")
    gold_path = Path(gold_file) if gold_file is not None else data_dir / JSONL_GOLD
    read_gold = gold_file is not None or gold_path.exists()
    gold = dict(_read_jsonl_gold(gold_path, {q.id: q for q in questions})) if read_gold else {}
    rows = ((q, gold.get(q.id), None) for q in questions)
    return _assemble(name, rows, data_dir)


LOADERS: dict[str, Callable[..., Benchmark]] = {"spider": load_spider, "bird": load_bird, "jsonl": load_jsonl}
"""Benchmark name → loader taking the data folder."""


def load_benchmark(name: str | None, data: Path | str, **kwargs) -> Benchmark:
    """Load a benchmark from ``data``, detecting the JSON Lines layout.

    Args:
        name: ``spider``, ``bird`` or ``jsonl``; None = detect (JSON Lines when :func:`is_jsonl_layout`,
            else Spider). A folder in the JSON Lines layout is always read with :func:`load_jsonl`
            (the Spider/BIRD loaders need ``dev.json``, which it lacks).
        data: the benchmark folder or question file.
        **kwargs: passed to the loader (e.g. ``questions_file``).

    Returns:
        the :class:`Benchmark`.

    Raises:
        WorkloadError: an unknown name, or whatever the loader raises.
    """
    if name is not None and name not in LOADERS:
        raise WorkloadError(f"unknown benchmark {name!r}; choose one of {', '.join(LOADERS)}")
    if name == "jsonl" or is_jsonl_layout(data):
        return load_jsonl(data, name=name if name in ("spider", "bird") else "spider", **kwargs)
    return LOADERS[name or "spider"](data, **kwargs)


def analysis_of(gold: Gold, benchmark: Benchmark) -> GoldAnalysis:
    """The :class:`~evoonto.evaluation.gold.GoldAnalysis` of one gold answer (cached per SQL+database)."""
    from evoonto.evaluation.gold import analyze_sql

    key = (gold.sql, gold.db_id)
    if key not in _ANALYSES:
        _ANALYSES[key] = analyze_sql(gold.sql, benchmark.schema(gold.db_id))
    return _ANALYSES[key]


_ANALYSES: dict[tuple[str, str], GoldAnalysis] = {}
