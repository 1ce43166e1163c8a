"""A read-only snapshot of what evolution needs from one ontology version.

Reads the ``content`` named graph (docs/architecture.md §3) into plain Python records: Terms with
their labels and mapped table/column and the Evidence values already recorded; the catalog's sources,
tables and columns come from the one catalog reader, :func:`evoonto.catalog.read_catalog`.
Candidate writers use it to pick targets; it never writes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from rdflib import OWL, RDF, Literal, URIRef
from rdflib.namespace import SKOS

from evoonto.builder.labels import normalize
from evoonto.catalog import Catalog, ColumnInfo, read_catalog
from evoonto.namespaces import EVO
from evoonto.records import TERM_KINDS, boolean_text

__all__ = ["OntologyView", "TermInfo", "ColumnInfo"]  # ColumnInfo: the catalog's (evoonto.catalog)

#: evo:Term and its kinds (:data:`evoonto.records.TERM_KINDS`), the classes a Term is found by.
TERM_CLASSES = ("Term", *TERM_KINDS)


@dataclass
class TermInfo:
    """A Term: IRI, labels (pref first, then alt, hidden), kinds (local names), deprecated flag, and
    the (source id, table, column-or-None) locations of its Mappings; ``filtered`` when every Mapping
    carries a filter (a value Term such as ``country.Name = 'Aruba'``)."""

    iri: URIRef
    pref_labels: list[str] = field(default_factory=list)
    alt_labels: list[str] = field(default_factory=list)
    hidden_labels: list[str] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)
    deprecated: bool = False
    locations: list[tuple[str, str, str | None]] = field(default_factory=list)
    mappings: list[URIRef] = field(default_factory=list)
    filtered: bool = False  # every Mapping has an evo:filter: a value Term (rows where column = value)

    @property
    def labels(self) -> list[str]:
        return self.pref_labels + self.alt_labels + self.hidden_labels

    @property
    def source_ids(self) -> set[str]:
        return {loc[0] for loc in self.locations}


class OntologyView:
    """Snapshot of the content, catalog, tools and vocab graphs of ``ontology`` (an Ontology; anything
    with ``graph(name)`` works, its catalog then read from ``graph("catalog")``)."""

    def __init__(self, ontology) -> None:
        #: the ontology itself (the semantic-query translator of ``missing_measure`` reads it)
        self.ontology = ontology
        self.content = ontology.graph("content")
        #: the catalog of this version (:func:`evoonto.catalog.read_catalog`), read once
        self.catalog: Catalog = read_catalog(ontology if hasattr(ontology, "query") else ontology.graph("catalog"))
        #: the Schema layer's vocabulary graph (relation types, classes, properties)
        self.vocab = ontology.graph("vocab")
        try:
            self.tools = ontology.graph("tools")
        except Exception:  # pragma: no cover - an ontology without a tools graph
            from rdflib import Graph
            self.tools = Graph()

    @cached_property
    def browse_counts(self) -> tuple[int, int]:
        """(default results, maximum results) of browse in this version: the tools graph's
        ``evo:defaultResults`` / ``evo:maxResults`` read as the tool layer reads them
        (:func:`evoonto.tools.settings.browse_counts`)."""
        from evoonto.tools.settings import browse_counts

        return browse_counts({name: self._tools_value(name) for name in ("defaultResults", "maxResults")})

    def _tools_value(self, name: str):
        """The first object of ``evo:<name>`` in the tools graph, or None."""
        return next(iter(self.tools.objects(None, EVO._NS[name])), None)  # also names the vocab lacks

    def browse_setting(self, name: str, default: int) -> int:
        """An integer browse setting of the tools graph (``evo:<name>``), ``default`` when absent or
        malformed."""
        value = self._tools_value(name)
        try:
            return int(value) if value is not None else default
        except (TypeError, ValueError):
            return default

    def browse_flag(self, name: str) -> bool:
        """A boolean browse setting of the tools graph (``evo:<name>``, e.g. ``fullLinesMatchedOnly``),
        read as the tool layer reads it (:func:`evoonto.records.boolean_text`); False when absent."""
        from evoonto.records import boolean_text

        value = self._tools_value(name)
        return value is not None and boolean_text(str(value))

    @property
    def answer_settings(self) -> tuple[str, int]:
        """(format, budget in characters) of browse's default answer in this version: the tools
        graph's ``evo:answerFormat`` / ``evo:answerBudget`` with the tool layer's fallbacks
        (:class:`evoonto.tools.settings.BrowseSettings`: an unknown format → its default, the budget
        clamped to [200, 200,000] as :func:`evoonto.tools.settings.load_settings` reads it)."""
        from evoonto.tools.settings import ANSWER_FORMATS, BrowseSettings

        default = BrowseSettings()
        fmt = str(self._tools_value("answerFormat") or "")
        budget = self.browse_setting("answerBudget", default.answer_budget) or default.answer_budget
        return (fmt if fmt in ANSWER_FORMATS else default.answer_format), min(max(budget, 200), 200_000)

    @property
    def browse_default(self) -> int:
        """Hits browse returns when the caller gives no ``n`` (see :attr:`browse_counts`)."""
        return self.browse_counts[0]

    @cached_property
    def sources(self) -> dict[str, URIRef]:
        """Source id (``dcterms:identifier``) -> source IRI."""
        return {s.id: s.iri for s in self.catalog.sources}

    @cached_property
    def columns(self) -> list[ColumnInfo]:
        """Every catalog column, sorted by (source id, table, column)."""
        return self.catalog.columns

    @cached_property
    def _node_location(self) -> dict[URIRef, tuple[str, str, str | None]]:
        loc: dict[URIRef, tuple[str, str, str | None]] = {}
        for t in self.catalog.tables:
            loc[t.iri] = (t.source_id, t.name, None)
            for c in t.columns:
                loc[c.iri] = (c.source_id, c.table, c.name)
        return loc

    @cached_property
    def terms(self) -> list[TermInfo]:
        """Every Term of the content graph, sorted by IRI."""
        g = self.content
        found: dict[URIRef, TermInfo] = {}
        for kind in TERM_CLASSES:
            for t in g.subjects(RDF.type, EVO[kind]):
                if isinstance(t, URIRef):
                    found.setdefault(t, TermInfo(t)).kinds.add(kind)
        for t, info in found.items():
            info.pref_labels = sorted(str(x) for x in g.objects(t, SKOS.prefLabel))
            info.alt_labels = sorted(str(x) for x in g.objects(t, SKOS.altLabel))
            info.hidden_labels = sorted(str(x) for x in g.objects(t, SKOS.hiddenLabel))
            info.deprecated = any(boolean_text(str(x)) for x in g.objects(t, OWL.deprecated))
            for m in sorted(g.objects(t, EVO.hasMapping)):
                info.mappings.append(m)
                node = g.value(m, EVO.column) or g.value(m, EVO.table)
                if node is not None and node in self._node_location:
                    info.locations.append(self._node_location[node])
            info.filtered = bool(info.mappings) and all(g.value(m, EVO.filter) is not None for m in info.mappings)
        return [found[k] for k in sorted(found)]

    @cached_property
    def _terms_by_iri(self) -> dict[str, TermInfo]:
        return {str(t.iri): t for t in self.terms}

    def term(self, iri) -> TermInfo | None:
        """The Term with this IRI, or None."""
        return self._terms_by_iri.get(str(iri))

    def term_of_id(self, ident: str) -> TermInfo | None:
        """The Term an agent-facing id names: its full IRI, or an id that ends its IRI's path
        (``term/db/table.column``, as a tool layer with short ids prints it); None otherwise."""
        found = self._terms_by_iri.get(ident)
        if found is not None or not ident:
            return found
        suffix = "/" + ident.lstrip("/")
        return next((t for iri, t in self._terms_by_iri.items() if iri.endswith(suffix)), None)

    def terms_of(self, source_id: str | None) -> list[TermInfo]:
        """Non-deprecated Terms mapped into ``source_id`` (all Terms when it is None)."""
        return [t for t in self.terms if not t.deprecated and (source_id is None or source_id in t.source_ids)]

    def terms_at(self, source_id: str, table: str, column: str | None) -> list[TermInfo]:
        """Non-deprecated Terms with a Mapping at exactly this table (and column)."""
        return [t for t in self.terms if not t.deprecated and (source_id, table, column) in t.locations]

    @cached_property
    def evidence_values(self) -> set[str]:
        """Normalised ``evo:sampleValue`` literals and value-distribution keys of every Evidence."""
        import json

        values = set()
        for v in self.content.objects(None, EVO.sampleValue):
            values.add(normalize(str(v)))
        for v in self.content.objects(None, EVO.valueDistribution):
            try:
                data = json.loads(str(v))
            except ValueError:
                continue
            if isinstance(data, dict):
                values.update(normalize(str(k)) for k in data)
        return values

    def all_labels(self, source_id: str | None = None) -> list[str]:
        """Every label of the non-deprecated Terms of a source."""
        out = []
        for t in self.terms_of(source_id):
            out.extend(t.labels)
        return out

    def has_literal(self, subject, predicate, value: str) -> bool:
        """True when the content graph holds ``subject predicate value`` (any language tag/datatype)."""
        target = normalize(value)
        return any(isinstance(o, Literal) and normalize(str(o)) == target
                   for o in self.content.objects(subject, predicate))
