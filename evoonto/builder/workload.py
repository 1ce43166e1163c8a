"""Question workloads for the builder: the natural-language questions, never their answers.

A workload is the list of questions a data agent is expected to answer (paper §3.1, "workload-driven
proposal"). The builder reads only the question text, its id and (when present) the database id; gold
SQL, gold answers, BIRD ``evidence`` hints and parsed SQL are dropped while the file is parsed, so they
never reach a Python object the builder touches (the poisoned-gold test relies on this).

Accepted formats (chosen by content, not by file name):

* JSON Lines: one object per line with ``"question"`` (or ``"text"``), optional ``"id"`` /
  ``"question_id"`` and ``"db_id"``;
* a JSON array of such objects (Spider ``dev.json``, BIRD ``dev.json``); ids default to the position;
* plain text: one question per line; blank lines and lines starting with ``#`` are skipped.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from evoonto.fileio import record_lines
from evoonto.errors import WorkloadError

__all__ = ["Question", "load_workload", "as_questions", "MAX_QUESTION_CHARS"]

#: Longest question accepted from a workload or verified-query file, in characters (as long as a
#: browse query may be); a longer one is a malformed record.
MAX_QUESTION_CHARS = 20_000

#: The only keys ever kept from a question object; everything else (gold SQL, answers) is dropped.
_QUESTION_KEYS = frozenset({"id", "question_id", "question", "text", "db_id"})


@dataclass(frozen=True, order=True)
class Question:
    """One workload question, without any gold field.

    Attributes:
        id: stable identifier (from the file, or ``str(position)`` / ``"line-N"`` when absent).
        text: the question in natural language (non-empty, stripped).
        db_id: the database the question is about, or ``None`` when the workload does not say.
    """

    id: str
    text: str
    db_id: str | None = None


def _keep_question_fields(pairs: list[tuple[str, object]]) -> dict:
    # object_pairs_hook: gold fields are discarded before a dict is even built.
    return {key: value for key, value in pairs if key in _QUESTION_KEYS}


def _question_from_object(obj: object, default_id: str, where: str) -> Question:
    if not isinstance(obj, dict):
        raise WorkloadError(f"{where}: expected a JSON object with a 'question' field")
    text = obj.get("question", obj.get("text"))
    if not isinstance(text, str) or not text.strip():
        raise WorkloadError(f"{where}: missing or empty 'question' text")
    if len(text) > MAX_QUESTION_CHARS:
        raise WorkloadError(f"{where}: the question is {len(text):,} characters long, the limit is "
                            f"{MAX_QUESTION_CHARS:,}")
    raw_id = obj.get("id", obj.get("question_id", default_id))
    if not isinstance(raw_id, (str, int)) or isinstance(raw_id, bool):
        raise WorkloadError(f"{where}: 'id' must be a string or an integer")
    db_id = obj.get("db_id")
    if db_id is not None and not isinstance(db_id, str):
        raise WorkloadError(f"{where}: 'db_id' must be a string")
    return Question(id=str(raw_id), text=" ".join(text.split()), db_id=db_id)


def _parse_json_array(text: str, path: Path) -> list[Question]:
    try:
        items = json.loads(text, object_pairs_hook=_keep_question_fields)
    except json.JSONDecodeError as exc:
        raise WorkloadError(f"{path}:{exc.lineno}: malformed JSON ({exc.msg})") from None
    except RecursionError:
        raise WorkloadError(f"{path}: JSON nested too deeply to be read") from None
    if not isinstance(items, list):
        raise WorkloadError(f"{path}:1: expected a JSON array of question objects")
    # Spider has no ids: "<db_id>/<index:04d>" as evoonto.evaluation.benchmarks.load_spider mints them.
    return [
        _question_from_object(item, f"{item['db_id']}/{i:04d}" if isinstance(item, dict) and isinstance(
            item.get("db_id"), str) else str(i), f"{path}: item {i}")
        for i, item in enumerate(items)
    ]


def _parse_json_lines(lines: list[str], path: Path) -> list[Question]:
    questions = []
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line, object_pairs_hook=_keep_question_fields)
        except json.JSONDecodeError as exc:
            raise WorkloadError(f"{path}:{lineno}: malformed JSON line ({exc.msg})") from None
        except RecursionError:
            raise WorkloadError(f"{path}:{lineno}: JSON nested too deeply to be read") from None
        questions.append(_question_from_object(obj, f"line-{lineno}", f"{path}:{lineno}"))
    return questions


def _parse_plain_text(lines: list[str]) -> list[Question]:
    return [
        Question(id=f"line-{lineno}", text=" ".join(line.split()))
        for lineno, line in enumerate(lines, start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]


def load_workload(path: str | Path, *, db_id: str | None = None) -> list[Question]:
    """Read the questions of a workload file.

    Args:
        path: a JSON Lines, JSON array (Spider/BIRD) or plain-text file (see the module docstring).
        db_id: when given, keep only questions about this database (questions without a ``db_id``
            are kept, since they do not say otherwise).

    Returns:
        The questions in file order (ids unique within the file).

    Raises:
        WorkloadError: the file is missing, not UTF-8, malformed (the message names the file and
            line, or the array item), has duplicate ids, or holds no question.
    """
    path = Path(path)
    try:
        content = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise WorkloadError(f"{path}: workload file not found") from None
    except IsADirectoryError:
        raise WorkloadError(f"{path}: is a directory, expected a workload file") from None
    except UnicodeDecodeError as exc:
        raise WorkloadError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise WorkloadError(f"{path}: cannot read workload ({exc.strerror})") from None
    stripped = content.lstrip("\ufeff").lstrip()
    lines = record_lines(content.lstrip("\ufeff"))
    if stripped.startswith("["):
        questions = _parse_json_array(stripped, path)
    elif stripped.startswith("{"):
        questions = _parse_json_lines(lines, path)
    else:
        questions = _parse_plain_text(lines)
    if not questions:
        raise WorkloadError(f"{path}: the workload holds no question")
    seen: set[str] = set()
    for question in questions:
        if question.id in seen:
            raise WorkloadError(f"{path}: duplicate question id {question.id!r}")
        seen.add(question.id)
    if db_id is not None:
        questions = [q for q in questions if q.db_id in (None, db_id)]
    return questions


def as_questions(workload: str | Path | Iterable[Question | str] | None, *, db_id: str | None = None
                 ) -> list[Question]:
    """Normalise what :func:`evoonto.builder.build` accepts as a workload into a question list.

    Args:
        workload: ``None`` (no workload), a file path, or an iterable of :class:`Question` objects
            or plain strings (ids ``"q0"``, ``"q1"``, …). Objects of other types (e.g. a benchmark
            record carrying gold SQL) are refused rather than read.
        db_id: keep only questions about this database (and those without a db id).

    Returns:
        A list of questions (possibly empty).

    Raises:
        WorkloadError: unreadable file, or an item that is neither a Question nor a string.
    """
    if workload is None:
        return []
    if isinstance(workload, (str, Path)):
        return load_workload(workload, db_id=db_id)
    questions: list[Question] = []
    for i, item in enumerate(workload):
        if isinstance(item, Question):
            questions.append(item)
        elif isinstance(item, str):
            if item.strip():
                questions.append(Question(id=f"q{i}", text=" ".join(item.split())))
        elif all(hasattr(item, a) for a in ("id", "text")) and not _has_gold(item):
            # an object of the caller's own type (duck-typed by id and text): its db_id is optional
            questions.append(Question(id=str(item.id), text=str(item.text), db_id=getattr(item, "db_id", None)))
        else:
            raise WorkloadError(
                f"workload item {i}: expected a Question or a string, got {type(item).__name__}")
    if db_id is not None:
        questions = [q for q in questions if q.db_id in (None, db_id)]
    return questions


def _has_gold(item: object) -> bool:
    names = {f.name for f in dataclasses.fields(item)} if dataclasses.is_dataclass(item) else set()
    names |= set(vars(item)) if hasattr(item, "__dict__") else set()
    return bool(names & {"sql", "gold", "gold_sql", "query", "answer", "evidence"})

