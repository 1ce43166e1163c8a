"""``OntologyTools``: the agent-facing Tool layer of one ontology version (paper §3, DESIGN.md §5).

The same facade serves the MCP server (:mod:`evoonto.server`) and the evaluation harness::

    tools = OntologyTools(workspace.ontology, version=workspace.version)
    tools.browse("banned players", kind="term", n=5)   # [{id, kind, label, snippet, score}]
    tools.resolve(["term/db/status"])                  # {"records": [...], "errors": [...], ...}
    tools.manifest()                                   # short text for the prompt
    tools.call("browse", {"q": "banned"})              # by name, logged to the trajectory

The browse index and the settings are built on first use and cached per ontology object, so several
facades over the same version share one index (built once per version).
"""

from __future__ import annotations

import json
import threading
import time
import weakref
from datetime import datetime, timezone
from typing import Any, Callable, Mapping

from evoonto.errors import EvoontoError, SourceError, ToolArgumentError
from evoonto.tools.browse import browse as _browse
from evoonto.tools.declared import DeclaredTool, load_declared_tools, run_declared
from evoonto.tools.index import SearchIndex, gather_documents
from evoonto.tools.manifest import build_manifest
from evoonto.tools.resolve import EXPANSIONS, IdCodec, Resolver
from evoonto.tools.settings import ToolSettings, load_settings
from evoonto.tools.sparql import SKOS, iri_ref, select
from evoonto.tools.trajectory import TrajectoryLog

BUILTIN_TOOLS = ("browse", "resolve", "manifest")
DATA_TOOLS = ("list_tables", "describe_table", "run_sql")


class _Built:
    """Everything derived once from one ontology version."""

    def __init__(self, ontology: Any, base_iri: str | None):
        self.settings: ToolSettings = load_settings(ontology)
        self.codec = IdCodec(base_iri if base_iri is not None else _guess_base(ontology))
        self.index = SearchIndex(gather_documents(ontology), self.settings.browse.weights)
        self.declared: list[DeclaredTool] = load_declared_tools(ontology)


_CACHE: "weakref.WeakKeyDictionary[Any, dict]" = weakref.WeakKeyDictionary()
_CACHE_LOCK = threading.Lock()


def _guess_base(ontology: Any) -> str | None:
    base = getattr(ontology, "base_iri", None) or getattr(ontology, "base", None)
    if isinstance(base, str) and base:
        return base
    rows = select(ontology, f"SELECT ?s WHERE {{ ?s a <{SKOS}ConceptScheme> }} ORDER BY ?s LIMIT 1")
    if rows and rows[0]["s"].endswith("/scheme"):
        return rows[0]["s"][: -len("scheme")]
    return None


def to_text(result: Any) -> str:
    """The text sent to the agent for a tool result: strings as is, anything else as compact JSON."""
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"), default=str)


class OntologyTools:
    """The Tool layer over one ontology version.

    Args:
        ontology: an :class:`evoonto.ontology.Ontology` (``query()`` over the active graphs).
        version: the version number served (default ``ontology.version`` when present).
        base_iri: workspace base IRI; ids are IRIs relative to it (default: ``ontology.base_iri``
            or the base of the concept scheme ``<B scheme>``).
        sources: source id (``dcterms:identifier`` in the catalog) -> open Source, or a path/URL
            opened with :func:`evoonto.sources.open_source` on first use. Needed by declared SQL
            tools and the data tools.
        trajectory: where :meth:`call` logs every call (None: no logging).
        data_tools: serve list_tables/describe_table/run_sql through :meth:`call` too.
    """

    def __init__(self, ontology: Any, *, version: Any = None, base_iri: str | None = None,
                 sources: Mapping[str, Any] | None = None, trajectory: TrajectoryLog | None = None,
                 data_tools: bool = False):
        self.ontology = ontology
        self.version = version if version is not None else getattr(ontology, "version", None)
        self._base_iri = base_iri
        self._sources_spec = dict(sources or {})
        self._sources: dict[str, Any] = {}
        self._owned: list[Any] = []  # sources this facade opened itself (closed by close())
        self.trajectory = trajectory
        self.data_tools = data_tools
        self._data = None

    # -- derived state, built once per ontology version ------------------------------------------

    @property
    def built(self) -> _Built:
        """Settings, id codec, browse index and declared tools (built on first use, then cached)."""
        # the store identity too: Workspace.replace_base swaps the store of the same Ontology object
        key = (self.version, self._base_iri, id(getattr(self.ontology, "store", None)))
        with _CACHE_LOCK:
            try:
                per_ontology = _CACHE.setdefault(self.ontology, {})
            except TypeError:  # not weak-referenceable: cache on the facade only
                per_ontology = self.__dict__.setdefault("_local_cache", {})
            built = per_ontology.get(key)
            if built is None:
                built = _Built(self.ontology, self._base_iri)
                per_ontology.clear()  # an Ontology changed in place (commit): older states are gone
                per_ontology[key] = built
        return built

    @property
    def settings(self) -> ToolSettings:
        """The browse/resolve settings read from the ``tools`` graph (defaults where absent)."""
        return self.built.settings

    def id_of(self, iri: str) -> str:
        """The agent-facing id of a record IRI."""
        return self.built.codec.to_id(iri)

    def iri_of(self, ident: str) -> str:
        """The IRI of an agent-facing id. Raises ToolArgumentError when malformed."""
        return self.built.codec.to_iri(ident)

    # -- the agent-facing tools -------------------------------------------------------------------

    def browse(self, q: str, *, kind: str = "term", n: int | None = None) -> list[dict[str, Any]]:
        """Ranked candidates ``[{id, kind, label, snippet, score}]``; see :func:`evoonto.tools.browse.browse`.

        Raises:
            ToolArgumentError: empty or > 1,000-character query, unknown kind, n outside 1..max.
        """
        built = self.built
        return _browse(built.index, built.settings.browse, q, kind=kind, n=n, id_of=built.codec.to_id)

    def resolve(self, ids: Any, *, expand: Any = EXPANSIONS, depth: Any = 1) -> dict[str, Any]:
        """Records with linked objects; see :meth:`evoonto.tools.resolve.Resolver.resolve`.

        Raises:
            ToolArgumentError: no/too many ids, unknown expansion, bad depth (unknown or malformed
                single ids are reported in ``errors`` instead).
        """
        built = self.built
        return Resolver(self.ontology, built.settings.resolve, built.codec).resolve(ids, expand=expand, depth=depth)

    def manifest(self) -> str:
        """The manifest text (≤ 1,500 characters for a 12-table database); see :mod:`evoonto.tools.manifest`."""
        return build_manifest(self.ontology, version=self.version, declared=self.declared_tools(),
                              data_tools=self.data_tools)

    def declared_tools(self) -> list[DeclaredTool]:
        """The valid declared tools of this version, sorted by name."""
        return list(self.built.declared)

    def run_declared(self, name: str, arguments: Any = None) -> dict[str, Any]:
        """Run declared tool ``name`` with ``arguments`` (``{columns, rows, truncated}``).

        Raises:
            ToolArgumentError: unknown tool or bad arguments; SourceError: the source failed.
        """
        tool = next((t for t in self.built.declared if t.name == name), None)
        if tool is None:
            raise ToolArgumentError(f"unknown tool {str(name)[:60]!r}")
        return run_declared(tool, arguments, ontology=self.ontology, open_source=self._source_for_iri)

    # -- sources ------------------------------------------------------------------------------

    def source(self, source_id: str) -> Any:
        """The open Source with this id (opened on first use). Raises SourceError when unknown."""
        if source_id not in self._sources:
            spec = self._sources_spec.get(source_id)
            if spec is None:
                raise SourceError(f"no data source {source_id!r} is configured")
            if isinstance(spec, (str, bytes)) or hasattr(spec, "__fspath__"):
                from evoonto.sources import open_source

                spec = open_source(spec, source_id=source_id)
                self._owned.append(spec)
            self._sources[source_id] = spec
        return self._sources[source_id]

    def _source_for_iri(self, iri: str | None) -> Any:
        if iri is None:
            if len(self._sources_spec) == 1:
                return self.source(next(iter(self._sources_spec)))
            raise SourceError("the declared tool names no evo:source and several sources are configured")
        rows = select(self.ontology, f"SELECT ?id WHERE {{ {iri_ref(iri)} dcterms:identifier ?id }} LIMIT 1")
        return self.source(rows[0]["id"] if rows else iri)

    @property
    def data(self):
        """The raw read-only :class:`~evoonto.tools.data.DataTools` over every configured source."""
        if self._data is None:
            from evoonto.tools.data import DataTools

            self._data = DataTools({sid: self.source(sid) for sid in self._sources_spec})
        return self._data

    # -- dispatch with trajectory capture ----------------------------------------------------------

    def tool_names(self) -> list[str]:
        """Names accepted by :meth:`call`: browse, resolve, manifest, declared tools, data tools."""
        names = list(BUILTIN_TOOLS) + [t.name for t in self.built.declared]
        return names + list(DATA_TOOLS) if self.data_tools else names

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None, *,
             trajectory: TrajectoryLog | None = None) -> Any:
        """Call a tool by name with keyword arguments, logging the call to the trajectory.

        ``trajectory`` overrides the facade's log for this call (e.g. one log per MCP connection).

        Returns:
            The tool's result (list/dict/str).
        Raises:
            ToolArgumentError: unknown tool or bad arguments; other EvoontoError from the tool.
        """
        arguments = dict(arguments or {})
        started = datetime.now(timezone.utc)
        t0 = time.perf_counter()
        result, error = None, None
        try:
            result = self._dispatch(tool, arguments)
            return result
        except EvoontoError as exc:
            error = str(exc)
            raise
        except Exception as exc:  # an internal failure still gets logged, then propagates
            error = f"internal error: {type(exc).__name__}"
            raise
        finally:
            log = trajectory if trajectory is not None else self.trajectory
            if log is not None:
                latency = (time.perf_counter() - t0) * 1000.0
                log.record(
                    tool=str(tool)[:100], arguments=arguments, version=self.version,
                    result_size=0 if result is None else len(to_text(result)), latency_ms=latency,
                    error=error, started=started, result_ids=_result_ids(tool, result),
                )

    def _dispatch(self, tool: str, args: dict[str, Any]) -> Any:
        def take(fn: Callable, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> Any:
            extra = sorted(str(k)[:40] for k in args if k not in allowed)
            if extra:
                raise ToolArgumentError(f"{tool}: unknown argument(s) {', '.join(map(repr, extra))}")
            missing = [k for k in required if k not in args]
            if missing:
                raise ToolArgumentError(f"{tool}: missing argument(s) {', '.join(missing)}")
            return fn(**args)

        if tool == "browse":
            if "q" not in args:
                raise ToolArgumentError("browse: missing argument q")
            q = args.pop("q")
            return take(lambda **kw: self.browse(q, **kw), ("kind", "n"))
        if tool == "resolve":
            if "ids" not in args:
                raise ToolArgumentError("resolve: missing argument ids")
            ids = args.pop("ids")
            return take(lambda **kw: self.resolve(ids, **kw), ("expand", "depth"))
        if tool == "manifest":
            return take(self.manifest, ())
        if self.data_tools and tool in DATA_TOOLS:
            fn = getattr(self.data, tool)
            allowed = {"list_tables": (), "describe_table": ("table", "source"),
                       "run_sql": ("sql", "source", "limit")}[tool]
            required = {"list_tables": (), "describe_table": ("table",), "run_sql": ("sql",)}[tool]
            return take(fn, allowed, required)
        if any(t.name == tool for t in self.built.declared):
            return self.run_declared(tool, args)
        raise ToolArgumentError(f"unknown tool {str(tool)[:60]!r}; available: {', '.join(self.tool_names())}")

    def close(self) -> None:
        """Close the sources this facade opened itself (Sources passed in open stay open)."""
        for src in self._owned:
            close = getattr(src, "close", None)
            if close:
                close()
        self._owned.clear()
        self._sources.clear()
        self._data = None


def _result_ids(tool: str, result: Any) -> list[str] | None:
    if tool == "browse" and isinstance(result, list):
        return [hit["id"] for hit in result if isinstance(hit, dict) and "id" in hit]
    if tool == "resolve" and isinstance(result, dict):
        return [rec["id"] for rec in result.get("records", []) if isinstance(rec, dict) and "id" in rec]
    return None
