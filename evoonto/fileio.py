"""Crash-safe file writes and the workspace writer lock (POSIX).

:func:`atomic_write` writes a temporary file in the target's folder, flushes and ``fsync``s it,
renames it over the target (``os.replace``, atomic on POSIX) and ``fsync``s the folder, so a crash
at any moment leaves either the old file or the complete new one, never a mix (DESIGN.md §3).
:class:`WriterLock` is an exclusive ``fcntl.flock`` on a lock file; the kernel releases it when the
process dies, so a killed writer never leaves a stale lock.
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from evoonto.errors import WorkspaceError

#: Suffix of temporary files; readers ignore them.
TMP_SUFFIX = ".tmp"


def fsync_dir(folder: Path) -> None:
    """``fsync`` a directory so a rename inside it is durable (no-op where unsupported)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def process_alive(pid: int) -> bool:
    """True while process ``pid`` exists (also when another user owns it); False once it is gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def atomic_write(path: Path, data: bytes | Iterable[bytes], *, hook: Callable[[str], object] | None = None) -> None:
    """Write ``data`` to ``path`` atomically (temp file + fsync + rename + fsync of the folder).

    Args:
        path: the final file.
        data: the bytes to write, or an iterable of byte chunks written one after the other (a large
            file need not be held in memory whole).
        hook: optional ``hook(stage)`` called with ``"written"`` (temp file complete, not renamed)
            and ``"renamed"``; used by fault-injection tests.

    Raises:
        WorkspaceError: the file cannot be written (the target is left unchanged).
        Exception: whatever a chunk iterable raises, unchanged (the target is left unchanged and
            the temporary file is removed).
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}{TMP_SUFFIX}")
    try:
        with open(tmp, "wb") as fh:
            for chunk in (data,) if isinstance(data, (bytes, bytearray, memoryview)) else data:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        if hook:
            hook("written")
        os.replace(tmp, path)
        fsync_dir(path.parent)
        if hook:
            hook("renamed")
    except BaseException as exc:  # a chunk iterable may fail with any error: no temp file is left
        try:
            tmp.unlink()
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise WorkspaceError(f"cannot write {path}: {exc.strerror or exc}") from exc
        raise


def append_record(path: Path, data: bytes) -> None:
    """Append ``data`` (one whole record, e.g. a JSON line) to ``path`` so that a failure leaves the
    file as it was: a missing file is made by writing a temporary file and linking it into place
    (``os.link`` fails when another writer made it first; then the record is appended), so a full
    disk never leaves a zero-byte file; an existing file gets one ``O_APPEND`` write and is cut back
    to its old size when the write fails part-way.

    Raises:
        WorkspaceError: the record cannot be written (read-only or full disk, permissions); the file
            is unchanged.
    """
    path = Path(path)
    try:
        if not path.exists():
            tmp = path.with_name(f".{path.name}.{os.getpid()}.{id(data)}{TMP_SUFFIX}")
            try:
                with open(tmp, "wb") as fh:
                    fh.write(data)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.link(tmp, path)
                fsync_dir(path.parent)
                return
            except FileExistsError:
                pass  # another writer made the file first: append to it
            finally:
                try:
                    tmp.unlink()
                except OSError:
                    pass
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        try:
            size = os.fstat(fd).st_size
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            except OSError:
                os.ftruncate(fd, size)
                raise
        finally:
            os.close(fd)
    except OSError as exc:
        raise WorkspaceError(f"cannot write {path}: {exc.strerror or exc}") from exc


def record_lines(text: str) -> list[str]:
    """The lines of a line-based record format (JSON Lines, N-Triples/N-Quads, one SQL statement per
    line): ``text`` split at ``\\n`` only, a trailing ``\\r`` dropped, as those formats define a line.
    ``str.splitlines`` also splits at U+2028, U+2029, U+0085, form feed and other characters that JSON
    (``ensure_ascii=False``) and rdflib's N-Triples writer leave raw inside strings, which would cut a
    record in two and shift the line numbers an error names.

    Returns:
        The lines without their line ends (a final empty string when ``text`` ends with a newline).
    """
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def make_dirs(*folders: Path) -> None:
    """Create ``folders`` (with parents; existing ones are fine).

    Raises:
        WorkspaceError: a folder cannot be created (read-only or full disk, permissions); the
            message names the folder and the reason in one line.
    """
    for folder in folders:
        try:
            Path(folder).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WorkspaceError(f"cannot create {folder}: {exc.strerror or exc}") from exc


def remove_stale_temp_files(folder: Path) -> int:
    """Delete leftover temporary files of crashed writers in ``folder``; returns how many."""
    count = 0
    for tmp in Path(folder).glob(f".*{TMP_SUFFIX}"):
        try:
            tmp.unlink()
            count += 1
        except OSError:
            pass
    return count


class WriterLock:
    """Exclusive writer lock on ``path`` (a context manager).

    Args:
        path: the lock file (created if missing).
        timeout_s: how long to wait for another writer, in seconds (default 10).

    Raises:
        WorkspaceError: on enter, when another process still holds the lock after ``timeout_s``.
    """

    def __init__(self, path: Path, timeout_s: float = 10.0):
        self.path = Path(path)
        self.timeout_s = timeout_s
        self._fd: int | None = None

    def __enter__(self) -> "WriterLock":
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:  # a read-only mount, a full disk, no permission: nothing can be written
            raise WorkspaceError(f"cannot write to {self.path.parent}: {exc.strerror or exc} "
                                 f"(the writer lock {self.path.name} cannot be created)") from exc
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES) or time.monotonic() >= deadline:
                    holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
                    os.close(fd)
                    raise WorkspaceError(
                        f"{self.path.parent} is locked by another writer (pid {holder or '?'}); try again later"
                    ) from None
                time.sleep(0.05)
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        except OSError:
            pass  # the pid is only informative; the lock itself is held
        self._fd = fd
        return self

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            try:
                os.ftruncate(self._fd, 0)
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = None


__all__ = ["atomic_write", "fsync_dir", "record_lines", "make_dirs", "remove_stale_temp_files", "WriterLock",
           "TMP_SUFFIX"]
