"""The evoonto MCP server (official ``mcp`` SDK, ``MCPServer``), over stdio or streamable HTTP.

What the agent gets (paper §3, Tool layer R; DESIGN.md §5):

- the manifest as the server ``instructions`` and as the resource ``evoonto://manifest``;
- tools ``browse`` and ``resolve``, the declared tools of the ``tools`` graph, and with
  ``data_tools=True`` the raw read-only ``list_tables``, ``describe_table`` and ``run_sql``.

No admin operation (commit, evolve, approve, rollback, update) is exposed. With
``accept_feedback=True`` (``evoonto serve --accept-feedback``) one more tool, ``report_outcome``, lets
a client record whether a task passed (kept in ``<ws>/feedback.jsonl`` with source
``report_outcome``; it writes an outcome, never a patch or a policy). A client groups its calls into
tasks by sending ``_meta: {"evoonto/task": ID, "evoonto/question": TEXT}`` with each ``tools/call``;
both are written into the trajectory events (without them the task is the session). The tools are those of
:meth:`evoonto.tools.OntologyTools.registry` (one registry for in-process and MCP use), and every
call goes through :meth:`evoonto.tools.OntologyTools.call` in a worker thread, so it is checked
against the same schema and appended to the trajectory log (a log that cannot be written costs one
warning on stderr, never a call). A server over a
workspace notices when the workspace's active version changes (cheap directory ``stat`` before each
call, then the version number) and reloads the ontology, the manifest and the declared tools.

Run it with ``evoonto serve --workspace PATH [--transport stdio|http] [--data-tools]`` or::

    server = create_server(workspace_path)          # or create_server(OntologyTools(onto))
    server.run("stdio")
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import json
import logging
import os
import re
import subprocess
import threading
from pathlib import Path
from typing import Any, Callable, Mapping

from evoonto.errors import EvoontoError, ToolArgumentError, WorkspaceError, first_line
from evoonto.tools.registry import error_text
from evoonto.tools.toolkit import OntologyTools
from evoonto.tools.trajectory import ToolEvent, TrajectoryLog, to_text

MANIFEST_URI = "evoonto://manifest"
_LOG = logging.getLogger(__name__)
# Workspace subfolders written while serving: changes there are not a new version.
#: Seconds a call waits for a reloading workspace's new version before the previous one answers it:
#: a small workspace's reload is then seen by the very next call, a large one never freezes the server.
RELOAD_WAIT = 1.0
#: Seconds after the first answer at which the server runs the full collection its first load
#: deferred (:meth:`ToolsProvider.answered`).
DEFERRED_DELAY = 1.0
_VOLATILE = {"trajectories", "runs", "tmp", ".lock", "cache", "feedback.jsonl", "verified_holdout.json"}


def freeze_loaded_objects() -> None:
    """The serving process's garbage-collector policy after it loaded a version: unfreeze what an
    earlier load froze, run one full collection, then :func:`gc.freeze` every object alive.

    A process-wide decision, so it is taken here, by the server that owns the process (and by
    benchmarks that measure browse as the server serves it), never inside a library object: a
    notebook or test process that embeds a :class:`~evoonto.tools.index.SearchIndex` keeps the
    collector as it was.

    Why: a loaded 70,000-column index is millions of long-lived containers (documents, posting
    maps, token tuples). Every full cyclic collection that an answer's allocations trigger rescanned
    all of them, a 2.4–2.9 s pause every few dozen compact answers (compact browse p99 5.2 s).
    Frozen objects are skipped by the collector. The one full collection first (about 2.5 s at
    70,000 columns, once per load, in the loading thread) frees the reference cycles a reload
    dropped, which would otherwise stay frozen in memory for good. A server's first load runs it
    after its first answer (:meth:`ToolsProvider.answered`): until then the loaded objects are
    frozen as they are.
    """
    with _FREEZE_LOCK:  # a deferred collection and a reload's never overlap (a second collect is skipped)
        gc.unfreeze()
        gc.collect()
        gc.freeze()


_FREEZE_LOCK = threading.Lock()


class ToolsProvider:
    """The :class:`OntologyTools` currently served: fixed, or the workspace's active version.

    Args:
        tools: a fixed facade (in-process use, tests, the evaluation harness), or None.
        workspace: workspace directory to serve (reloaded when its active version changes).
        data_tools: serve the raw data tools.
        trajectory: the trajectory log (default for a workspace: ``<ws>/trajectories/<session>.jsonl``).
        sources: source id -> open Source or path/URL, added to those in the workspace settings.
        reload_wait: seconds a call waits for a changed workspace's new version before it is
            answered by the version loaded before (default :data:`RELOAD_WAIT`; 0: never waits).
    Raises:
        WorkspaceError: the workspace is missing or malformed.
    """

    def __init__(self, tools: OntologyTools | None = None, *, workspace: str | os.PathLike | None = None,
                 data_tools: bool = False, trajectory: TrajectoryLog | None = None,
                 sources: dict[str, Any] | None = None, reload_wait: float | None = None):
        if (tools is None) == (workspace is None):
            raise ValueError("give exactly one of tools or workspace")
        self.workspace = Path(workspace) if workspace is not None else None
        self.data_tools = data_tools
        self.sources = dict(sources or {})
        self._lock = threading.Lock()
        self._stamp: tuple | None = None
        #: :meth:`~evoonto.workspace.Workspace.version_fingerprint` of the version loaded here (None:
        #: not known, e.g. a facade given by the caller; any change on disk is then loaded)
        self._loaded_fingerprint: str | None = None
        self._reload: threading.Thread | None = None
        self.reload_wait = RELOAD_WAIT if reload_wait is None else max(0.0, float(reload_wait))
        self.reloads = 0
        #: the process keeping the store of a big workspace this provider parsed, for the next open
        #: (see :func:`_keep_store_in_child`); None when there was nothing to keep
        self.store_keeper: subprocess.Popen[bytes] | None = None
        self._manifests: dict[int, tuple[OntologyTools, str]] = {}
        #: whether the first load left the full collection of :func:`freeze_loaded_objects` (about
        #: 2.5 CPU s at 70,000 columns, which the answer does not need) until after the first answer
        #: (:meth:`answered`) and it has not run yet
        self._collection_pending = False
        self._deferred_runner: threading.Timer | None = None
        if tools is not None:
            tools.data_tools = tools.data_tools or data_tools
            if trajectory is not None:
                tools.trajectory = trajectory
            self.trajectory = tools.trajectory
            self._tools = tools
        else:
            self.trajectory = trajectory or TrajectoryLog.for_workspace(Path(str(workspace)))
            self._tools = self._load(first=True)
        self.listeners: list[Callable[[OntologyTools], None]] = []
        self._children: dict[str, TrajectoryLog] = {}

    def trajectory_for(self, connection: str | None) -> TrajectoryLog | None:
        """The log of one MCP connection: a sub-session per transport session id (streamable HTTP
        serves several agents), the server's own log when there is none (stdio, in-process)."""
        if connection is None or self.trajectory is None:
            return self.trajectory
        suffix = re.sub(r"[^A-Za-z0-9]", "", connection)[:16]
        if not suffix:
            return self.trajectory
        with self._lock:
            if suffix not in self._children:
                self._children[suffix] = self.trajectory.child(suffix)
            return self._children[suffix]

    def _stat(self) -> tuple:
        """Name, mtime and size of each entry of the workspace folder that holds its versions (the
        volatile ones left out). Not the folder's own mtime: making ``cache/`` (the first load of a
        workspace without one) changed it, so the first call after that load started a reload,
        which opened the workspace again (parsing it, while its store was not kept yet); an entry
        added, removed or replaced shows in the entries themselves."""
        if self.workspace is None:
            return ()
        try:
            entries = sorted(p for p in self.workspace.iterdir() if p.name not in _VOLATILE)
        except OSError:
            return ()
        out = []
        for path in entries:
            try:
                st = path.stat()
            except OSError:
                continue
            out.append((path.name, st.st_mtime_ns, st.st_size))
        return tuple(out)

    def _load(self, previous: OntologyTools | None = None, *, first: bool = False) -> OntologyTools:
        """Open the workspace's active version as a facade with its browse index built: read from the
        workspace's index cache, else built from ``previous``'s index (only changed texts are
        tokenized) and written to the cache. The ``first`` load leaves the full collection of
        :func:`freeze_loaded_objects` until after the first answer (the loaded objects are frozen as
        they are)."""
        # the collector stays off until the loaded objects are frozen: switched back on earlier (as
        # the index read's own pause does), its first pass would rescan every loaded container
        # (4 CPU s at 70,000 columns) just before freeze_loaded_objects' full collection does it again
        enabled = gc.isenabled()
        gc.disable()
        try:
            return self._load_paused(previous, first)
        finally:
            if enabled:
                gc.enable()

    def _load_paused(self, previous: OntologyTools | None, first: bool = False) -> OntologyTools:
        """:meth:`_load` with the cyclic garbage collector paused by the caller."""
        from evoonto.workspace import Workspace, source_locations

        stamp = self._stat()
        # a big workspace parsed here has its store kept for the next open only once it can answer
        # (below, by a process of its own)
        ws = Workspace.open(self.workspace, keep_store=False)
        sources = {**source_locations(ws), **self.sources}
        parent = None
        if previous is not None:
            with contextlib.suppress(EvoontoError):
                parent = previous.built.index
        tools, manifest = _served_tools(ws, sources=sources, trajectory=self.trajectory,
                                        data_tools=self.data_tools, parent_index=parent)
        self._manifests[id(tools)] = (tools, manifest)
        with self._lock:  # a reload's collection covers the first load's, if still pending
            self._collection_pending = first
        if first:  # the full collection (2.5 CPU s at 70,000 columns) after the first answer
            gc.freeze()
        else:
            freeze_loaded_objects()
        self._stamp = stamp
        with contextlib.suppress(OSError):
            self._loaded_fingerprint = ws.version_fingerprint()
        keeper = self.store_keeper
        if ws.store_unkept and (keeper is None or keeper.poll() is not None):  # one keeper at a time
            self.store_keeper = _keep_store_in_child(ws.path)
        return tools

    def answered(self) -> None:
        """Called after each answer: the first one runs the collection the first load deferred
        (:meth:`run_deferred`) in a thread of its own, :data:`DEFERRED_DELAY` seconds later (the
        answer is on its way first)."""
        with self._lock:
            if self._deferred_runner is not None or not self._collection_pending:
                return
            self._deferred_runner = threading.Timer(DEFERRED_DELAY, self.run_deferred)
            self._deferred_runner.name = "evoonto-after-first-answer"
            self._deferred_runner.daemon = True  # nothing it does outlives the process's use
            self._deferred_runner.start()

    def run_deferred(self) -> None:
        """Run the full collection the first load deferred (see :meth:`answered`), once; nothing when
        none is pending (already run, or a reload collected since)."""
        with self._lock:
            pending, self._collection_pending = self._collection_pending, False
        if pending:
            freeze_loaded_objects()

    def manifest(self, tools: OntologyTools) -> str:
        """The manifest of ``tools`` (a facade this provider served): computed once per loaded
        version; a workspace's version reads it from ``cache/manifest`` (see
        :func:`_workspace_manifest`) when the same code served the same version before."""
        with self._lock:
            cached = self._manifests.get(id(tools))
            if cached is not None and cached[0] is tools:
                return cached[1]
        text = tools.manifest()
        with self._lock:
            self._manifests = {k: v for k, v in self._manifests.items() if v[0] is self._tools}
            self._manifests[id(tools)] = (tools, text)
        return text

    @property
    def reloading(self) -> bool:
        """True while a newer version of the workspace is being loaded in the background."""
        with self._lock:
            return self._reload is not None and self._reload.is_alive()

    def wait_for_reload(self, timeout: float | None = None) -> bool:
        """Wait until a background reload (if any) has finished; True when none is running anymore."""
        with self._lock:
            thread = self._reload
        if thread is not None:
            thread.join(timeout)
            return not thread.is_alive()
        return True

    def _reload_in_background(self, stamp: tuple) -> None:
        """Load the changed workspace into a new facade, then swap it in; calls meanwhile get the
        facade loaded before (its index and sources stay usable until the swap). Nothing is loaded
        when the files still define the content loaded (:func:`~evoonto.workspace.read_version_fingerprint`)."""
        from evoonto.workspace import read_version_fingerprint

        assert self.workspace is not None  # a fixed facade is never reloaded (see tools)
        try:
            # the files' identity of the active version, read without loading them: the number alone
            # is not (`evoonto build --force` writes a new version 0, which was never served), and a
            # full open only to read it parsed a big workspace once more
            _, fingerprint = read_version_fingerprint(self.workspace)
            if fingerprint == self._loaded_fingerprint:
                with self._lock:
                    self._stamp = stamp  # e.g. a rejected patch recorded: same version, same files
                return
            new = self._load(previous=self._tools)
        except Exception as exc:  # mid-commit, broken or unreadable: keep serving the loaded version
            _LOG.warning("evoonto: keeping version %s: reload failed: %s", self._tools.version, first_line(exc, 200))
            return
        with self._lock:
            old, self._tools = self._tools, new
            self.reloads += 1
            listeners = list(self.listeners)
        old.close()
        for listener in listeners:
            listener(new)

    @property
    def tools(self) -> OntologyTools:
        """The facade of the active version.

        When the workspace changed on disk, the new version is loaded in a background thread and
        this waits for it at most :attr:`reload_wait` seconds; until it is ready, calls are answered
        by the version loaded before, so a long index build never blocks the server.
        """
        if self.workspace is None:
            return self._tools
        with self._lock:
            thread = self._reload
            if thread is None or not thread.is_alive():
                stamp = self._stat()
                if stamp == self._stamp:
                    return self._tools
                thread = self._reload = threading.Thread(target=self._reload_in_background, args=(stamp,),
                                                         name="evoonto-reload", daemon=True)
                thread.start()
        if self.reload_wait > 0:
            thread.join(self.reload_wait)
        with self._lock:
            return self._tools


def _served_tools(ws: Any, *, sources: dict[str, Any], trajectory: TrajectoryLog | None = None,
                  data_tools: bool = False, parent_index: Any = None) -> tuple[OntologyTools, str]:
    """The facade a server answers with for workspace ``ws`` and its manifest: the browse index
    built (or read from ``cache/index``), the table joins compact browse ranks by (``cache/joins``,
    when the version's default answer is compact),
    the value index over the sources that open (``cache/values.sqlite``) and the manifest
    (``cache/manifest``), each written to the workspace cache when it was made here."""
    tools = OntologyTools.for_workspace(ws, sources=sources, trajectory=trajectory, data_tools=data_tools,
                                        parent_index=parent_index)
    built = tools.built  # build the index now, not during the first call
    if built.settings.browse.answer_format != "verbose":
        built.table_joins()  # the joins the default (compact) answer ranks keys and bridge tables by
    tools.value_index = _value_index(ws, tools, sources)
    built.index.warm()  # and the maps browse builds on first use
    from evoonto.tools.browse import abbreviation_words

    abbreviation_words(built.index)  # (the identifier words a query term's abbreviation is looked up in)
    if tools.value_index is not None:
        tools.value_index.warm()
    return tools, _workspace_manifest(ws, tools)


def _keep_store_in_child(path: Path) -> subprocess.Popen[bytes] | None:
    """Keep the persisted store of the big workspace at ``path`` for the next open, in a detached
    process of its own (:meth:`~evoonto.workspace.Workspace.open` in a new session: it parses the
    files and keeps exactly what it parsed, or finds the store kept already). Not a thread of the
    server: an MCP client ends its server with the session (the SDK's stdio client stopped it 3 s
    after its last answer, in the middle of the copy), and a short session would never leave the
    store the next one needs. Returns the process (None when it cannot be started; the next open
    keeps the store then)."""
    import sys

    from evoonto import workspace  # the module's threshold as it is now (tests lower it)

    code = ("import gc, sys; gc.disable(); import evoonto.workspace as w; "
            "w.PERSIST_MIN_BYTES = int(sys.argv[2]); w.Workspace.open(sys.argv[1])")
    try:
        return subprocess.Popen([sys.executable, "-c", code, str(path), str(workspace.PERSIST_MIN_BYTES)],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True, close_fds=True)
    except OSError as exc:
        _LOG.warning("evoonto: could not start keeping the parsed store of %s: %s", path, first_line(exc, 200))
        return None


def prepare_for_serving(ws: Any, *, min_bytes: int | None = None) -> bool:
    """Write into ``ws``'s cache what ``evoonto serve`` needs before its first answer, so a server
    started right after a build answers as fast as one that served the workspace before: the
    persisted store of a big workspace (:meth:`~evoonto.workspace.Workspace.keep_store`), the
    browse index, the table joins, the value index over the workspace's sources and the manifest
    of the default server (no data tools). ``evoonto build`` runs it for a big workspace, in a process of
    its own (:func:`prepare_serve_cache`).

    Args:
        ws: an open :class:`~evoonto.workspace.Workspace` (the store it holds is the one kept).
        min_bytes: size of ``base.trig`` from which the store is kept (default
            :data:`~evoonto.workspace.PERSIST_MIN_BYTES`).
    Returns:
        Whether the store was kept (:meth:`~evoonto.workspace.Workspace.keep_store`); a cache that
        cannot be written is only not kept (nothing is raised for it).
    Raises:
        EvoontoError: the version cannot be indexed (as serving it would fail).
    """
    from evoonto.workspace import source_locations

    kept = ws.keep_store(min_bytes=min_bytes)
    _served_tools(ws, sources=source_locations(ws))  # a source that does not open is served without values
    return kept


def prepare_serve_cache(path: str | os.PathLike, *, min_bytes: int | None = None) -> bool:
    """Open the workspace at ``path`` and prepare its serve cache (:func:`prepare_for_serving`, with
    ``min_bytes``). ``evoonto build`` runs it in a new process.

    Raises:
        WorkspaceError: no workspace at ``path``.
        EvoontoError: the version cannot be indexed.
    """
    from evoonto.workspace import Workspace

    enabled = gc.isenabled()
    gc.disable()  # millions of loaded containers: the collector would only rescan them
    try:
        return prepare_for_serving(Workspace.open(path), min_bytes=min_bytes)
    finally:
        if enabled:
            gc.enable()


#: Manifest files kept in ``<workspace>/cache/manifest`` (the newest; older ones are deleted).
MANIFESTS_KEPT = 4


@functools.lru_cache(maxsize=1)
def _code_stamp() -> str:
    """SHA-256 over every module of the installed evoonto package and its version: a manifest made
    by other code is never reused."""
    from evoonto.version import __version__

    root = Path(__file__).resolve().parent
    digest = hashlib.sha256(f"evoonto {__version__}".encode())
    for file in sorted(root.rglob("*.py")):
        digest.update(f"\0{file.relative_to(root).as_posix()}\0".encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _workspace_manifest(ws: Any, tools: OntologyTools) -> str:
    """The manifest of a workspace's version, read from ``<ws>/cache/manifest/<key>.txt`` or made
    (:meth:`OntologyTools.manifest`: at 70,000 columns it reads the whole catalog, tens of CPU
    seconds) and written there. The key hashes the version's files
    (:meth:`~evoonto.tools.index.IndexCache.for_workspace`), what the manifest is made from besides
    them (data tools, default results, declared tools) and :func:`_code_stamp`. A folder that cannot
    be read or written only costs the making."""
    from evoonto.fileio import atomic_write
    from evoonto.tools.index import IndexCache

    try:
        fingerprint = IndexCache.for_workspace(ws).fingerprint
    except OSError:
        return tools.manifest()
    key = hashlib.sha256(json.dumps([fingerprint, tools.data_tools, tools.settings.browse.default_results,
                                     [t.name for t in tools.declared_tools()], _code_stamp()]).encode())
    folder = Path(ws.path) / "cache" / "manifest"
    file = folder / f"{key.hexdigest()[:32]}.txt"
    try:
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        pass
    text = tools.manifest()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write(file, text.encode("utf-8"))
        for old in sorted(folder.glob("*.txt"), key=lambda f: f.stat().st_mtime_ns, reverse=True)[MANIFESTS_KEPT:]:
            old.unlink(missing_ok=True)
    except (OSError, EvoontoError):
        pass
    return text


def _value_index(ws: Any, tools: OntologyTools, sources: dict[str, Any]) -> Any:
    """The workspace's value index (:func:`evoonto.tools.values.workspace_value_index`: rebuilt only
    when the sources changed) over the sources that open; None without any."""
    from evoonto.tools.values import workspace_value_index

    opened = {}
    for sid in sources:
        try:
            opened[sid] = tools.source(sid)
        except EvoontoError:
            continue
    return workspace_value_index(ws.path, opened) if opened else None


def open_source_pools(locations: list[str]) -> dict[str, Any]:
    """Open read-only sources from paths/URLs; returns ``{source.id: SourcePool}`` (each a
    :class:`~evoonto.tools.pool.SourcePool`, so concurrent sessions get connections of their own).

    Raises:
        SourceError: a source cannot be opened.
    """
    from evoonto.tools.pool import SourcePool

    out = {}
    for location in locations:
        src = SourcePool.open(location)
        out[src.id] = src
    return out


REPORT_OUTCOME = "report_outcome"
_REPORT_FIELDS = ("outcome", "task", "note")
_REPORT_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["outcome"],
    "properties": {
        "outcome": {"type": "string", "enum": ["pass", "fail"],
                    "description": "whether the task's answer was right (as the user confirmed)"},
        "task": {"type": "string", "minLength": 1, "maxLength": 200,
                 "description": "the task id (default: the _meta evoonto/task of this request, else the session)"},
        "note": {"type": "string", "maxLength": 2000, "description": "why, in one or two sentences"},
    },
}


def _request_meta(context: Any) -> tuple[str | None, str | None]:
    """(task, question) a client sent in the ``_meta`` of a ``tools/call`` (``evoonto/task``,
    ``evoonto/question``); (None, None) when absent or not strings."""
    try:
        meta = context.request_context.meta
    except (AttributeError, ValueError, RuntimeError):
        return None, None
    if not isinstance(meta, Mapping):
        return None, None
    task, question = meta.get("evoonto/task"), meta.get("evoonto/question")
    return (task if isinstance(task, str) and task.strip() else None,
            question if isinstance(question, str) and question.strip() else None)


def create_server(target: OntologyTools | str | os.PathLike, *, data_tools: bool = False,
                  trajectory: TrajectoryLog | None = None, sources: dict[str, Any] | None = None,
                  name: str = "evoonto", accept_feedback: bool = False):
    """Build the MCP server.

    The tools listed and called are the :meth:`OntologyTools.registry` of the version served (one
    registry for in-process and MCP use): input schemas with enums, bounds and per-property
    descriptions, unknown arguments refused, errors as one line prefixed once with the tool name,
    results as JSON text and as ``structuredContent`` matching the tool's output schema. Every
    call runs in a worker thread (``anyio.to_thread.run_sync``), so a slow resolve never blocks
    the event loop and other sessions. The server subclasses ``MCPServer`` through its public
    ``list_tools``/``call_tool`` methods and keeps the ``initialize`` instructions equal to the
    current manifest with a ``ServerMiddleware`` (no private SDK attribute is written).

    Args:
        target: an :class:`OntologyTools` (served as is) or a workspace directory (served with reload).
        data_tools: also expose list_tables / describe_table / run_sql (read-only).
        trajectory: the call log (default: the facade's, or ``<ws>/trajectories/<session>.jsonl``).
        sources: for a workspace: source id -> Source or path/URL (declared SQL and data tools).
        name: the server name announced to clients.
        accept_feedback: also serve ``report_outcome`` (a workspace target only), which appends the
            client's pass/fail verdict of a task to ``<ws>/feedback.jsonl``.
    Returns:
        an ``mcp.server.mcpserver.MCPServer`` (``.run("stdio")``, ``.run("streamable-http", ...)``,
        or pass it to ``mcp.Client`` in-process); its ``evoonto_provider`` attribute is the
        :class:`ToolsProvider`.
    Raises:
        WorkspaceError: the workspace is missing or malformed.
        ConfigurationError: ``accept_feedback`` with an in-process facade (no workspace to keep it).
    """
    import anyio
    from mcp.server.mcpserver import MCPServer
    from mcp_types import CallToolResult, ContentBlock, TextContent, ToolAnnotations
    from mcp_types import Tool as MCPTool

    from evoonto.version import __version__

    if isinstance(target, OntologyTools):
        provider = ToolsProvider(target, data_tools=data_tools, trajectory=trajectory)
    else:
        if not Path(target).is_dir():
            raise WorkspaceError(f"no workspace at {target} (run 'evoonto init' or 'evoonto build' first)")
        provider = ToolsProvider(workspace=target, data_tools=data_tools, trajectory=trajectory, sources=sources)
    if accept_feedback and provider.workspace is None:
        from evoonto.errors import ConfigurationError

        raise ConfigurationError("accept_feedback needs a workspace to keep the feedback in")

    def current_manifest() -> str:
        """The manifest of the version served (computed once per loaded version)."""
        return provider.manifest(provider.tools)

    def listed() -> list[MCPTool]:
        out = [MCPTool(name=spec.name, description=spec.description, input_schema=spec.input_schema,
                       output_schema=spec.output_schema,
                       annotations=ToolAnnotations.model_validate(spec.annotations()))
               for spec in provider.tools.registry().values() if spec.listed]
        if accept_feedback:
            out.append(MCPTool(name=REPORT_OUTCOME, input_schema=_REPORT_SCHEMA,
                               description="Record whether a task's answer was right (pass/fail), as the user "
                                           "confirmed it; evoonto learns from these outcomes offline.",
                               annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                                           idempotent_hint=True, open_world_hint=False)))
        return out

    def report(arguments: Any, log: TrajectoryLog | None, task: str | None) -> CallToolResult:
        """Validate and store one ``report_outcome`` call (appended to the trajectory as well)."""
        from evoonto.evolution.outcomes import record_feedback

        args = arguments if isinstance(arguments, dict) else {}
        unknown = sorted(set(args) - set(_REPORT_FIELDS))
        outcome, note = args.get("outcome"), args.get("note", "")
        chosen = args.get("task") or task or (log.session if log is not None else None)
        if unknown or outcome not in ("pass", "fail") or not isinstance(note, str) or not isinstance(chosen, str):
            why = (f"unknown argument(s) {', '.join(unknown)}" if unknown else
                   "outcome must be 'pass' or 'fail'" if outcome not in ("pass", "fail") else
                   "note and task must be strings")
            return CallToolResult(content=[TextContent(type="text", text=f"{REPORT_OUTCOME}: {why}")], is_error=True)
        try:
            stored = record_feedback(provider.workspace or ".", chosen, outcome == "pass", note=note,
                                     source="report_outcome")
        except (EvoontoError, OSError) as exc:
            return CallToolResult(content=[TextContent(type="text", text=f"{REPORT_OUTCOME}: {first_line(exc, 300)}")],
                                  is_error=True)
        if log is not None:
            log.append(ToolEvent.from_call(REPORT_OUTCOME, args, {"task": stored.task, "passed": stored.passed},
                                           version=provider.tools.version))
        return CallToolResult(content=[TextContent(type="text", text=f"recorded {outcome} for task {stored.task}")])

    def call(tool: str, arguments: Any, connection: str | None, meta: tuple = (None, None)) -> CallToolResult:
        base_log = provider.trajectory_for(connection)
        log = base_log.for_task(*meta) if base_log is not None else None
        if accept_feedback and tool == REPORT_OUTCOME:
            return report(arguments, log, meta[0])
        tools = provider.tools
        spec = tools.registry().get(tool)
        if spec is not None and not spec.listed:
            spec = None  # the manifest is the instructions and a resource, not a tool
        try:
            if spec is None:
                raise ToolArgumentError(f"unknown tool {str(tool)[:60]!r}; available: "
                                        + ", ".join(s.name for s in tools.registry().values() if s.listed))
            result = tools.call(tool, arguments, trajectory=log)
        except EvoontoError as exc:  # logged by OntologyTools.call (an unknown tool is logged here)
            if spec is None:
                if log is not None:
                    log.append(ToolEvent.from_call(str(tool)[:100], arguments, error=str(exc), version=tools.version))
                text = first_line(exc, 500)
            else:
                text = error_text(tool, first_line(exc, 500))
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        except Exception as exc:  # logged by OntologyTools.call as an internal error
            # one line on stderr; the traceback (195 KB for a deeply nested statement) only at debug level
            _LOG.error("tool %r failed: %s: %s", str(tool)[:100], type(exc).__name__, first_line(exc, 300))
            _LOG.debug("tool %r failed", str(tool)[:100], exc_info=True)
            return CallToolResult(content=[TextContent(type="text", text=f"{tool}: internal error "
                                                       f"({type(exc).__name__})")], is_error=True)
        content: list[ContentBlock] = [TextContent(type="text", text=to_text(result))]
        hint = spec.hint(result)
        if hint:
            content.append(TextContent(type="text", text=f"hint: {hint}"))
        return CallToolResult(content=content, structured_content=spec.structured(result))

    class _EvoontoServer(MCPServer):
        """Lists and calls the tools of the version served (reloaded first when the workspace
        changed), each call in a worker thread."""

        evoonto_provider: ToolsProvider
        http_access: tuple[Any, str | None] | None = None  # (TransportSecuritySettings, token)

        def configure_http(self, host: str, *, allow_hosts: list[str] | tuple[str, ...] = (),
                           allow_origins: list[str] | tuple[str, ...] = (), token: str | None = None) -> None:
            """Set the Host/Origin allow-lists (:func:`http_security`) and the bearer token
            (:class:`BearerTokenMiddleware`) of :meth:`streamable_http_app`.

            Raises:
                ConfigurationError: a non-loopback ``host`` without ``allow_hosts`` or ``token``.
            """
            security = http_security(host, allow_hosts=allow_hosts, allow_origins=allow_origins, token=token)
            self.http_access = (security, token)

        def streamable_http_app(self, **kwargs: Any) -> Any:
            """The SDK's streamable HTTP app with the Host/Origin checks always on (those of
            :meth:`configure_http`, else the loopback defaults; a non-loopback ``host`` that was not
            configured is refused) and, with a token, :class:`BearerTokenMiddleware` in front."""
            security, token = self.http_access or (http_security(str(kwargs.get("host", "127.0.0.1"))), None)
            app = super().streamable_http_app(**{**kwargs, "transport_security": security})
            if token:
                app.add_middleware(BearerTokenMiddleware, token=token)
            return app

        async def list_tools(self) -> list[MCPTool]:
            return await anyio.to_thread.run_sync(listed)

        async def call_tool(self, name, arguments, context=None):
            result = await anyio.to_thread.run_sync(call, name, arguments, _session_id(context),
                                                    _request_meta(context))
            provider.answered()  # the first answer starts the collection the first load deferred
            return result

    async def instructions_middleware(ctx: Any, call_next: Callable) -> Any:
        """Sessions opened after a reload get the manifest of the version they are served."""
        result = await call_next(ctx)
        if ctx.method in ("initialize", "server/discover") and isinstance(result, dict) and "instructions" in result:
            result = {**result, "instructions": await anyio.to_thread.run_sync(current_manifest)}
        return result

    server = _EvoontoServer(name, instructions=current_manifest(), version=__version__,
                            middleware=[instructions_middleware])
    server.evoonto_provider = provider

    @server.resource(MANIFEST_URI, name="manifest", mime_type="text/plain",
                     description="How to use this ontology layer (the same text as the server instructions).")
    async def manifest() -> str:
        return await anyio.to_thread.run_sync(lambda: provider.tools.call("manifest", {}))

    return server


def _session_id(context: Any) -> str | None:
    """The ``mcp-session-id`` of a tool call's HTTP connection (handshake-era streamable HTTP); None
    on stdio, in-process and stateless (2026-07-28) HTTP, whose requests carry no connection id."""
    from starlette.requests import Request  # what the SDK's HTTP transports attach to a request

    try:
        request = context.request_context.request
    except (AttributeError, ValueError, RuntimeError):
        return None
    if not isinstance(request, Request):  # stdio / in-process: no HTTP request, one client
        return None
    return request.headers.get("mcp-session-id")


# -- stdio: every line gets an answer -------------------------------------------------------------

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def stdio_rejection(line: bytes) -> bytes | None:
    """The JSON-RPC error line answering ``line`` when the SDK's parser refuses it, else None.

    The SDK's stdio transport drops a line it cannot parse (invalid JSON, a lone surrogate escape,
    a non-message) without an answer, and the client waits forever. The answer is a parse error
    (-32700) or an invalid request (-32600) whose id is the request's own when a lenient parse
    (Python's ``json``) finds one, else null (JSON-RPC 2.0 §5.1). Blank lines get no answer. A
    request whose ``id`` is neither a string nor an integer (see :func:`_invalid_request_id`) is an
    invalid request too; JSON nested deeper than the parsers follow is a parse error.
    """
    import json

    import pydantic
    from mcp_types import jsonrpc_message_adapter

    text = line.decode("utf-8", errors="replace").strip()  # as the SDK decodes stdin
    if not text:
        return None
    try:
        jsonrpc_message_adapter.validate_json(text, by_name=False)
        bad_id = _invalid_request_id(text)
        if bad_id is None:
            return None
        raise ValueError(bad_id)
    except Exception as exc:  # the SDK drops the line on any exception; a ValidationError lists why
        errors = list(exc.errors(include_url=False)) if isinstance(exc, pydantic.ValidationError) else []
        parse = bool(errors) and errors[0].get("type") == "json_invalid"
        reason = str(errors[0].get("msg", "")) if errors else first_line(exc, 200)
    ident: Any = None
    try:
        value = json.loads(text)
        candidate = value.get("id") if isinstance(value, dict) else None
        if isinstance(candidate, (str, int)) and not isinstance(candidate, bool):
            ident = candidate
    except (ValueError, RecursionError):  # RecursionError: nested deeper than Python's parser follows
        pass
    code = PARSE_ERROR if parse else INVALID_REQUEST
    message = ("Parse error: " if parse else "Invalid Request: ") + (reason.strip().splitlines() or [""])[0][:200]
    answer = {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}
    return (json.dumps(answer, ensure_ascii=True) + "\n").encode("ascii")


def _invalid_request_id(text: str) -> str | None:
    """Why a message the SDK's parser accepts still cannot be answered, else None: a message with a
    ``method`` whose ``id`` is present but neither a string nor an integer (an object, a list, a
    float, a boolean, null) is read by the SDK as a notification and gets no answer, though the
    client waits for one (MCP: a request id is a string or an integer)."""
    import json

    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict) or "method" not in value or "id" not in value:
        return None
    ident = value["id"]
    if isinstance(ident, (str, int)) and not isinstance(ident, bool):
        return None
    return f"id must be a string or an integer, got {'null' if ident is None else type(ident).__name__}"


#: Longest stdio line read, in bytes; a longer line is skipped to its end and answered with an error.
MAX_STDIO_LINE_BYTES = 64 * 1024 * 1024


def _stdio_lines(source: Any, limit: int = MAX_STDIO_LINE_BYTES) -> Any:
    """The lines of the binary stream ``source``, each at most ``limit`` bytes; a longer line is read
    to its end in pieces (never held whole) and yielded as ``None``."""
    while True:
        line = source.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while True:  # skip the rest of the oversized line
                rest = source.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line


def _line_answer(line: bytes | None) -> bytes | None:
    """:func:`stdio_rejection` of one line, made total: an oversized line (``None``) or a failure of
    the check itself is answered with an invalid-request / parse error (id null) instead of ending
    the stdin thread."""
    import json

    if line is None:
        reason = f"Invalid Request: line longer than {MAX_STDIO_LINE_BYTES:,} bytes"
        code = INVALID_REQUEST
    else:
        try:
            return stdio_rejection(line)
        except Exception as exc:  # noqa: BLE001 - one hostile line must not stop the server
            _LOG.debug("stdio line check failed", exc_info=True)
            reason, code = f"Parse error: {first_line(exc, 200)}", PARSE_ERROR
    answer = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": reason}}
    return (json.dumps(answer, ensure_ascii=True) + "\n").encode("ascii")


def run_stdio(server: Any) -> None:
    """Run ``server`` over the process's stdin/stdout, answering refused lines (see
    :func:`stdio_rejection`) instead of dropping them.

    The SDK's own stdio transport (``server.run("stdio")``) serves two pipes put in place of fds
    0 and 1; one thread copies stdin lines to it (or answers a refused line itself), another
    copies its output lines to the real stdout, so the two writers never interleave inside a line.
    Falls back to ``server.run("stdio")`` when fds 0/1 cannot be redirected.
    """
    import select
    import sys

    try:
        sys.stdout.flush()
        real_in, real_out, saved_in = os.dup(0), os.dup(1), os.dup(0)
    except (OSError, ValueError):
        server.run("stdio")
        return
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    out_lock = threading.Lock()
    stop = threading.Event()

    def write_out(data: bytes) -> None:
        with out_lock:
            view = memoryview(data)
            while view:
                view = view[os.write(real_out, view):]

    def pump_in() -> None:
        try:
            # this thread owns real_in (a duplicate of the real stdin) and closes it when done, so
            # the descriptor is never closed (and its number reused) under a blocked read
            with os.fdopen(real_in, "rb") as source, os.fdopen(w_in, "wb") as sink:
                for line in _stdio_lines(source):
                    rejection = _line_answer(line)
                    if rejection is not None:
                        write_out(rejection)
                    elif line is not None and line.strip():
                        sink.write(line if line.endswith(b"\n") else line + b"\n")
                        sink.flush()
        except (OSError, ValueError):  # the server went away: nothing more to forward
            pass

    def pump_out() -> None:
        pending = b""
        while True:
            ready, _, _ = select.select([r_out], [], [], 0.05)
            if not ready:
                if stop.is_set():
                    break
                continue
            chunk = os.read(r_out, 65536)
            if not chunk:
                break
            pending += chunk
            if b"\n" in pending:
                lines, _, pending = pending.rpartition(b"\n")
                write_out(lines + b"\n")
        if pending:
            write_out(pending)

    os.dup2(r_in, 0)
    os.dup2(w_out, 1)
    os.close(r_in)
    os.close(w_out)
    reader = threading.Thread(target=pump_in, name="evoonto-stdin", daemon=True)
    writer = threading.Thread(target=pump_out, name="evoonto-stdout", daemon=True)
    reader.start()
    writer.start()
    try:
        server.run("stdio")
    finally:
        stop.set()
        writer.join(timeout=5)
        os.dup2(saved_in, 0)
        os.dup2(real_out, 1)
        os.close(saved_in)
        if not writer.is_alive():  # else the writer still uses them (the process is ending anyway)
            os.close(real_out)
            os.close(r_out)


# -- HTTP access: Host/Origin allow-lists and a bearer token -------------------------------------

#: Environment variable holding the bearer token (``--token-file`` takes precedence).
TOKEN_ENV = "EVOONTO_MCP_TOKEN"
#: Shortest bearer token accepted, in characters.
MIN_TOKEN_CHARS = 16
_LOOPBACK_NAMES = {"localhost", "ip6-localhost"}


def is_loopback(host: str) -> bool:
    """True when ``host`` (a bind address) is a loopback address or ``localhost``."""
    import ipaddress

    name = host.strip("[]").lower()
    if name in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def read_token(token_file: str | os.PathLike | None = None, environ: Mapping[str, str] | None = None) -> str | None:
    """The bearer token: the first line of ``token_file``, else ``$EVOONTO_MCP_TOKEN``, else None.

    Raises:
        ConfigurationError: the file cannot be read, or the token is shorter than 16 characters
            or contains whitespace.
    """
    from evoonto.errors import ConfigurationError

    environ = os.environ if environ is None else environ
    if token_file is not None:
        try:
            lines = Path(token_file).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigurationError(f"cannot read --token-file {token_file}: {first_line(exc, 200)}") from None
        token, origin = (lines[0].strip() if lines else ""), f"--token-file {token_file}"
    elif environ.get(TOKEN_ENV):
        token, origin = environ[TOKEN_ENV].strip(), f"${TOKEN_ENV}"
    else:
        return None
    if len(token) < MIN_TOKEN_CHARS or any(ch.isspace() for ch in token):
        raise ConfigurationError(f"the bearer token in {origin} must be at least {MIN_TOKEN_CHARS} characters "
                                 "without spaces (python -c 'import secrets; print(secrets.token_urlsafe())')")
    return token


def _with_any_port(entries: list[str] | tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for entry in entries:
        entry = entry.strip()
        if not entry:
            continue
        out.append(entry)
        if not entry.endswith(":*") and not re.search(r":\d+$", entry):
            out.append(entry + ":*")  # the same host on any port
    return out


def http_security(host: str, *, allow_hosts: list[str] | tuple[str, ...] = (),
                  allow_origins: list[str] | tuple[str, ...] = (), token: str | None = None):
    """The ``TransportSecuritySettings`` (Host/Origin checks, always on) for serving on ``host``.

    On a loopback address the loopback names are allowed (as the SDK does) plus ``allow_hosts`` /
    ``allow_origins``. Any other bind address needs an explicit Host allow-list AND a bearer token.

    Args:
        host: the bind address.
        allow_hosts: Host header values accepted (``name``, ``name:port`` or ``name:*``; a name
            without port is accepted on any port).
        allow_origins: Origin header values accepted (``https://app.example``); requests without an
            Origin header (non-browser clients) are not affected.
        token: the bearer token that will be required (only checked for presence here).
    Raises:
        ConfigurationError: a non-loopback ``host`` without ``allow_hosts`` or without ``token``.
    """
    from mcp.server.transport_security import TransportSecuritySettings

    from evoonto.errors import ConfigurationError

    hosts, origins = _with_any_port(allow_hosts), _with_any_port(allow_origins)
    if is_loopback(host):
        hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]", *hosts]
        origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*", *origins]
    else:
        missing = ([] if hosts else ["--allow-host NAME[:PORT] (the Host clients will use)"]) + (
            [] if token else [f"a bearer token (--token-file FILE or ${TOKEN_ENV})"])
        if missing:
            raise ConfigurationError(f"serving on non-loopback address {host} needs " + " and ".join(missing)
                                     + "; or bind to 127.0.0.1")
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=origins)


class BearerTokenMiddleware:
    """ASGI middleware: HTTP requests must carry ``Authorization: Bearer <token>``, else 401.

    Args:
        app: the ASGI application to protect (lifespan and other non-HTTP scopes pass through).
        token: the expected token (compared in constant time).
    """

    def __init__(self, app: Any, token: str):
        self.app = app
        self._expected = token.encode("utf-8")

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        import hmac

        supplied = b""
        for name, value in scope.get("headers") or ():
            if name.lower() == b"authorization":
                scheme, _, credential = value.partition(b" ")
                if scheme.lower() == b"bearer":
                    supplied = credential.strip()
                break
        if supplied and hmac.compare_digest(supplied, self._expected):
            await self.app(scope, receive, send)
            return
        body = b'{"error": "unauthorized: send Authorization: Bearer <token>"}'
        await send({"type": "http.response.start", "status": 401,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"www-authenticate", b'Bearer realm="evoonto"')]})
        await send({"type": "http.response.body", "body": body})


def serve(workspace: str | os.PathLike, *, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765,
          data_tools: bool = False, session: str | None = None, trajectory_file: str | None = None,
          sources: list[str] | tuple[str, ...] = (), allow_hosts: list[str] | tuple[str, ...] = (),
          allow_origins: list[str] | tuple[str, ...] = (), token_file: str | None = None,
          accept_feedback: bool = False) -> None:
    """Serve a workspace until interrupted (``transport`` = ``stdio`` or ``http``). Over HTTP one
    line naming the URL (``http://HOST:PORT/mcp``) goes to stderr first; stdio prints nothing.

    ``sources`` are paths/URLs of the data sources (for ``data_tools`` and declared SQL tools),
    added to those recorded in the workspace settings. ``accept_feedback`` serves ``report_outcome``
    (see :func:`create_server`). Over HTTP the Host/Origin checks are always
    on; a non-loopback ``host`` needs ``allow_hosts`` and a bearer token (``token_file`` or
    ``$EVOONTO_MCP_TOKEN``), which every request must then send (see ``configure_http`` of the server
    :func:`create_server` returns). On stdio a
    line that is not JSON-RPC gets a JSON-RPC error answer (see :func:`run_stdio`).

    Raises:
        WorkspaceError: no workspace; ConfigurationError: unknown transport, or a non-loopback
        host without allow-list or token, or an unreadable/short token.
    """
    from evoonto.errors import ConfigurationError

    if transport not in ("stdio", "http"):
        raise ConfigurationError(f"unknown transport {transport!r}; use stdio or http")
    token = read_token(token_file) if transport == "http" else None
    if transport == "http":  # refuse before loading anything
        http_security(host, allow_hosts=allow_hosts, allow_origins=allow_origins, token=token)
    log = (TrajectoryLog(trajectory_file, session=session) if trajectory_file
           else TrajectoryLog.for_workspace(workspace, session=session))
    server = create_server(workspace, data_tools=data_tools, trajectory=log, sources=open_source_pools(list(sources)),
                           accept_feedback=accept_feedback)
    if transport == "stdio":
        run_stdio(server)
        return
    import sys

    server.configure_http(host, allow_hosts=allow_hosts, allow_origins=allow_origins, token=token)
    server.settings.log_level = "WARNING"
    shown = f"[{host}]" if ":" in host else host  # an IPv6 address in a URL (RFC 3986 §3.2.2)
    print(f"evoonto: serving MCP over streamable HTTP at http://{shown}:{port}/mcp"
          + (" (bearer token required)" if token else "") + " (Ctrl-C to stop)", file=sys.stderr, flush=True)
    server.run("streamable-http", host=host, port=port, streamable_http_path="/mcp")


__all__ = ["create_server", "serve", "ToolsProvider", "MANIFEST_URI", "http_security",
           "BearerTokenMiddleware", "read_token", "is_loopback", "run_stdio", "TOKEN_ENV"]
