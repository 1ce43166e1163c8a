"""The evoonto MCP server (official ``mcp`` SDK, ``MCPServer``), over stdio or streamable HTTP.

What the agent gets (paper §3, Tool layer R; DESIGN.md §5):

- the manifest as the server ``instructions`` and as the resource ``evoonto://manifest``;
- tools ``browse`` and ``resolve``, the declared tools of the ``tools`` graph, and with
  ``data_tools=True`` the raw read-only ``list_tables``, ``describe_table`` and ``run_sql``.

No admin operation (commit, evolve, rollback, update) is exposed. Every call goes through
:meth:`evoonto.tools.OntologyTools.call`, so it is appended to the trajectory log. A server over a
workspace notices when the workspace's active version changes (cheap directory ``stat`` before each
call, then the version number) and reloads the ontology, the manifest and the declared tools.

Run it with ``evoonto serve --workspace PATH [--transport stdio|http] [--data-tools]`` or::

    server = create_server(workspace_path)          # or create_server(OntologyTools(onto))
    server.run("stdio")
"""

from __future__ import annotations

import contextvars
import inspect
import os
import re
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from evoonto.errors import EvoontoError, WorkspaceError, first_line
from evoonto.tools.toolkit import OntologyTools, to_text
from evoonto.tools.trajectory import TrajectoryLog

MANIFEST_URI = "evoonto://manifest"
#: The transport session id of the MCP connection whose call is running (None on stdio).
_CONNECTION: contextvars.ContextVar[str | None] = contextvars.ContextVar("evoonto_connection", default=None)
_PY_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool}
# Workspace subfolders written while serving: changes there are not a new version.
_VOLATILE = {"trajectories", "runs", "tmp", ".lock"}

BROWSE_DOC = """Find ontology records for a phrase, identifier or data value.

q: words of the question, a column name (snake_case/camelCase ok) or a value such as 'Banned'.
kind: term (default), mapping, constraint, evidence, relation or any.
n: number of results (default 5).
Returns JSON [{id, kind, label, snippet, score}]; pass ids to resolve."""

RESOLVE_DOC = """Expand records by id: a Term with its mappings (table, column, filter, aggregation,
join path), relations (other end labelled), constraints (on the term and its mappings) and evidence
(value distribution, samples, probe query).

ids: ids from browse (at most 50). expand: subset of mappings, relations, constraints, evidence.
depth: 0 (record only), 1 (default) or 2 (also the mappings of related terms).
Returns JSON {records, errors, truncated}; unknown ids are listed in errors."""


class ToolsProvider:
    """The :class:`OntologyTools` currently served: fixed, or the workspace's active version.

    Args:
        tools: a fixed facade (in-process use, tests, the evaluation harness), or None.
        workspace: workspace directory to serve (reloaded when its active version changes).
        data_tools: serve the raw data tools.
        trajectory: the trajectory log (default for a workspace: ``<ws>/trajectories/<session>.jsonl``).
        sources: source id -> open Source or path/URL, added to those in the workspace settings.
    Raises:
        WorkspaceError: the workspace is missing or malformed.
    """

    def __init__(self, tools: OntologyTools | None = None, *, workspace: str | os.PathLike | None = None,
                 data_tools: bool = False, trajectory: TrajectoryLog | None = None,
                 sources: dict[str, Any] | None = None):
        if (tools is None) == (workspace is None):
            raise ValueError("give exactly one of tools or workspace")
        self.workspace = Path(workspace) if workspace is not None else None
        self.data_tools = data_tools
        self.sources = dict(sources or {})
        self._lock = threading.Lock()
        self._stamp: tuple | None = None
        self.reloads = 0
        if tools is not None:
            tools.data_tools = tools.data_tools or data_tools
            if trajectory is not None:
                tools.trajectory = trajectory
            self.trajectory = tools.trajectory
            self._tools = tools
        else:
            self.trajectory = trajectory or TrajectoryLog.for_workspace(self.workspace)
            self._tools = self._load()
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
        entries = [self.workspace]
        try:
            entries += sorted(p for p in self.workspace.iterdir() if p.name not in _VOLATILE)
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

    def _load(self) -> OntologyTools:
        from evoonto.workspace import Workspace

        self._stamp = self._stat()
        ws = Workspace.open(self.workspace)
        sources = {**_workspace_sources(ws), **self.sources}
        tools = OntologyTools(ws.ontology, version=ws.version, base_iri=getattr(ws, "base_iri", None),
                              sources=sources, trajectory=self.trajectory, data_tools=self.data_tools)
        tools.built  # build the index now, not during the first call
        return tools

    @property
    def tools(self) -> OntologyTools:
        """The facade of the active version (reloaded first if the workspace changed)."""
        if self.workspace is None:
            return self._tools
        with self._lock:
            stamp = self._stat()
            if stamp != self._stamp:
                from evoonto.workspace import Workspace

                try:
                    version = Workspace.open(self.workspace).version
                except EvoontoError:  # mid-commit or broken: keep serving the loaded version
                    return self._tools
                if version != self._tools.version:
                    old, self._tools = self._tools, self._load()
                    old.close()
                    self.reloads += 1
                    for listener in self.listeners:
                        listener(self._tools)
                else:
                    self._stamp = stamp
            return self._tools


def _workspace_sources(ws: Any) -> dict[str, Any]:
    """Source id -> path/URL recorded in the workspace settings (``settings["sources"]``), if any.

    Accepted shapes: ``{"id": "path"}``, ``["path", ...]`` (ids are the file stems, as
    :func:`evoonto.sources.open_source` derives them) or ``[{"id":…, "url"|"path":…}]``.
    """
    value = getattr(ws, "settings", {}).get("sources") if isinstance(getattr(ws, "settings", None), dict) else None
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    out: dict[str, Any] = {}
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict) and "id" in item:
            out[str(item["id"])] = item.get("url") or item.get("path")
        elif isinstance(item, str):
            out[Path(item).stem if "://" not in item else item.rsplit("/", 1)[-1]] = item
    return out


def open_sources(locations: list[str]) -> dict[str, Any]:
    """Open read-only sources from paths/URLs; returns ``{source.id: Source}``.

    Raises:
        SourceError: a source cannot be opened.
    """
    from evoonto.sources import open_source

    out = {}
    for location in locations:
        src = open_source(location)
        out[src.id] = src
    return out


def create_server(target: OntologyTools | str | os.PathLike, *, data_tools: bool = False,
                  trajectory: TrajectoryLog | None = None, sources: dict[str, Any] | None = None,
                  name: str = "evoonto"):
    """Build the MCP server.

    Args:
        target: an :class:`OntologyTools` (served as is) or a workspace directory (served with reload).
        data_tools: also expose list_tables / describe_table / run_sql (read-only).
        trajectory: the call log (default: the facade's, or ``<ws>/trajectories/<session>.jsonl``).
        sources: for a workspace: source id -> Source or path/URL (declared SQL and data tools).
        name: the server name announced to clients.
    Returns:
        an ``mcp.server.mcpserver.MCPServer`` (``.run("stdio")``, ``.run("streamable-http", ...)``,
        or pass it to ``mcp.Client`` in-process); its ``evoonto_provider`` attribute is the
        :class:`ToolsProvider`.
    Raises:
        WorkspaceError: the workspace is missing or malformed.
    """
    import anyio
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import ToolAnnotations

    from evoonto import __version__

    if isinstance(target, OntologyTools):
        provider = ToolsProvider(target, data_tools=data_tools, trajectory=trajectory)
    else:
        if not Path(target).is_dir():
            raise WorkspaceError(f"no workspace at {target} (run 'evoonto init' or 'evoonto build' first)")
        provider = ToolsProvider(workspace=target, data_tools=data_tools, trajectory=trajectory, sources=sources)

    class _LoggingServer(MCPServer):
        """Reloads a changed workspace before listing or calling tools (so declared tools added by
        a new version are callable at once), and logs calls the SDK rejects before they reach a
        tool (schema errors, unknown tools)."""

        async def list_tools(self):
            provider.tools  # noqa: B018 - reload check
            return await super().list_tools()

        async def call_tool(self, name, arguments, context=None):
            started = datetime.now(timezone.utc)
            t0 = time.perf_counter()
            provider.tools  # noqa: B018 - reload check
            token = _CONNECTION.set(_session_id(context))
            try:
                return await super().call_tool(name, arguments, context)
            except ToolError as exc:
                logged = any(getattr(e, "evoonto_logged", False) for e in (exc, exc.__cause__))
                log = provider.trajectory_for(_CONNECTION.get())
                if not logged and log is not None:
                    log.record(
                        tool=str(name)[:100], arguments=arguments, version=provider.tools.version, result_size=0,
                        latency_ms=(time.perf_counter() - t0) * 1000.0, error=first_line(exc, 500),
                        started=started)
                raise
            finally:
                _CONNECTION.reset(token)

    server = _LoggingServer(name, instructions=provider.tools.manifest(), version=__version__)
    server.evoonto_provider = provider
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)

    def invoke(tool: str, arguments: dict[str, Any]) -> str:
        try:
            log = provider.trajectory_for(_CONNECTION.get())
            return to_text(provider.tools.call(tool, arguments, trajectory=log))
        except EvoontoError as exc:
            error = ToolError(str(exc))
            error.evoonto_logged = True  # OntologyTools.call has logged it
            raise error from None
        except Exception as exc:  # logged by OntologyTools.call as an internal error
            exc.evoonto_logged = True
            raise

    async def browse(q: str, kind: str = "term", n: int | None = None) -> str:
        args: dict[str, Any] = {"q": q, "kind": kind}
        if n is not None:
            args["n"] = n
        return invoke("browse", args)

    async def resolve(ids: list[str], expand: list[str] | None = None, depth: int = 1) -> str:
        args: dict[str, Any] = {"ids": ids, "depth": depth}
        if expand is not None:
            args["expand"] = expand
        return invoke("resolve", args)

    server.add_tool(browse, name="browse", description=BROWSE_DOC, annotations=read_only, structured_output=False)
    server.add_tool(resolve, name="resolve", description=RESOLVE_DOC, annotations=read_only,
                    structured_output=False)

    if provider.data_tools:
        async def list_tables() -> str:
            return await anyio.to_thread.run_sync(invoke, "list_tables", {})

        async def describe_table(table: str, source: str | None = None) -> str:
            args = {"table": table, **({"source": source} if source is not None else {})}
            return await anyio.to_thread.run_sync(invoke, "describe_table", args)

        async def run_sql(sql: str, source: str | None = None, limit: int = 50) -> str:
            args = {"sql": sql, "limit": limit, **({"source": source} if source is not None else {})}
            return await anyio.to_thread.run_sync(invoke, "run_sql", args)

        server.add_tool(list_tables, name="list_tables", annotations=read_only, structured_output=False,
                        description="Tables of the data sources: JSON [{source, table, rows, columns}].")
        server.add_tool(describe_table, name="describe_table", annotations=read_only, structured_output=False,
                        description="Columns (name, type, pk) and foreign keys of one table.")
        server.add_tool(run_sql, name="run_sql", annotations=read_only, structured_output=False,
                        description="Run one read-only SELECT/WITH statement; JSON {columns, rows, truncated}.")

    declared_names: list[str] = []

    def register_declared(tools: OntologyTools) -> None:
        for old in declared_names:
            server.remove_tool(old)
        declared_names.clear()
        for decl in tools.declared_tools():
            server.add_tool(_declared_function(decl, invoke), name=decl.name, description=decl.description,
                            annotations=read_only, structured_output=False)
            declared_names.append(decl.name)

    def on_reload(tools: OntologyTools) -> None:
        register_declared(tools)
        server._lowlevel_server.instructions = tools.manifest()  # sent to sessions opened from now on

    register_declared(provider.tools)
    provider.listeners.append(on_reload)

    @server.resource(MANIFEST_URI, name="manifest", mime_type="text/plain",
                     description="How to use this ontology layer (the same text as the server instructions).")
    def manifest() -> str:
        return provider.tools.call("manifest", {})

    return server


def _session_id(context: Any) -> str | None:
    """The ``mcp-session-id`` of a tool call's HTTP connection (handshake-era streamable HTTP); None
    on stdio, in-process and stateless (2026-07-28) HTTP, whose requests carry no connection id."""
    try:
        request_context = context.request_context
    except (AttributeError, ValueError, RuntimeError):
        return None
    if getattr(request_context, "request", None) is None:  # stdio / in-process: one client
        return None
    headers = getattr(request_context.request, "headers", None) or {}
    return headers.get("mcp-session-id")


def _declared_function(decl: Any, invoke: Callable[[str, dict], str]) -> Callable:
    """An async function whose signature is the declared tool's parameters (the SDK derives the schema)."""
    import anyio

    async def run(**kwargs: Any) -> str:
        return await anyio.to_thread.run_sync(invoke, decl.name, kwargs)

    run.__signature__ = inspect.Signature(
        [inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, annotation=_PY_TYPES[p.type])
         for p in decl.parameters],
        return_annotation=str,
    )
    run.__name__ = decl.name
    run.__doc__ = decl.description
    return run


def serve(workspace: str | os.PathLike, *, transport: str = "stdio", host: str = "127.0.0.1", port: int = 8765,
          data_tools: bool = False, session: str | None = None, trajectory_file: str | None = None,
          sources: list[str] = ()) -> None:
    """Serve a workspace until interrupted (``transport`` = ``stdio`` or ``http``). Over HTTP one
    line naming the URL (``http://HOST:PORT/mcp``) goes to stderr first; stdio prints nothing.

    ``sources`` are paths/URLs of the data sources (for ``data_tools`` and declared SQL tools),
    added to those recorded in the workspace settings.

    Raises:
        WorkspaceError: no workspace; ConfigurationError: unknown transport.
    """
    from evoonto.errors import ConfigurationError

    log = (TrajectoryLog(trajectory_file, session=session) if trajectory_file
           else TrajectoryLog.for_workspace(workspace, session=session))
    server = create_server(workspace, data_tools=data_tools, trajectory=log, sources=open_sources(list(sources)))
    if transport == "stdio":
        server.run("stdio")
    elif transport == "http":
        server.settings.log_level = "WARNING"
        import sys

        shown = f"[{host}]" if ":" in host else host  # an IPv6 address in a URL (RFC 3986 §3.2.2)
        print(f"evoonto: serving MCP over streamable HTTP at http://{shown}:{port}/mcp (Ctrl-C to stop)",
              file=sys.stderr, flush=True)
        server.run("streamable-http", host=host, port=port, streamable_http_path="/mcp")
    else:
        raise ConfigurationError(f"unknown transport {transport!r}; use stdio or http")


__all__ = ["create_server", "serve", "ToolsProvider", "MANIFEST_URI"]
