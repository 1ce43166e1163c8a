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

import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rdflib import Graph

from evoonto.builder.construct import construct, ground_in_documents, scheme_triples
from evoonto.builder.labels import use_lexicon
from evoonto.builder.probe import ColumnProfile, Prober
from evoonto.builder.propose import JoinCandidate, OfflineProposer, Proposer
from evoonto.builder.verify import Rejection, verify
from evoonto.builder.workload import Question, as_questions
from evoonto.catalog import read_catalog
from evoonto.errors import ConfigurationError, ShapeViolationError, SourceError
from evoonto.iris import IriFactory
from evoonto.lexicon import Lexicon
from evoonto.namespaces import bind_prefixes

if TYPE_CHECKING:
    from evoonto.sources.base import BaseSource
    from evoonto.validation import ValidationReport
    from evoonto.workspace import Workspace

__all__ = ["BuildResult", "SourceReport", "build", "build_clock", "make_proposer", "write_workspace",
           "workspace_base_iri",
           "DEFAULT_BASE_IRI", "STEPS"]

#: Base IRI used when none is given (a workspace passes its own ``base_iri``).
DEFAULT_BASE_IRI = "https://example.org/evoonto/build/"
#: The steps reported to ``progress`` for every source, in order.
STEPS = ("harvest", "profile", "propose", "verify", "construct")


@dataclass
class SourceReport:
    """Per-source outcome: ``source`` id, record ``counts``, ``questions`` used, ``elapsed_ms``,
    ``location`` (the path or URL it was opened from; None for a Source object)."""

    source: str
    counts: dict[str, int]
    questions: int
    elapsed_ms: float
    location: str | None = None


@dataclass
class BuildResult:
    """What :func:`build` returns.

    Attributes:
        graphs: ``{"catalog": Graph, "content": Graph}`` (the tools graph is left to the tool layer).
        counts: totals over sources: terms, mappings, evidence, probes, constraints, relations, and
            document_links (Terms grounded in document passages, see
            :func:`~evoonto.builder.construct.ground_in_documents`).
        rejected: every candidate that failed verification, with its reason.
        sources: one :class:`SourceReport` per source, in input order.
        proposer: the proposer's name; ``base_iri``: the IRI base used; ``at``: the logical time.
        elapsed_ms: wall time of the whole build in milliseconds.
    """

    graphs: dict[str, Graph]
    counts: dict[str, int]
    rejected: list[Rejection]
    sources: list[SourceReport]
    proposer: str
    base_iri: str
    at: datetime
    elapsed_ms: float = 0.0
    validation: ValidationReport | None = field(default=None, repr=False)

    def serialize(self, name: str = "content") -> str:
        """The graph ``name`` as sorted N-Triples (byte-identical for identical builds)."""
        text = self.graphs[name].serialize(format="nt")
        return "".join(sorted(line + "\n" for line in text.splitlines() if line.strip()))


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
    with use_lexicon(lexicon):
        return _build(sources, workload, proposer, base_iri, validate, at, progress)


def _build(sources: Sequence[Any] | str | Path, workload: str | Path | Iterable[Question | str] | None,
           proposer: str | Proposer, base_iri: str, validate: bool, at: datetime | None,
           progress: Callable[[str, str], None] | None) -> BuildResult:
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

    catalog = bind_prefixes(Graph())
    content = bind_prefixes(Graph())
    totals: dict[str, int] = {}
    rejected: list[Rejection] = []
    reports: list[SourceReport] = []
    seen_ids: set[str] = set()
    for location in sources:
        t0 = time.perf_counter()
        src, owned = _open(location)
        try:
            if src.id in seen_ids:
                raise SourceError(f"two sources have the id {src.id!r}; give them distinct names")
            seen_ids.add(src.id)
            source_catalog = harvest(src, iris)
            catalog += source_catalog
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
            _step(progress, src.id, "propose")
            verified = verify(proposal, schema, profiles, prober)
            rejected.extend(verified.rejected)
            _step(progress, src.id, "verify")
            built = construct(verified, schema, iris, clock)
            built.graph(content)
            _step(progress, src.id, "construct")
        finally:
            if owned:
                src.close()
        counts = built.counts()
        if not counts.get("terms") and getattr(src, "kind", "") != "documents":
            from evoonto.sources.base import warn

            warn(f"source {src.id} yields no Terms (no table with columns)")
        for key, value in counts.items():
            totals[key] = totals.get(key, 0) + value
        reports.append(SourceReport(src.id, counts, len(mine), (time.perf_counter() - t0) * 1000.0,
                                    str(location) if isinstance(location, (str, Path)) else None))
    if not totals.get("terms"):
        raise SourceError("no Terms built: the source(s) " + ", ".join(r.source for r in reports)
                          + " hold no tables with columns (documents only ground Terms of table sources)")
    for triple in scheme_triples(iris, "evoonto ontology of " + ", ".join(r.source for r in reports)):
        content.add(triple)
    totals["document_links"] = ground_in_documents(content, catalog)
    result = BuildResult({"catalog": catalog, "content": content}, totals, rejected, reports,
                         getattr(chosen, "name", type(chosen).__name__), iris.base, clock)
    if validate:
        result.validation = _validate(result)
    result.elapsed_ms = (time.perf_counter() - started) * 1000.0
    return result


def _discovered_joins(src: BaseSource, iris: IriFactory) -> list[JoinCandidate]:
    """Undeclared joins suggested by names and value overlap (source layer); verify re-probes them."""
    from evoonto.sources.joins import discover_joins

    if getattr(src, "kind", "") == "documents":
        return []
    return [JoinCandidate(j.left_table, (j.left_column,), j.right_table, (j.right_column,), declared=False,
                          origin="source")
            for j in discover_joins(src, iris, measure_declared=False) if not j.declared]


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
    from evoonto.ontology import Ontology
    from evoonto.resources import vocab_graph
    from evoonto.validation import validate

    onto = Ontology.from_graphs({**result.graphs, "vocab": vocab_graph()}, base_iri=result.base_iri)
    report = validate(onto)
    if not report.conforms:
        first = report.violations[0].text() if report.violations else "shape violation"
        raise ShapeViolationError(f"the built ontology violates the shapes ({len(report.violations)} "
                                  f"violations), first: {first}", report)
    return report


def workspace_base_iri(path: str | Path) -> str:
    """The base IRI a build for the workspace at ``path`` must use: the existing workspace's, or
    the default a new workspace there would get (:func:`evoonto.iris.default_base` of its name).

    Raises:
        WorkspaceError: ``path`` holds a malformed workspace.
    """
    from evoonto.iris import default_base
    from evoonto.workspace import Workspace

    path = Path(path)
    if (path / "config.json").is_file():
        return Workspace.open(path).base_iri
    return default_base(path.resolve().name.lstrip(".") or "workspace")


def write_workspace(result: BuildResult, path: str | Path) -> Workspace:
    """Write a build as version 0 of a workspace (created when missing or empty, else its base is
    replaced; SHACL-validated by the workspace). The source locations are recorded in the
    workspace settings (``sources``: ``{id: path or URL}``) for ``evoonto serve --data-tools``.

    Args:
        result: a :class:`BuildResult` built with ``base_iri=workspace_base_iri(path)``.
        path: the workspace directory.

    Returns:
        The open :class:`evoonto.workspace.Workspace`.

    Raises:
        WorkspaceError: the workspace cannot be created or written, has patches already, or its base
            IRI differs from the build's.
        ShapeViolationError: the build does not validate.
    """
    from evoonto.errors import WorkspaceError
    from evoonto.workspace import Workspace

    path = Path(path)
    exists = (path / "config.json").is_file()
    if exists:
        ws = Workspace.open(path)
        if ws.base_iri != result.base_iri:
            raise WorkspaceError(f"{path}: the workspace base IRI {ws.base_iri} differs from the build's "
                                 f"{result.base_iri}; rebuild with base_iri=workspace_base_iri(path)")
    else:
        ws = Workspace.init(path, base_iri=result.base_iri)
    ws.replace_base(dict(result.graphs))
    locations = {r.source: r.location for r in result.sources if r.location}
    if locations:
        ws.set_setting("sources", locations)
    return ws
