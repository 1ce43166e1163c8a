"""A persisted copy of a workspace version's quad store, so opening a big workspace does not parse it.

The workspace files (``base.trig``, ``patches/*.trig``) stay the source of truth. Loading them means
parsing the whole dataset (23 CPU s for the 156 MB base of a 68,434-column workspace), so after a
load :class:`~evoonto.workspace.Workspace` keeps the loaded store as an on-disk pyoxigraph
(RocksDB) store under ``<workspace>/cache/store/<key>/``, and the next open of the same files opens
that folder read-only instead (milliseconds).

Trust rules:

- **Keyed by content.** ``<key>`` is :func:`store_key`: a SHA-256 over the SHA-256 digests of
  ``base.trig`` and of every patch file (names and digests, in order), the base IRI,
  :data:`STORE_CACHE_FORMAT` and the pyoxigraph version. The workspace hashes exactly the bytes it
  parses, so a folder always holds the store of the files its key was made from; files edited by
  hand, a patch committed by another process or a checkout of older files give another key, and
  the folder is not used.
- **Complete or absent.** A store is written into ``.tmp-<pid>-<random>/``, flushed, closed and
  fsynced, its marker (:data:`MARKER`, JSON with the key) written, and only then renamed to
  ``<key>/`` (atomic). A process killed at any moment leaves a temp folder (removed by the next
  writer once its process is gone), never a half-written ``<key>/``. Two processes writing the same
  key race on the rename; the loser drops its copy.
- **Read-only, copy-on-write.** The folder is opened with ``pyoxigraph.Store.read_only`` (several
  processes at once). The first write through a :class:`PersistedStore` (a rejected patch's history,
  a SPARQL update) first copies it into memory, so the folder is never changed after its rename.
- **Safe pruning.** An open :class:`PersistedStore` holds a shared ``flock`` on the folder's
  :data:`READERS` file; a writer deletes an older folder only while it can take that lock
  exclusively (no process has it open), and renames it away first, so no reader opens a folder
  being deleted.

- **Digests remembered like git's index.** Hashing a 200 MB base.trig costs half a CPU second, so
  its digest is remembered in :data:`DIGESTS` with its stat stamps (device, inode, size, mtime,
  ctime) and trusted only while they are unchanged and the file last changed at least
  :data:`RACY_NS` before it was hashed; on a miss the workspace reads and hashes the bytes it parses.

Any failure (no space, read-only folder, a damaged folder, a pyoxigraph that cannot read it) makes
the cache miss and the workspace parses its files as before: the cache is an optimisation, never a
source of truth.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import shutil
import threading
import time
import uuid
from pathlib import Path
from typing import Callable, Iterable

import pyoxigraph as ox

from evoonto.errors import WorkspaceError
from evoonto.fileio import atomic_write, fsync_dir, process_alive
from evoonto.store import OxigraphStore

#: Folder of persisted stores, relative to the workspace.
STORE_CACHE_DIR = Path("cache") / "store"
#: Bumped whenever what a persisted store holds (or how the workspace loads files) changes.
STORE_CACHE_FORMAT = 1
#: JSON file inside a complete store folder: ``{"format", "key", "quads"}``.
MARKER = "evoonto-store.json"
#: Lock file inside a store folder: shared by its readers, exclusive while it is being deleted.
READERS = "readers.lock"
#: Store folders kept besides the one just written (the previous version, for a server still on it).
KEEP = 1
_TMP_PREFIX = ".tmp-"
_TRASH_PREFIX = ".trash-"


def store_key(digests: Iterable[tuple[str, str]], base_iri: str) -> str:
    """The cache key of the store loaded from a workspace's files: SHA-256 hex (64 characters).

    Args:
        digests: ``(file name relative to the workspace, SHA-256 hex of its bytes)`` for
            ``base.trig`` and every patch file, in load order (digests of the bytes actually parsed).
        base_iri: the workspace base IRI (graph names in the files are localized against it).
    """
    digest = hashlib.sha256(f"evoonto store\0{STORE_CACHE_FORMAT}\0{ox.__version__}\0{base_iri}".encode())
    for name, file_digest in digests:
        digest.update(f"\0{name}\0{file_digest}".encode())
    return digest.hexdigest()


class PersistedStore(OxigraphStore):
    """An :class:`~evoonto.store.OxigraphStore` over a persisted store folder opened read-only.

    Reads go to the on-disk store; the first write copies it into memory (copy-on-write) and
    releases the folder. Use :func:`open_persisted` to get one.

    Attributes:
        folder: the store folder (``<workspace>/cache/store/<key>``) while it is in use; None once
            the store was copied into memory.
    """

    def __init__(self, store: ox.Store, folder: Path, lock_fd: int):
        super().__init__(store)
        self.folder: Path | None = folder
        self._lock_fd: int | None = lock_fd
        self._cow_lock = threading.Lock()

    def _touch(self, *names) -> None:
        self.materialize()
        super()._touch(*names)

    def materialize(self) -> None:
        """Copy the on-disk store into memory (once) and release the folder; later writes go to the
        in-memory copy. Takes time linear in the quads (N-Quads dump and load, both in pyoxigraph)."""
        with self._cow_lock:
            if self.folder is None:
                return
            buffer = io.BytesIO()
            self.ox.dump(buffer, format=ox.RdfFormat.N_QUADS)
            memory = ox.Store()
            memory.load(buffer.getvalue(), format=ox.RdfFormat.N_QUADS, lenient=True)
            self.ox = memory
            self.folder = None
            self._release()

    def close(self) -> None:
        """Release the folder's reader lock (the on-disk store is closed when no longer referenced)."""
        self._release()

    def _release(self) -> None:
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            os.close(fd)  # closing the descriptor drops its flock

    def __del__(self) -> None:
        self._release()

    def __repr__(self) -> str:
        where = f"persisted in {self.folder}" if self.folder is not None else "copied into memory"
        return f"PersistedStore({where})"


def open_persisted(workspace: Path, key: str) -> PersistedStore | None:
    """The persisted store of ``key`` in ``workspace``, opened read-only, or None when there is none
    usable (missing, incomplete, being deleted, or unreadable by this pyoxigraph)."""
    folder = workspace / STORE_CACHE_DIR / key
    try:
        fd = os.open(folder / READERS, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        # the folder may have been renamed away (being deleted) between the open and the lock
        if os.stat(folder / READERS).st_ino != os.fstat(fd).st_ino:
            raise OSError("store folder replaced")
        marker = json.loads((folder / MARKER).read_text(encoding="utf-8"))
        if marker.get("format") != STORE_CACHE_FORMAT or marker.get("key") != key:
            raise OSError("store folder of another key or format")
        store = ox.Store.read_only(str(folder))
    except (OSError, ValueError, RuntimeError):
        os.close(fd)
        return None
    return PersistedStore(store, folder, fd)


def persist(workspace: Path, key: str, store: OxigraphStore, *,
            unchanged: Callable[[], bool] | None = None) -> bool:
    """Write ``store`` as the persisted store of ``key`` in ``workspace`` (see the module
    docstring for the steps), then delete older unused store folders; returns True when the folder
    of ``key`` exists afterwards (written here or by another process).

    Args:
        unchanged: for a store other threads may write to: called after the store was copied (a
            consistent snapshot); False (a write may have come before the copy) abandons the folder
            and returns False, so a folder never holds a store other than that of ``key``.

    Never raises for a folder that cannot be written (the cache is an optimisation): it returns
    False and leaves no partial folder behind.
    """
    root = workspace / STORE_CACHE_DIR
    final = root / key
    if (final / MARKER).is_file():
        return True
    tmp = root / f"{_TMP_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
    # the copy goes through an N-Quads file beside it (a temp folder of its own), not a buffer in
    # memory: at 70,000 columns that buffer was 700 MB more at the peak of a server that keeps its
    # store after its indexes are built
    dump = tmp.with_name(tmp.name + "-nquads") / "store.nq"
    try:
        root.mkdir(parents=True, exist_ok=True)
        _remove_stale(root)
        if final.exists():  # a damaged folder (no marker): never read, replaced
            _discard(root, final)
        dump.parent.mkdir()
        store.ox.dump(str(dump), format=ox.RdfFormat.N_QUADS)
        if unchanged is not None and not unchanged():
            shutil.rmtree(dump.parent, ignore_errors=True)
            return False
        disk = ox.Store(str(tmp))
        disk.bulk_load(path=str(dump), format=ox.RdfFormat.N_QUADS, lenient=True)
        shutil.rmtree(dump.parent, ignore_errors=True)
        disk.flush()
        quads = len(disk)
        del disk  # closes the RocksDB instance
        (tmp / READERS).write_bytes(b"")
        (tmp / MARKER).write_text(json.dumps({"format": STORE_CACHE_FORMAT, "key": key, "quads": quads}),
                                  encoding="utf-8")
        _fsync_tree(tmp)
        try:
            os.rename(tmp, final)
        except OSError:  # another process renamed its copy of the same key first
            shutil.rmtree(tmp, ignore_errors=True)
            return (final / MARKER).is_file()
        fsync_dir(root)
    except (OSError, ValueError, RuntimeError):
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(dump.parent, ignore_errors=True)
        return False
    prune(workspace, keep=(key,))
    return True


def prune(workspace: Path, *, keep: Iterable[str] = ()) -> int:
    """Delete store folders of ``workspace`` other than ``keep`` and the :data:`KEEP` most recent
    others, each only while no process has it open; returns how many were deleted."""
    root = workspace / STORE_CACHE_DIR
    kept = set(keep)
    try:
        folders = [f for f in root.iterdir() if f.is_dir() and not f.name.startswith(".") and f.name not in kept]
    except OSError:
        return 0
    folders.sort(key=_mtime, reverse=True)
    return sum(_discard(root, folder) for folder in folders[KEEP:])


def _discard(root: Path, folder: Path) -> bool:
    """Delete the store folder ``folder`` of ``root`` unless a reader holds it (its shared lock):
    renamed to a trash name under an exclusive lock first, so no reader opens it meanwhile."""
    try:
        fd: int | None = os.open(folder / READERS, os.O_RDONLY)
    except OSError:
        fd = None  # no lock file: not a complete store folder of this format; nobody reads it
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        trash = root / f"{_TRASH_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:8]}"
        os.rename(folder, trash)
    except OSError:
        return False  # in use by a reader (or vanished): kept
    finally:
        if fd is not None:
            os.close(fd)
    shutil.rmtree(trash, ignore_errors=True)
    return True


#: File of remembered digests (per workspace file: its stat stamps and SHA-256), beside the stores.
DIGESTS = "digests.json"
#: A remembered digest is trusted only for a file whose last change (``ctime``) is at least this
#: many nanoseconds older than the moment the digest was remembered ("racy git" rule): a change
#: within the file system's timestamp granularity of the hashing cannot hide behind equal stamps.
RACY_NS = 2_000_000_000


def _stamps(st: os.stat_result) -> list[int]:
    return [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]


def stat_for_digest(file: Path) -> tuple[os.stat_result, int] | None:
    """``(stat of file, time in ns just before it was taken)``, to be taken *before* the file is
    read for the digest given to :func:`remember_digest`; None when the file cannot be stat'ed."""
    now = time.time_ns()
    try:
        return os.stat(file), now
    except OSError:
        return None


def remember_digest(workspace: Path, name: str, digest: str, seen: tuple[os.stat_result, int]) -> None:
    """Remember the SHA-256 ``digest`` of workspace file ``name``, read after ``seen``
    (:func:`stat_for_digest`), so a later open need not read and hash it (:func:`remembered_digest`).
    A change of the file after ``seen`` changes its stamps, so the digest is then never trusted.
    Failures are ignored (nothing is remembered)."""
    st, seen_ns = seen
    file = workspace / STORE_CACHE_DIR / DIGESTS
    try:
        try:
            known = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = {}
        if not isinstance(known, dict):
            known = {}
        known[name] = {"stamps": _stamps(st), "sha256": digest, "remembered_ns": seen_ns}
        file.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(file, json.dumps(known).encode())
    except (OSError, ValueError, WorkspaceError):  # an unwritable folder: nothing remembered
        return


def remembered_digest(workspace: Path, name: str) -> str | None:
    """The remembered SHA-256 of workspace file ``name`` when its stat stamps (device, inode, size,
    mtime, ctime) are those taken before it was read and hashed, and it had last changed at least
    :data:`RACY_NS` before that; else None (the caller reads and hashes the file)."""
    try:
        entry = json.loads((workspace / STORE_CACHE_DIR / DIGESTS).read_text(encoding="utf-8"))[name]
        st = os.stat(workspace / name)
        if entry["stamps"] != _stamps(st) or st.st_ctime_ns > int(entry["remembered_ns"]) - RACY_NS:
            return None
        digest = entry["sha256"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return digest if isinstance(digest, str) and len(digest) == 64 else None


def _remove_stale(root: Path) -> None:
    """Delete temp and trash folders whose writing process is gone (killed mid-write)."""
    for folder in root.iterdir():
        for prefix in (_TMP_PREFIX, _TRASH_PREFIX):
            if folder.name.startswith(prefix):
                pid = folder.name[len(prefix):].split("-", 1)[0]
                if pid.isdigit() and not process_alive(int(pid)):
                    shutil.rmtree(folder, ignore_errors=True)


def _mtime(folder: Path) -> int:
    try:
        return folder.stat().st_mtime_ns
    except OSError:
        return 0


def _fsync_tree(folder: Path) -> None:
    """fsync every file of ``folder`` and the folder itself (before it is renamed into place).

    Raises:
        OSError: a file cannot be opened or synced.
    """
    for entry in folder.iterdir():
        if entry.is_file():
            fd = os.open(entry, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    fsync_dir(folder)


__all__ = ["PersistedStore", "STORE_CACHE_DIR", "STORE_CACHE_FORMAT", "open_persisted", "persist", "prune",
           "remember_digest", "remembered_digest", "stat_for_digest", "store_key"]
