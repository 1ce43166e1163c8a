"""Trajectory capture: every agent-facing tool call as one JSON Lines event (DESIGN.md §5, §6).

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
      "result_ids": ["term/x/status"], # optional: ids returned (browse hits, resolved records)
      "task": "dev_0042"               # optional: task id set by the caller (evaluation harness)
    }

Writers on several threads or processes may share a file: each event is serialised first and
written with a single ``os.write`` on a descriptor opened with ``O_APPEND`` while holding an
exclusive ``fcntl.flock`` (plus a thread lock), so lines never interleave or tear.
"""

from __future__ import annotations

import json
import os
import re
import threading
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

try:  # POSIX only; on other platforms O_APPEND single writes remain
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None

MAX_ARGUMENT_CHARS = 2000
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
        return TrajectoryLog(path, session=session, task=self.task)

    def record(self, *, tool: str, arguments: Any, version: Any, result_size: int, latency_ms: float,
               error: str | None = None, started: datetime | None = None,
               result_ids: list[str] | None = None) -> dict[str, Any]:
        """Append one event (see the module docstring) and return it."""
        with self._lock:
            event: dict[str, Any] = {
                "session": self.session, "seq": self._seq, "ts": utc_timestamp(started),
                "version": version, "tool": tool, "arguments": _clip(arguments),
                "result_size": int(result_size), "latency_ms": round(float(latency_ms), 3),
                "error": error,
            }
            if result_ids is not None:
                event["result_ids"] = list(result_ids)[:100]
            if self.task is not None:
                event["task"] = self.task
            line = (json.dumps(event, ensure_ascii=False, default=str) + "\n").encode("utf-8")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                view = memoryview(line)
                while view:  # a regular-file append writes everything at once; loop for safety
                    written = os.write(fd, view)
                    view = view[written:]
            finally:
                os.close(fd)  # closing releases the flock
            self._seq += 1
        return event


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
