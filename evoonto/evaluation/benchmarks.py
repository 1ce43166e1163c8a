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
* plain workload: JSON Lines (``{"id", "question", "db_id"}``) or text (one question per line), no gold.

A question whose database file is missing is skipped; one :class:`MissingDatabaseWarning` is issued
per missing database.
"""

from __future__ import annotations

import json
import sqlite3
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Mapping

from evoonto.errors import GoldAccessError, WorkloadError

from evoonto.builder.workload import Question  # the builder owns the type (architecture §4)

DATABASE_FOLDERS = ("database", "dev_databases", "train_databases", "databases", ".")
"""Sub-folders searched, in order, for ``<db>/<db>.sqlite`` (Spider, BIRD, generic layouts)."""


class MissingDatabaseWarning(UserWarning):
    """Questions were skipped because their database file is missing."""


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
        databases: db id → SQLite file path.
        gold: the gold answers (empty for plain workloads).
        hints: question id → BIRD evidence text (input knowledge, not gold).
        skipped: ids of the questions skipped because their database is missing.
    """

    name: str
    questions: tuple[Question, ...]
    databases: Mapping[str, Path]
    gold: GoldStore = field(default_factory=GoldStore, repr=False)
    hints: Mapping[str, str] = field(default_factory=dict, repr=False)
    skipped: tuple[str, ...] = ()

    def db_ids(self) -> list[str]:
        """Database ids that have at least one question, sorted."""
        return sorted({q.db_id for q in self.questions})

    def questions_for(self, db_id: str) -> list[Question]:
        """The questions on one database, in file order."""
        return [q for q in self.questions if q.db_id == db_id]

    def schema(self, db_id: str) -> dict[str, list[str]]:
        """``{table: [columns]}`` of a database, read through a read-only SQLite connection."""
        return _sqlite_schema(self.databases[db_id])

    def by_id(self) -> dict[str, Question]:
        """Question id → Question."""
        return {q.id: q for q in self.questions}


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A SQLite connection that cannot write (URI ``mode=ro``); used only for schema metadata."""
    return sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)


def schema_ddl(path: Path | str) -> str:
    """The ``CREATE TABLE``/``CREATE VIEW`` statements of a SQLite database, as SQLite stores them."""
    con = _connect_read_only(Path(path))
    try:
        rows = con.execute("SELECT sql FROM sqlite_master WHERE type IN ('table', 'view') AND sql IS NOT NULL "
                           "AND name NOT LIKE 'sqlite_%' ORDER BY name").fetchall()
    finally:
        con.close()
    return ";\n".join(r[0].strip() for r in rows) + ";"


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


def find_database(data_dir: Path, db_id: str) -> Path | None:
    """The SQLite file of ``db_id`` under ``data_dir`` (see :data:`DATABASE_FOLDERS`), or None."""
    for folder in DATABASE_FOLDERS:
        for suffix in (".sqlite", ".db", ".sqlite3"):
            path = data_dir / folder / db_id / f"{db_id}{suffix}"
            if path.is_file():
                return path
    return None


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
    questions, gold, hints, skipped, databases, missing = [], {}, {}, [], {}, {}
    for question, answer, hint in rows:
        if question.db_id not in databases and question.db_id not in missing:
            path = find_database(data_dir, question.db_id)
            if path is None:
                missing[question.db_id] = 0
            else:
                databases[question.db_id] = path
        if question.db_id in missing:
            missing[question.db_id] += 1
            skipped.append(question.id)
            continue
        questions.append(question)
        if answer is not None:
            gold[question.id] = answer
        if hint:
            hints[question.id] = hint
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
        qid = f"{db_id}/{row.get('question_id', i)}"
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
    others = sorted({q.db_id for q in questions} - {None, db_id})
    if others:
        raise WorkloadError(f"{path}: questions name databases {others} other than {db_id!r}")
    questions = [Question(id=q.id, text=q.text, db_id=db_id) for q in questions]
    return Benchmark("workload", tuple(questions), {db_id: database})


LOADERS = {"spider": load_spider, "bird": load_bird}
"""Benchmark name → loader taking the data folder."""


def load_benchmark(name: str, data: Path | str, **kwargs) -> Benchmark:
    """Load ``spider`` or ``bird`` from ``data``; WorkloadError for an unknown name."""
    try:
        loader = LOADERS[name]
    except KeyError:
        raise WorkloadError(f"unknown benchmark {name!r}; choose one of {', '.join(LOADERS)}") from None
    return loader(data, **kwargs)


def analysis_of(gold: Gold, benchmark: Benchmark):
    """The :class:`~evoonto.evaluation.gold.GoldAnalysis` of one gold answer (cached per SQL+database)."""
    from evoonto.evaluation.gold import analyze_sql

    key = (gold.sql, gold.db_id)
    if key not in _ANALYSES:
        _ANALYSES[key] = analyze_sql(gold.sql, benchmark.schema(gold.db_id))
    return _ANALYSES[key]


_ANALYSES: dict = {}
