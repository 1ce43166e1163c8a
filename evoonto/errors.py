"""Exceptions raised by evoonto.

Every error a user can cause derives from :class:`EvoontoError`; the CLI prints its message on one
line (no traceback) and exits with status 2. Library callers can catch the specific subclasses.
"""

from __future__ import annotations


class EvoontoError(Exception):
    """Base class of every user-facing evoonto error. ``str(err)`` is a complete one-line message."""


class WorkspaceError(EvoontoError):
    """A workspace is missing, malformed, locked, or a requested version/patch does not exist."""


class RDFParseError(EvoontoError):
    """An RDF file (Turtle, TriG) could not be parsed; the message names the file and line."""


class ShapeViolationError(EvoontoError):
    """SHACL validation failed; ``report`` holds the readable :class:`~evoonto.validation.ValidationReport`."""

    def __init__(self, message: str, report=None):
        super().__init__(message)
        self.report = report


class SourceError(EvoontoError):
    """A data source is missing, unreadable, corrupt, locked or unsupported."""


class ReadOnlyViolation(SourceError):
    """A statement was refused because it is not a single read-only SELECT/WITH query.

    ``stage`` says which check refused it (set by :func:`evoonto.sources.guard.check_read_only`):
    ``"size"`` (too long), ``"depth"`` (nested too deeply), ``"parse"`` (not tokenisable or
    parsable in the dialect), ``"shape"`` (not exactly one query) or ``"content"`` (a forbidden
    node or function inside the query).
    """

    def __init__(self, message: str, stage: str = "shape"):
        super().__init__(message)
        self.stage = stage


class QueryTimeout(SourceError):
    """A read-only query ran past its time limit (ms) and was interrupted."""


class WorkloadError(EvoontoError):
    """A question workload or benchmark file is missing or malformed."""


class ToolArgumentError(EvoontoError):
    """An agent-facing tool (browse, resolve, declared tools) received invalid arguments."""


class ConfigurationError(EvoontoError):
    """A setting is invalid, or a required one (e.g. ANTHROPIC_API_KEY for an ``anthropic:`` option) is missing."""


class GoldAccessError(EvoontoError):
    """Code outside a scorer tried to read gold answers (gold SQL, gold results)."""


def first_line(exc: BaseException, limit: int | None = None) -> str:
    """The first non-empty line of ``str(exc)`` (the exception's class name when it has no message),
    cut to ``limit`` characters when given; used wherever a library error becomes a one-line message."""
    for line in str(exc).strip().splitlines():
        if line.strip():
            return line.strip()[:limit] if limit else line.strip()
    return type(exc).__name__
