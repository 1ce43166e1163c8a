"""A workspace: a directory of files that are the source of truth, loaded into Oxigraph on open.

Layout (DESIGN.md §3; git-friendly, one file per change)::

    config.json                 {"format": 2, "name": …, "base_iri": …, "settings": {…}}
    base.trig                   the six named graphs of version 0 (<base>graph/vocab, …)
    patches/NNNN-<id>.trig      one file per patch (accepted, rejected or invalid): graphs
                                <base>graph/patch/<id>/additions/<target>, …/removals/<target>, …/meta

Graph names in the files are under the workspace's base IRI (``<base>graph/content``, see
:func:`evoonto.namespaces.workspace_graph_iri`), so two workspaces loaded into one store or pushed to
one endpoint stay separate; in memory they are the workspace-local ``evog:`` names. Format-1
workspaces (files with the shared ``https://w3id.org/evoonto/graph/…`` names) open transparently;
their first write (commit, rejected patch, new base) writes the new names and sets format 2, and
:meth:`Workspace.migrate` rewrites all their files at once (``evoonto migrate``). Nothing is lost:
both namings map to the same in-memory graphs.
    trajectories/  runs/        reserved for the tool layer / evaluation (JSON Lines, results)
    cache/                      derived data, never a source of truth: index/ (browse index per
                                version), store/ (a big workspace's loaded store, read-only,
                                :mod:`evoonto.storecache`), manifest/, values.sqlite
    .lock                       writer lock (fcntl; released by the kernel if a writer dies)
    .<pid>.init.tmp             while an init fills the folder: its marker; while a build swaps a new
                                workspace in: its journal (JSON, :func:`replace_files`), finished by
                                the next open if the build was killed

The active version is the base with the accepted patches applied in file order. A commit
validates the touched nodes (SHACL), writes the patch file atomically (temp + fsync + rename) and
only then updates the in-memory store, so a process killed at any moment leaves a workspace that
opens at the parent or at the child version, never a mix. A failed command changes nothing.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import os
import re
import shutil
from glob import escape as glob_escape
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping, Protocol

import pyoxigraph as ox
import rdflib
from rdflib import Literal, URIRef
from rdflib.namespace import DCTERMS, RDF, SKOS

from evoonto.errors import EvoontoError, RDFParseError, ShapeViolationError, WorkspaceError
from evoonto.fileio import (TMP_SUFFIX, WriterLock, atomic_write, fsync_dir, make_dirs, process_alive,
                            remove_stale_temp_files)
from evoonto.history import PatchEntry, base_history, entry_from_meta, meta_triples, workspace_identity
from evoonto.iris import IriFactory, default_base
from evoonto.namespaces import EVOG, GRAPH, GRAPH_NAMES, parse_patch_graph, patch_meta_graph, workspace_graph_iri
from evoonto.ontology import Ontology
from evoonto.patch import EVOLVABLE_GRAPHS, RESTORE_LEVEL, Patch, PatchError
from evoonto.store import (OxigraphStore, from_ox, iter_localized_quads, iter_rdf_file, load_localized_trig,
                           localize_quads, parse_rdf_file, publish_quads, serialize_ox, serialize_quads)
from evoonto.validation import validate, validate_patch

FORMAT_VERSION = 2
#: Formats :meth:`Workspace.open` reads: 1 = graph names ``https://w3id.org/evoonto/graph/…`` in the
#: files (read transparently), 2 = graph names under the workspace's base IRI.
READABLE_FORMATS = (1, 2)
CONFIG_FILE, BASE_FILE, PATCH_DIR, LOCK_FILE = "config.json", "base.trig", "patches", ".lock"
RESERVED_DIRS = ("trajectories", "runs")
#: Graphs every base.trig holds triples in (``init`` writes them; a file without them is damaged).
REQUIRED_BASE_GRAPHS = ("vocab", "shapes", "history")
#: Suffix of the hidden sibling folder :meth:`Workspace.init` assembles a workspace in.
INIT_SUFFIX = ".init.tmp"
#: base.trig size (bytes) from which :meth:`Workspace.open` keeps the loaded store on disk
#: (:mod:`evoonto.storecache`): below it parsing the files takes well under a second, and a
#: persisted store (a RocksDB folder of several MiB) would cost more than it saves.
PERSIST_MIN_BYTES = 4 * 2**20
_PATCH_FILE = re.compile(r"^(\d{4,})-([A-Za-z0-9][A-Za-z0-9._-]*)\.trig$")


class Workspace:
    """A versioned ontology workspace. Create with :meth:`init`, load with :meth:`open`.

    Attributes:
        path: the workspace directory; config: the parsed config.json; iris: its IriFactory;
        ontology: the active :class:`~evoonto.ontology.Ontology`; every commit, rollback and
            ``replace_base`` makes a new one (a version is a value: earlier Ontology objects keep
            their content).
    """

    #: Test seam: called with "validated", "written", "renamed" during a commit (fault injection).
    _fault_hook = None
    #: The build a workspace made by :meth:`create` was written from (its counts, sources, rejected
    #: candidates: an :class:`evoonto.builder.BuildResult` for the evoonto builder); else ``None``.
    built: BuiltBase | None = None

    def __init__(self, path: Path, config: dict, store: OxigraphStore, entries: list[PatchEntry],
                 patches: dict[str, Patch], files: tuple, metas: dict[str, list] | None = None):
        self.path = path
        self._metas = metas if metas is not None else {}
        self.config = config
        self.iris = IriFactory(config["base_iri"])
        self._entries = entries
        self._patches = patches
        self._files = files
        #: SHA-256 hex of the files read or written by this object, {relative name: digest}
        self._digests: dict[str, str] = {}
        #: (cache key, store, its revision) of a big store :meth:`open` parsed and did not keep yet
        self._unkept_store: tuple[str, OxigraphStore, int] | None = None
        version = max([e.version for e in entries if e.version is not None], default=0)
        self.ontology = Ontology(store, version=version, base_iri=self.iris.base)

    def __repr__(self) -> str:
        return f"<Workspace {self.path} version {self.version}>"

    # ---------------------------------------------------------------------------- create / open
    @classmethod
    def init(cls, path, base_iri: str | None = None, *, name: str | None = None,
             settings: dict | None = None, graphs: Mapping[str, rdflib.Graph] | None = None) -> "Workspace":
        """Create a workspace at ``path`` holding the packaged vocab and shapes (version 0).

        A new folder is assembled aside and renamed into place, so a process killed at any moment
        leaves either no workspace or a complete one. An existing empty folder is filled in place,
        config.json last (with ``graphs`` under a marker file ``.<pid>.init.tmp``): a folder left
        by an init killed before it wrote config.json counts as empty (also when its base.trig
        holds ``graphs``: the marker of the dead process says it is that init's own), and one
        failing with an error is left as it was.

        Args:
            path: a directory that does not exist yet or is empty (or left by a killed init).
            base_iri: base of instance IRIs (default ``https://example.org/evoonto/<name>/``).
            name: workspace name (default: the directory name without leading dots).
            settings: free-form settings stored in config.json.
            graphs: ``{name: rdflib.Graph}`` making up version 0 with the packaged graphs (as
                :meth:`replace_base`, SHACL-validated first); lets a builder create its workspace
                in one atomic step.

        Raises:
            WorkspaceError: ``path`` exists and is not an empty directory, another live process is
                initialising it, ``base_iri`` is invalid,
                ``graphs`` has an unknown graph or a blank node, or the folder cannot be written.
            ShapeViolationError: ``graphs`` violate the shapes.
        """
        from evoonto.resources import shapes_graph, vocab_graph

        path = Path(path)
        if path.is_dir():
            finish_interrupted_replace(path)
            busy = [pid for pid in _init_markers(path) if process_alive(pid)]
            if busy:
                raise WorkspaceError(f"{path} is being created by process {busy[0]} (evoonto init); wait for it, "
                                     f"or delete {path / _init_marker_name(busy[0])} if that process is no init")
        if path.exists() and (not path.is_dir() or not _empty_or_unfinished(path)):
            raise WorkspaceError(f"{path} already exists and is not empty; open it or choose another path")
        name = name or path.resolve().name.lstrip(".") or "workspace"
        base_iri = base_iri or default_base(name)
        try:
            iris = IriFactory(base_iri)
        except ValueError as exc:
            raise WorkspaceError(str(exc)) from None
        config = {"format": FORMAT_VERSION, "name": name, "base_iri": base_iri, "settings": dict(settings or {})}
        packaged: dict[str, list[tuple]] = {
            "vocab": list(vocab_graph()), "shapes": list(shapes_graph()), "catalog": [],
            "content": [(iris.scheme(), RDF.type, SKOS.ConceptScheme), (iris.scheme(), DCTERMS.title, Literal(name))],
            "tools": [], "history": base_history(iris),
        }
        store = OxigraphStore()
        for gname, triples in packaged.items():
            store.add(triples, gname)
        if graphs:
            store = _new_base(store, graphs, iris.base, validate_shapes=True)
        if path.exists():  # an empty folder (maybe the current one): filled in place, config.json last
            _fill_in_place(path, _base_bytes(store, iris.base), (json.dumps(config, indent=2) + "\n").encode(),
                           built=bool(graphs))
            return cls(path, config, store, [], {}, _snapshot(path))
        # a new folder is assembled as a hidden sibling and renamed into place (atomic on POSIX): a
        # process killed at any moment leaves no half-made workspace
        target = Path(os.path.abspath(path))
        make_dirs(target.parent)
        _remove_stale_init_folders(target)
        staging = target.with_name(f".{target.name}.{os.getpid()}{INIT_SUFFIX}")
        try:
            make_dirs(staging, staging / PATCH_DIR, *(staging / d for d in RESERVED_DIRS))
            atomic_write(staging / BASE_FILE, _base_bytes(store, iris.base))
            atomic_write(staging / CONFIG_FILE, (json.dumps(config, indent=2) + "\n").encode())
            os.rename(staging, target)
            fsync_dir(target.parent)
        except (OSError, WorkspaceError) as exc:
            shutil.rmtree(staging, ignore_errors=True)
            cause = exc if isinstance(exc, OSError) else exc.__cause__
            reason = (cause.strerror if isinstance(cause, OSError) else None) or str(exc)
            raise WorkspaceError(f"cannot create {path}: {reason}") from exc
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return cls(path, config, store, [], {}, _snapshot(path))

    @classmethod
    def create(cls, path: str | Path, sources: Any, workload: Any = None, *, force: bool = False,
               builder: Callable[..., BuiltBase] | None = None, **options: Any) -> Workspace:
        """Build a workspace from data sources in one call: version 0, SHACL-validated, written.

        The target is checked before any work (:func:`check_workspace_target`), the build runs
        with the base IRI the workspace there has or will get (:func:`workspace_base_iri`) and the
        packaged lexicon extended by the folder's ``lexicon.tsv``, and :func:`write_build` writes it.

        Args:
            path: the workspace directory (missing, empty, fresh from ``init``, or replaced with ``force``).
            sources: paths/URLs or open sources (:func:`evoonto.builder.build`).
            workload: the question workload (a file or questions), optional.
            force: replace an existing workspace (its files move to ``backups/<UTC time>/``).
            builder: the build function (default: :func:`evoonto.builder.build`, registered by
                :mod:`evoonto.builder` with :func:`register_builder`).
            **options: passed to the builder (``proposer``, ``verified``, ``documentation``,
                ``progress``, ``lexicon`` …).

        Returns:
            The open workspace; :attr:`built` is the build it was written from.

        Raises:
            WorkspaceError: the target holds a workspace and ``force`` is not set, holds foreign
                files, or cannot be written; no builder is registered.
            SourceError, WorkloadError, ConfigurationError: from the build (nothing is written).
            ShapeViolationError: the build violates the shapes.
        """
        from evoonto.lexicon import Lexicon

        target = Path(path)
        check_workspace_target(target, force=force)  # refuse before any work
        run = builder or default_builder()
        options.setdefault("lexicon", Lexicon.load(target))
        built = run(sources, workload, base_iri=workspace_base_iri(target, force=force), **options)
        ws = write_build(built, target, force=force)
        ws.built = built
        return ws

    @classmethod
    def open(cls, path, *, keep_store: bool = True) -> "Workspace":
        """Load a workspace: base.trig, then every patch file in order (accepted ones applied).

        The files are the source of truth. A big workspace (base.trig of at least
        :data:`PERSIST_MIN_BYTES`) keeps the store it loaded under ``cache/store/`` (see
        :mod:`evoonto.storecache`), keyed by the hash of exactly the bytes parsed; the next open of
        the same files opens that store read-only instead of parsing them (the patch files are still
        read for the history). Any other files (edited, another process's commit) miss the cache.

        Args:
            path: the workspace directory.
            keep_store: keep a big workspace's parsed store now (default); False leaves that to a
                later :meth:`keep_loaded_store` or another process (a server answers first: at 70,000
                columns keeping it costs 60 CPU s; :attr:`store_unkept` says whether there is one).

        Raises:
            WorkspaceError: missing directory/config, malformed config, inconsistent history.
            RDFParseError: a TriG file is malformed (names file and line).
        """
        from evoonto.storecache import (open_persisted, persist, remember_digest, remembered_digest, stat_for_digest,
                                       store_key)

        path = Path(path)
        if path.is_dir():
            finish_interrupted_replace(path)  # a build killed while it swapped a new workspace in
        config = _read_config(path)
        iris = IriFactory(config["base_iri"])
        patch_files = [(seq, pid, file, _read_file(file)) for seq, pid, file in _patch_files(path)]
        patch_digests = [(f"{PATCH_DIR}/{file.name}", hashlib.sha256(data).hexdigest())
                         for _, _, file, data in patch_files]
        cached = None
        remembered = remembered_digest(path, BASE_FILE)  # a big base, unchanged since it was hashed
        if remembered is not None:
            key = store_key([(BASE_FILE, remembered), *patch_digests], iris.base)
            cached = open_persisted(path, key)
        persisted = cached is not None
        if cached is not None and remembered is not None:
            store: OxigraphStore = cached
            digests = {BASE_FILE: remembered, **dict(patch_digests)}
            big = True
        else:  # the store is loaded from exactly the bytes whose digest makes its key
            seen = stat_for_digest(path / BASE_FILE)  # before the read: a later change shows in the stamps
            base_data = _read_base_bytes(path)
            digests = {BASE_FILE: hashlib.sha256(base_data).hexdigest(), **dict(patch_digests)}
            key = store_key(digests.items(), iris.base)
            big = len(base_data) >= PERSIST_MIN_BYTES
            cached = open_persisted(path, key) if big else None
            persisted = cached is not None
            store = cached if cached is not None else _load_base(path, iris.base, data=base_data)
            if big and seen is not None:
                remember_digest(path, BASE_FILE, digests[BASE_FILE], seen)
            del base_data
        entries: list[PatchEntry] = []
        patches: dict[str, Patch] = {}
        metas: dict[str, list] = {}
        version = 0
        for seq, pid, file, data in patch_files:
            patch, entry, meta = _read_patch_file(file, pid, seq, iris, data=data)
            if entry.decision == "accepted":
                if entry.version != version + 1 or entry.parent_version != version:
                    raise WorkspaceError(f"{file}: accepted patch claims version {entry.version} from "
                                         f"{entry.parent_version}, but the active version is {version}")
                if not persisted:  # a persisted store holds the active version already
                    patch.apply_to(store)
                version += 1
            if not persisted:
                store.add(meta, "history")
            entries.append(entry)
            patches[pid] = patch
            metas[pid] = meta
        if big and not persisted and keep_store:
            persist(path, key, store)
        ws = cls(path, config, store, entries, patches, _snapshot(path), metas)
        ws._digests = digests
        if big and not persisted and not keep_store:
            ws._unkept_store = (key, store, store.revision)
        return ws

    @property
    def store_unkept(self) -> bool:
        """True while a big store that :meth:`open` parsed with ``keep_store=False`` is not kept and
        is still what the files hold (no write since; see :meth:`keep_loaded_store`)."""
        return self._loaded_as_opened(self._unkept_store)

    def _loaded_as_opened(self, pending: tuple[str, OxigraphStore, int] | None) -> bool:
        """Whether ``pending`` (``_unkept_store``) is still this workspace's store, unwritten since."""
        return pending is not None and self.ontology.store is pending[1] and pending[1].revision == pending[2]

    def keep_loaded_store(self) -> bool:
        """Keep the store that :meth:`open` parsed with ``keep_store=False`` under ``cache/store/``,
        as :meth:`open` does by default, so the next open reads it instead of parsing the files. Safe
        to call from another thread while this workspace answers queries (the store is read, never
        changed; pyoxigraph releases the GIL while it copies it).

        Returns:
            True when the store was kept (written here or by another process); False when there was
            nothing to keep (a small workspace, a store read from the cache, already kept) or the
            store changed since it was opened (a commit, a SPARQL update: what the files hold is then
            not what it holds, so it is never kept under their key) or the cache folder cannot be
            written (nothing is raised for it: the cache is an optimisation).
        """
        from evoonto.storecache import persist

        pending, self._unkept_store = self._unkept_store, None
        if pending is None or not self._loaded_as_opened(pending):
            return False
        key, store, _ = pending
        return persist(self.path, key, store, unchanged=lambda: self._loaded_as_opened(pending))

    def keep_store(self, *, min_bytes: int | None = None) -> bool:
        """Keep this workspace's store under ``cache/store/`` as :meth:`open` keeps the store of a big
        workspace it parsed (see :mod:`evoonto.storecache`), so that the next open (``evoonto serve``
        right after ``evoonto build``) reads it instead of parsing ``base.trig``.

        Only for a big workspace (``base.trig`` of at least ``min_bytes``, default
        :data:`PERSIST_MIN_BYTES`, the size from which :meth:`open` reads a kept store) at version 0
        with no patch file, whose store is then exactly what :meth:`open` loads from the files; the
        key hashes the bytes of ``base.trig`` read now, so a file changed since is never served from it.

        Returns:
            True when the persisted store of the current files exists afterwards (written here or
            before); False for a small workspace, one with patches, or a cache folder that cannot be
            written (the cache is an optimisation: nothing is raised for it).
        """
        from evoonto.storecache import persist, remember_digest, stat_for_digest, store_key

        if self.version != 0 or _patch_files(self.path):
            return False
        seen = stat_for_digest(self.path / BASE_FILE)
        try:
            data = _read_base_bytes(self.path)
        except WorkspaceError:
            return False
        if len(data) < (PERSIST_MIN_BYTES if min_bytes is None else min_bytes):
            return False
        digest = hashlib.sha256(data).hexdigest()
        del data
        if seen is not None:
            remember_digest(self.path, BASE_FILE, digest, seen)
        return persist(self.path, store_key([(BASE_FILE, digest)], self.iris.base), self.store)

    def file_digest(self, name: str) -> str:
        """SHA-256 hex of workspace file ``name`` (relative, e.g. ``"base.trig"``,
        ``"patches/0001-x.trig"``): of the bytes this object read or wrote, else read now.

        Raises:
            OSError: the file is not recorded and cannot be read.
        """
        digest = self._digests.get(name)
        if digest is None:
            digest = self._digests[name] = hashlib.sha256((self.path / name).read_bytes()).hexdigest()
        return digest

    def version_fingerprint(self) -> str:
        """The identity of the active version's content: SHA-256 hex over the digest of
        ``base.trig`` and, in order, the version, id and file digest of each accepted patch
        (:meth:`file_digest`: the bytes this object loaded). Two versions with the same number can
        differ (``evoonto build --force`` writes a new version 0); two loads of the same files have
        the same fingerprint whatever rejected patches were recorded since.
        :func:`read_version_fingerprint` reads the same value from the files without loading them.

        Raises:
            OSError: ``base.trig`` or a patch file is not recorded and cannot be read.
        """
        return _version_fingerprint(self.file_digest(BASE_FILE),
                                    ((e.version, e.id, self.file_digest(e.file) if e.file else None)
                                     for e in self._entries
                                     if e.decision == "accepted" and e.version is not None
                                     and e.version <= self.version))

    def _moved_to(self, path: Path) -> None:
        """Follow this workspace's files, renamed as a whole to ``path`` (a staging folder swapped
        into place by the builder): same store and history, new location."""
        self.path = Path(path)
        self._files = _snapshot(self.path)

    # ---------------------------------------------------------------------------- properties
    @property
    def version(self) -> int:
        """The active version number (0 = base)."""
        return self.ontology.version

    @property
    def active_version(self) -> int:
        """Alias of :attr:`version`: the version the files define (base ⊕ accepted patches)."""
        return self.ontology.version

    @property
    def store(self) -> OxigraphStore:
        """The Oxigraph store of the active version.

        Raises:
            WorkspaceError: the active ontology is not held in an embedded :class:`OxigraphStore`
                (a workspace always loads its versions into one).
        """
        store = self.ontology.store
        if not isinstance(store, OxigraphStore):
            raise WorkspaceError(f"workspace {self.path}: the active version is not in an embedded Oxigraph store "
                                 f"(got {type(store).__name__})")
        return store

    @property
    def name(self) -> str:
        """The workspace name (config)."""
        return self.config["name"]

    @property
    def base_iri(self) -> str:
        """The base IRI of instance IRIs (config)."""
        return self.config["base_iri"]

    @property
    def identity(self) -> str | None:
        """The workspace's identity, ``"urn:uuid:…"``, minted by :meth:`init` and recorded in its base
        (``<B version/0> dcterms:identifier``, see :func:`evoonto.history.base_history`); ``None``
        for a workspace made before identities were minted."""
        return workspace_identity(self.store.triples("history"), self.iris)

    @property
    def settings(self) -> dict:
        """Free-form settings of config.json (a copy)."""
        return dict(self.config.get("settings", {}))

    @property
    def trajectories_dir(self) -> Path:
        """Folder for trajectory logs (JSON Lines), owned by the tool layer."""
        return self.path / "trajectories"

    @property
    def runs_dir(self) -> Path:
        """Folder for evaluation run results."""
        return self.path / "runs"

    def log(self) -> list[PatchEntry]:
        """Every patch entry (accepted, rejected, invalid) in commit order."""
        return list(self._entries)

    def patch(self, patch_id: str) -> Patch:
        """The stored patch ``patch_id`` (as written: accepted ones are normalised).

        Raises:
            WorkspaceError: unknown id.
        """
        try:
            return self._patches[patch_id]
        except KeyError:
            raise WorkspaceError(f"no patch {patch_id!r} in {self.path}") from None

    def patch_metadata(self, patch_id: str) -> list[tuple]:
        """The triples of the metadata graph of patch ``patch_id`` (its part of the history graph)."""
        self.patch(patch_id)
        return list(self._metas.get(patch_id, []))

    def rejected_fingerprints(self) -> set[str]:
        """Fingerprints of rejected/invalid patches (evolution skips them)."""
        return {e.fingerprint for e in self._entries if e.decision != "accepted"}

    # ---------------------------------------------------------------------------- writing
    def check_writable(self) -> None:
        """Take and release the writer lock, so a command that will write fails before its work.

        Raises:
            WorkspaceError: the folder cannot be written (read-only or full disk), another writer
                holds the lock, or the files changed on disk since this Workspace read them.
        """
        with self._writer():
            pass

    def set_setting(self, key: str, value) -> None:
        """Store one JSON-serialisable setting in config.json (atomic)."""
        with self._writer():
            config = dict(self.config, settings={**self.config.get("settings", {}), key: value})
            atomic_write(self.path / CONFIG_FILE, (json.dumps(config, indent=2) + "\n").encode())
            self.config = config
            self._files = _snapshot(self.path)

    def commit(self, patch: Patch, *, metadata: dict | None = None) -> int:
        """Validate, write and apply an accepted patch; returns the new version number.

        Steps: normalise the patch against the active version (drop no-op rows); apply it to the
        store; add the SKOS top-concept rows its Term changes call for (:meth:`Patch.with_top_concepts`,
        kept in the patch file); SHACL-validate the touched nodes (every node for schema-level patches); write
        ``patches/NNNN-<id>.trig`` atomically; add its history. Any failure reverts the store and
        leaves the files untouched.

        Args:
            patch: a :class:`~evoonto.patch.Patch`.
            metadata: gate metadata (``parent_score``, ``candidate_score``, any JSON values).

        Raises:
            ShapeViolationError: the candidate violates the shapes (``.report`` has the details).
            PatchError: the id is already used, or the patch changes nothing.
            WorkspaceError: another writer holds the lock or changed the workspace on disk.
        """
        return self._commit(patch, metadata, restores=None)

    def _commit(self, patch: Patch, metadata: dict | None, *, restores: int | None) -> int:
        with self._writer():
            self._check_new_id(patch)
            effective = patch.normalized(self.store.contains)
            if effective.is_empty():
                raise PatchError(f"patch {patch.id} changes nothing on version {self.version}")
            parent = self.version
            # a version is a value: the new version is a new Ontology over a copy of the store, so
            # the parent Ontology (and anything derived from it) stays what it was
            store = self.store.copy()
            effective.apply_to(store)
            effective = effective.with_top_concepts(store)  # SKOS top concepts follow added/removed Terms
            child = Ontology(store, version=parent + 1, base_iri=self.iris.base)
            report = validate_patch(child, effective)
            if not report.conforms:
                raise ShapeViolationError(f"patch {patch.id} rejected by SHACL: {report.summary()}", report)
            self._hook("validated")
            meta = meta_triples(self.iris, effective, decision="accepted", parent_version=parent,
                                version=parent + 1, metadata=metadata, restores=restores)
            self._write_patch(effective, meta)
            self.ontology = child
            self._remember(effective, meta)
            return self.ontology.version

    def record_rejected(self, patch: Patch, *, metadata: dict | None = None) -> None:
        """Keep a rejected (or invalid) patch with its gate activity, without applying it.

        Args:
            patch: the candidate patch.
            metadata: gate metadata; ``{"decision": "invalid"}`` marks a patch that failed SHACL,
                otherwise the decision is ``"rejected"``; scores as in :meth:`commit`.

        Raises:
            PatchError: the id is already used. WorkspaceError: locked or changed on disk.
        """
        decision = (metadata or {}).get("decision", "rejected")
        with self._writer():
            self._check_new_id(patch)
            meta = meta_triples(self.iris, patch, decision=decision, parent_version=self.version,
                                version=None, metadata=metadata)
            self._write_patch(patch, meta)
            self._remember(patch, meta)

    def replace_base(self, graphs: Mapping[str, rdflib.Graph], *, validate_shapes: bool = True,
                     store: OxigraphStore | None = None) -> None:
        """Make ``graphs`` the new version 0 (the builder's output), keeping graphs not given.

        Only allowed while the workspace has no patches (a rebuilt base would invalidate them).

        Args:
            graphs: ``{name: rdflib.Graph}`` for any of vocab, shapes, catalog, content, tools.
            validate_shapes: SHACL-validate the whole new base first (default True).
            store: a new Oxigraph store already holding exactly ``graphs`` (the builder's validation
                store): it becomes the workspace's store, with the graphs not given taken from the
                current base, instead of a second copy of the rdflib graphs. It must not be used
                elsewhere afterwards.

        Raises:
            WorkspaceError: patches exist, or an unknown graph name / blank nodes are given.
            ShapeViolationError: the new base violates the shapes.
        """
        with self._writer():
            if self._entries:
                raise WorkspaceError(f"{self.path} has {len(self._entries)} patch(es); replace_base needs a "
                                     "workspace without history (init a new one)")
            store = _new_base(self.store, graphs, self.iris.base, validate_shapes=validate_shapes, into=store)
            atomic_write(self.path / BASE_FILE, _base_bytes(store, self.iris.base))
            self._digests.pop(BASE_FILE, None)
            self._upgrade_format()
            self.ontology = Ontology(store, version=0, base_iri=self.iris.base)
            self._files = _snapshot(self.path)

    def rollback(self, version: int, *, metadata: dict | None = None) -> int:
        """Restore the state of ``version`` as a new version (history is kept); returns it.

        Raises:
            WorkspaceError: ``version`` does not exist or is the active state already.
            ShapeViolationError: the restored state violates the active shapes.
        """
        if not 0 <= version <= self.version:
            raise WorkspaceError(f"no version {version} (versions 0..{self.version})")
        target = self.ontology_at(version)
        current = {g: set(self.store.triples(g)) for g in EVOLVABLE_GRAPHS}
        wanted = {g: set(target.store.triples(g)) for g in EVOLVABLE_GRAPHS}
        patch = Patch.diff(RESTORE_LEVEL, current, wanted, signature="rollback",
                           intervention=f"restore version {version}")
        if patch.is_empty():
            raise WorkspaceError(f"version {self.version} already has the state of version {version}")
        return self._commit(patch, metadata, restores=version)

    # ---------------------------------------------------------------------------- other versions
    def ontology_at(self, version: int) -> Ontology:
        """Replay base.trig and the accepted patches up to ``version`` (in memory, read-only use).

        Raises:
            WorkspaceError: no such version.
        """
        if not 0 <= version <= self.version:
            raise WorkspaceError(f"no version {version} (versions 0..{self.version})")
        store = _load_base(self.path, self.iris.base)
        for entry in self._entries:
            if entry.decision == "accepted" and entry.version is not None and entry.version <= version:
                self._patches[entry.id].apply_to(store)
        return Ontology(store, version=version, base_iri=self.iris.base)

    def diff(self, a: int, b: int) -> Patch:
        """The changes from version ``a`` to version ``b`` over the evolvable graphs (a restore-level Patch)."""
        old, new = self.ontology_at(a), self.ontology_at(b)
        return Patch.diff(RESTORE_LEVEL, {g: set(old.store.triples(g)) for g in EVOLVABLE_GRAPHS},
                          {g: set(new.store.triples(g)) for g in EVOLVABLE_GRAPHS},
                          signature="diff", intervention=f"version {a} -> {b}", id=f"diff-{a}-{b}")

    # ---------------------------------------------------------------------------- internals
    def _writer(self) -> "_Writer":
        return _Writer(self)

    def _hook(self, stage: str) -> None:
        if Workspace._fault_hook is not None:
            Workspace._fault_hook(stage)

    def _check_new_id(self, patch: Patch) -> None:
        if patch.id in self._patches:
            raise PatchError(f"a patch with id {patch.id!r} already exists in {self.path}")

    def _write_patch(self, patch: Patch, meta: list[tuple]) -> None:
        seq = len(self._entries) + 1
        meta_graph = patch_meta_graph(patch.id)
        quads = patch.quads() + [(s, p, o, meta_graph) for s, p, o in meta]
        published = [(s, p, o, workspace_graph_iri(g, self.iris.base)) for s, p, o, g in quads]
        data = serialize_quads(published)
        name = f"{seq:04d}-{patch.id}.trig"
        atomic_write(self.path / PATCH_DIR / name, data, hook=self._hook)
        self._digests[f"{PATCH_DIR}/{name}"] = hashlib.sha256(data).hexdigest()
        self._upgrade_format()

    def _upgrade_format(self) -> None:
        """After a write in a format-1 workspace: record format 2 in config.json (the file just
        written uses graph names under the base IRI, which an older evoonto could not read)."""
        if self.config.get("format", 1) < FORMAT_VERSION:
            config = dict(self.config, format=FORMAT_VERSION)
            atomic_write(self.path / CONFIG_FILE, (json.dumps(config, indent=2) + "\n").encode())
            self.config = config

    def migrate(self) -> bool:
        """Rewrite a format-1 workspace's files with graph names under its base IRI (format 2).

        base.trig and every patch file are rewritten atomically one by one (same triples, new graph
        names), config.json last; a process killed half-way leaves files of both namings, which
        :meth:`open` reads alike, so running ``migrate`` again finishes the job. Nothing is lost:
        the active version, the history and every rejected patch stay as they were.

        Returns:
            True when files were rewritten, False when the workspace was already format 2.

        Raises:
            WorkspaceError: another writer holds the lock or changed the files, or they cannot be written.
        """
        with self._writer():
            if self.config.get("format", 1) >= FORMAT_VERSION and not self._has_legacy_names():
                return False
            base = _load_base(self.path, self.iris.base)
            atomic_write(self.path / BASE_FILE, _base_bytes(base, self.iris.base))
            for _, _, file in _patch_files(self.path):
                quads = localize_quads(parse_rdf_file(file), self.iris.base)
                atomic_write(file, serialize_ox(publish_quads(quads, self.iris.base)))
            self._digests.clear()
            config = dict(self.config, format=FORMAT_VERSION)
            atomic_write(self.path / CONFIG_FILE, (json.dumps(config, indent=2) + "\n").encode())
            self.config = config
            self._files = _snapshot(self.path)
            return True

    def _has_legacy_names(self) -> bool:
        """True when base.trig or a patch file still names a graph ``https://w3id.org/evoonto/graph/…``."""
        legacy = LEGACY_GRAPH_PREFIX.encode()
        files = [self.path / BASE_FILE] + [f for _, _, f in _patch_files(self.path)]
        return any(legacy in f.read_bytes() for f in files)

    def _remember(self, patch: Patch, meta: list[tuple]) -> None:
        seq = len(self._entries) + 1
        name = f"{seq:04d}-{patch.id}.trig"
        self.store.add(meta, "history")
        self._entries.append(entry_from_meta(meta, patch.id, self.iris, seq=seq, file=f"{PATCH_DIR}/{name}"))
        self._patches[patch.id] = patch
        self._metas[patch.id] = list(meta)
        self._files = _snapshot(self.path)


class _Writer:
    """Writer lock + check that nobody changed the files since this Workspace read them."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.lock = WriterLock(ws.path / LOCK_FILE)

    def __enter__(self):
        self.lock.__enter__()
        try:
            if _snapshot(self.ws.path) != self.ws._files:
                raise WorkspaceError(f"{self.ws.path} was changed on disk by another writer since it was "
                                     "opened; open it again")
            remove_stale_temp_files(self.ws.path / PATCH_DIR)
            remove_stale_temp_files(self.ws.path)
        except BaseException:
            self.lock.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        self.lock.__exit__(*exc)


# --- file helpers --------------------------------------------------------------------------------

class WithSettings(Protocol):
    """Anything with config.json-style ``settings`` (a dict): a :class:`Workspace` is one."""

    @property
    def settings(self) -> dict: ...


def source_locations(workspace: WithSettings) -> dict[str, str | None]:
    """Source id -> path/URL recorded in a workspace's settings (``settings["sources"]``), if any.

    Args:
        workspace: a :class:`Workspace` (or any object whose ``settings`` is a dict).
    Returns:
        ``{source id: location}``; empty when nothing is recorded. Accepted shapes of the setting:
        ``{"id": "path"}``, ``["path", ...]`` (ids are the file stems, as
        :func:`evoonto.sources.open_source` derives them; the last path segment for URLs) or
        ``[{"id": …, "url"|"path": …}]`` (the location may be None when neither key is given).
    """
    value = workspace.settings.get("sources")
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    out: dict[str, str | None] = {}
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict) and "id" in item:
            out[str(item["id"])] = item.get("url") or item.get("path")
        elif isinstance(item, str):
            out[Path(item).stem if "://" not in item else item.rsplit("/", 1)[-1]] = item
    return out


def _default_graph():
    import pyoxigraph as ox

    return ox.DefaultGraph()


def _new_base(current: OxigraphStore, graphs: Mapping[str, rdflib.Graph], base_iri: str, *,
              validate_shapes: bool, into: OxigraphStore | None = None) -> OxigraphStore:
    """A store holding ``graphs`` and, for graphs not given, those of ``current`` (replace_base, init).

    ``into``: a new store that already holds ``graphs`` (they are not copied again); the other
    graphs are replaced by ``current``'s.

    Raises:
        WorkspaceError: an unknown or read-only graph name, or a blank node.
        ShapeViolationError: ``validate_shapes`` and the new base violates the shapes.
    """
    unknown = set(graphs) - set(EVOLVABLE_GRAPHS)
    if unknown:
        raise WorkspaceError(f"replace_base: unknown or read-only graph(s) {sorted(unknown)}; "
                             f"expected some of {', '.join(EVOLVABLE_GRAPHS)}")
    store = into if into is not None else OxigraphStore()
    for gname in GRAPH_NAMES:
        if gname in graphs and into is not None:
            continue
        if gname in graphs:
            store.add(graphs[gname], gname)
        else:
            store.replace_graph(gname, current.triples(gname))
    blank = _first_blank_node(store)
    if blank is not None:
        gname, triple = blank
        raise WorkspaceError(f"replace_base: blank node in graph {gname!r} "
                             f"({triple[0].n3()} {triple[1].n3()} {triple[2].n3()}); mint IRIs instead")
    if validate_shapes:
        report = validate(Ontology(store, base_iri=base_iri))
        if not report.conforms:
            raise ShapeViolationError(f"new base rejected by SHACL: {report.summary()}", report)
    return store


def _first_blank_node(store: OxigraphStore) -> tuple[str, tuple] | None:
    """``(graph name, triple)`` of a triple with a blank node in ``store`` (asked in SPARQL, not by
    a Python loop over every triple), or ``None``."""
    rows = store.query("SELECT ?g ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o FILTER(isBlank(?s) || isBlank(?o)) } } "
                       "LIMIT 1", default_union=False)
    if not rows:
        return None
    row = rows[0]
    name = GRAPH.name_of(row["g"]) or str(row["g"])
    return name, (row["s"], row["p"], row["o"])


def _base_bytes(store: OxigraphStore, base_iri: str) -> Iterator[bytes]:
    """base.trig of ``store`` in chunks, one per named graph: its quads with graph names under
    ``base_iri``, sorted (graph, subject, predicate, object), as TriG with the prefixes once.

    The same bytes as serializing all sorted quads at once, without holding every quad (twice)
    and the whole text in memory.
    """
    header: bytes | None = None
    graphs: list[Any] = list(store.ox.named_graphs())
    if next(iter(store.ox.quads_for_pattern(None, None, None, ox.DefaultGraph())), None) is not None:
        graphs.append(ox.DefaultGraph())
    renamed = {str(g): str(ox.NamedNode(workspace_graph_iri(g.value, base_iri))) if isinstance(g, ox.NamedNode)
               else str(g) for g in graphs}  # the order publish_quads sorts graphs in
    for graph in sorted(graphs, key=lambda g: renamed[str(g)]):
        chunk = serialize_ox(_sorted_quads(store, graph, renamed[str(graph)]))
        if not chunk:
            continue
        body = _trig_body(chunk)
        if header is None:
            header = chunk[:len(chunk) - len(body)]
            yield header
        elif chunk[:len(chunk) - len(body)] != header:  # pragma: no cover - pyoxigraph writes fixed prefixes
            raise WorkspaceError("base.trig: the TriG prefixes differ between graphs")
        yield body


def _sorted_quads(store: OxigraphStore, graph: Any, published: str) -> Iterator[ox.Quad]:
    """The quads of ``graph`` in graph ``published`` (an N-Triples IRI ``<…>``, or ``DEFAULT``),
    sorted by subject, predicate and object as :func:`~evoonto.store.publish_quads` sorts them.

    Sorted as N-Triples lines by pyoxigraph's own writer (each line is ``str(s) str(p) str(o) .``,
    and no term's text is a prefix of another's followed by a character below the space), so one
    string per quad is sorted instead of three, and the renamed quads are read back by pyoxigraph.
    """
    buffer = io.BytesIO()
    store.ox.dump(buffer, format=ox.RdfFormat.N_QUADS, from_graph=graph)
    lines = buffer.getvalue().splitlines()
    buffer.close()  # each copy of the graph's text is dropped as soon as the next one is made
    lines.sort()
    if not lines:
        return iter(())
    if isinstance(graph, ox.DefaultGraph):
        text = b"\n".join(lines) + b"\n"
    else:
        suffix = f" {published} .\n".encode()
        text = suffix.join(line[:-2] for line in lines) + suffix
    del lines
    return ox.parse(text, format=ox.RdfFormat.N_QUADS)


def _trig_body(chunk: bytes) -> bytes:
    """``chunk`` without its leading ``@prefix`` lines."""
    start = 0
    while chunk.startswith(b"@prefix ", start):
        start = chunk.index(b"\n", start) + 1
    return chunk[start:]


def _init_marker_name(pid: int) -> str:
    """The file an ``init`` filling an existing folder keeps there while it writes (a temp-file name,
    so it is a leftover for every other reader of the folder)."""
    return f".{pid}{INIT_SUFFIX}"


def _init_markers(path: Path) -> list[int]:
    """Process ids of the ``init`` runs whose marker is in the folder ``path`` (alive or not)."""
    pids = []
    for marker in path.glob(f".*{INIT_SUFFIX}"):
        pid = marker.name[1:-len(INIT_SUFFIX)]
        if pid.isdigit() and marker.is_file():
            pids.append(int(pid))
    return sorted(pids)


def _fill_in_place(path: Path, base: Iterator[bytes], config: bytes, *, built: bool) -> None:
    """Write a new workspace into the existing folder ``path`` (empty or left by a killed init).

    base.trig first, config.json last. When the base is ``built`` (``init(graphs=…)``), a marker
    file (:func:`_init_marker_name`) is written before it and removed last: a process killed after
    base.trig and before config.json leaves a built base.trig next to the marker of a dead process,
    which :func:`_empty_or_unfinished` then knows to be that init's own, so the next ``init`` can
    replace it (a built base.trig without a marker is never replaced). A packaged-only base needs
    no marker (it is replaceable anyway). Markers of killed inits are removed once config.json is
    written; on an error the files written here (base.trig, the marker) are removed again.

    Raises:
        WorkspaceError: a folder or file cannot be written.
    """
    marker = path / _init_marker_name(os.getpid())
    wrote_base = False
    try:
        if built:
            atomic_write(marker, b"")
        make_dirs(path / PATCH_DIR, *(path / d for d in RESERVED_DIRS))
        atomic_write(path / BASE_FILE, base)
        wrote_base = True
        atomic_write(path / CONFIG_FILE, config)
    except BaseException:
        if wrote_base:
            (path / BASE_FILE).unlink(missing_ok=True)
        marker.unlink(missing_ok=True)
        raise
    for pid in _init_markers(path):  # killed before this: a complete workspace with temp files in it
        (path / _init_marker_name(pid)).unlink(missing_ok=True)
    fsync_dir(path)


#: Workspace files :func:`replace_files` moves up from a staging folder, in this order (config.json last:
#: a workspace is complete only once its config is in place).
PLACED_FILES = (PATCH_DIR, *RESERVED_DIRS, BASE_FILE, CONFIG_FILE)


def replace_files(path: Path, staging: Path, displace: list[str], aside: Path, *, keep: bool) -> None:
    """Swap the complete workspace assembled in ``staging`` (a folder inside ``path``) into ``path``.

    The caller holds ``path``'s writer lock. The intent is recorded first: this process's init marker
    (:func:`_init_marker_name`, the file an in-place init keeps while it fills a folder) is written
    holding a JSON journal (staging folder, the entries ``displace``, ``aside`` and ``keep``). Then
    every step is a rename inside ``path``: the entries ``displace`` of ``path`` move into ``aside``,
    the workspace files of ``staging`` (:data:`PLACED_FILES`, config.json last) move up, ``staging``
    (and ``aside`` unless ``keep``) is removed and the journal last. A process killed at any moment
    leaves the journal, and :func:`finish_interrupted_replace` (run by :meth:`Workspace.open`,
    :meth:`Workspace.init` and the builder) completes the same steps.

    Args:
        path: the workspace folder (exists).
        staging: a folder inside ``path`` holding a complete workspace (config.json written last).
        displace: names of the entries of ``path`` the new workspace replaces (moved into ``aside``).
        aside: a folder inside ``path`` (``backups/<UTC time>`` or a temp folder; created here).
        keep: keep ``aside`` (a backup) or delete it once the new workspace is in place.

    Raises:
        WorkspaceError: a file cannot be written or renamed; the message names the folder holding
            the previous files and how to finish or undo the replacement.
    """
    journal = {"replace": 1, "pid": os.getpid(), "staging": staging.name, "aside": aside.relative_to(path).as_posix(),
               "keep": keep, "displace": sorted(displace)}
    marker = path / _init_marker_name(os.getpid())
    atomic_write(marker, json.dumps(journal, indent=1).encode())
    _complete_replace(path, journal, marker)


def _relative_inside(path: Path, name: object) -> Path | None:
    """``path / name`` for a relative name without ``..`` (a journal entry), else None."""
    if not isinstance(name, str) or not name or name.startswith("/") or ".." in Path(name).parts:
        return None
    return path / name


def _read_journal(marker: Path) -> dict | None:
    """The replacement journal in an init marker (:func:`replace_files`), or None (an init's empty marker)."""
    try:
        data = json.loads(marker.read_bytes() or b"null")
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("replace") != 1 or not isinstance(data.get("displace"), list):
        return None
    return data


def _complete_replace(path: Path, journal: dict, marker: Path) -> None:
    """Do (or finish) the renames of a journal written by :func:`replace_files`; idempotent.

    An entry to displace is old (moved aside) unless it is a workspace file already moved up: those
    are the ones no longer in the staging folder, since every old one is moved aside before the
    first new one is moved up.
    """
    staging, aside = _relative_inside(path, journal.get("staging")), _relative_inside(path, journal.get("aside"))
    if staging is None or aside is None:
        raise WorkspaceError(f"{marker}: a damaged replacement journal (staging/aside outside {path}); "
                             "delete it if no build is running")
    try:
        aside.mkdir(parents=True, exist_ok=True)
        for name in journal["displace"]:
            entry = _relative_inside(path, name)
            if entry is None or not (entry.exists() or entry.is_symlink()) or (aside / name).exists():
                continue
            if name not in PLACED_FILES or (staging / name).exists():
                os.replace(entry, aside / name)
        fsync_dir(aside)
        for name in PLACED_FILES:
            if (staging / name).exists():
                os.replace(staging / name, path / name)
        fsync_dir(path)
        shutil.rmtree(staging, ignore_errors=True)
        if not journal.get("keep"):
            shutil.rmtree(aside, ignore_errors=True)
        marker.unlink(missing_ok=True)
        fsync_dir(path)
    except OSError as exc:
        where = f"the previous files are in {aside}" if journal.get("keep") else "nothing was lost"
        raise WorkspaceError(
            f"cannot finish replacing the workspace in {path} ({exc.strerror or exc}); {where}, the new workspace "
            f"in {staging}. Run `evoonto build -w {path} …` (or open it) again once the folder is writable to "
            f"finish; to undo, move the new files back into {staging} and run `mv {aside}/* {path}/`"
            + ("" if journal.get("keep") else f" (then delete {marker})")) from exc


def finish_interrupted_replace(path: Path, *, locked: bool = False) -> bool:
    """Finish a replacement of the workspace files of ``path`` that a killed process left half done
    (its journal, :func:`replace_files`); returns whether there was one. Without a journal, the temp
    entries a killed writer left in a complete workspace are removed (a build killed while it
    assembled its new workspace or wrote its journal), unless a writer holds the lock.

    Takes ``path``'s writer lock (a live replacing process holds it, so its journal is left to it)
    unless ``locked`` (the caller holds it).

    Raises:
        WorkspaceError: the replacement cannot be finished (read-only folder, another writer holds
            the lock); the message names the folder with the previous files and the command to run.
    """
    journals = [(m, j) for m in (path / _init_marker_name(pid) for pid in _init_markers(path))
                if (j := _read_journal(m)) is not None]
    if not journals:
        if not locked:
            _remove_killed_writers_leftovers(path)
        return False
    if locked:
        for marker, journal in journals:
            _complete_replace(path, journal, marker)
        return True
    try:
        lock = WriterLock(path / LOCK_FILE).__enter__()
    except WorkspaceError as exc:
        marker, journal = journals[0]
        aside = path / str(journal["aside"])
        raise WorkspaceError(f"{path}: a build replacing this workspace was interrupted (journal {marker.name}) "
                             f"and cannot be finished now: {exc}. The previous files are in {aside}; run "
                             f"`evoonto build -w {path} …` again to finish") from None
    try:
        for marker, journal in journals:
            if marker.exists():
                _complete_replace(path, journal, marker)
    finally:
        lock.__exit__(None, None, None)
    return True


def _remove_killed_writers_leftovers(path: Path) -> None:
    """Delete the temp entries a killed build left in the complete workspace ``path``: its staging
    folder (``.new.<pid>.tmp``, as big as a workspace), the folder it moves the old files to
    (``.old.<pid>.tmp``), its journal's temp file before the rename that makes it a journal
    (``..<pid>.init.tmp.<pid>.tmp``) and a killed init's marker (``.<pid>.init.tmp``), each only when
    its process is gone. Nothing else is touched: other writers (feedback, an evolution's hold-out, an
    export, a nested workspace being built) write temp files here without the lock. Nothing happens
    when a writer holds the lock, the folder is read-only, or the folder has no ``config.json`` (a
    half-made folder, whose init marker says whose base.trig it is)."""
    if not (path / CONFIG_FILE).is_file():
        return
    leftovers = [e for e in _entries(path) if _killed_writers_entry(e.name)]
    if not leftovers:
        return
    try:
        lock = WriterLock(path / LOCK_FILE, timeout_s=0).__enter__()
    except WorkspaceError:
        return
    try:
        if any(_read_journal(path / _init_marker_name(pid)) is not None for pid in _init_markers(path)):
            return  # a replacement journal appeared meanwhile: the next open finishes it
        for entry in leftovers:
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
    except OSError:
        pass  # (a read-only folder: the leftovers stay, and nothing else changes)
    finally:
        lock.__exit__(None, None, None)


#: The temp entries a build or an init writes in a workspace's own folder, with the process id in them.
_KILLED_WRITER_NAMES = (re.compile(r"^\.(?:new|old)\.(\d+)\.tmp$"),
                        re.compile(r"^\.\.(\d+)\.init\.tmp\.(\d+)\.tmp$"),
                        re.compile(r"^\.(\d+)\.init\.tmp$"))


def _killed_writers_entry(name: str) -> bool:
    """Whether ``name`` is a temp entry of a build or init (:data:`_KILLED_WRITER_NAMES`) whose
    processes are all gone."""
    for pattern in _KILLED_WRITER_NAMES:
        m = pattern.match(name)
        if m is not None:
            return not any(process_alive(int(pid)) for pid in m.groups())
    return False


def _empty_or_unfinished(path: Path) -> bool:
    """True for an empty folder, or one an ``init`` killed before writing config.json left behind
    (only the workspace layout: empty patches/trajectories/runs folders, temp files, and a base.trig
    that is either next to the marker of a dead init (:func:`_fill_in_place`) or holds no catalog
    or content beyond the concept scheme, so a built base of a lost workspace is never overwritten)."""
    if (path / CONFIG_FILE).exists():
        return False
    for entry in path.iterdir():
        if entry.name in (*RESERVED_DIRS, PATCH_DIR) and entry.is_dir():
            if any(not child.name.endswith(TMP_SUFFIX) for child in entry.iterdir()):
                return False
        elif entry.name not in (BASE_FILE, LOCK_FILE) and not entry.name.endswith(TMP_SUFFIX):
            return False
    base = path / BASE_FILE
    if _init_markers(path):  # (init raised first if the marking process is alive)
        return True
    if base.is_file() and base.stat().st_size:
        try:
            quads = parse_rdf_file(base)
        except EvoontoError:
            return True  # a base cut while written: nothing of value
        built = {"catalog": 0, "content": 0}  # graph names of either format end with graph/<name>
        for q in quads:
            name = q.graph_name.value if isinstance(q.graph_name, (ox.NamedNode, ox.BlankNode)) else ""
            for key in built:
                if name.endswith(f"graph/{key}"):
                    built[key] += 1
        if built["catalog"] or built["content"] > 2:
            return False
    return True


def _remove_stale_init_folders(path: Path) -> None:
    """Delete staging folders of ``init`` runs on ``path`` whose process is gone (killed mid-init)."""
    for folder in path.parent.glob(f".{glob_escape(path.name)}.*{INIT_SUFFIX}"):
        pid = folder.name[len(path.name) + 2:-len(INIT_SUFFIX)]
        if pid.isdigit() and not process_alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _snapshot(path: Path) -> tuple:
    """Names of the patch files plus the base/config file stamps (detects other writers)."""
    stamps: list[tuple[str, int | None, int | None]] = []  # (file, mtime ns, size); None: missing
    for name in (BASE_FILE, CONFIG_FILE):
        try:
            st = os.stat(path / name)
            stamps.append((name, st.st_mtime_ns, st.st_size))
        except OSError:
            stamps.append((name, None, None))
    return tuple(stamps) + tuple(p.name for _, _, p in _patch_files(path))


def _read_config(path: Path) -> dict:
    if not path.is_dir():
        raise WorkspaceError(f"no workspace at {path} (run `evoonto init` or pass --workspace)")
    file = path / CONFIG_FILE
    try:
        config = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise WorkspaceError(f"{path} is not an evoonto workspace ({CONFIG_FILE} is missing)") from None
    except (OSError, ValueError) as exc:
        raise WorkspaceError(f"{file}: malformed JSON ({exc})") from None
    if not isinstance(config, dict) or not isinstance(config.get("base_iri"), str) \
            or not isinstance(config.get("name"), str):
        raise WorkspaceError(f"{file}: needs the keys 'name' and 'base_iri' (strings); the file is damaged")
    fmt = config.get("format", FORMAT_VERSION)
    if isinstance(fmt, bool) or not isinstance(fmt, int) or fmt < 1:
        raise WorkspaceError(f"{file}: 'format' must be a positive integer, got {fmt!r}; the file is damaged")
    if fmt not in READABLE_FORMATS:
        raise WorkspaceError(f"{file}: workspace format {fmt} is newer than this evoonto supports")
    if not isinstance(config.get("settings", {}), dict):
        raise WorkspaceError(f"{file}: 'settings' must be a JSON object, got {type(config['settings']).__name__}")
    try:
        IriFactory(config["base_iri"])
    except ValueError as exc:
        raise WorkspaceError(f"{file}: {exc}") from None
    config.setdefault("settings", {})
    return config


def _read_base_bytes(path: Path) -> bytes:
    """The bytes of ``path``'s base.trig.

    Raises:
        WorkspaceError: the file is missing or empty (the message says where a backup is).
    """
    file = path / BASE_FILE
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise WorkspaceError(f"{file} is missing{_backup_hint(path)}") from None
    except OSError as exc:
        raise WorkspaceError(f"{file}: cannot read ({exc.strerror or exc})") from None
    if not data:
        raise WorkspaceError(f"{file} is empty (truncated or overwritten); restore it from a copy or "
                             "version control, it holds version 0 with the vocabulary and shapes")
    return data


def _read_file(file: Path) -> bytes:
    """The bytes of a workspace file. Raises RDFParseError (names the file) when it cannot be read."""
    try:
        return file.read_bytes()
    except OSError as exc:
        raise RDFParseError(f"{file}: cannot read ({exc.strerror or exc})") from None


def _load_base(path: Path, base_iri: str, *, data: bytes | None = None) -> OxigraphStore:
    """The store of ``path``'s base.trig (``data``: its bytes, when already read), graph names
    localized; checked to hold the required graphs and nothing else.

    Raises:
        WorkspaceError: the file is missing, empty or holds unexpected graphs.
        RDFParseError: the file is malformed.
    """
    file = path / BASE_FILE
    if data is None:
        data = _read_base_bytes(path)
    # graph names localized by the parser when the text shows it is the same (the layout evoonto
    # writes; it saves about 10 of 21 CPU s at 70,000 columns), else parsed, renamed and loaded quad by quad in one
    # transaction (a list of every quad of a 70,000-column base cost 18 CPU s and gigabytes more)
    store = load_localized_trig(data, base_iri)
    if store is None:
        store = OxigraphStore()
        store.load_quads(iter_localized_quads(iter_rdf_file(file, data), base_iri))
    missing = [g for g in REQUIRED_BASE_GRAPHS if not store.count(g)]
    if missing:
        raise WorkspaceError(f"{file} has no {' and no '.join(missing)} graph (truncated or damaged); "
                             "restore it from a copy or version control")
    allowed = {str(EVOG) + name for name in GRAPH_NAMES}
    unexpected = [g for g in store.graph_names() if str(g) not in allowed]
    default_graph = next(iter(store.ox.quads_for_pattern(None, None, None, _default_graph())), None)
    if unexpected or default_graph is not None:
        what = f"graph <{unexpected[0]}>" if unexpected else "triples in the default graph"
        raise WorkspaceError(f"{file}: unexpected {what}; base.trig holds only the graphs {', '.join(GRAPH_NAMES)}")
    return store


def _backup_hint(path: Path) -> str:
    """For a workspace without base.trig: where a build moving it aside left it (the newest
    ``backups/<UTC time>/base.trig``; ``build --force`` killed partway left config.json in place
    before :func:`replace_files`) and the command that restores it; empty when there is none."""
    backups = sorted((b.parent for b in (path / "backups").glob(f"*/{BASE_FILE}") if b.is_file()),
                     key=lambda b: b.name)
    if not backups:
        return ""
    return (f"; a build replacing this workspace was interrupted after moving it aside: its files are in "
            f"{backups[-1]}, restore them with `mv {backups[-1]}/* {path}/`")


def _version_fingerprint(base_digest: str, accepted: Iterable[tuple[int | None, str, str | None]]) -> str:
    """:meth:`Workspace.version_fingerprint` from the base digest and ``(version, id, file digest or
    None)`` of each accepted patch, in order."""
    digest = hashlib.sha256(f"files\0{base_digest}".encode())
    for version, pid, file_digest in accepted:
        digest.update(f"\0{version}\0{pid}\0".encode())
        if file_digest is not None:
            digest.update(file_digest.encode())
    return digest.hexdigest()


def read_version_fingerprint(path: str | Path) -> tuple[int, str]:
    """The active version and :meth:`Workspace.version_fingerprint` that the files of the workspace
    at ``path`` define now, read without loading ``base.trig`` into a store: its digest is the one
    remembered under ``cache/store`` when the file is unchanged since (else it is read and hashed);
    the patch files are parsed for their decisions. A server compares it with what it loaded to
    decide whether a change on disk is a new version to load.

    Args:
        path: the workspace directory.
    Returns:
        ``(active version, fingerprint)``: 64 hex characters.
    Raises:
        WorkspaceError: missing directory/config, malformed config, inconsistent history.
        RDFParseError: a patch file is malformed. OSError: a file cannot be read.
    """
    from evoonto.storecache import remembered_digest

    path = Path(path)
    config = _read_config(path)
    iris = IriFactory(config["base_iri"])
    base_digest = remembered_digest(path, BASE_FILE)
    if base_digest is None:
        with open(path / BASE_FILE, "rb") as handle:
            base_digest = hashlib.file_digest(handle, "sha256").hexdigest()
    accepted: list[tuple[int | None, str, str | None]] = []
    for seq, pid, file in _patch_files(path):
        data = _read_file(file)
        _, entry, _ = _read_patch_file(file, pid, seq, iris, data=data)
        if entry.decision == "accepted":
            if entry.version != len(accepted) + 1:
                raise WorkspaceError(f"{file}: accepted patch claims version {entry.version}, but the active "
                                     f"version is {len(accepted)}")
            accepted.append((entry.version, pid, hashlib.sha256(data).hexdigest()))
    return len(accepted), _version_fingerprint(base_digest, accepted)


def _patch_files(path: Path) -> list[tuple[int, str, Path]]:
    folder = path / PATCH_DIR
    if not folder.is_dir():
        return []
    out = []
    for file in folder.iterdir():
        match = _PATCH_FILE.match(file.name)
        if match:
            out.append((int(match.group(1)), match.group(2), file))
    out.sort()
    return out


def _read_patch_file(file: Path, pid: str, seq: int, iris: IriFactory, *,
                     data: bytes | None = None) -> tuple[Patch, PatchEntry, list[tuple]]:
    quads = localize_quads(parse_rdf_file(file, data), iris.base)
    meta_graph = str(patch_meta_graph(pid))
    meta, body = [], []
    for q in quads:
        g = q.graph_name
        gname = g.value if isinstance(g, (ox.NamedNode, ox.BlankNode)) else None
        triple = (from_ox(q.subject), from_ox(q.predicate), from_ox(q.object))
        if gname == meta_graph:
            meta.append(triple)
            continue
        parsed = parse_patch_graph(gname) if gname else None
        if gname is None or parsed is None or parsed[0] != pid:
            raise WorkspaceError(f"{file}: unexpected graph {gname or 'default'} (expected graphs of patch {pid}, "
                                 f"<{iris.base}graph/patch/{pid}/…>)")
        body.append(triple + (URIRef(gname),))
    entry = entry_from_meta(meta, pid, iris, seq=seq, file=f"{PATCH_DIR}/{file.name}")
    try:
        patch = Patch.from_quads(body, level=entry.level, signature=entry.signature,
                                 intervention=entry.intervention, id=pid)
    except EvoontoError as exc:
        raise WorkspaceError(f"{file}: {exc}") from None
    return patch, entry, meta


# ---------------------------------------------------------------------------- a build as version 0
# The workspace owns writing a build: the builder returns a value (:class:`BuiltBase`, e.g.
# :class:`evoonto.builder.BuildResult`) and never touches the workspace folder.


class BuiltBase(Protocol):
    """What :func:`write_build` needs from a build (:class:`evoonto.builder.BuildResult` is one).

    Attributes:
        base_iri: the IRI base every minted node of the build uses.
    """

    base_iri: str

    def source_locations(self) -> dict[str, str]:
        """``{source id: path or URL as opened}`` of the sources opened from a location."""
        ...

    def hand_over(self, packaged_schema: bool) -> tuple[Mapping[str, rdflib.Graph], OxigraphStore | None, bool]:
        """The graphs to write (``catalog``, ``content``), an Oxigraph store that already holds exactly
        them (or ``None``), and whether they are SHACL-validated as they are now against the packaged
        vocab and shapes (only when ``packaged_schema``: the workspace holds those)."""
        ...

    def handed_over(self, workspace: Workspace, store: OxigraphStore | None) -> None:
        """``store`` (from :meth:`hand_over`) now belongs to ``workspace``."""
        ...


#: A build function, ``build(sources, workload, *, base_iri=…, **options) -> BuiltBase``
#: (:func:`evoonto.builder.build`).
Builder = Callable[..., BuiltBase]


_BUILDERS: list[Builder] = []


def register_builder(builder: Builder) -> None:
    """Make ``builder`` the one :meth:`Workspace.create` runs when it is given none
    (:mod:`evoonto.builder` registers :func:`evoonto.builder.build` when it is imported;
    :func:`evoonto.create_workspace` passes it explicitly)."""
    _BUILDERS[:] = [builder]


#: The entry-point group naming the default builder (``default``; pyproject.toml declares
#: :func:`evoonto.builder.build`).
BUILDER_ENTRY_POINTS = "evoonto.builders"


def default_builder() -> Builder:
    """The builder :meth:`Workspace.create` runs when given none: the one registered in this process
    (:func:`register_builder`), else the ``default`` entry point of the ``evoonto.builders`` group
    (loading it imports :mod:`evoonto.builder`, which registers it). So ``Workspace.create`` works in
    a fresh interpreter with nothing else imported, as README's Python example does.

    Raises:
        WorkspaceError: no builder is registered and the installed package metadata names none
            (evoonto not installed, e.g. run from a source tree without ``pip install``).
    """
    if not _BUILDERS:
        from importlib.metadata import entry_points

        for point in entry_points(group=BUILDER_ENTRY_POINTS, name="default"):
            register_builder(point.load())
            break
    if not _BUILDERS:
        raise WorkspaceError("no builder to create a workspace with: install evoonto (pip install -e .), "
                             "use evoonto.create_workspace, import evoonto.builder first, or pass builder=")
    return _BUILDERS[0]


#: Entries of a workspace folder a build never moves: ``lexicon.tsv`` is the user's own label file
#: (read by the build), ``backups/`` holds the workspaces replaced before. (The workspace's own files
#: are :data:`PLACED_FILES` and the lock.)
_KEPT_ENTRIES = ("lexicon.tsv", "backups")
#: The folder inside a workspace that ``force`` moves a replaced workspace into.
BACKUP_DIR = "backups"


def _entries(path: Path) -> list[Path]:
    return sorted(path.iterdir()) if path.is_dir() else []


def _is_leftover(entry: Path) -> bool:
    """A temp file or folder of a crashed writer (also a killed build's staging folder), a lock, a
    base.trig without its config, or an empty folder of a workspace."""
    if entry.name.startswith(".") and entry.name.endswith(".tmp"):
        return True
    return entry.name in (*PLACED_FILES, LOCK_FILE) and entry.name != "config.json" and (
        not entry.is_dir() or not any(entry.iterdir()))


def describe_workspace(path: str | Path) -> str | None:
    """One line saying what the workspace at ``path`` holds, or ``None`` when a build may write
    there without replacing anything.

    ``None`` for: a missing or empty folder; a half-made workspace (no ``config.json``; only
    empty workspace folders, a ``base.trig`` written before its config, a lock and temp files: a
    build or init killed early); a workspace just created by ``evoonto init`` (no patches, no
    trajectories or runs, no Terms). A folder's ``lexicon.tsv`` and ``backups/`` never count.

    Args:
        path: the workspace directory.

    Returns:
        ``"workspace 'name' (base IRI …, version 3, 4 patches, 2 trajectories, 1 run)"``, a
        description of foreign files, or ``None``.
    """
    from evoonto.namespaces import EVO

    path = Path(path)
    if path.exists() and not path.is_dir():
        return f"{path} is a file, not a workspace folder"
    if path.is_dir():
        finish_interrupted_replace(path)  # a build killed while swapping its workspace in
    entries = [e for e in _entries(path) if e.name not in _KEPT_ENTRIES]
    if not (path / "config.json").is_file():
        if all(_is_leftover(e) for e in entries):
            return None
        foreign = [e.name for e in entries if not _is_leftover(e)]
        return (f"{path} holds files that are not an evoonto workspace ({', '.join(foreign[:5])}"
                f"{', …' if len(foreign) > 5 else ''})")
    trajectories = sorted(p for p in (path / "trajectories").glob("*") if p.is_file())
    runs = sorted(p for p in (path / "runs").glob("*"))
    try:
        ws = Workspace.open(path)
    except EvoontoError as exc:
        return f"an unreadable workspace ({exc})"
    patches = len(ws.log())
    terms = sum(1 for _ in ws.ontology.graph("content").subjects(RDF.type, EVO.Term))
    if not (patches or trajectories or runs or terms):
        return None
    return (f"workspace {ws.name!r} (base IRI {ws.base_iri}, version {ws.version}, {terms} terms, "
            f"{patches} patch(es), {len(trajectories)} trajectory file(s), {len(runs)} run(s))")


def check_workspace_target(path: str | Path, *, force: bool = False) -> str | None:
    """Whether a build may be written to ``path`` (see :func:`write_build`).

    Returns:
        ``None`` when nothing is replaced, else the one-line description of the workspace that
        ``force`` will move aside.

    Raises:
        WorkspaceError: ``path`` holds a workspace and ``force`` is not set (the message says what
            it holds), or ``path`` holds files that are not a workspace (never replaced).
    """
    path = Path(path)
    held = describe_workspace(path)
    if held is None:
        return None
    if not (path / "config.json").is_file():
        raise WorkspaceError(f"{held}; choose another --workspace")
    if not force:
        raise WorkspaceError(f"{path} already holds {held}; pass --force to replace it "
                             f"(moved to {path / BACKUP_DIR}/<UTC time>/)")
    return held


def workspace_base_iri(path: str | Path, *, force: bool = False) -> str:
    """The base IRI a build for the workspace at ``path`` must use: the existing workspace's, or
    the default a new workspace there would get (:func:`evoonto.iris.default_base` of its name).

    With ``force`` a workspace that :func:`describe_workspace` reports (one that would be replaced)
    does not pass its base IRI on: the new workspace is made as ``init`` makes one at ``path``.

    Raises:
        WorkspaceError: ``path`` holds a malformed workspace (and ``force`` is not set).
    """
    path = Path(path)
    if (path / "config.json").is_file() and not (force and describe_workspace(path) is not None):
        return Workspace.open(path).base_iri
    return default_base(path.resolve().name.lstrip(".") or "workspace")


def _absolute_location(location: str) -> str:
    """A source location that does not depend on the working directory: a local path made
    absolute; ``scheme:///relative/path`` URLs (SQLite, DuckDB) with an absolute path; other URLs
    as given."""
    if "://" in location:
        scheme, _, rest = location.partition(":///")
        if rest and not rest.startswith("/") and scheme.split("+")[0] in ("sqlite", "duckdb"):
            return f"{scheme}:///{Path(rest).resolve()}"
        return location
    return str(Path(location).expanduser().resolve())


def _backup_folder(path: Path) -> Path:
    """A new ``path/backups/<UTC time>/`` (not created) for the files a build replaces."""
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    return path / BACKUP_DIR / stamp


def _staging_name(pid: int | str) -> str:
    """The temp folder inside a workspace folder that a build assembles its new workspace in
    (``pid="*"``: the glob pattern of every build's)."""
    return f".new.{pid}.tmp"


def _assemble(built: BuiltBase, staging: Path, name: str, settings: dict) -> Workspace:
    """The build as version 0 of a complete new workspace in the new folder ``staging``."""
    from evoonto.resources import shapes_graph, vocab_graph

    make_dirs(staging)  # init fills it in place (no second staging folder of its own)
    locations = {source: _absolute_location(location) for source, location in built.source_locations().items()}
    ws = Workspace.init(staging, base_iri=built.base_iri, name=name,
                        settings={**settings, "sources": locations} if locations else settings)
    store = ws.store
    packaged = (set(store.triples("vocab")) == set(vocab_graph())
                and set(store.triples("shapes")) in (set(), set(shapes_graph())))
    graphs, held, validated = built.hand_over(packaged)
    if held is not None:
        ws.replace_base(graphs, validate_shapes=not validated, store=held)
    else:
        ws.replace_base(dict(graphs), validate_shapes=not validated)
    built.handed_over(ws, held)
    return ws


def _write_new_folder(built: BuiltBase, path: Path, name: str) -> Workspace:
    """Assemble the workspace in a hidden sibling of the missing folder ``path`` and rename it into
    place (atomic): a process killed at any moment leaves no folder or the complete workspace."""
    target = Path(os.path.abspath(path))
    make_dirs(target.parent)
    _remove_stale_init_folders(target)
    staging = target.with_name(f".{target.name}.{os.getpid()}{INIT_SUFFIX}")
    try:
        ws = _assemble(built, staging, name, {})
        os.rename(staging, target)
        fsync_dir(target.parent)
    except WorkspaceError as exc:  # name the folder the user asked for, not only the staging folder
        shutil.rmtree(staging, ignore_errors=True)
        raise WorkspaceError(f"cannot write the workspace {path}: {exc}") from exc
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    ws._moved_to(path)
    return ws


def _write_in_place(built: BuiltBase, path: Path, name: str, settings: dict, replacing: bool) -> Workspace:
    """Assemble the workspace in a temp folder inside ``path``, then swap it in with renames under a
    journal (:func:`replace_files`), all under the folder's writer lock.

    What the new workspace displaces: with ``replacing`` every entry but ``lexicon.tsv``,
    ``backups/`` and the lock, moved to ``backups/<UTC time>/``; otherwise the workspace files and
    temp files (a fresh ``init``, or a half-made workspace), moved to ``backups/<UTC time>/`` when
    there is a ``base.trig`` without its config (kept just in case) and deleted otherwise.
    """
    with WriterLock(path / LOCK_FILE):
        finish_interrupted_replace(path, locked=True)
        for dead in path.glob(_staging_name("*")):  # under the lock: killed builds' stagings
            shutil.rmtree(dead, ignore_errors=True)
        staging = path / _staging_name(os.getpid())
        journaled = False
        try:
            ws = _assemble(built, staging, name, settings)
            skip = {*_KEPT_ENTRIES, LOCK_FILE, staging.name}
            entries = [e for e in _entries(path) if e.name not in skip]
            if replacing:
                displace = [e.name for e in entries]
            else:
                displace = [e.name for e in entries if e.name in PLACED_FILES or _is_leftover(e)]
            orphan_base = not (path / "config.json").is_file() and (path / "base.trig").is_file()
            keep = replacing or orphan_base
            aside = _backup_folder(path) if keep else path / f".old.{os.getpid()}.tmp"
            journaled = True  # from here on an interrupted swap is finished by the next open or build
            replace_files(path, staging, displace, aside, keep=keep)
        except BaseException:
            if not journaled:
                shutil.rmtree(staging, ignore_errors=True)
            raise
    ws._moved_to(path)
    return ws


def write_build(built: BuiltBase, path: str | Path, *, force: bool = False) -> Workspace:
    """Write a build as version 0 of a workspace. The source locations are recorded, as absolute
    paths, in the workspace settings (``sources``: ``{id: path or URL}``) for ``evoonto serve``.

    Where it writes (see :func:`describe_workspace`): a missing or empty folder, a half-made
    workspace (its leftovers are removed) or a workspace fresh from ``init`` (its name, base IRI and
    settings are kept) is written without ``force``. Any other workspace (with Terms, patches,
    trajectories or runs) is refused unless ``force``; with ``force`` its files (config.json,
    base.trig, patches/, trajectories/, runs/) are moved into ``path/backups/<UTC time>/`` and a new
    workspace is made as ``init`` makes one, with the build's base IRI (``lexicon.tsv`` stays).
    Foreign files are never moved, and nothing is deleted.

    Crash safety: the new workspace is assembled complete in a temp folder (a hidden sibling of a
    missing ``path``, renamed into place; else a hidden folder inside ``path``, swapped in with renames
    under a journal, :func:`replace_files`), so a process killed at any moment leaves the old
    workspace, the new one, or a journal the next ``open`` or build finishes from.

    Args:
        built: a build (:class:`BuiltBase`) made with ``base_iri=workspace_base_iri(path, force=force)``.
        path: the workspace directory.
        force: replace an existing workspace (moved aside, nothing deleted).

    Returns:
        The open :class:`Workspace`.

    Raises:
        WorkspaceError: ``path`` holds a workspace and ``force`` is not set, or holds foreign files;
            the workspace cannot be created or written; its base IRI differs from the build's.
        ShapeViolationError: the build does not validate (checked here unless the build carries
            a conforming validation of the same graphs against the workspace's vocab and shapes).
    """
    path = Path(path)
    replacing = check_workspace_target(path, force=force) is not None  # (finishes an interrupted swap first)
    name, settings = path.resolve().name.lstrip(".") or "workspace", {}
    if not replacing and (path / "config.json").is_file():  # a fresh init: its name, base IRI and settings stay
        config = _read_config(path)
        if config["base_iri"] != built.base_iri:
            raise WorkspaceError(f"{path}: the workspace base IRI {config['base_iri']} differs from the build's "
                                 f"{built.base_iri}; rebuild with base_iri=workspace_base_iri(path)")
        name, settings = config["name"], dict(config["settings"])
    try:
        if path.is_dir():
            return _write_in_place(built, path, name, settings, replacing)
        return _write_new_folder(built, path, name)
    except OSError as exc:  # read-only or full disk: one line, not a traceback
        raise WorkspaceError(f"cannot write the workspace {path}: {exc.strerror or exc}") from None


#: Namespace of graph names in format-1 workspace files (shared by every workspace; read transparently).
LEGACY_GRAPH_PREFIX = str(EVOG)

__all__ = ["Workspace", "FORMAT_VERSION", "READABLE_FORMATS", "LEGACY_GRAPH_PREFIX", "PLACED_FILES", "replace_files",
           "finish_interrupted_replace", "BuiltBase", "BACKUP_DIR", "register_builder", "write_build",
           "describe_workspace", "check_workspace_target", "workspace_base_iri"]
