"""``OntologyTools``: the agent-facing Tool layer of one ontology version (paper §3, DESIGN.md §5).

The same facade serves the MCP server (:mod:`evoonto.server`) and the evaluation harness::

    tools = OntologyTools(workspace.ontology, version=workspace.version)
    tools.browse("banned players", kind="term", n=5)   # [{id, kind, label, snippet, score}]
    tools.resolve(["term/db/status"])                  # {"records": [...], "errors": [...], ...}
    tools.manifest()                                   # short text for the prompt
    tools.call("browse", {"q": "banned"})              # by name, checked, logged to the trajectory
    tools.registry()["browse"].input_schema            # the ToolSpec the MCP server lists too

The browse index and the settings are built on first use and cached per ontology object, so several
facades over the same version share one index (built once per version).
"""

from __future__ import annotations

import functools
import json
import threading
import time
import weakref
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Mapping

from evoonto.errors import EvoontoError, SourceError, ToolArgumentError
from evoonto.ontology import Ontology
from evoonto.tools.browse import KIND_CHOICES, MAX_BUDGET, MAX_QUERY_CHARS, MIN_BUDGET
from evoonto.tools.settings import ANSWER_FORMATS
from evoonto.tools.browse import browse as _browse
from evoonto.tools.browse import coverage as _coverage
from evoonto.tools.declared import DeclaredTool, load_declared_tools, run_declared
from evoonto.tools.findings import Finding, Severity
from evoonto.tools.index import IndexCache, SearchIndex, build_index
from evoonto.tools.manifest import build_manifest
from evoonto.tools.resolve import EXPANSIONS, MAX_DEPTH, MAX_IDS, IdCodec, Resolver
from evoonto.tools.results import ResolveAnswer
from evoonto.tools.settings import BrowseSettings, ToolSettings, load_settings
from evoonto.tools.sparql import SKOS, iri_ref, select
from evoonto.tools.registry import (
    BROWSE_OUTPUT,
    JOIN_PATH_OUTPUT,
    CHECK_OUTPUT,
    COVERAGE_OUTPUT,
    RESOLVE_OUTPUT,
    ROWS_OUTPUT,
    TABLE_OUTPUT,
    TABLES_OUTPUT,
    ToolSpec,
    object_schema,
)
from evoonto.tools.trajectory import ToolEvent, TrajectoryLog, to_text  # noqa: F401 - to_text re-exported

if TYPE_CHECKING:
    from evoonto.tools.data import DataTools
    from evoonto.tools.joinpaths import TableJoins
    from evoonto.workspace import Workspace

BUILTIN_TOOLS = ("browse", "resolve", "manifest", "join_path")
DATA_TOOLS = ("list_tables", "describe_table", "run_sql")


class _Built:
    """Everything derived once from one ontology version."""

    def __init__(self, ontology: Any, base_iri: str | None, index_cache: IndexCache | None = None,
                 parent_index: SearchIndex | None = None):
        self.settings: ToolSettings = load_settings(ontology)
        self.codec = IdCodec(base_iri if base_iri is not None else _guess_base(ontology))
        self.index = build_index(ontology, self.settings.browse.weights, cache=index_cache, parent=parent_index)
        self.declared: list[DeclaredTool] = load_declared_tools(ontology)
        # weakly: this object is the value of the ontology's entry in the weak-keyed _CACHE, and a
        # strong reference from the value would keep the key (the whole store and index) alive forever
        self._ontology = weakref.ref(ontology)
        self._table_joins: TableJoins | None = None
        self._index_cache = index_cache

    def _live_ontology(self) -> Any:
        """The ontology these were derived from (held weakly). Raises ReferenceError once it is gone."""
        ontology = self._ontology()
        if ontology is None:  # pragma: no cover - callers hold the ontology while they use its tools
            raise ReferenceError("the ontology of these tools no longer exists")
        return ontology

    def table_joins(self) -> TableJoins:
        """Table -> the tables it joins by a declared, probed, verified or shared key, each with the
        table's own columns in those joins (both directions; joins guessed from names alone are left out;
        :func:`~evoonto.tools.joinpaths.known_table_joins`: of :meth:`join_graph` when it is built, else of
        the graph without name guesses); built on first use.
        With an index cache the joins are read from / written to ``<workspace>/cache/joins/``
        (keyed by the version's content fingerprint), so a new process does not build the join
        graph (about 70 CPU s at 70,000 columns) to answer a compact browse."""
        if self._table_joins is None:
            from evoonto.tools.joinpaths import (known_table_joins, read_table_joins, table_joins_file,
                                                 write_table_joins)

            path = None
            if self._index_cache is not None:
                path = table_joins_file(self._index_cache.folder.parent / "joins", self._index_cache.fingerprint)
                self._table_joins = read_table_joins(path)
            if self._table_joins is None:
                self._table_joins = known_table_joins(self._live_ontology())
                if path is not None:
                    write_table_joins(path, self._table_joins)
        return self._table_joins

    @functools.cached_property
    def source_dialects(self) -> dict[str, str | None]:
        """``{source id: sqlglot dialect}`` of the catalog's sources (``evo:sourceKind`` through
        :func:`~evoonto.sources.quoting.dialect_of_kind`), read once per version."""
        from evoonto.sources.quoting import dialect_of_kind

        ontology = self._live_ontology()
        rows = select(ontology, "SELECT ?id ?kind WHERE { ?s a dcat:Dataset ; dcterms:identifier ?id . "
                                     "OPTIONAL { ?s evo:sourceKind ?kind } }")
        return {str(r["id"]): dialect_of_kind(r.get("kind")) for r in rows}

    def join_graph(self) -> Any:
        """The version's :class:`~evoonto.tools.joinpaths.JoinGraph` (:func:`join_graph_of`: built on
        first use, shared with ``check_sql``). Raises ReferenceError once the ontology is gone."""
        from evoonto.tools.joinpaths import join_graph_of

        ontology = self._live_ontology()
        return join_graph_of(ontology)


_CACHE: "weakref.WeakKeyDictionary[Any, dict]" = weakref.WeakKeyDictionary()
_CACHE_LOCK = threading.Lock()
_BUILD_LOCK = "build lock"  # the key of an ontology's build lock in its _CACHE entry


def _parent_index_of(ontology: Any) -> SearchIndex | None:
    """The browse index already built for a candidate's parent version (``ontology.parent``, see
    :meth:`evoonto.ontology.Ontology.with_patch`), whose tokens the candidate's index reuses."""
    parent = ontology.parent if isinstance(ontology, Ontology) else None
    if parent is None:
        return None
    with _CACHE_LOCK:
        try:
            per_ontology = _CACHE.get(parent) or {}
        except TypeError:
            return None
        return next((b.index for k, b in per_ontology.items() if k is not _BUILD_LOCK), None)


def _guess_base(ontology: Any) -> str | None:
    if isinstance(ontology, Ontology) and ontology.base_iri:
        return ontology.base_iri
    rows = select(ontology, f"SELECT ?s WHERE {{ ?s a <{SKOS}ConceptScheme> }} ORDER BY ?s LIMIT 1")
    if rows and rows[0]["s"].endswith("/scheme"):
        return rows[0]["s"][: -len("scheme")]
    return None


#: Largest check_sql or coverage answer, in characters of compact JSON (a 19 KB statement once gave
#: 345 KB of findings); past it findings/phrases are left out and counted.
ANSWER_CAP_CHARS = 20_000


def _guard_refusal(sql: str, dialects: Mapping[str, str | None], source: str | None) -> Finding | None:
    """The ``refused`` Violation :meth:`OntologyTools.check_sql` answers for a statement the SQL guard
    (:func:`~evoonto.sources.guard.check_read_only`) refuses in the dialect of ``source`` (else in
    any of ``dialects``, the catalog's), or None; a refusal because the text does not parse is None
    (check_sql reports it as ``parse_error`` with its position)."""
    from evoonto.errors import ReadOnlyViolation
    from evoonto.sources.guard import check_read_only

    if source is not None and source in dialects:
        candidates: set[str | None] = {dialects[source]}
    else:
        candidates = set(dialects.values()) or {None}
    for dialect in sorted(candidates, key=lambda d: d or ""):
        try:
            check_read_only(sql, dialect=dialect)
        except ReadOnlyViolation as err:
            if err.stage == "parse":
                continue
            return Finding("refused", "Violation", str(err),
                           "send one read-only SELECT/WITH statement without functions that write, load "
                           "code or read files (run_sql refuses this one too)")
    return None


def cap_findings(findings: list[Finding], cap: int = ANSWER_CAP_CHARS) -> list[Finding]:
    """``findings`` in order while their compact JSON stays within ``cap`` characters; the rest is
    replaced by one ``findings_truncated`` finding that counts them by severity and has the most
    severe of their severities (so ``ok`` stays false when a Violation was left out).

    Args:
        findings: the findings, in the order they are reported.
        cap: characters of compact JSON (about 200 are kept for the closing finding).

    Returns:
        The findings unchanged when they fit, else the kept ones plus the closing finding.
    """
    kept: list[Finding] = []
    used = 0
    for n, finding in enumerate(findings):
        size = len(json.dumps(finding.to_dict(), ensure_ascii=False, separators=(",", ":")))
        if used + size > cap - 300:
            left = findings[n:]
            order: tuple[Severity, ...] = ("Violation", "Warning", "Info")
            by = {sev: sum(f.severity == sev for f in left) for sev in order}
            worst = next(sev for sev in order if by[sev])
            detail = ", ".join(f"{count} {sev}" for sev, count in by.items() if count)
            kept.append(Finding("findings_truncated", worst,
                                f"{len(left)} more finding(s) left out ({detail}) to keep the answer under "
                                f"{cap:,} characters", "fix the findings shown and check again"))
            return kept
        kept.append(finding)
        used += size + 1
    return kept


def cap_phrases(answer: dict[str, Any], cap: int = ANSWER_CAP_CHARS) -> dict[str, Any]:
    """A coverage answer (``{status, phrases}``) with its phrases cut, in order, to fit ``cap``
    characters of compact JSON; when some are left out, ``truncated`` gives their number."""
    phrases = answer.get("phrases") or []
    used = len(json.dumps({k: v for k, v in answer.items() if k != "phrases"}, ensure_ascii=False)) + 40
    for n, phrase in enumerate(phrases):
        used += len(json.dumps(phrase, ensure_ascii=False, separators=(",", ":"))) + 1
        if used > cap:
            return {**answer, "phrases": phrases[:n], "truncated": len(phrases) - n}
    return answer


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
        value_index: a :class:`~evoonto.tools.values.ValueIndex` of the sources (distinct values of
            text, date and time columns); browse then also finds the column of a value no Evidence sampled.
        index_cache: where the version's browse index is read from / written to
            (:meth:`IndexCache.for_workspace`), or None to build it in memory only.
        parent_index: the browse index of an earlier version; building this version's index
            re-tokenizes only the texts it lacks (the answers are those of a full build).
    """

    def __init__(self, ontology: Any, *, version: Any = None, base_iri: str | None = None,
                 sources: Mapping[str, Any] | None = None, trajectory: TrajectoryLog | None = None,
                 data_tools: bool = False, value_index: Any = None, index_cache: IndexCache | None = None,
                 parent_index: SearchIndex | None = None):
        self.value_index = value_index
        self._index_cache = index_cache
        self._parent_index = parent_index
        self.ontology = ontology
        self.version = version if version is not None else ontology.version if isinstance(ontology, Ontology) else None
        self._base_iri = base_iri
        self._sources_spec = dict(sources or {})
        self._sources: dict[str, Any] = {}
        self._owned: list[Any] = []  # sources this facade opened itself (closed by close())
        self._sources_lock = threading.RLock()  # calls arrive from several worker threads
        self.trajectory = trajectory
        self.data_tools = data_tools
        self._data: DataTools | None = None

    @classmethod
    def for_workspace(cls, workspace: Workspace, **options: Any) -> "OntologyTools":
        """The facade of a workspace's active version, its browse index kept in the workspace cache
        (``<workspace>/cache/index/``, see :class:`~evoonto.tools.index.IndexCache`): loaded when
        this version was indexed before, else built (reusing the tokens of the newest cached
        version) and written there.

        Args:
            workspace: an :class:`evoonto.workspace.Workspace`.
            options: further keyword arguments of :class:`OntologyTools` (sources, trajectory, …).
        """
        try:
            cache: IndexCache | None = IndexCache.for_workspace(workspace)
        except OSError:  # an unreadable file: no cache, the index is built in memory
            cache = None
        options.setdefault("index_cache", cache)
        return cls(workspace.ontology, version=workspace.version, base_iri=workspace.base_iri,
                   **options)

    # -- derived state, built once per ontology version ------------------------------------------

    @property
    def built(self) -> _Built:
        """Settings, id codec, browse index and declared tools (built on first use, then cached)."""
        # an Ontology is one version (the Workspace makes a new one per commit, rollback and
        # replace_base), so the cache is keyed on the Ontology object itself (weakly) and its version.
        # The build runs under a lock of that ontology only: building a new version's index never
        # holds calls on another version (the server keeps answering with the previous one).
        key = (self.version, self._base_iri)
        with _CACHE_LOCK:
            try:
                per_ontology = _CACHE.setdefault(self.ontology, {})
            except TypeError:  # not weak-referenceable: cache on the facade only
                per_ontology = self.__dict__.setdefault("_local_cache", {})
            built = per_ontology.get(key)
            if built is not None:
                return built
            building = per_ontology.setdefault(_BUILD_LOCK, threading.Lock())
        with building:
            built = per_ontology.get(key)
            if built is None:
                built = _Built(self.ontology, self._base_iri, self._index_cache,
                               self._parent_index or _parent_index_of(self.ontology))
                self._parent_index = None  # its tokens are in the new index now
                with _CACHE_LOCK:
                    # an Ontology changed in place (commit): older states are gone
                    for stale in [k for k in per_ontology if k is not _BUILD_LOCK]:
                        del per_ontology[stale]
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

    def browse(self, q: str, *, kind: str = "term", n: int | None = None, format: str | None = None,
               budget: int | None = None, context: str | None = None) -> list[dict[str, Any]]:
        """Ranked candidates: verbose ``[{id, kind, label, snippet, score}]`` or compact
        ``[{id, kind, label}]`` (one pasteable line per candidate within ``budget`` characters);
        see :func:`evoonto.tools.browse.browse`. ``context``: text given with the question (e.g.
        BIRD evidence), searched at a lower weight than ``q``; the stored values it names are
        looked up like those of ``q``.

        Raises:
            ToolArgumentError: empty or over-long query (> 20,000 characters), a context that is
                not a string or is over-long, unknown kind or format, n outside 1..max, budget
                outside 200..200,000.
        """
        from evoonto.tools.browse import check_context

        built = self.built
        verbose = (format or built.settings.browse.answer_format) == "verbose"
        context = check_context(context)
        named = self._named_values(q, context)
        found = []
        if self.value_index is not None and not verbose and isinstance(q, str):
            # compact: the values the query names ride in their columns' lines (issue 33)
            from evoonto.tools.values import VALUE_WEIGHT

            found = [(h.location, h.value, VALUE_WEIGHT * h.score, h.match != "fuzzy") for h in named]
        hits = _browse(built.index, built.settings.browse, q, kind=kind, n=n, id_of=built.codec.to_id,
                       format=format, budget=budget, value_hits=found,
                       joins=None if verbose else built.table_joins(), context=context)
        if self.value_index is not None and verbose:  # issue 19: values of the data, not only sampled Evidence
            from evoonto.tools.values import merge_value_hits

            hits = merge_value_hits(hits, named, built.index, kind=kind,
                                    n=n or built.settings.browse.default_results, id_of=built.codec.to_id)
        return hits

    def _named_values(self, q: Any, context: str | None, *, limit: int = 10) -> list[Any]:
        """The stored values ``q`` names, then those its ``context`` names (looked up on their own,
        so a long context never crowds the question's phrases out of the lookup), at most ``limit``
        in all, without repeats; ``[]`` without a value index or for a non-string ``q``."""
        hits = list(self.value_hits(q, limit=limit))
        if context and len(hits) < limit:
            seen = {(h.location, h.value) for h in hits}
            hits += [h for h in self.value_hits(context, limit=limit) if (h.location, h.value) not in seen]
        return hits[:limit]

    def value_hits(self, q: str, *, limit: int = 10) -> list[Any]:
        """Stored values a phrase of ``q`` names, with their columns
        (:meth:`evoonto.tools.values.ValueIndex.value_hits`); ``[]`` without a value index."""
        if self.value_index is None or not isinstance(q, str):
            return []
        return self.value_index.value_hits(q, limit=limit)

    def coverage(self, q: str) -> dict[str, Any]:
        """Which phrases of a question map to which records and which to nothing
        (``{status: supported | partial | unavailable, phrases: [...]}``); see
        :func:`evoonto.tools.browse.coverage`.

        The answer is capped at :data:`ANSWER_CAP_CHARS` characters of compact JSON: phrases past
        it are left out and counted in ``truncated`` (the overall ``status`` is still over all of them).

        Raises:
            ToolArgumentError: empty or > 20,000-character question.
        """
        built = self.built
        return cap_phrases(_coverage(built.index, built.settings.browse, q, id_of=built.codec.to_id))

    def resolve(self, ids: Any, *, expand: Any = EXPANSIONS, depth: Any = 1) -> ResolveAnswer:
        """Records with linked objects; see :meth:`evoonto.tools.resolve.Resolver.resolve`.

        Raises:
            ToolArgumentError: no/too many ids, unknown expansion, bad depth (unknown or malformed
                single ids are reported in ``errors`` instead).
        """
        built = self.built
        return Resolver(self.ontology, built.settings.resolve, built.codec, joins=built.join_graph).resolve(
            ids, expand=expand, depth=depth)

    def join_path(self, start: str, end: str) -> dict[str, Any]:
        """The shortest join path between two tables or records (Terms, Mappings, tables, columns);
        see :func:`evoonto.tools.joinpaths.join_path_tool`.

        Raises:
            ToolArgumentError: an empty, unknown or ambiguous table or id.
        """
        from evoonto.tools.joinpaths import join_path_tool, tables_of

        built = self.built

        def table_of(value: str) -> Any:
            if "/" not in value and ":" not in value:
                return None  # a table name
            try:
                iri = built.codec.to_iri(value)
            except ToolArgumentError:
                return None
            return tables_of(self.ontology, [iri]).get(iri)

        return join_path_tool(built.join_graph(), start, end, table_of=table_of, id_of=built.codec.to_id)

    def manifest(self) -> str:
        """The manifest text (≤ 1,500 characters for a 12-table database); see :mod:`evoonto.tools.manifest`."""
        return build_manifest(self.ontology, version=self.version, declared=self.declared_tools(),
                              data_tools=self.data_tools, default_results=self.settings.browse.default_results,
                              answer=self.settings.browse.answer_policy())

    def check_sql(self, sql: str, *, source: str | None = None, question: str | None = None,
                  question_rules: bool = False) -> list[Finding]:
        """Findings of :func:`evoonto.tools.sqlcheck.check_sql` for ``sql`` against this version,
        absences confirmed by point probes of the configured sources (``question``: the question
        the SQL answers; ``question_rules``: also run the opt-in question-wording rules).

        The statement is judged first by the one SQL guard that ``run_sql`` uses
        (:func:`evoonto.sources.guard.check_read_only`, in the dialect of ``source``, else of every
        catalog source): a statement ``run_sql`` refuses for its size, nesting depth, shape (not one
        query) or content (a write, ``load_extension``, ``writefile``, ``edit`` …) is one ``refused``
        Violation here, and is not analysed further; one that does not parse is left to the
        check's own ``parse_error``. The findings are capped at :data:`ANSWER_CAP_CHARS` characters
        of compact JSON (see :func:`cap_findings`).

        Raises:
            ToolArgumentError: empty or oversized SQL or question, unknown source id.
        """
        from evoonto.tools.sqlcheck import check_sql

        if isinstance(sql, str) and sql.strip():
            refusal = _guard_refusal(sql, self.built.source_dialects, source)
            if refusal is not None:
                return [refusal]
        return cap_findings(check_sql(self.ontology, sql, source=source, question=question,
                                      question_rules=question_rules, sources=self.probe_source))

    def probe_source(self, source_id: str) -> Any:
        """The open source ``source_id`` for check_sql's point probes, or None when it is not
        configured or cannot be opened (the check is then offline for it)."""
        if source_id not in self._sources_spec:
            return None
        try:
            return self.source(source_id)
        except SourceError:
            return None

    def semantic_query(self, query: Any, *, run: bool = False, limit: int = 50) -> dict[str, Any]:
        """Compile a semantic query (metrics, dimensions, filters, order, limit over record ids) to the
        source's SQL; see :func:`evoonto.tools.semantic.compile_semantic`. Compared string values the
        Evidence did not show are confirmed by a ``LIMIT 1`` probe when the source is configured.

        Args:
            query: the semantic query (a dict or its JSON text).
            run: also run the SQL through the read-only ``run_sql`` path (needs the source configured);
                the answer then has ``result`` ``{columns, rows, truncated}``.
            limit: most rows returned by ``run`` (1..200).

        Returns:
            ``{status: ok, sql, dialect, source, joins, grain, constraints, value_checks[, notes][, result]}``,
            ``{status: question, question, choices}`` or ``{status: unavailable, missing, detail}``.
        Raises:
            ToolArgumentError: a malformed query or limit; SourceError: run without the source configured.
        """
        from evoonto.tools.data import MAX_ROWS
        from evoonto.tools.semantic import compile_semantic

        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_ROWS:
            raise ToolArgumentError(f"semantic_query: limit must be an integer from 1 to {MAX_ROWS}")

        def probe(source_id: str, sql: str) -> bool:
            return bool(self.source(source_id).run(sql, limit=1, timeout_ms=2000).rows)

        answer = compile_semantic(self.ontology, query, codec=self.built.codec,
                                  probe=probe if self._sources_spec else None)
        if run and answer["status"] == "ok":
            if answer["source"] not in self._sources_spec:
                raise SourceError(f"semantic_query: run needs source {answer['source']!r} configured")
            answer["result"] = self.data.run_sql(answer["sql"], answer["source"], limit)
        return answer

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
        """The open Source with this id (opened on first use). Raises SourceError when unknown.

        A source given as a path/URL is opened as a :class:`~evoonto.tools.pool.SourcePool`, so
        concurrent callers (several MCP sessions) each get a connection of their own instead of
        waiting for one another's statements; a Source passed in open is used as it is.
        """
        with self._sources_lock:
            if source_id not in self._sources:
                spec = self._sources_spec.get(source_id)
                if spec is None:
                    raise SourceError(f"no data source {source_id!r} is configured")
                if isinstance(spec, str) or hasattr(spec, "__fspath__"):
                    from evoonto.tools.pool import SourcePool

                    spec = SourcePool.open(spec, source_id=source_id)
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

            sources = {sid: self.source(sid) for sid in self._sources_spec}
            with self._sources_lock:
                if self._data is None:
                    self._data = DataTools(sources)
        return self._data

    # -- dispatch with trajectory capture ----------------------------------------------------------

    def tool_names(self) -> list[str]:
        """Names accepted by :meth:`call`: browse, resolve, manifest, declared tools, data tools."""
        return list(self.registry())

    def registry(self) -> dict[str, ToolSpec]:
        """The tools of this version by name, in this order: browse, resolve, manifest, join_path,
        coverage, check_sql, semantic_query, the declared tools, then (with ``data_tools``) list_tables, describe_table,
        run_sql. Descriptions and
        schemas are generated from the version's settings (e.g. browse's default number of results).
        The MCP server lists and calls exactly these (``manifest`` is served as its instructions)."""
        built = self.built
        cached = self.__dict__.get("_registry")
        if cached is not None and cached[0] is built and cached[1] == self.data_tools:
            return cached[2]
        specs = [_browse_spec(self, built.settings.browse), _resolve_spec(self),
                 ToolSpec("manifest", "How to use this ontology layer (plain text).", object_schema({}),
                          lambda: self.manifest(), listed=False),
                 _join_path_spec(self), _coverage_spec(self), _check_sql_spec(self), _semantic_spec(self)]
        specs += [_declared_spec(self, decl) for decl in built.declared]
        if self.data_tools:
            specs += _data_specs(self)
        registry = {spec.name: spec for spec in specs}
        self.__dict__["_registry"] = (built, self.data_tools, registry)
        return registry

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None, *,
             trajectory: TrajectoryLog | None = None) -> Any:
        """Call a tool by name with keyword arguments, logging the call to the trajectory.

        The arguments are checked against the tool's :class:`~evoonto.tools.registry.ToolSpec`
        (unknown or missing arguments and wrong JSON types are errors), then the handler checks
        values. The trajectory event holds the arguments as the caller sent them and the result
        (:class:`evoonto.tools.trajectory.ToolEvent`). ``trajectory`` overrides the facade's log for
        this call (e.g. one log per MCP connection).

        Returns:
            The tool's result (list/dict/str).
        Raises:
            ToolArgumentError: unknown tool or bad arguments; other EvoontoError from the tool.
        """
        received = dict(arguments) if isinstance(arguments, Mapping) else arguments
        started = datetime.now(timezone.utc)
        t0 = time.perf_counter()
        result, error = None, None
        try:
            spec = self.registry().get(tool) if isinstance(tool, str) else None
            if spec is None:
                raise ToolArgumentError(
                    f"unknown tool {str(tool)[:60]!r}; available: {', '.join(self.tool_names())}")
            result = spec.handler(**spec.check_arguments(received))
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
                log.append(ToolEvent.from_call(
                    str(tool)[:100], received if received is not None else {}, result, error=error,
                    version=self.version, latency_ms=(time.perf_counter() - t0) * 1000.0, started=started))

    def close(self) -> None:
        """Close the sources this facade opened itself (Sources passed in open stay open)."""
        with self._sources_lock:
            owned, self._owned = self._owned, []
            self._sources.clear()
            self._data = None
        for src in owned:
            src.close()



# -- the specs of the agent-facing tools -------------------------------------------------------------


def browse_description(settings: BrowseSettings) -> str:
    """The browse tool's description, with the default and maximum number of results of ``settings``."""
    return (
        "Find ontology records for a phrase, identifier or data value.\n\n"
        "q: words of the question, a column name (snake_case/camelCase ok) or a value seen in the data.\n"
        f"kind: {KIND_CHOICES[0]} (default), {', '.join(KIND_CHOICES[1:-1])} or {KIND_CHOICES[-1]}.\n"
        f"format: compact or verbose (default {settings.answer_format}). compact gives one line per candidate, "
        "'\"table\".\"column\" TYPE = matched values -- meaning', ready to paste into SQL ('holds': some "
        "words match), as many as fit "
        f"budget characters (default {settings.answer_budget}): the tables that match first, their keys and "
        "columns, then further columns named per table; ask a larger budget (up to "
        f"{MAX_BUDGET:,}) for more depth. verbose gives n hits with label, snippet (definition, matched "
        "values) and score.\n"
        f"n: verbose: number of results (default {settings.default_results}, at most {settings.max_results}); "
        "compact: at most n full lines.\n"
        "For all values, constraints, joins and evidence of a candidate, pass its id to resolve.\n"
        "A whole question may be passed as q; pass hints or evidence given with it as context (searched "
        "too, weighted below the question's own words).\n"
        "Returns JSON [{id, kind, label, snippet, score}] (compact: [{id, kind, label}]; an empty list when "
        "nothing matches: try other words, a column name or kind='any'); pass ids to resolve."
    )


RESOLVE_DESCRIPTION = (
    "Expand records by id: a Term with its mappings (table, column, filter, aggregation, join path), "
    "relations (other end labelled), constraints (on the term and its mappings) and evidence (value "
    "distribution, samples, probe query).\n\n"
    f"ids: ids from browse (at most {MAX_IDS}). expand: subset of {', '.join(EXPANSIONS)}.\n"
    "depth: 0 (record only), 1 (default) or 2 (also the mappings of related terms).\n"
    "Returns JSON {records, errors, truncated}; unknown ids are listed in errors."
)


#: sent beside an empty browse answer, so an agent knows what to try instead of giving up or guessing
BROWSE_EMPTY_HINT = ("no record matched: try fewer or other words (a business term, a column name or a data "
                     "value), kind='any' to search every record kind, or the coverage tool to see which "
                     "phrases of the question the ontology covers")


def _browse_spec(tools: OntologyTools, settings: BrowseSettings) -> ToolSpec:
    schema = object_schema({
        "q": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS,
              "description": "words, a column name or a data value to look up"},
        "kind": {"type": "string", "enum": list(KIND_CHOICES), "default": KIND_CHOICES[0],
                 "description": "record kind to return ('any' for all kinds)"},
        "n": {"type": "integer", "minimum": 1, "maximum": settings.max_results,
              "default": settings.default_results, "description": "number of results"},
        "format": {"type": "string", "enum": list(ANSWER_FORMATS), "default": settings.answer_format,
                   "description": "verbose hits or compact pasteable lines"},
        "budget": {"type": "integer", "minimum": MIN_BUDGET, "maximum": MAX_BUDGET,
                   "description": "characters of the answer (compact default "
                                  f"{settings.answer_budget}); decides how many candidates fit"},
        "context": {"type": "string", "maxLength": MAX_QUERY_CHARS,
                    "description": "text given with the question that explains it (a hint, evidence, a "
                                   "glossary note); searched too, weighted below q"},
    }, ("q",))
    return ToolSpec("browse", browse_description(settings), schema,
                    lambda q, kind=KIND_CHOICES[0], n=None, format=None, budget=None, context=None: tools.browse(
                        q, kind=kind, n=n, format=format, budget=budget, context=context),
                    output_schema=BROWSE_OUTPUT, result_key="results", empty_hint=BROWSE_EMPTY_HINT)


def _resolve_spec(tools: OntologyTools) -> ToolSpec:
    schema = object_schema({
        "ids": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_IDS,
                "description": "record ids returned by browse"},
        "expand": {"type": "array", "items": {"type": "string", "enum": list(EXPANSIONS)}, "uniqueItems": True,
                   "default": list(EXPANSIONS), "description": "linked objects to include"},
        "depth": {"type": "integer", "minimum": 0, "maximum": MAX_DEPTH, "default": 1,
                  "description": "0: the records only; 1: with linked objects; 2: also the mappings of related terms"},
    }, ("ids",))
    return ToolSpec("resolve", RESOLVE_DESCRIPTION, schema,
                    lambda ids, expand=EXPANSIONS, depth=1: tools.resolve(ids, expand=expand, depth=depth),
                    output_schema=RESOLVE_OUTPUT)


JOIN_PATH_DESCRIPTION = (
    "How two tables join: the shortest join path between tables or records (Terms, Mappings, columns), "
    "hop by hop with the SQL condition (quoted for the source), cardinality (1:1, N:1, 1:N, N:M), "
    "the evidence ids behind it, alternatives (other keys between the same tables) and a warning when "
    "an aggregate over the start table would be multiplied (fan-out).\n\n"
    "from, to: table names (source.table when ambiguous) or record ids from browse.\n"
    "Returns JSON {from, to, tables, hops, sql, warnings}; {hops: [], error} when they do not connect."
)


def _join_path_spec(tools: OntologyTools) -> ToolSpec:
    schema = object_schema({
        "from": {"type": "string", "minLength": 1, "maxLength": 500, "description": "a table name or record id"},
        "to": {"type": "string", "minLength": 1, "maxLength": 500, "description": "a table name or record id"},
    }, ("from", "to"))
    return ToolSpec("join_path", JOIN_PATH_DESCRIPTION, schema,
                    lambda **kw: tools.join_path(kw["from"], kw["to"]), output_schema=JOIN_PATH_OUTPUT)
COVERAGE_DESCRIPTION = (
    "Say what the ontology covers of a question before answering it: each concept phrase with the ids "
    "it maps to, or none.\n\n"
    "q: the question.\n"
    "Returns JSON {status, phrases: [{phrase, status, ids, uncovered, approximate}]}; status is supported "
    "(every word of every phrase is in the records it maps to), partial or unavailable: on partial or "
    "unavailable, ask the user or check the data rather than guess (the records hold a sample of each "
    "column's values: a value they miss may still be stored). approximate: words only a "
    "close spelling of which the records hold (maybe a typo, maybe another thing: 'Atlantis' vs 'Atlanta')."
)


def _coverage_spec(tools: OntologyTools) -> ToolSpec:
    schema = object_schema({"q": {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS,
                                  "description": "the question"}}, ("q",))
    return ToolSpec("coverage", COVERAGE_DESCRIPTION, schema, lambda q: tools.coverage(q),
                    output_schema=COVERAGE_OUTPUT)


CHECK_SQL_DESCRIPTION = (
    "Check one SQL statement against the ontology and the data before running it: unknown tables or columns, "
    "values the data does not hold (confirmed by a one-row probe of the data, with spellings it does hold), "
    "required Constraints left out, joins that follow no known join path, join half of a key or keys that share "
    "no value, aggregates over a join that repeats rows (fan trap).\n\n"
    "sql: one SELECT/WITH statement. source: source id (needed only when several sources are served). "
    "question + question_rules: true: also warn when a column is named by no word of the question while the "
    "question names another column of the same table (a wording heuristic).\n"
    "Returns JSON {ok, findings: [{kind, severity, message, suggestion, start, end, subject}], counts}; "
    "ok is false when a finding has severity Violation: the statement is provably wrong (fix it before running "
    "it); a Warning says what was seen and may be a false alarm."
)


def _check_sql_spec(tools: OntologyTools) -> ToolSpec:
    from evoonto.tools.sqlcheck import MAX_SQL_CHARS, check_result

    schema = object_schema({
        "sql": {"type": "string", "minLength": 1, "maxLength": MAX_SQL_CHARS,
                "description": "one SELECT or WITH statement"},
        "source": {"type": "string", "description": "source id (needed only when several sources are served)"},
        "question": {"type": "string", "maxLength": MAX_SQL_CHARS,
                     "description": "the question the SQL answers (read only with question_rules: true)"},
        "question_rules": {"type": "boolean", "default": False,
                           "description": "also warn (question_mismatch) when a column is named by no word of "
                                          "the question while the question names another column of its table "
                                          "(a heuristic of wording; off by default)"},
    }, ("sql",))
    return ToolSpec("check_sql", CHECK_SQL_DESCRIPTION, schema,
                    lambda sql, source=None, question=None, question_rules=False: check_result(
                        tools.check_sql(sql, source=source, question=question, question_rules=question_rules)),
                    output_schema=CHECK_OUTPUT)


SEMANTIC_QUERY_DESCRIPTION = (
    "Ask for metrics by dimensions with filters, in ontology record ids, and get SQL that joins only along known "
    "paths, applies required Constraints and aggregates each measure at its own grain (no double counting).\n\n"
    "query: {metrics: [TERM_ID | {term, aggregate: count|count_distinct|sum|avg|min|max} | {aggregate: count, "
    "of: ENTITY_OR_TABLE_ID}], dimensions: [TERM_ID | {term, grain: year|month|day, hidden}], filters: [{term, "
    "op, value} | {term} (a value Term) | {constraint} | {metric, op, value} | {any: [...]} | {not: F}], order: "
    "[{term | metric, desc}], limit, distinct, joins: [condition], output: [d0, m0, ...]}; op is one of = != < "
    "<= > >= in, not in, like, not like, between, is null, is not null; a value may be {query: {...}} (one "
    "column). run: also run it read-only (limit rows).\n"
    "Returns JSON {status: ok, sql, joins (each hop's cardinality and evidence), grain, constraints, "
    "value_checks, result?} | {status: question, question, choices} (answer by adding joins or a more precise "
    "id) | {status: unavailable, missing} (write SQL yourself and check it with check_sql)."
)


def _semantic_spec(tools: OntologyTools) -> ToolSpec:
    from evoonto.tools.data import MAX_ROWS
    from evoonto.tools.semantic import SEMANTIC_ANSWER_OUTPUT, SEMANTIC_QUERY_SCHEMA

    schema = object_schema({
        "query": SEMANTIC_QUERY_SCHEMA,
        "run": {"type": "boolean", "description": "also run the SQL read-only and return its rows"},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS, "description": "rows returned by run"},
    }, ("query",))
    return ToolSpec("semantic_query", SEMANTIC_QUERY_DESCRIPTION, schema,
                    lambda query, run=False, limit=50: tools.semantic_query(query, run=run, limit=limit),
                    output_schema=SEMANTIC_ANSWER_OUTPUT)


def _run_sql(data: Callable[[], DataTools], check: Callable[..., list[Finding]] | None, sql: str,
             source: str | None, limit: int, run_check: bool) -> dict[str, Any]:
    """run_sql, with ``run_check``: check_sql's findings first, added to the answer as ``findings``
    and ``counts`` (the rows are returned either way)."""
    if not run_check or check is None:
        return data().run_sql(sql, source, limit)
    from evoonto.tools.sqlcheck import check_result

    checked = check_result(check(sql, source=source))
    return {**data().run_sql(sql, source, limit), "findings": checked["findings"], "counts": checked["counts"]}


def _declared_spec(tools: OntologyTools, decl: DeclaredTool) -> ToolSpec:
    return ToolSpec(decl.name, decl.description, decl.input_schema(),
                    lambda **arguments: tools.run_declared(decl.name, arguments), output_schema=ROWS_OUTPUT)


def _data_specs(tools: OntologyTools) -> list[ToolSpec]:
    return data_tool_specs(lambda: tools.data, tools.check_sql)


def data_tool_specs(data: Callable[[], DataTools],
                    check: Callable[..., list[Finding]] | None = None) -> list[ToolSpec]:
    """The raw data tools (list_tables, describe_table, run_sql) as :class:`ToolSpec` s.

    Args:
        data: returns the :class:`~evoonto.tools.data.DataTools` to call (called per tool call, so
            the sources may be opened lazily).
        check: ``check(sql, source=...) -> list[Finding]`` (e.g. :meth:`OntologyTools.check_sql`);
            when given, run_sql takes ``check: true`` and adds the findings to its answer.

    Returns:
        Three specs, in the order above; the same the MCP server serves with ``--data-tools``.
    """
    from evoonto.tools.data import MAX_ROWS, MAX_SQL_CHARS

    source = {"type": "string", "description": "source id (needed only when several sources are served)"}
    run_sql_args: dict[str, dict[str, Any]] = {
        "sql": {"type": "string", "minLength": 1, "maxLength": MAX_SQL_CHARS,
                "description": "one SELECT or WITH statement"},
        "source": source,
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS, "default": 50,
                  "description": "maximum number of rows returned"}}
    check_fn = check
    if check is not None:
        run_sql_args["check"] = {"type": "boolean", "default": False,
                                 "description": "run check_sql first and add its findings"}
    return [
        ToolSpec("list_tables", "Tables of the data sources: JSON [{source, table, rows, columns}].",
                 object_schema({}), lambda: data().list_tables(), output_schema=TABLES_OUTPUT,
                 result_key="tables"),
        ToolSpec("describe_table", "Columns (name, type, pk) and foreign keys of one table.",
                 object_schema({"table": {"type": "string", "minLength": 1, "maxLength": 500,
                                          "description": "table name (from list_tables)"},
                                "source": source}, ("table",)),
                 lambda table, source=None: data().describe_table(table, source),
                 output_schema=TABLE_OUTPUT),
        ToolSpec("run_sql", "Run one read-only SELECT/WITH statement; JSON {columns, rows, truncated}"
                 + (" (with check: true, also check_sql's findings and counts)." if check is not None else "."),
                 object_schema(run_sql_args, ("sql",)),
                 lambda sql, source=None, limit=50, check=False: _run_sql(data, check_fn, sql, source, limit, check),
                 output_schema=ROWS_OUTPUT),
    ]
