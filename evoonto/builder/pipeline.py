"""The cold-start build: sources (+ workload) → catalog and content graphs (paper §3.1).

``build`` runs, for each source: harvest the catalog → profile every column (probes) → propose
(schema- and workload-driven, offline or with Claude) → verify (probes; failures are logged) →
construct (Terms, Mappings, Evidence, Constraints, Relations); then Terms mentioned in the passages
of documents sources are grounded in them. The content graph is checked with the
SHACL shapes before it is returned. The workspace writes it: :meth:`evoonto.workspace.Workspace.create`
builds and writes version 0 in one call, :func:`evoonto.workspace.write_build` writes a build made before.

Determinism: with the same inputs the output is byte-identical (:meth:`BuildResult.serialize` gives
sorted N-Triples). Probe and evidence times use one logical timestamp per build (:func:`build_clock`),
following the reproducible-builds ``SOURCE_DATE_EPOCH`` convention.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rdflib import RDF, Graph

from evoonto.builder.construct import Construction, construct, ground_in_documents, scheme_triples
from evoonto.builder.families import fold_families
from evoonto.builder.labels import use_lexicon
from evoonto.builder.probe import ColumnProfile, Prober
from evoonto.builder.propose import OfflineProposer, Proposer
from evoonto.builder.verify import Rejection, verify
from evoonto.builder.workload import Question, as_questions
from evoonto.catalog import read_catalog
from evoonto.errors import ConfigurationError, ShapeViolationError, SourceError
from evoonto.fileio import record_lines
from evoonto.iris import IriFactory
from evoonto.lexicon import Lexicon
from evoonto.namespaces import bind_prefixes
from evoonto.records import records_to_graph
from evoonto.store import OxigraphStore
from evoonto.tools.settings import answer_settings_triples
from evoonto.workspace import (
    BACKUP_DIR, Workspace, check_workspace_target, describe_workspace, register_builder, workspace_base_iri,
    write_build,
)

if TYPE_CHECKING:
    from evoonto.builder.verified import VerifiedItem
    from evoonto.sources.base import BaseSource
    from evoonto.sources.joins import JoinCandidate, JoinDiscovery
    from evoonto.validation import ValidationReport

__all__ = ["BuildResult", "StoreGraphs", "SourceReport", "build", "build_clock", "make_proposer", "write_workspace",
           "workspace_base_iri", "describe_workspace", "check_workspace_target", "BACKUP_DIR",
           "DEFAULT_BASE_IRI", "STEPS"]

#: Base IRI used when none is given (a workspace passes its own ``base_iri``).
DEFAULT_BASE_IRI = "https://example.org/evoonto/build/"
#: The steps reported to ``progress`` for every source, in order.
STEPS = ("harvest", "profile", "propose", "verify", "construct")
#: The graphs a build makes (:attr:`BuildResult.graphs`).
BUILT_GRAPHS = ("catalog", "content", "tools")


@dataclass
class SourceReport:
    """Per-source outcome: ``source`` id, record ``counts``, ``questions`` used, ``elapsed_ms``,
    ``location`` (the path or URL it was opened from; None for a Source object)."""

    source: str
    counts: dict[str, int]
    questions: int
    elapsed_ms: float
    location: str | None = None


class _Content:
    """The content graph while :func:`build` makes it: in the build's Oxigraph store, with an rdflib
    copy only once a step needs one (:meth:`graph`); from then on the copy is the graph, and
    :meth:`close` writes it back into the store."""

    def __init__(self, store: OxigraphStore):
        self.store = store
        self._graph: Graph | None = None

    def graph(self) -> Graph:
        """The content graph as an rdflib graph (copied from the store on first use), to read and change."""
        if self._graph is None:
            self._graph = bind_prefixes(Graph())
            self._graph.addN((s, p, o, self._graph) for s, p, o in self.store.triples("content"))
        return self._graph

    def read(self) -> Graph | OxigraphStore:
        """What to read the content from: the rdflib copy when there is one, else the store."""
        return self._graph if self._graph is not None else self.store

    def add_construction(self, built: Construction) -> None:
        """Add one source's constructed records (straight into the store while there is no copy)."""
        if self._graph is None:
            built.add_to_store(self.store)
        else:
            built.graph(self._graph)

    def add(self, triples: Iterable[tuple]) -> None:
        """Add rdflib triples (or the triples of an rdflib graph)."""
        if self._graph is None:
            self.store.add(triples, "content")
        else:
            self._graph.addN((s, p, o, self._graph) for s, p, o in triples)

    def close(self) -> None:
        """Write the rdflib copy (if any) into the store and drop it."""
        if self._graph is not None:
            self.store.replace_graph("content", self._graph)
            self._graph = None


def _ground(content: _Content, store: OxigraphStore) -> int:
    """:func:`~evoonto.builder.construct.ground_in_documents` when the catalog holds passages (the
    content and catalog are copied to rdflib graphs for it); 0 without reading anything else."""
    from evoonto.namespaces import EVO

    if next(store.subjects(RDF.type, EVO.Passage, "catalog"), None) is None:
        return 0
    return ground_in_documents(content.graph(), store.graph("catalog"))


class _TrackedGraph(Graph):
    """An rdflib graph that records whether it was changed after it was filled (``changed``): a
    copy :class:`StoreGraphs` hands out; ``add``/``addN``/``remove`` (which ``+=``, ``-=``, ``set``
    and ``parse`` go through) mark it. Sizes cannot tell: one triple removed and another added
    leave the size as it was."""

    changed = False

    def add(self, *args, **kwargs):
        self.changed = True
        return super().add(*args, **kwargs)

    def addN(self, *args, **kwargs):  # noqa: N802 (rdflib's name)
        self.changed = True
        return super().addN(*args, **kwargs)

    def remove(self, *args, **kwargs):
        self.changed = True
        return super().remove(*args, **kwargs)


class StoreGraphs(MutableMapping):
    """``{graph name: rdflib.Graph}`` over the graphs of an Oxigraph store, each copied into an
    rdflib graph on first access (and kept); :attr:`BuildResult.graphs` of a build.

    Until a graph is accessed nothing but the store holds it. A graph set or accessed is the
    graph from then on (a changed copy is written by :func:`write_workspace` instead of the store).
    After :func:`write_workspace` hands the store to the workspace, a graph not yet accessed is
    read from the written version 0 (``base.trig``).
    """

    def __init__(self, store: OxigraphStore, names: Sequence[str]):
        self.store: OxigraphStore | None = store
        self._names = list(names)
        self._copies: dict[str, Graph] = {}
        self._written: Workspace | None = None
        self._written_sizes: dict[str, int] = {}
        self._base: Any = None
        self._replaced: set[str] = set()  # graphs set or deleted by the caller

    def __getitem__(self, name: str) -> Graph:
        graph = self._copies.get(name)
        if graph is None:
            if name not in self._names:
                raise KeyError(name)
            graph = bind_prefixes(_TrackedGraph())
            source = self.store if self.store is not None else self._base_store()
            graph.addN((s, p, o, graph) for s, p, o in source.triples(name))
            graph.changed = False  # filled from the store: the same triples
            self._copies[name] = graph
        return graph

    def _base_store(self) -> Any:
        if self._written is None:  # pragma: no cover - a store is either held or handed over
            raise KeyError("the build's graphs are gone")
        if self._base is None:
            self._base = self._written.ontology_at(0).store
        return self._base

    def __setitem__(self, name: str, graph: Graph) -> None:
        if name not in self._names:
            self._names.append(name)
        self._copies[name] = graph
        self._replaced.add(name)

    def changed(self) -> bool:
        """True once a graph was set, deleted or changed through a copy handed out (``add``,
        ``addN``, ``remove``; changes made on a copy's ``.store`` directly are not seen)."""
        return bool(self._replaced) or any(not isinstance(g, _TrackedGraph) or g.changed for g in self._copies.values())

    def __delitem__(self, name: str) -> None:
        self._names.remove(name)
        self._copies.pop(name, None)
        self._replaced.add(name)

    def __contains__(self, name: object) -> bool:
        return name in self._names  # without copying the graph (Mapping's default reads it)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names))

    def __len__(self) -> int:
        return len(self._names)

    def sizes(self) -> dict[str, int]:
        """Triples per graph: of the rdflib copy when one was made, else counted in the store."""
        counted = self._written_sizes if self.store is None else {
            name: self.store.count(name) for name in self._names if name not in self._copies}
        return {name: len(self._copies[name]) if name in self._copies else counted[name] for name in self._names}

    def unchanged_store(self) -> OxigraphStore | None:
        """The store, when it still holds every graph as given here (no graph set or deleted, no
        copy changed, see :meth:`changed`), else ``None``."""
        store = self.store
        if store is None or self.changed() or set(self._names) != set(BUILT_GRAPHS):
            return None
        return store

    def handed_over(self, workspace: Workspace) -> None:
        """The store now belongs to ``workspace``: graphs not yet copied are read from its version 0."""
        if self.store is not None:
            self._written_sizes = {name: self.store.count(name) for name in self._names}
        self.store = None
        self._written = workspace


@dataclass
class BuildResult:
    """What :func:`build` returns.

    Attributes:
        graphs: ``{"catalog": Graph, "content": Graph, "tools": Graph}`` (tools: the default browse
            answer, :data:`evoonto.tools.settings.DEFAULT_ANSWER_POLICY`, as ``evo:answerFormat`` and
            ``evo:answerBudget``; other tool settings are left to their defaults).
            For a build, a :class:`StoreGraphs`: each rdflib graph is copied from the build's
            Oxigraph store on first access (a build that is only written never makes one).
        counts: totals over sources: terms, mappings, evidence, probes, constraints, relations, and
            document_links (Terms grounded in document passages, see
            :func:`~evoonto.builder.construct.ground_in_documents`).
        rejected: every candidate that failed verification, with its reason.
        sources: one :class:`SourceReport` per source, in input order.
        proposer: the proposer's name; ``base_iri``: the IRI base used; ``at``: the logical time.
        elapsed_ms: wall time of the whole build in milliseconds.
    """

    graphs: MutableMapping[str, Graph]
    counts: dict[str, int]
    rejected: list[Rejection]
    sources: list[SourceReport]
    proposer: str
    base_iri: str
    at: datetime
    elapsed_ms: float = 0.0
    validation: ValidationReport | None = field(default=None, repr=False)
    #: triples per graph when ``validation`` was made (a later change voids it for write_workspace)
    validated_sizes: dict[str, int] | None = field(default=None, repr=False)
    #: the Oxigraph store validation read (vocab + these graphs): write_workspace makes it the
    #: workspace's store instead of copying the rdflib graphs a second time
    validated_store: OxigraphStore | None = field(default=None, repr=False)

    def source_locations(self) -> dict[str, str]:
        """``{source id: path or URL as opened}`` of the sources opened from a location, URLs without
        their password (:func:`stored_location`)."""
        return {r.source: stored_location(r.location) for r in self.sources if r.location}

    def hand_over(self, packaged_schema: bool) -> tuple[Mapping[str, Graph], OxigraphStore | None, bool]:
        """What a workspace writes (:class:`evoonto.workspace.BuiltBase`): the graphs, a store that
        holds exactly them (the build's own while no graph changed, else the validation's when the
        validation still holds), and whether the validation still holds (the graphs unchanged since
        :func:`_validate`, checked against the packaged vocab and shapes: ``packaged_schema``)."""
        validated = packaged_schema and self._still_valid()
        graphs = self.graphs
        store = graphs.unchanged_store() if isinstance(graphs, StoreGraphs) else None
        if store is None and validated:
            store = self.validated_store
        return graphs, store, validated

    def handed_over(self, workspace: Workspace, store: OxigraphStore | None) -> None:
        """``store`` (from :meth:`hand_over`) belongs to ``workspace`` now: graphs not yet copied
        are read from its version 0."""
        self.validated_store = None
        if isinstance(self.graphs, StoreGraphs) and store is self.graphs.store:
            self.graphs.handed_over(workspace)

    def _still_valid(self) -> bool:
        """True when :attr:`validation` is a conforming validation of the graphs as they are now
        (sizes unchanged since :func:`_validate`, and for a build's :class:`StoreGraphs` no graph
        changed): a workspace then skips a second SHACL pass over the same triples."""
        report, sizes, graphs = self.validation, self.validated_sizes, self.graphs
        now = graphs.sizes() if isinstance(graphs, StoreGraphs) else {name: len(g) for name, g in graphs.items()}
        if report is None or not report.conforms or sizes != now:
            return False
        return not (isinstance(graphs, StoreGraphs) and graphs.changed())  # same sizes, other triples

    def serialize(self, name: str = "content") -> str:
        """The graph ``name`` as sorted N-Triples (byte-identical for identical builds)."""
        text = self.graphs[name].serialize(format="nt")
        return "".join(sorted(line + "\n" for line in record_lines(text) if line.strip()))


def build_clock(locations: Iterable[BaseSource | str | Path] = ()) -> datetime:
    """The build's logical time (UTC, whole seconds).

    ``$SOURCE_DATE_EPOCH`` when set (reproducible builds), else the latest modification time of the
    local files among ``locations`` (a folder counts its files), else the current time.

    Raises:
        ConfigurationError: ``SOURCE_DATE_EPOCH`` is not an integer.
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch:
        try:
            return datetime.fromtimestamp(int(epoch), tz=timezone.utc)
        except ValueError:
            raise ConfigurationError(f"SOURCE_DATE_EPOCH must be an integer, got {epoch!r}") from None
    mtimes = []
    for loc in locations:
        if isinstance(loc, (str, Path)):
            text = str(loc)
            path = Path(text[len("sqlite:///"):] if text.startswith("sqlite:///") else text)
            if path.is_file():
                mtimes.append(path.stat().st_mtime)
            elif path.is_dir():
                mtimes.extend(p.stat().st_mtime for p in path.rglob("*") if p.is_file())
    stamp = max(mtimes) if mtimes else time.time()
    return datetime.fromtimestamp(int(stamp), tz=timezone.utc)


def make_proposer(spec: str | Proposer) -> Proposer:
    """A proposer from its CLI spelling: ``"offline"`` or ``"anthropic:MODEL"``.

    Raises:
        ConfigurationError: unknown spelling, or ``anthropic:`` without ``ANTHROPIC_API_KEY``.
    """
    if not isinstance(spec, str):
        return spec
    if spec == "offline":
        return OfflineProposer()
    if spec.startswith("anthropic:"):
        from evoonto.builder.llm import ClaudeProposer

        model = spec.split(":", 1)[1].strip()
        if not model:
            raise ConfigurationError("--proposer anthropic:MODEL needs a model name, e.g. anthropic:claude-sonnet-5-5")
        return ClaudeProposer.from_environment(model)
    raise ConfigurationError(f"unknown proposer {spec!r}: use 'offline' or 'anthropic:MODEL'")


def _open(source: BaseSource | str | Path) -> tuple[BaseSource, bool]:
    if isinstance(source, (str, Path)):
        from evoonto.sources import open_source

        opened = open_source(str(source))
        warn_if_superuser(opened)
        return opened, True
    return source, False


def stored_location(location: str) -> str:
    """``location`` as a workspace stores it: a URL without its password
    (:func:`~evoonto.sources.registry.without_password`: ``config.json`` never holds one; PostgreSQL
    reads it from ``$PGPASSWORD`` or ``~/.pgpass``). A removed password gives one
    :class:`~evoonto.sources.base.SourceWarning` (the password itself masked)."""
    from evoonto.sources.base import warn
    from evoonto.sources.registry import without_password

    stored = without_password(location)
    if stored != location:
        warn(f"the password of {without_password(location, '***')} is not stored in the workspace; "
             f"give it to `evoonto serve` and `verified add` through $PGPASSWORD or ~/.pgpass")
    return stored


def warn_if_superuser(source: BaseSource) -> bool:
    """Warn (one :class:`~evoonto.sources.base.SourceWarning`) when ``source`` logs in as a database
    superuser (PostgreSQL: ``pg_user.usesuper``), who can read password hashes and server settings
    through ``run_sql`` even inside a read-only transaction; returns whether it warned."""
    from evoonto.sources.base import warn

    if not source.is_superuser():
        return False
    warn(f"source {source.id!r} logs in as a database superuser: agents' run_sql could read "
         f"pg_shadow and server settings; use a read-only role (see the README, 'A read-only database role')")
    return True


def build(
    sources: Sequence[BaseSource | str | Path] | str | Path,
    workload: str | Path | Iterable[Question | str] | None = None,
    *,
    proposer: str | Proposer = "offline",
    base_iri: str = DEFAULT_BASE_IRI,
    validate: bool = True,
    at: datetime | None = None,
    progress: Callable[[str, str], None] | None = None,
    lexicon: Lexicon | None = None,
    verified: str | Path | Iterable[Mapping[str, Any] | VerifiedItem] | None = None,
    documentation: bool = True,
) -> BuildResult:
    """Build the initial ontology ``L_0`` from read-only sources and an optional question workload.

    Args:
        sources: paths/URLs accepted by :func:`evoonto.sources.open_source`, or open Source objects
            (a single path is accepted too). Source ids must be distinct.
        workload: a workload file (JSON Lines, Spider/BIRD JSON, plain text), or questions / strings.
            Questions with a ``db_id`` are used only for the source with that id.
        proposer: ``"offline"`` (default, deterministic, no network), ``"anthropic:MODEL"`` or a
            :class:`~evoonto.builder.propose.Proposer`.
        base_iri: IRI base of every minted node (ends with ``/`` or ``#``).
        validate: check the result with the SHACL shapes (raises on violations).
        at: the logical build time; default :func:`build_clock` of the sources.
        progress: called as ``progress(source_id, step)`` after each step of :data:`STEPS`.
        lexicon: abbreviations and synonyms for the labels (default: the packaged
            :class:`~evoonto.lexicon.Lexicon`; ``Lexicon.load(workspace)`` adds a workspace's own).
        verified: verified queries (question + SQL a person vouches for): a JSON Lines file or an
            iterable of ``{"question", "sql"[, "id", "db_id", "verified_by", "verified_at"]}`` dicts.
            Each becomes an ``evo:VerifiedQuery`` and is mined into metric Terms, named filters,
            date grains, synonyms and joins (:mod:`evoonto.builder.verified`); a bad one (malformed,
            SQL that does not parse, names a missing column or fails to run) is left out with one
            :class:`~evoonto.sources.base.SourceWarning` naming its file and line. Counts are in
            ``BuildResult.counts`` (``verified_queries``, ``metrics``, ``filters``, ``grains``,
            ``synonyms``, ``joins``).
        documentation: read the documentation of each table source (default ``True``): the
            table/column comments its connector reflects (SQLite DDL comments, PostgreSQL
            ``COMMENT ON``) and, beside a database file or in a source folder, a BIRD-style
            ``database_description/`` folder, dbt property files and a ``tables.json``
            (:mod:`evoonto.builder.documentation`). ``False`` builds from the data alone.

    A table source (not documents) that yields no Term is reported as a
    :class:`~evoonto.sources.base.SourceWarning`.

    Returns:
        A :class:`BuildResult`.

    Raises:
        SourceError: a source cannot be opened or harvested, two sources share an id, or no source
            yields a Term (e.g. a lone text file or an empty folder).
        WorkloadError: the workload is unreadable.
        ConfigurationError: bad proposer or base IRI.
        ShapeViolationError: the constructed graphs violate the shapes (a builder bug).
    """
    from evoonto.builder.verified import as_verified

    items = as_verified(verified)  # read (and warned about) before any probe runs
    with use_lexicon(lexicon):
        return _build(sources, workload, proposer, base_iri, validate, at, progress, items, documentation)


def _build(sources: Sequence[Any] | str | Path, workload: str | Path | Iterable[Question | str] | None,
           proposer: str | Proposer, base_iri: str, validate: bool, at: datetime | None,
           progress: Callable[[str, str], None] | None, verified_items: Sequence[Any] = (),
           documentation: bool = True) -> BuildResult:
    """:func:`build` with the lexicon set for the label functions."""
    started = time.perf_counter()
    if isinstance(sources, (str, Path)):
        sources = [sources]
    if not sources:
        raise SourceError("build needs at least one source")
    try:
        iris = IriFactory(base_iri)
    except ValueError as exc:
        raise ConfigurationError(str(exc)) from None
    chosen = make_proposer(proposer)
    questions = as_questions(workload)
    clock = at if at is not None else build_clock(sources)
    from evoonto.sources.catalog import harvest
    from evoonto.sources.profiling import profile as profile_columns

    from evoonto.resources import vocab_graph

    # the build's graphs live in one Oxigraph store (with the vocab, for validation); records are
    # written into it directly, and an rdflib copy of the content graph is made only for the steps
    # that read or write rdflib (documentation, workload concepts, verified queries, grounding)
    store = OxigraphStore()
    store.add(vocab_graph(), "vocab")
    content = _Content(store)
    documented = bind_prefixes(Graph())  # documents of dictionaries, added after grounding
    totals: dict[str, int] = {}
    rejected: list[Rejection] = []
    reports: list[SourceReport] = []
    seen_ids: set[str] = set()
    taken: set[int] = set()  # positions of the verified queries given to a source
    for location in sources:
        t0 = time.perf_counter()
        src, owned = _open(location)
        try:
            if src.id in seen_ids:
                raise SourceError(f"two sources have the id {src.id!r}; give them distinct names")
            seen_ids.add(src.id)
            source_catalog = harvest(src, iris)
            store.add(source_catalog, "catalog")
            _step(progress, src.id, "harvest")
            schema = read_catalog(source_catalog).source(iris.source(src.id))
            prober = Prober(src, src.id, at=clock)
            # the one profiler (evoonto.sources.profile); a column whose probe fails is skipped
            # with a SourceWarning and its Term candidates are rejected by verify
            profiles: dict[tuple[str, str], ColumnProfile] = {
                (p.table, p.column): p
                for p in profile_columns(src, iris, tables=[t.name for t in schema.tables], at=clock)
            }
            _step(progress, src.id, "profile")
            mine = [q for q in questions if q.db_id in (None, src.id)]
            proposal = chosen.propose(schema, profiles, mine)
            discovery = _discovered_joins(src, iris, clock)
            proposal.joins.extend(j for j in discovery.joins if not j.declared)
            _drop_view_passthrough(proposal, schema)
            fold_families(proposal, schema)  # tables of one shape: one family Term (issue 19)
            intake = _documentation(location, src, schema, iris, clock) if documentation else None
            if intake is not None:
                intake.prepare(proposal, src)
            _step(progress, src.id, "propose")
            verified = verify(proposal, schema, profiles, prober)
            rejected.extend(verified.rejected)
            _step(progress, src.id, "verify")
            built = construct(verified, schema, iris, clock)
            rejected.extend(built.rejected)
            content.add_construction(built)
            content.add(records_to_graph(_refuted_join_records(discovery.refuted, schema.kind)))
            doc_counts = intake.record(content.graph(), documented) if intake is not None else {}
            counts = {**built.counts(), **{k: v for k, v in doc_counts.items() if v}}
            if proposal.concepts:  # concepts for workload phrases that name no Term (issue 18.3)
                from evoonto.builder.concepts import build_concepts

                made = build_concepts(proposal.normalized().concepts, schema, prober, content.graph(), iris, clock)
                content.add(made.graph)
                rejected.extend(made.rejected)
                counts["concepts"] = made.count
            if verified_items:
                from evoonto.builder.verified import items_for_source, mine_verified

                for_source = items_for_source(verified_items, src.id, [t.name for t in schema.tables], taken)
                if for_source:
                    mined = mine_verified(for_source, source=src, catalog=source_catalog, content=content.graph(),
                                          iris=iris, at=clock)
                    content.add(mined.graph)
                    for key, value in mined.counts.items():
                        counts[key] = counts.get(key, 0) + value
            _step(progress, src.id, "construct")
        finally:
            if owned:
                src.close()
        if not counts.get("terms") and src.kind != "documents":
            from evoonto.sources.base import warn

            warn(f"source {src.id} yields no Terms (no table with columns)")
        for key, value in counts.items():
            totals[key] = totals.get(key, 0) + value
        reports.append(SourceReport(src.id, counts, len(mine), (time.perf_counter() - t0) * 1000.0,
                                    str(location) if isinstance(location, (str, Path)) else None))
    # the last source's working data (profiles, proposal, verified candidates, records) is not needed
    # any more: dropped before the validation copy and the write, which make the build's peak memory
    del src, schema, prober, profiles, proposal, verified, built, intake, source_catalog
    _warn_unmatched_questions(questions, [r.source for r in reports])
    for n, item in enumerate(verified_items):
        if n not in taken:
            from evoonto.sources.base import warn

            warn(f"{item.where or 'verified query'}: verified query {item.key!r} skipped: "
                 + (f"db_id {item.db_id!r} is no source's id" if item.db_id else "its tables are in no source"))
    if not totals.get("terms"):
        raise SourceError("no Terms built: the source(s) " + ", ".join(r.source for r in reports)
                          + " hold no tables with columns (documents only ground Terms of table sources)")
    content.add(scheme_triples(iris, "evoonto ontology of " + ", ".join(r.source for r in reports), content.read()))
    totals["document_links"] = _ground(content, store)
    store.add(documented, "catalog")
    content.close()
    # the tool settings the version serves, explicit (issue 33): the default browse answer
    store.add(answer_settings_triples(iris.tools("browse")), "tools")
    result = BuildResult(StoreGraphs(store, BUILT_GRAPHS), totals, rejected, reports,
                         chosen.name, iris.base, clock)
    if validate:
        result.validation = _validate(result)
    result.elapsed_ms = (time.perf_counter() - started) * 1000.0
    return result


def _documentation(location: Any, src: BaseSource, schema: Any, iris: IriFactory, clock: datetime) -> Any:
    """The documentation intake of one table source, or ``None`` when it has no documentation."""
    from evoonto.builder.documentation import DocumentationIntake, gather

    docs = gather(location if isinstance(location, (str, Path)) else None, src)
    return DocumentationIntake(schema, iris, clock, docs) if docs else None


def _warn_unmatched_questions(questions: Sequence[Question], source_ids: Sequence[str]) -> None:
    """One :class:`~evoonto.sources.base.SourceWarning` when workload questions name a ``db_id``
    that is no source's id (those questions are not used), naming the db_ids and the known ids."""
    known = set(source_ids)
    unmatched: dict[str, int] = {}
    for q in questions:
        if q.db_id is not None and q.db_id not in known:
            unmatched[q.db_id] = unmatched.get(q.db_id, 0) + 1
    if not unmatched:
        return
    from evoonto.sources.base import warn

    names = sorted(unmatched)
    shown = ", ".join(repr(n) for n in names[:5]) + (f", … ({len(names)} db_ids)" if len(names) > 5 else "")
    warn(f"{sum(unmatched.values())} workload question(s) with db_id {shown} match no source and are not "
         f"used; the sources are {', '.join(repr(s) for s in source_ids)} (a source's id is its file or "
         f"folder name without extension)")


def _discovered_joins(src: BaseSource, iris: IriFactory, at: datetime | None = None) -> JoinDiscovery:
    """Joins suggested by names and value overlap (source layer: :func:`~evoonto.sources.joins.probe_joins`,
    declared keys unmeasured); verify re-probes the undeclared ones it keeps, and the ones the data
    refuted are recorded (:func:`_refuted_join_records`); ``at`` stamps the probes (the build's clock)."""
    from evoonto.sources.joins import JoinDiscovery, probe_joins

    if src.kind == "documents":
        return JoinDiscovery([], [])
    return probe_joins(src, iris, measure_declared=False, at=at)


def _refuted_join_records(refuted: Sequence[JoinCandidate], kind: str | None) -> list[Any]:
    """The Evidence of each name-suggested join the data refuted, with ``evo:refutesJoin`` (its
    condition, quoted for the source's dialect as ``evo:joinCondition`` is written), and its probe:
    the join graph does not guess those joins from the names
    (:meth:`~evoonto.tools.joinpaths.JoinGraph.add_name_edges`)."""
    from dataclasses import replace

    from evoonto.sources.quoting import dialect_of_kind

    dialect = dialect_of_kind(kind)
    records: list[Any] = []
    for join in refuted:
        if join.evidence is not None:
            records.append(replace(join.evidence, refutes_join=join.condition(dialect, quoted=True)))
            if join.probe is not None:
                records.append(join.probe)
    return records


def _drop_view_passthrough(proposal: Any, schema: Any) -> None:
    """Leave out candidates on view columns that pass a base column through unchanged
    (``evo:viewColumnOf``): the base column's Term is the concept, so the view mints no duplicate
    Term, value, synonym or constraint for it. A view keeps its Entity Term and its computed columns."""
    passthrough = {(t.name, c.name) for t in schema.tables if t.is_view for c in t.columns if c.view_of}
    if not passthrough:
        return
    dropped = {c.slug for c in proposal.terms if c.column is not None and (c.table, c.column) in passthrough}
    proposal.terms = [c for c in proposal.terms if c.slug not in dropped]
    proposal.synonyms = [c for c in proposal.synonyms if c.slug not in dropped]
    proposal.values = [c for c in proposal.values if (c.table, c.column) not in passthrough]
    proposal.constraints = [c for c in proposal.constraints if (c.table, c.column) not in passthrough]
    proposal.derivations = [c for c in proposal.derivations
                            if not any((c.table, col) in passthrough for col in c.columns)]


def _step(progress: Callable[[str, str], None] | None, source_id: str, step: str) -> None:
    if progress is not None:
        progress(source_id, step)


def _validate(result: BuildResult) -> ValidationReport:
    """SHACL-validate a build's graphs in the build's Oxigraph store (vocab + catalog + content).

    pyshacl reads an rdflib copy of their union (:func:`evoonto.validation.validate`), dropped after
    the check; pyshacl's own Oxigraph data graph was measured slower and reads ``xsd:string``
    literals as typed ones, so ``sh:in`` lists of plain strings failed.
    """
    from evoonto.ontology import Ontology
    from evoonto.validation import validate

    # the sources' working data, dropped by _build just before, sits in reference cycles: freed now
    # (one full collection, 0.4 s CPU on the wide schema) so that the copy pyshacl reads reuses its
    # memory; validate pauses the collector while it copies (at 70,000 columns, 475 MiB more peak)
    gc.collect()
    graphs = result.graphs
    store = graphs.unchanged_store() if isinstance(graphs, StoreGraphs) else None
    if store is None:  # graphs given as rdflib graphs: validate a store made from them
        from evoonto.resources import vocab_graph

        onto = Ontology.from_graphs({**graphs, "vocab": vocab_graph()}, base_iri=result.base_iri)
    else:
        onto = Ontology(store, base_iri=result.base_iri)
    report = validate(onto)  # frees its rdflib copy of the graphs before it returns
    result.validated_sizes = graphs.sizes() if isinstance(graphs, StoreGraphs) else {
        name: len(g) for name, g in graphs.items()}
    result.validated_store = onto.store if isinstance(onto.store, OxigraphStore) else None
    if not report.conforms:
        first = report.violations[0].text() if report.violations else "shape violation"
        raise ShapeViolationError(f"the built ontology violates the shapes ({len(report.violations)} "
                                  f"violations), first: {first}", report)
    return report


def write_workspace(result: BuildResult, path: str | Path, *, force: bool = False) -> Workspace:
    """Write a build as version 0 of a workspace: :func:`evoonto.workspace.write_build` (kept for
    programs written before the workspace owned writing; new code calls :meth:`Workspace.create`
    for the whole build, or ``write_build``).

    Raises:
        WorkspaceError, ShapeViolationError: see :func:`evoonto.workspace.write_build`.
    """
    return write_build(result, path, force=force)


register_builder(build)
