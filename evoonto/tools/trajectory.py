"""Trajectory capture: every agent-facing tool call as one :class:`ToolEvent` (DESIGN.md §5, §6).

One event type for every writer: :meth:`evoonto.tools.toolkit.OntologyTools.call` (the MCP server
and in-process agents), the offline linking policy (:func:`evoonto.evaluation.linking.run_policy`)
and any agent harness build events with :meth:`ToolEvent.from_call`; evolution reads them back with
:meth:`ToolEvent.from_dict` (``evoonto.evolution.trajectories.Event`` is this class). So the same
calls give the same diagnosis whether they were served over MCP or run offline.

Where: ``<workspace>/trajectories/<session>.jsonl`` (one file per session, see
:meth:`TrajectoryLog.for_workspace`) or any single file shared by several sessions (the ``session``
field tells them apart). Events of one session are appended in call order; ``seq`` numbers them.
An HTTP server serving several agents logs each transport session as ``<session>-<connection>``
(:meth:`TrajectoryLog.child`); the evaluation harness sets ``task`` per question.

Event schema (one JSON object per line, UTF-8, keys always present unless marked optional)::

    {
      "session": "c0ffee…",            # session id (str); one agent run / task / MCP connection
      "seq": 3,                        # 0-based position of the event within its session (int)
      "ts": "2026-11-30T03:21:06.123Z",# UTC time the call started (ISO 8601, milliseconds)
      "version": 4,                    # ontology version served (int; null when unknown)
      "tool": "browse",                # browse | resolve | manifest | list_tables | describe_table |
                                       #   run_sql | <declared tool name>
      "arguments": {"q": "banned", "kind": "term", "n": 5},   # as received; strings > 2,000
                                       #   characters are clipped and end with "…"
      "result_size": 812,              # characters of the JSON/text returned to the agent (0 on error)
      "latency_ms": 1.73,              # wall-clock time of the call in milliseconds (float)
      "error": null,                   # one-line error message when the call failed, else null
      "result_ids": ["term/x/status"], # ids returned (browse hits, resolved records; [] otherwise)
      "result": [{"id": …, …}],        # the JSON result the agent read; null on error or when its
                                       #   text exceeds MAX_RESULT_CHARS (result_ids remain)
      "task": "dev_0042",              # optional: task id set by the caller (evaluation harness, or
                                       #   an MCP client's request _meta {"evoonto/task": ID})
      "question": "How many …?",       # optional: the task's question as its client declared it
                                       #   (MCP request _meta {"evoonto/question": TEXT})
      "findings": {"Violation": 1, "Warning": 0, "Info": 0, "unseen_value": 1}
                                       # optional: counts of check_sql findings by severity and kind
                                       #   (check_sql, run_sql with check=true), for diagnosis
    }

Writers on several threads or processes may share a file: each event is serialised first and
written with a single ``os.write`` on a descriptor opened with ``O_APPEND`` while holding an
exclusive ``fcntl.flock`` (plus a thread lock), so lines never interleave or tear.

A log that cannot be written (read-only folder, full disk) does not fail the call that is logged:
one warning goes to stderr and later events of that log (and its children) are dropped.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
import threading
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Mapping

if sys.platform != "win32":  # POSIX only; on Windows O_APPEND single writes remain
    import fcntl

MAX_ARGUMENT_CHARS = 2000
#: Results whose JSON text is longer are logged by their ids only (``result`` null).
MAX_RESULT_CHARS = 50_000
_SESSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def new_session_id() -> str:
    """A fresh random session id (32 hex characters)."""
    return uuid.uuid4().hex


def _clip(value: Any) -> Any:
    if isinstance(value, str) and len(value) > MAX_ARGUMENT_CHARS:
        return value[: MAX_ARGUMENT_CHARS - 1] + "…"
    if isinstance(value, dict):
        return {str(k)[:200]: _clip(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clip(v) for v in list(value)[:200]]
    return value


def utc_timestamp(moment: datetime | None = None) -> str:
    """ISO 8601 UTC timestamp with milliseconds and a ``Z`` suffix."""
    moment = moment or datetime.now(timezone.utc)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def to_text(result: Any) -> str:
    """The text sent to the agent for a tool result: strings as is, anything else as compact JSON."""
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"), default=str)


def result_ids(tool: str, result: Any) -> tuple[str, ...]:
    """The record ids a result shows: browse hits (a list of ``{id, …}``) and resolve records
    (``{"records": [{id, …}]}``); ``()`` for anything else."""
    if isinstance(result, list):
        items = result
    elif isinstance(result, dict) and isinstance(result.get("records"), list):
        items = result["records"]
    else:
        return ()
    if tool not in ("browse", "resolve"):
        return ()
    return tuple(str(item["id"]) for item in items if isinstance(item, dict) and "id" in item)


@dataclass(frozen=True)
class ToolEvent:
    """One tool call as an agent made it.

    Attributes:
        tool: the tool name (``browse``, ``resolve``, ``run_sql``, a declared tool, ``final_answer``).
        arguments: the JSON arguments exactly as the caller sent them.
        result: the JSON result the agent read (None on error, or when not recorded).
        error: the one-line error message, or None.
        version: the ontology version served (None when unknown).
        timestamp: ISO 8601 UTC time the call started.
        latency_ms: wall-clock duration in milliseconds.
        result_ids: ids the result showed (see :func:`result_ids`).
        result_size: characters of the text returned to the agent (0 on error).
        session, seq, task: set by :meth:`TrajectoryLog.append` (None before); ``task`` may also
            come from the client (:meth:`TrajectoryLog.for_task`).
        question: the task's question as its client declared it (≤ 2,000 characters), or None.
        findings: counts of the check_sql findings the result carried, by severity and by kind
            (:func:`evoonto.tools.sqlcheck.finding_counts`), or None when it carried none.
    """

    tool: str
    arguments: dict = field(default_factory=dict)
    result: Any = None
    error: str | None = None
    version: Any = None
    timestamp: str | None = None
    latency_ms: float | None = None
    result_ids: tuple[str, ...] = ()
    result_size: int = 0
    session: str | None = None
    seq: int | None = None
    task: str | None = None
    findings: dict[str, int] | None = None
    question: str | None = None

    @classmethod
    def from_call(cls, tool: str, arguments: Any, result: Any = None, *, error: str | None = None,
                  version: Any = None, latency_ms: float = 0.0, started: datetime | None = None) -> "ToolEvent":
        """The event of one call: ``result`` is what the tool returned (ignored when ``error``)."""
        if error is not None:
            result = None
        text = None if result is None else to_text(result)
        args = arguments if isinstance(arguments, dict) else {"value": arguments}
        return cls(tool=str(tool), arguments=args,
                   result=result if text is not None and len(text) <= MAX_RESULT_CHARS else None,
                   error=error, version=version, timestamp=utc_timestamp(started),
                   latency_ms=round(float(latency_ms), 3), result_ids=result_ids(str(tool), result),
                   result_size=0 if text is None else len(text), findings=_finding_counts(result))

    @classmethod
    def from_dict(cls, data: Mapping) -> "ToolEvent":
        """The event of one log record (also accepts ``args``/``name``/``timestamp`` spellings;
        unknown keys are ignored)."""
        args = data.get("arguments") or data.get("args") or {}
        if not isinstance(args, dict):
            args = {"value": args}
        seq = data.get("seq")
        return cls(
            tool=str(data.get("tool") or data.get("name") or "?"), arguments=args,
            result=data.get("result"), error=data.get("error") or None,
            version=data.get("version"), timestamp=data.get("ts") or data.get("timestamp"),
            latency_ms=data.get("latency_ms"),
            result_ids=tuple(str(i) for i in (data.get("result_ids") or ())),
            result_size=int(data.get("result_size") or 0),
            session=data.get("session"), seq=seq if isinstance(seq, int) else None,
            task=data.get("task") if data.get("task") not in (None, "") else None,
            findings=_counts(data.get("findings")),
            question=data.get("question") if isinstance(data.get("question"), str) and data.get("question") else None,
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON Lines record (see the module docstring); long argument strings are clipped."""
        out: dict[str, Any] = {
            "session": self.session, "seq": self.seq, "ts": self.timestamp or utc_timestamp(),
            "version": self.version, "tool": self.tool, "arguments": _clip(self.arguments),
            "result_size": int(self.result_size),
            "latency_ms": None if self.latency_ms is None else round(float(self.latency_ms), 3),
            "error": self.error, "result_ids": list(self.result_ids)[:100], "result": self.result,
        }
        if self.task is not None:
            out["task"] = self.task
        if self.findings is not None:
            out["findings"] = dict(self.findings)
        if self.question is not None:
            out["question"] = _clip(self.question)
        return out


def _finding_counts(result: Any) -> dict[str, int] | None:
    """Counts of the findings a tool result carries (``{"findings": [...]}``), else None."""
    if not isinstance(result, dict) or not isinstance(result.get("findings"), list):
        return None
    from evoonto.tools.sqlcheck import finding_counts

    return finding_counts(f for f in result["findings"] if isinstance(f, dict))


def _counts(value: Any) -> dict[str, int] | None:
    if not isinstance(value, dict):
        return None
    return {str(k): int(v) for k, v in value.items() if isinstance(v, int) and not isinstance(v, bool)}


class _Health:
    """Shared by a log and its children: whether writing failed (then one warning was printed)."""

    def __init__(self) -> None:
        self.failed = False


class TrajectoryLog:
    """Appends tool-call events of one session to a JSON Lines file.

    Args:
        path: the log file (created with its parent folders on first write).
        session: the session id (letters, digits, ``._-``; default: a fresh random id).
        task: optional task id written into every event (can be changed later with ``.task = ...``).
    Raises:
        ValueError: malformed session id.
    """

    def __init__(self, path: str | os.PathLike, *, session: str | None = None, task: str | None = None):
        self.path = Path(path)
        self.session = session or new_session_id()
        if not _SESSION.match(self.session):
            raise ValueError(f"malformed session id {self.session[:60]!r}")
        self.task = task
        self._seq = 0
        self._lock = threading.Lock()
        self._health = _Health()

    @classmethod
    def for_workspace(cls, workspace: str | os.PathLike, session: str | None = None, **kwargs: Any) -> "TrajectoryLog":
        """A log at ``<workspace>/trajectories/<session>.jsonl``."""
        session = session or new_session_id()
        return cls(Path(workspace) / "trajectories" / f"{session}.jsonl", session=session, **kwargs)

    def child(self, suffix: str) -> "TrajectoryLog":
        """The log of a sub-session ``<session>-<suffix>`` (e.g. one MCP connection of an HTTP server):
        its own ``<session>-<suffix>.jsonl`` beside a per-session file, else the same shared file.

        Raises:
            ValueError: the suffix makes a malformed session id.
        """
        session = f"{self.session}-{suffix}"
        path = self.path.with_name(f"{session}.jsonl") if self.path.name == f"{self.session}.jsonl" else self.path
        child = TrajectoryLog(path, session=session, task=self.task)
        child._health = self._health
        return child

    def for_task(self, task: str | None, question: str | None = None) -> "TrajectoryLog":
        """This log with an explicit task id (and question) written into the events appended through
        it, e.g. the ``_meta`` of one MCP request; the same file, session and event numbering, so
        concurrent calls of different tasks never change each other's task. Returns ``self`` when
        neither is given.

        Args:
            task: the client's task id (clipped to 200 characters), or None.
            question: the task's question (clipped to 2,000 characters), or None.
        """
        if not task and not question:
            return self
        return _TaskLog(self, str(task)[:200] if task else None,
                        str(question)[:MAX_ARGUMENT_CHARS] if question else None)

    @property
    def writable(self) -> bool:
        """False once a write failed (events are then dropped; one warning was printed)."""
        return not self._health.failed

    def record(self, *, tool: str, arguments: Any, version: Any, result_size: int, latency_ms: float,
               error: str | None = None, started: datetime | None = None,
               result_ids: list[str] | None = None, result: Any = None) -> dict[str, Any]:
        """Append one event built from these fields (see the module docstring) and return its record.

        ``result_size``/``result_ids`` are taken as given; prefer :meth:`append` with
        :meth:`ToolEvent.from_call`, which derives them from ``result``.
        """
        event = ToolEvent(tool=str(tool), arguments=arguments if isinstance(arguments, dict) else {"value": arguments},
                          result=result, error=error, version=version, timestamp=utc_timestamp(started),
                          latency_ms=float(latency_ms), result_size=int(result_size),
                          result_ids=tuple(result_ids or ()))
        return self.append(event).to_dict()

    def append(self, event: ToolEvent) -> ToolEvent:
        """Write ``event`` as the next event of this session; returns it with ``session``, ``seq`` and
        ``task`` filled in. Never raises for I/O: when the file cannot be written, one warning goes
        to stderr (once per log and its children) and the event is not stored."""
        with self._lock:
            event = dataclasses.replace(event, session=self.session, seq=self._seq,
                                        task=self.task if self.task is not None else event.task)
            self._seq += 1
            if self._health.failed:
                return event
            line = (json.dumps(event.to_dict(), ensure_ascii=False, default=str) + "\n").encode("utf-8")
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    if sys.platform != "win32":
                        fcntl.flock(fd, fcntl.LOCK_EX)
                    view = memoryview(line)
                    while view:  # a regular-file append writes everything at once; loop for safety
                        written = os.write(fd, view)
                        view = view[written:]
                finally:
                    os.close(fd)  # closing releases the flock
            except OSError as exc:
                self._health.failed = True
                reason = exc.strerror or type(exc).__name__
                print(f"evoonto: warning: cannot write the trajectory log {self.path} ({reason}); "
                      "tool calls are served but not logged", file=sys.stderr, flush=True)
        return event


class _TaskLog(TrajectoryLog):
    """A view of a :class:`TrajectoryLog` that tags its events with one task (see ``for_task``)."""

    def __init__(self, parent: TrajectoryLog, task: str | None, question: str | None):  # noqa: D107
        self._parent = parent
        self.path, self.session, self.task = parent.path, parent.session, task
        self.question = question
        self._health = parent._health

    def append(self, event: ToolEvent) -> ToolEvent:
        event = dataclasses.replace(event, task=self.task or event.task, question=self.question or event.question)
        return self._parent.append(event)


def read_events(path: str | os.PathLike) -> list[dict[str, Any]]:
    """All events of a trajectory file in file order (a torn last line, if any, is skipped)."""
    return list(iter_events(path))


def iter_events(path: str | os.PathLike) -> Iterator[dict[str, Any]]:
    """Events of a trajectory file one by one; malformed lines are skipped."""
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if not line:
                continue
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                yield event
