"""The evoonto MCP server (official ``mcp`` SDK, ``MCPServer``), over stdio or streamable HTTP.

What the agent gets (paper §3, Tool layer R; DESIGN.md §5):

- the manifest as the server ``instructions`` and as the resource ``evoonto://manifest``;
- tools ``browse`` and ``resolve``, the declared tools of the ``tools`` graph, and with
  ``data_tools=True`` the raw read-only ``list_tables``, ``describe_table`` and ``run_sql``.

No admin operation (commit, evolve, rollback, update) is exposed. The tools are those of
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

import logging
import os
import re
import threading
from pathlib import Path
from typing import Any, Callable

from evoonto.errors import EvoontoError, ToolArgumentError, WorkspaceError, first_line
from evoonto.tools.registry import error_text
from evoonto.tools.toolkit import OntologyTools
from evoonto.tools.trajectory import ToolEvent, TrajectoryLog, to_text

MANIFEST_URI = "evoonto://manifest"
_LOG = logging.getLogger(__name__)
# Workspace subfolders written while serving: changes there are not a new version.
_VOLATILE = {"trajectories", "runs", "tmp", ".lock"}


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
    Returns:
        an ``mcp.server.mcpserver.MCPServer`` (``.run("stdio")``, ``.run("streamable-http", ...)``,
        or pass it to ``mcp.Client`` in-process); its ``evoonto_provider`` attribute is the
        :class:`ToolsProvider`.
    Raises:
        WorkspaceError: the workspace is missing or malformed.
    """
    import anyio
    from mcp.server.mcpserver import MCPServer
    from mcp_types import CallToolResult, TextContent, ToolAnnotations
    from mcp_types import Tool as MCPTool

    from evoonto.version import __version__

    if isinstance(target, OntologyTools):
        provider = ToolsProvider(target, data_tools=data_tools, trajectory=trajectory)
    else:
        if not Path(target).is_dir():
            raise WorkspaceError(f"no workspace at {target} (run 'evoonto init' or 'evoonto build' first)")
        provider = ToolsProvider(workspace=target, data_tools=data_tools, trajectory=trajectory, sources=sources)

    manifests: dict[int, tuple[OntologyTools, str]] = {}

    def current_manifest() -> str:
        """The manifest of the version served (computed once per loaded version)."""
        tools = provider.tools
        cached = manifests.get(id(tools))
        if cached is None or cached[0] is not tools:
            manifests.clear()
            cached = manifests[id(tools)] = (tools, tools.manifest())
        return cached[1]

    def listed() -> list[MCPTool]:
        return [MCPTool(name=spec.name, description=spec.description, input_schema=spec.input_schema,
                        output_schema=spec.output_schema, annotations=ToolAnnotations(**spec.annotations()))
                for spec in provider.tools.registry().values() if spec.listed]

    def call(tool: str, arguments: Any, connection: str | None) -> CallToolResult:
        tools = provider.tools
        spec = tools.registry().get(tool)
        if spec is not None and not spec.listed:
            spec = None  # the manifest is the instructions and a resource, not a tool
        try:
            if spec is None:
                raise ToolArgumentError(f"unknown tool {str(tool)[:60]!r}; available: "
                                        + ", ".join(s.name for s in tools.registry().values() if s.listed))
            result = tools.call(tool, arguments, trajectory=provider.trajectory_for(connection))
        except EvoontoError as exc:  # logged by OntologyTools.call (an unknown tool is logged here)
            if spec is None:
                log = provider.trajectory_for(connection)
                if log is not None:
                    log.append(ToolEvent.from_call(str(tool)[:100], arguments, error=str(exc), version=tools.version))
                text = first_line(exc, 500)
            else:
                text = error_text(tool, first_line(exc, 500))
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        except Exception as exc:  # logged by OntologyTools.call as an internal error
            _LOG.exception("tool %r failed", str(tool)[:100])
            return CallToolResult(content=[TextContent(type="text", text=f"{tool}: internal error "
                                                       f"({type(exc).__name__})")], is_error=True)
        return CallToolResult(content=[TextContent(type="text", text=to_text(result))],
                              structured_content=spec.structured(result))

    class _EvoontoServer(MCPServer):
        """Lists and calls the tools of the version served (reloaded first when the workspace
        changed), each call in a worker thread."""

        async def list_tools(self) -> list[MCPTool]:
            return await anyio.to_thread.run_sync(listed)

        async def call_tool(self, name, arguments, context=None):
            return await anyio.to_thread.run_sync(call, name, arguments, _session_id(context))

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
    try:
        request_context = context.request_context
    except (AttributeError, ValueError, RuntimeError):
        return None
    if getattr(request_context, "request", None) is None:  # stdio / in-process: one client
        return None
    headers = getattr(request_context.request, "headers", None) or {}
    return headers.get("mcp-session-id")


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
