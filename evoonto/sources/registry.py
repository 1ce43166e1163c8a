"""The registry of source kinds, and :func:`open_source`, which asks it (like rdflib's plugins).

A *source kind* is a name (``"sqlite"``, ``"sqlalchemy"``, ``"files"``, ``"documents"``, …), an
``opener`` that builds a :class:`~evoonto.sources.base.BaseSource` from a URL or path, and a
``detect`` predicate that says whether a URL or path is one of its own. The built-in connectors
register themselves when their module is imported (:mod:`evoonto.sources.sqlite`,
:mod:`~evoonto.sources.sqlalchemy`, :mod:`~evoonto.sources.files`,
:mod:`~evoonto.sources.documents`); third-party packages add kinds through the entry-point group
``evoonto.sources``, whose objects are either a :class:`SourceKind` or a callable that registers
its kinds when called::

    # pyproject.toml of a plugin
    [project.entry-points."evoonto.sources"]
    excel = "evoonto_excel:EXCEL_KIND"        # a SourceKind

:func:`source_kind_of` asks the kinds by decreasing ``priority`` (the first whose ``detect``
accepts the location wins), so a plugin may claim locations before the built-ins. This module
imports the connectors (lazily, on first use); :mod:`evoonto.sources.base` imports none of them.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path

from evoonto.errors import SourceError
from evoonto.sources.base import BaseSource, warn

__all__ = [
    "ENTRY_POINT_GROUP",
    "SourceKind",
    "register_source_kind",
    "source_kinds",
    "get_source_kind",
    "source_kind_of",
    "default_source_id",
    "open_source",
    "open_sources",
]

#: Entry-point group that plugins use to add source kinds.
ENTRY_POINT_GROUP = "evoonto.sources"
#: Modules of the built-in kinds; each registers its kind when imported.
_BUILTIN_MODULES = ("evoonto.sources.sqlite", "evoonto.sources.sqlalchemy", "evoonto.sources.files",
                    "evoonto.sources.documents")
_URL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")


@dataclass(frozen=True)
class SourceKind:
    """One kind of read-only source.

    Attributes:
        name: the kind's name (``src.kind`` of its sources; ``open_source(..., kind=name)``).
        opener: ``opener(url_or_path, source_id=..., **options) -> BaseSource``; raises
            :class:`~evoonto.errors.SourceError` when the location cannot be opened.
        detect: ``detect(url_or_path) -> bool``: the location is of this kind (``None``: only
            opened when asked for by name).
        priority: kinds with a higher priority are asked first by :func:`source_kind_of`.
    """

    name: str
    opener: Callable[..., BaseSource]
    detect: Callable[[str], bool] | None = None
    priority: int = 0


_KINDS: dict[str, SourceKind] = {}
_LOCK = threading.RLock()
_LOADED = False


def register_source_kind(kind: SourceKind, *, replace: bool = False) -> SourceKind:
    """Add ``kind`` to the registry and return it.

    Raises:
        SourceError: another kind already has this name and ``replace`` is False.
    """
    with _LOCK:
        existing = _KINDS.get(kind.name)
        if existing is not None and existing != kind and not replace:
            raise SourceError(f"source kind {kind.name!r} is already registered")
        _KINDS[kind.name] = kind
    return kind


def _load() -> None:
    """Import the built-in connectors and the ``evoonto.sources`` entry points (once)."""
    global _LOADED
    with _LOCK:
        if _LOADED:
            return
        _LOADED = True
        for module in _BUILTIN_MODULES:
            importlib.import_module(module)
        for point in entry_points(group=ENTRY_POINT_GROUP):
            try:
                loaded = point.load()
                if isinstance(loaded, SourceKind):
                    register_source_kind(loaded)
                elif callable(loaded):
                    loaded()
                else:
                    raise TypeError(f"{loaded!r} is neither a SourceKind nor a callable")
            except Exception as err:  # a broken plugin must not stop the built-in kinds
                warn(f"source kind plugin {point.name!r} ({point.value}) not loaded: {err}")


def source_kinds() -> list[str]:
    """Names of the registered kinds, most eager detector first."""
    _load()
    with _LOCK:
        return [k.name for k in sorted(_KINDS.values(), key=lambda k: (-k.priority, k.name))]


def get_source_kind(name: str) -> SourceKind:
    """The registered kind called ``name``.

    Raises:
        SourceError: no such kind.
    """
    _load()
    with _LOCK:
        kind = _KINDS.get(name)
    if kind is None:
        raise SourceError(f"unknown source kind {name!r}; expected one of {', '.join(source_kinds())}")
    return kind


def source_kind_of(url_or_path: str | Path) -> str:
    """Which kind :func:`open_source` would choose for ``url_or_path``.

    With the built-ins: a URL (``scheme://…``) is ``"sqlalchemy"``; a folder with CSV/Parquet files
    is ``"files"``, else a folder with ``.md``/``.txt`` files is ``"documents"``; a
    ``.csv``/``.tsv``/``.parquet`` file is ``"files"``, a ``.md``/``.txt`` file ``"documents"``; any
    other file ``"sqlite"``.

    Raises:
        SourceError: the path does not exist, or no kind accepts it (e.g. a folder holding no
            usable file).
    """
    text = str(url_or_path)
    is_url = bool(_URL_RE.match(text))
    path = Path(text).expanduser()
    if not is_url and not path.exists():
        raise SourceError(f"data source not found: {text}")
    _load()
    with _LOCK:
        kinds = sorted(_KINDS.values(), key=lambda k: (-k.priority, k.name))
    for kind in kinds:
        if kind.detect is not None and kind.detect(text):
            return kind.name
    if not is_url and path.is_dir():
        raise SourceError(f"folder {text} holds no CSV/Parquet or text/markdown files; nothing to open")
    raise SourceError(f"no source kind can open {text}; registered kinds: {', '.join(source_kinds())}")


def default_source_id(url_or_path: str | Path) -> str:
    """Identifier used when none is given: the file stem, folder name or URL database name.

    Raises:
        SourceError: an invalid URL.
    """
    text = str(url_or_path)
    if _URL_RE.match(text):
        from sqlalchemy.engine import make_url

        try:
            url = make_url(text)
        except Exception as err:
            raise SourceError(f"invalid SQLAlchemy URL: {err}") from None
        database = url.database or url.host or url.get_backend_name()
        return Path(database).stem if "/" in database or "." in database else database
    path = Path(text).expanduser()
    return path.stem if path.is_file() else path.resolve().name


_PASSWORD = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://[^:/@?#]*):[^/?#]*@")


def without_password(location: str, mask: str = "") -> str:
    """A source location with the password of its URL removed (``postgresql://ann:secret@host/db`` →
    ``postgresql://ann@host/db``), or replaced by ``mask`` when one is given (``"***"`` for display).
    PostgreSQL drivers (libpq) then read the password from ``$PGPASSWORD`` or ``~/.pgpass``.
    Paths and URLs without a password are returned unchanged."""
    return _PASSWORD.sub(lambda m: m.group(1) + (f":{mask}" if mask else "") + "@", str(location))


def open_source(
    url_or_path: str | Path, *, source_id: str | None = None, kind: str | None = None, **options
) -> BaseSource:
    """Open a read-only source, choosing its kind from the URL or path (:func:`source_kind_of`).

    Args:
        url_or_path: a SQLite file, a SQLAlchemy URL (``sqlite:///x.db``,
            ``postgresql://user@host/db`` …), a folder (or single file) of CSV/Parquet files, a
            folder (or single file) of text/markdown documents, or anything a plugin kind accepts.
        source_id: identifier of the source in IRIs and the catalog; default: file stem, folder
            name or URL database name.
        kind: force a registered kind (see :func:`source_kinds`) instead of guessing.
        **options: passed to the kind's opener (e.g. ``busy_timeout_ms`` for SQLite,
            ``max_passage_chars`` for documents).

    Returns:
        A :class:`~evoonto.sources.base.Source` (a :class:`BaseSource` subclass). Close it, or use
        ``with``.

    Raises:
        SourceError: missing path, unknown kind, corrupt/locked database, bad URL.
    """
    chosen = get_source_kind(kind or source_kind_of(url_or_path))
    sid = source_id or default_source_id(url_or_path)
    return chosen.opener(url_or_path, source_id=sid, **options)


def open_sources(urls_or_paths: Iterable[str | Path], **options) -> tuple[list[BaseSource], list[str]]:
    """Open several sources; one that fails is reported, not raised.

    Returns:
        ``(sources, errors)``: the opened sources, in order, and one-line messages for the
        ones that could not be opened (each also emitted as a :class:`SourceWarning`).
    """
    opened: list[BaseSource] = []
    errors: list[str] = []
    for item in urls_or_paths:
        try:
            opened.append(open_source(item, **options))
        except SourceError as err:
            errors.append(str(err))
            warn(f"skipped source {item}: {err}")
    return opened, errors
