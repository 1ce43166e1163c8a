"""The one progress bar of evoonto: a tqdm bar on stderr that is drawn only on a terminal.

A bar redraws itself with carriage returns; written into a redirected stderr (a log file, a pipe,
a CI job) it fills the log with frames. Every command (``build``, ``eval``, ``evolve``) and library
entry point that reports progress therefore goes through :func:`progress_bar`, which leaves the
decision to tqdm's ``disable=None`` (off when the stream is not a TTY).
"""

from __future__ import annotations

import sys
from typing import IO, Any


def progress_bar(total: int | None = None, *, desc: str | None = None, unit: str = "it", enabled: bool = True,
                 file: IO[str] | None = None, leave: bool = False) -> Any:
    """A ``tqdm`` progress bar (a context manager with ``update``, ``set_description``, ``set_postfix_str``).

    Args:
        total: the number of steps, or None when unknown.
        desc: the label in front of the bar.
        unit: the name of one step ("q", "round", "step").
        enabled: False turns the bar off (``--no-progress``); True draws it only when ``file`` is a
            terminal, never into a redirected stream.
        file: the stream (default: ``sys.stderr`` at call time).
        leave: keep the finished bar on screen (default False: it is cleared, so the next line,
            e.g. ``evoonto: error: …``, starts on its own line).

    Returns:
        a ``tqdm.tqdm`` instance; with the bar off every method is a no-op.
    """
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, disable=None if enabled else True,
                file=file if file is not None else sys.stderr, leave=leave)


def progress_write(message: str, *, file: IO[str] | None = None) -> None:
    """Print ``message`` as a line without breaking an active bar (``tqdm.write``; default stdout)."""
    from tqdm import tqdm

    tqdm.write(message, file=file if file is not None else sys.stdout)


__all__ = ["progress_bar", "progress_write"]
