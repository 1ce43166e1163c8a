"""The cold-start build: sources (+ workload) → catalog and content graphs (paper §3.1).

``build`` runs, for each source: harvest the catalog → profile every column (probes) → propose
(schema- and workload-driven, offline or with Claude) → verify (probes; failures are logged) →
construct (Terms, Mappings, Evidence, Constraints, Relations); then Terms mentioned in the passages
of documents sources are grounded in them. The content graph is checked with the
SHACL shapes before it is returned; :func:`write_workspace` makes it version 0 of a workspace.

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
from evoonto.errors import ConfigurationError, ShapeViolationError, SourceError, WorkspaceError
from evoonto.fileio import record_lines
from evoonto.iris import IriFactory
from evoonto.lexicon import Lexicon
from evoonto.namespaces import bind_prefixes
from evoonto.store import OxigraphStore
from evoonto.tools.settings import answer_settings_triples

if TYPE_CHECKING:
    from evoonto.sources.base import BaseSource
    from evoonto.sources.joins import JoinCandidate
    from evoonto.validation import ValidationReport
    from evoonto.workspace import Workspace

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
        return bool(self._replaced) or any(getattr(g, "changed", True) for g in self._copies.values())

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

        return open_source(str(source)), True
    return source, False


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
    verified: str | Path | Iterable[Mapping[str, Any]] | None = None,
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
            proposal.joins.extend(_discovered_joins(src, iris))
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
        if not counts.get("terms") and getattr(src, "kind", "") != "documents":
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
                         getattr(chosen, "name", type(chosen).__name__), iris.base, clock)
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


def _discovered_joins(src: BaseSource, iris: IriFactory) -> list[JoinCandidate]:
    """Undeclared joins suggested by names and value overlap (source layer); verify re-probes them."""
    from evoonto.sources.joins import discover_joins

    if getattr(src, "kind", "") == "documents":
        return []
    return [j for j in discover_joins(src, iris, measure_declared=False) if not j.declared]


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


def _validated_for(result: BuildResult, ws: Workspace) -> bool:
    """True when ``result`` carries a conforming validation of its graphs as they are now (sizes
    unchanged since :func:`_validate`, and for a build's :class:`StoreGraphs` no graph changed)
    against the vocab and shapes that ``ws`` holds (the packaged ones): :func:`write_workspace` then
    skips a second SHACL pass over the same triples."""
    from evoonto.resources import shapes_graph, vocab_graph

    report, sizes = result.validation, result.validated_sizes
    graphs = result.graphs
    now = graphs.sizes() if isinstance(graphs, StoreGraphs) else {name: len(g) for name, g in graphs.items()}
    if report is None or not report.conforms or sizes != now:
        return False
    if isinstance(graphs, StoreGraphs) and graphs.changed():  # same sizes, other triples
        return False
    store = ws.ontology.store
    return (set(store.triples("vocab")) == set(vocab_graph())
            and set(store.triples("shapes")) in (set(), set(shapes_graph())))


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


#: Entries of a workspace folder a build never moves: ``lexicon.tsv`` is the user's own label file
#: (read by the build), ``backups/`` holds the workspaces replaced before. (The workspace's own files
#: are :data:`evoonto.workspace.PLACED_FILES` and the lock.)
_KEPT_ENTRIES = ("lexicon.tsv", "backups")
#: The folder inside a workspace that ``force`` moves a replaced workspace into.
BACKUP_DIR = "backups"


def _entries(path: Path) -> list[Path]:
    return sorted(path.iterdir()) if path.is_dir() else []


def _is_leftover(entry: Path) -> bool:
    """A temp file or folder of a crashed writer (also a killed build's staging folder), a lock, a
    base.trig without its config, or an empty folder of a workspace."""
    from evoonto.workspace import LOCK_FILE, PLACED_FILES

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
    from evoonto.errors import EvoontoError
    from evoonto.namespaces import EVO
    from evoonto.workspace import Workspace, finish_interrupted_replace

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
    """Whether a build may be written to ``path`` (see :func:`write_workspace`).

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
    from evoonto.iris import default_base
    from evoonto.workspace import Workspace

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
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    return path / BACKUP_DIR / stamp


def _staging_name(pid: int | str) -> str:
    """The temp folder inside a workspace folder that a build assembles its new workspace in
    (``pid="*"``: the glob pattern of every build's)."""
    return f".new.{pid}.tmp"


def _assemble(result: BuildResult, staging: Path, name: str, settings: dict) -> Workspace:
    """The build as version 0 of a complete new workspace in the new folder ``staging``."""
    from evoonto.fileio import make_dirs
    from evoonto.workspace import Workspace

    make_dirs(staging)  # init fills it in place (no second staging folder of its own)
    locations = {r.source: _absolute_location(r.location) for r in result.sources if r.location}
    ws = Workspace.init(staging, base_iri=result.base_iri, name=name,
                        settings={**settings, "sources": locations} if locations else settings)
    validated = _validated_for(result, ws)
    graphs = result.graphs
    # the build's store holds these graphs already (and the vocab; the workspace's replaces it), else
    # the validated store does (and the workspace's vocab, checked equal)
    store = graphs.unchanged_store() if isinstance(graphs, StoreGraphs) else None
    if store is None and validated:
        store = result.validated_store
    if store is not None:
        ws.replace_base(graphs, validate_shapes=not validated, store=store)
    else:
        ws.replace_base(dict(graphs), validate_shapes=not validated)
    result.validated_store = None  # the workspace owns it now
    if isinstance(graphs, StoreGraphs) and store is graphs.store:
        graphs.handed_over(ws)
    return ws


def _write_new_folder(result: BuildResult, path: Path, name: str) -> Workspace:
    """Assemble the workspace in a hidden sibling of the missing folder ``path`` and rename it into
    place (atomic): a process killed at any moment leaves no folder or the complete workspace."""
    import shutil

    from evoonto.fileio import fsync_dir, make_dirs
    from evoonto.workspace import INIT_SUFFIX, _remove_stale_init_folders

    target = Path(os.path.abspath(path))
    make_dirs(target.parent)
    _remove_stale_init_folders(target)
    staging = target.with_name(f".{target.name}.{os.getpid()}{INIT_SUFFIX}")
    try:
        ws = _assemble(result, staging, name, {})
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


def _write_in_place(result: BuildResult, path: Path, name: str, settings: dict, replacing: bool) -> Workspace:
    """Assemble the workspace in a temp folder inside ``path``, then swap it in with renames under a
    journal (:func:`evoonto.workspace.replace_files`), all under the folder's writer lock.

    What the new workspace displaces: with ``replacing`` every entry but ``lexicon.tsv``,
    ``backups/`` and the lock, moved to ``backups/<UTC time>/``; otherwise the workspace files and
    temp files (a fresh ``init``, or a half-made workspace), moved to ``backups/<UTC time>/`` when
    there is a ``base.trig`` without its config (kept just in case) and deleted otherwise.
    """
    import shutil

    from evoonto.fileio import WriterLock
    from evoonto.workspace import LOCK_FILE, PLACED_FILES, finish_interrupted_replace, replace_files

    with WriterLock(path / LOCK_FILE):
        finish_interrupted_replace(path, locked=True)
        for dead in path.glob(_staging_name("*")):  # under the lock: killed builds' stagings
            shutil.rmtree(dead, ignore_errors=True)
        staging = path / _staging_name(os.getpid())
        journaled = False
        try:
            ws = _assemble(result, staging, name, settings)
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


def write_workspace(result: BuildResult, path: str | Path, *, force: bool = False) -> Workspace:
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
    under a journal, :func:`evoonto.workspace.replace_files`), so a process killed at any moment
    leaves the old workspace, the new one, or a journal the next ``open`` or build finishes from.

    Args:
        result: a :class:`BuildResult` built with ``base_iri=workspace_base_iri(path, force=force)``.
        path: the workspace directory.
        force: replace an existing workspace (moved aside, nothing deleted).

    Returns:
        The open :class:`evoonto.workspace.Workspace`.

    Raises:
        WorkspaceError: ``path`` holds a workspace and ``force`` is not set, or holds foreign files;
            the workspace cannot be created or written; its base IRI differs from the build's.
        ShapeViolationError: the build does not validate (checked here unless the result carries
            a conforming validation of the same graphs against the workspace's vocab and shapes).
    """
    from evoonto.workspace import _read_config

    path = Path(path)
    replacing = check_workspace_target(path, force=force) is not None  # (finishes an interrupted swap first)
    name, settings = path.resolve().name.lstrip(".") or "workspace", {}
    if not replacing and (path / "config.json").is_file():  # a fresh init: its name, base IRI and settings stay
        config = _read_config(path)
        if config["base_iri"] != result.base_iri:
            raise WorkspaceError(f"{path}: the workspace base IRI {config['base_iri']} differs from the build's "
                                 f"{result.base_iri}; rebuild with base_iri=workspace_base_iri(path)")
        name, settings = config["name"], dict(config["settings"])
    try:
        if path.is_dir():
            ws = _write_in_place(result, path, name, settings, replacing)
        else:
            ws = _write_new_folder(result, path, name)
    except OSError as exc:  # read-only or full disk: one line, not a traceback
        raise WorkspaceError(f"cannot write the workspace {path}: {exc.strerror or exc}") from None
    return ws
