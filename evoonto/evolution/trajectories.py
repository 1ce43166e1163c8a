"""Trajectories: one ordered list of tool events per task, with the evaluator's pass/fail only.

Paper §"Evolution loop" (diagnosis works on trajectories). Events come from two places:

* the Tool layer's JSON Lines log (``evoonto.tools.trajectory``), one event per agent tool call:
  ``session``/``task``, ``ts``, ``version``, ``tool``, ``arguments``, ``result``, ``result_size``,
  ``result_ids``, ``latency_ms``, ``error``;
* an offline evaluation run (:mod:`evoonto.evaluation.backbones`), which records the retrieval policy's
  browse/resolve calls as the same :class:`~evoonto.tools.trajectory.ToolEvent`.

A trajectory carries the question *text* (what the agent saw) and the evaluator's verdict, never the
gold SQL or gold result: diagnosis must not see gold (DESIGN.md §6).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from evoonto.builder.workload import Question

from evoonto.errors import WorkloadError
from evoonto.fileio import record_lines
from evoonto.tools.trajectory import ToolEvent, iter_events


#: One tool call in a trajectory: the Tool layer's single event type (``tool``, ``arguments``,
#: ``result``, ``error``, ``version``, ``timestamp``, ``latency_ms``, ``result_ids`` …), so the
#: MCP log, in-process agents and offline runs are read the same way.
Event = ToolEvent


@dataclass
class TaskTrajectory:
    """All events of one task plus the evaluator's verdict.

    ``task_id``: question id; ``question``: its text; ``db_id``: the source it targets (or None);
    ``passed``: the evaluator's pass/fail (None when unknown); ``score``: the per-question outcome in
    [0, 1] when the scorer gives a graded one; ``final_sql``: the agent's final SQL if any.
    ``tokens``: what the agent read for this task, in tokens (characters / 4), when the backbone
    measures it (the gate weighs answer size; None = unknown). ``reference_sql``: the SQL a person
    verified for this question (a team's verified query, never a benchmark's gold: the backbone sets it
    only when the workload's SQL is the team's own knowledge). ``notes``: feedback notes on the task
    (e.g. "should use dest, not origin").
    """

    task_id: str
    question: str = ""
    db_id: str | None = None
    events: list[Event] = field(default_factory=list)
    passed: bool | None = None
    score: float | None = None
    final_sql: str | None = None
    tokens: int | None = None
    reference_sql: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def failed(self) -> bool:
        return self.passed is False

    def calls(self, tool: str) -> list[Event]:
        """The events of one tool, in order."""
        return [e for e in self.events if e.tool == tool]


def task_key(record: Mapping) -> str | None:
    """The task a log record belongs to: its ``task``, ``task_id``, ``question_id``, ``session`` or
    ``session_id`` (the first present), or None."""
    for key in ("task", "task_id", "question_id", "session", "session_id"):
        if record.get(key) not in (None, ""):
            return str(record[key])
    return None


def recorded_tasks(folder: str | Path) -> set[str]:
    """The task ids (:func:`task_key`) of every event in the ``*.jsonl`` trajectory logs of
    ``folder`` (``<workspace>/trajectories``); an empty set when there is no such folder. Malformed
    lines are skipped (:func:`evoonto.tools.trajectory.iter_events`)."""
    found: set[str] = set()
    folder = Path(folder)
    if not folder.is_dir():
        return found
    for file in sorted(folder.glob("*.jsonl")):
        try:
            found.update(key for event in iter_events(file) if (key := task_key(event)) is not None)
        except (OSError, UnicodeDecodeError):
            continue  # an unreadable log names no task
    return found


def read_log(path: str | Path) -> list[dict]:
    """Read a trajectory JSON Lines file into a list of records, in file order.

    Raises:
        WorkloadError: when the file is missing or a line is not a JSON object (names the line).
    """
    path = Path(path)
    if not path.is_file():
        raise WorkloadError(f"trajectory log not found: {path}")
    return [rec for _, rec in json_objects(path.read_text(encoding="utf-8"), path, "a trajectory event")]


def json_objects(text: str, path: Path, what: str) -> Iterable[tuple[int, dict]]:
    """(line number, object) for every non-blank JSON Lines line of ``text`` (read from ``path``).

    Raises:
        WorkloadError: a line that is not JSON, or not a JSON object (names the file and line).
    """
    for lineno, line in enumerate(record_lines(text), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise WorkloadError(f"{path}:{lineno}: not JSON ({exc.msg})") from None
        if not isinstance(rec, dict):
            raise WorkloadError(f"{path}:{lineno}: {what} must be a JSON object")
        yield lineno, rec


def group_events(records: Iterable[Mapping], outcomes: Mapping[str, bool | float],
                 *, questions: Mapping[str, Question | str] | None = None) -> list[TaskTrajectory]:
    """Group log records per task and attach the evaluator's verdicts.

    Args:
        records: event dicts in log order; each names its task by ``task``/``task_id``/``session``.
        outcomes: task id -> pass/fail (bool) or graded outcome in [0, 1] (passed iff ≥ 1.0).
        questions: optional task id -> Question (``.text``, ``.db_id``) or plain question text.
    Returns:
        Trajectories sorted by task id; tasks with outcomes but no events get an empty trajectory.
        Records without a task key are dropped. A ``final_answer`` event's ``arguments["sql"]``
        becomes ``final_sql``. A record's optional ``question`` field gives the text of a task that
        ``questions`` does not know (without a text, question-word diagnoses cannot run on it).
    """
    by_task: dict[str, TaskTrajectory] = {}
    questions = questions or {}

    def get(task_id: str) -> TaskTrajectory:
        if task_id not in by_task:
            q = questions.get(task_id)
            if isinstance(q, Question):
                by_task[task_id] = TaskTrajectory(task_id, q.text, q.db_id)
            else:
                by_task[task_id] = TaskTrajectory(task_id, q if isinstance(q, str) else "", None)
        return by_task[task_id]

    for rec in records:
        key = task_key(rec)
        if key is None:
            continue
        traj = get(key)
        event = Event.from_dict(rec)
        traj.events.append(event)
        if event.tool == "final_answer" and isinstance(event.arguments.get("sql"), str):
            traj.final_sql = event.arguments["sql"]
        if not traj.question and isinstance(rec.get("question"), str):
            traj.question = rec["question"]
    for task_id, outcome in outcomes.items():
        traj = get(str(task_id))
        if isinstance(outcome, bool):
            traj.passed = outcome
            traj.score = 1.0 if outcome else 0.0
        else:
            traj.score = float(outcome)
            traj.passed = traj.score >= 1.0 - 1e-9
    return [by_task[k] for k in sorted(by_task)]


def read_outcomes(path: str | Path) -> dict[str, bool | float]:
    """Read the evaluator's verdicts per task: JSON Lines (one object per line with the task id under
    ``task``/``task_id``/``question_id``/``id`` and ``passed`` (bool) or ``score`` (number in [0, 1]))
    or one JSON object ``{task id: bool | number}``.

    Returns:
        task id -> bool (pass/fail) or float (graded outcome; :func:`group_events` counts ≥ 1.0 as pass).
    Raises:
        WorkloadError: missing file, malformed JSON (names the line), a record without a task id or
            verdict, or a score outside [0, 1].
    """
    path = Path(path)
    if not path.is_file():
        raise WorkloadError(f"outcomes file not found: {path}")
    text = path.read_text(encoding="utf-8")
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    record_keys = ("task", "task_id", "question_id", "id", "passed", "score")
    if isinstance(whole, dict) and not any(k in whole for k in record_keys):  # the {id: verdict} form
        items = [(str(k), v, f"{path}: key {k!r}") for k, v in whole.items()]
    else:
        items = []
        for lineno, rec in json_objects(text, path, "an outcome"):
            key = next((str(rec[k]) for k in ("task", "task_id", "question_id", "id")
                        if rec.get(k) not in (None, "")), None)
            if key is None:
                raise WorkloadError(f"{path}:{lineno}: an outcome needs a task id (task, task_id or id)")
            value = rec.get("passed", rec.get("score"))
            items.append((key, value, f"{path}:{lineno}"))
    out: dict[str, bool | float] = {}
    for key, value, where in items:
        if isinstance(value, bool):
            out[key] = value
        elif isinstance(value, (int, float)) and 0.0 <= float(value) <= 1.0:
            out[key] = float(value)
        else:
            raise WorkloadError(f"{where}: the verdict must be passed (true/false) or a score in [0, 1], "
                                f"got {value!r}")
    return out
