"""Task outcomes from real sessions: verified queries, explicit feedback and a judge (issue 14 item 1).

A served session is a list of tool events (``evoonto.tools.trajectory``) grouped into *tasks*: the
explicit task id a client passes (MCP request ``_meta``: ``{"evoonto/task": ID}``), else the MCP
session. Each task gets at most one :class:`TaskOutcome`, chosen in this order of trust:

1. ``verified`` — a verified query whose question matches the task's question (normalized text,
   :func:`normalize_question`); the agent's final SQL (the task's last ``run_sql``) is executed
   read-only and compared with the verified SQL's result by the EX comparison (the comparison lives
   in :mod:`evoonto.evaluation.outcomes`, since it reads the verified SQL);
2. ``feedback`` — ``evoonto feedback TASK pass|fail`` or the opt-in MCP tool ``report_outcome``
   (source ``report_outcome``), kept in ``<workspace>/feedback.jsonl``;
3. ``judge`` — an LLM judge (``--judge anthropic:MODEL``).

Verified queries (question + SQL pairs a person vouches for) are read through ONE reader,
:func:`evoonto.builder.verified.load_verified` (the builder's): :func:`load_verified` here only adds
the workspace default (``<workspace>/verified.jsonl``). A JSON Lines file (``{"question", "sql"}``
plus optional ``id``, ``db_id``, ``verified_by``, ``verified_at``); one id scheme (the given id, else
a stable key of question and SQL, the id the content graph's ``evo:VerifiedQuery`` records carry);
a malformed line is an error naming file and line.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from evoonto.builder.verified import VerifiedItem
from evoonto.errors import WorkloadError
from evoonto.fileio import record_lines

if TYPE_CHECKING:
    from evoonto.tools.trajectory import ToolEvent

#: Verified queries stored in a workspace (one JSON object per line).
VERIFIED_FILE = "verified.jsonl"
#: Explicit feedback per task (appended; the last line about a task wins).
FEEDBACK_FILE = "feedback.jsonl"
#: The held-back share of the verified queries (the gate's V on a user's data), reused across rounds.
HOLDOUT_FILE = "verified_holdout.json"
#: Outcome sources, most trusted first.
SOURCES = ("verified", "feedback", "report_outcome", "judge")
#: The MCP request ``_meta`` key carrying a client's explicit task id.
TASK_META_KEY = "evoonto/task"


#: One question + SQL pair a person vouches for: the builder's :class:`~evoonto.builder.verified.VerifiedItem`
#: (``id``, ``question``, ``sql``, ``db_id``, ``verified_by``, ``verified_at``, ``where``), one type for
#: both the content graph and the gate; :func:`load_verified` always sets ``id``.
VerifiedQuery = VerifiedItem


def normalize_question(text: str) -> str:
    """The form two questions are matched in: NFKC, case-folded, punctuation dropped, one space
    between words (``"How many  tracks?"`` → ``"how many tracks"``)."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.findall(r"\w+", text))


def _verified_file(where: str | Path) -> Path:
    path = Path(where)
    return path / VERIFIED_FILE if path.is_dir() else path


def load_verified(where: str | Path) -> list[VerifiedQuery]:
    """Read verified queries from a JSON Lines file, or from ``<workspace>/verified.jsonl``, through
    the one reader :func:`evoonto.builder.verified.load_verified` (one id scheme: the given id, else
    a stable key of question and SQL; one error policy).

    Args:
        where: the file, or a workspace folder (a workspace without the file has none: ``[]``).
    Returns:
        the queries in file order (ids set and unique).
    Raises:
        WorkloadError: a missing or unreadable file, or a malformed line (not a JSON object, a
            missing/empty ``question`` or ``sql`` string, a bad optional field, a duplicate id); each
            message names file and line.
    """
    from evoonto.builder.verified import load_verified as read_verified

    path = _verified_file(where)
    if not path.is_file():
        if Path(where).is_dir():
            return []
        raise WorkloadError(f"verified query file not found: {path}")
    return read_verified(path)


def legacy_verified_id(question: str) -> str:
    """The id an unnamed verified query had before the one reader (``vq-`` + 10 hex of the SHA-1 of
    its :func:`normalize_question` text); only read, to migrate a stored hold-out file."""
    return "vq-" + hashlib.sha1(normalize_question(question).encode()).hexdigest()[:10]


@dataclass(frozen=True)
class TaskOutcome:
    """The outcome of one task and where it came from.

    Attributes:
        task: the task id (explicit task, or MCP session id). passed: pass/fail.
        source: one of :data:`SOURCES`. note: free text (feedback note, judge reason, EX detail).
        at: ISO 8601 UTC time it was recorded. reference: the verified query id (source
            ``verified``) or the judge model, else None.
    """

    task: str
    passed: bool
    source: str
    note: str = ""
    at: str = ""
    reference: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON Lines record of :data:`FEEDBACK_FILE`."""
        return {k: v for k, v in asdict(self).items() if v not in (None, "")} | {"passed": self.passed}


def record_feedback(workspace: str | Path, task: str, passed: bool, *, note: str = "",
                    source: str = "feedback") -> TaskOutcome:
    """Append one explicit verdict to ``<workspace>/feedback.jsonl`` (one ``write`` of one line).

    Args:
        workspace: the workspace folder. task: the task id (1..200 characters, no line breaks).
        passed: the verdict. note: free text (clipped to 2,000 characters).
        source: ``feedback`` (the CLI) or ``report_outcome`` (the opt-in MCP tool).
    Returns:
        the stored :class:`TaskOutcome`.
    Raises:
        WorkloadError: an empty/overlong task id, a task id with a line break, or an unknown source.
        WorkspaceError: the file cannot be written (read-only or full disk); it is left as it was.
    """
    from evoonto.fileio import append_record
    from evoonto.tools.trajectory import utc_timestamp

    task = str(task).strip()
    if not task or len(task) > 200 or "\n" in task or "\r" in task:
        raise WorkloadError("a task id must be 1 to 200 characters on one line")
    if source not in ("feedback", "report_outcome"):
        raise WorkloadError(f"unknown feedback source {source!r}")
    outcome = TaskOutcome(task, bool(passed), source, str(note)[:2000], utc_timestamp())
    path = Path(workspace) / FEEDBACK_FILE
    line = json.dumps(outcome.to_json(), ensure_ascii=False) + "\n"
    append_record(path, line.encode("utf-8"))  # a full disk leaves no zero-byte or half-written file
    return outcome


def read_feedback(workspace: str | Path) -> dict[str, TaskOutcome]:
    """Task id → the latest explicit verdict in ``<workspace>/feedback.jsonl`` ({} without the file);
    malformed lines are skipped (a torn last line must not block evolution)."""
    path = Path(workspace) / FEEDBACK_FILE
    out: dict[str, TaskOutcome] = {}
    if not path.is_file():
        return out
    for line in record_lines(path.read_text(encoding="utf-8")):
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, RecursionError):  # a damaged or hostile line is not a verdict
            continue
        if not isinstance(rec, dict) or not isinstance(rec.get("task"), str) or not isinstance(rec.get("passed"), bool):
            continue
        source = str(rec["source"]) if rec.get("source") in SOURCES else "feedback"
        out[rec["task"]] = TaskOutcome(rec["task"], rec["passed"], source, str(rec.get("note") or ""),
                                       str(rec.get("at") or ""), rec.get("reference"))
    return out


def merge_outcomes(*layers: Mapping[str, TaskOutcome]) -> dict[str, TaskOutcome]:
    """One outcome per task: the first layer that has the task wins (pass layers most trusted first,
    e.g. verified, feedback, judge)."""
    out: dict[str, TaskOutcome] = {}
    for layer in layers:
        for task, outcome in layer.items():
            out.setdefault(task, outcome)
    return out


def final_sql(events: Iterable[Any]) -> str | None:
    """The agent's final SQL of a task: the ``sql`` of its ``final_answer`` event if any, else of its
    last ``run_sql`` call that did not fail; None when it ran none. ``events`` are
    :class:`~evoonto.tools.trajectory.ToolEvent` s in call order."""
    last: str | None = None
    for event in events:
        sql = event.arguments.get("sql") if isinstance(event.arguments, dict) else None
        if not isinstance(sql, str):
            continue
        if event.tool == "final_answer":
            return sql
        if event.tool == "run_sql" and not event.error:
            last = sql
    return last


def task_question(events: Sequence[ToolEvent]) -> str:
    """The question a task answered: the ``question`` its client declared (MCP request ``_meta``
    ``evoonto/question``, kept on the events), else the ``question`` argument of its first
    ``coverage`` call, else the ``q`` of its first ``browse`` call ("" when none)."""
    for event in events:
        if event.question:
            return str(event.question)
    for tool, key in (("coverage", "question"), ("browse", "q")):
        for event in events:
            if event.tool == tool and isinstance(event.arguments.get(key), str):
                return str(event.arguments[key])
    return ""


def holdout(verified: Sequence[VerifiedQuery], workspace: str | Path, *, share: float = 0.3,
            seed: int = 0) -> list[str]:
    """The ids of the verified queries held back as the gate's V: stored in
    ``<workspace>/verified_holdout.json`` the first time, reused afterwards (new verified queries
    join V with the same seeded probability, old ones never move), so V is stable across rounds. A
    file written with the earlier id scheme (:func:`legacy_verified_id`) is migrated in place: each
    query keeps its side of the split under its current id.

    Args:
        verified: all verified queries. workspace: the workspace folder.
        share: the probability in (0, 1) that a verified query goes to V. seed: the draw's seed.
    Returns:
        the V ids, in the order of ``verified``.
    Raises:
        WorkloadError: share outside (0, 1), or an unreadable stored file.
    """
    from evoonto.fileio import atomic_write

    if not 0.0 < share < 1.0:
        raise WorkloadError(f"the validation share must be in (0, 1), got {share}")
    path = Path(workspace) / HOLDOUT_FILE
    stored: dict[str, bool] = {}
    if path.is_file():
        try:
            assigned = json.loads(path.read_text(encoding="utf-8"))["assigned"]
            if not isinstance(assigned, dict) or not all(isinstance(v, bool) for v in assigned.values()):
                raise ValueError("'assigned' must map query ids to true or false")
            stored = dict(assigned)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise WorkloadError(f"{path}: unreadable hold-out file ({exc}); delete it to redraw V") from None
    changed = False
    current = {vq.key for vq in verified}
    for vq in verified:  # migrate a file written with the earlier id scheme: same V, new ids
        legacy = legacy_verified_id(vq.question)
        if vq.key not in stored and legacy in stored and legacy not in current:
            stored[vq.key] = stored.pop(legacy)
            changed = True
    for vq in verified:
        if vq.key not in stored:  # a per-id draw: independent of file order and of other queries
            stored[vq.key] = random.Random(f"{seed}/{vq.key}").random() < share
            changed = True
    if changed or not path.is_file():
        atomic_write(path, (json.dumps({"seed": seed, "share": share, "assigned": stored}, indent=1,
                                       sort_keys=True) + "\n").encode())
    return [vq.key for vq in verified if stored.get(vq.key)]


__all__ = ["VerifiedQuery", "TaskOutcome", "load_verified", "legacy_verified_id", "normalize_question",
           "record_feedback", "read_feedback", "merge_outcomes", "final_sql", "task_question", "holdout", "SOURCES",
           "VERIFIED_FILE", "FEEDBACK_FILE", "HOLDOUT_FILE", "TASK_META_KEY"]
