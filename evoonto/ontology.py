"""The ontology of one version: the six named graphs over a :class:`~evoonto.store.Store`.

``L_t = (S_t, Γ_t, R_t)`` of the paper: Content (graphs ``content`` + ``catalog``), Schema
(``vocab`` + ``shapes``) and Tool (``tools``) layers, plus ``history``. An :class:`Ontology` is a
thin view: graph access, SPARQL on Oxigraph, and :meth:`Ontology.with_patch` for an
in-memory candidate version (used by the gate to score a patch before accepting it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

import rdflib

from evoonto.iris import IriFactory
from evoonto.namespaces import GRAPH, GRAPH_NAMES, bind_prefixes
from evoonto.store import OxigraphStore, Store

if TYPE_CHECKING:
    from evoonto.catalog import Catalog


class Ontology:
    """The named graphs of one version.

    Args:
        store: the quad store holding the six graphs (embedded :class:`OxigraphStore` or remote).
        version: version number (0 = base); candidates carry the parent's number + 1.
        base_iri: the workspace base IRI (for :attr:`iris`).
        candidate: True for an in-memory candidate from :meth:`with_patch`.
    """

    def __init__(self, store: Store, *, version: int = 0, base_iri: str = "https://example.org/evoonto/default/",
                 candidate: bool = False, parent: "Ontology | None" = None, delta=None):
        self.store = store
        self.version = version
        self.base_iri = base_iri
        self.candidate = candidate
        #: for a candidate: the version it was derived from and the Patch applied to it (parent + delta)
        self.parent = parent
        self.delta = delta
        self._vocab_cache: tuple | None = None

    def __repr__(self) -> str:
        kind = "candidate " if self.candidate else ""
        return f"<Ontology {kind}version {self.version}, {self.store.count()} quads>"

    @classmethod
    def from_graphs(cls, graphs: Mapping[str, rdflib.Graph], *, version: int = 0,
                    base_iri: str = "https://example.org/evoonto/default/") -> "Ontology":
        """An in-memory ontology from ``{graph name: rdflib.Graph}`` (missing graphs are empty)."""
        store = OxigraphStore()
        for name, graph in graphs.items():
            if name not in GRAPH_NAMES:
                from evoonto.errors import EvoontoError

                raise EvoontoError(f"unknown graph {name!r}; expected one of {', '.join(GRAPH_NAMES)}")
            store.add(graph.triples((None, None, None)) if isinstance(graph, rdflib.Graph) else graph, name)
        return cls(store, version=version, base_iri=base_iri)

    @classmethod
    def from_dataset(cls, dataset: rdflib.Dataset, **kwargs) -> "Ontology":
        """An in-memory ontology from an rdflib ``Dataset`` whose named graphs are ``evog:<name>``
        (other graphs are ignored); keyword arguments as :meth:`from_graphs`."""
        graphs = {}
        for graph in dataset.graphs():
            name = GRAPH.name_of(graph.identifier)
            if name is not None:
                graphs[name] = graph
        return cls.from_graphs(graphs, **kwargs)

    @property
    def iris(self) -> IriFactory:
        """The :class:`IriFactory` of this ontology's base IRI."""
        return IriFactory(self.base_iri)

    def graph(self, name: str) -> rdflib.Graph:
        """A copy of named graph ``name`` (one of vocab, shapes, catalog, content, tools, history)."""
        return self.store.graph(name)

    def graphs(self) -> dict[str, rdflib.Graph]:
        """Copies of all six graphs, ``{name: Graph}``."""
        return {name: self.graph(name) for name in GRAPH_NAMES}

    def dataset(self) -> rdflib.Dataset:
        """All six graphs as an rdflib ``Dataset`` (named graphs ``evog:<name>``, default_union on)."""
        ds = bind_prefixes(rdflib.Dataset(default_union=True))
        for name in GRAPH_NAMES:
            g = ds.graph(GRAPH[name])
            for triple in self.store.graph(name):
                g.add(triple)
        return ds

    def counts(self) -> dict[str, int]:
        """Number of triples per graph, ``{name: int}``."""
        return {name: self.store.count(name) for name in GRAPH_NAMES}

    def query(self, sparql: str, *, default_union: bool = True, graphs=None):
        """Run SPARQL on the store (Oxigraph). Standard prefixes (evo:, skos:, …) are predeclared.

        Args:
            sparql: SELECT / ASK / CONSTRUCT / DESCRIBE text.
            default_union: the default graph is the union of the six graphs (default True).
            graphs: graph names to use as default graph instead (e.g. ``["content", "catalog"]``).

        Returns:
            SELECT: ``list[dict[str, rdflib Node]]``; ASK: bool; CONSTRUCT/DESCRIBE: ``rdflib.Graph``.

        Raises:
            evoonto.store.QueryError: malformed query.
        """
        return self.store.query(sparql, default_union=default_union, default_graphs=graphs)

    def _schema_key(self):
        if not isinstance(self.store, OxigraphStore):  # a remote store keeps no revision counters
            return None
        return (self.store.graph_revision("vocab"), self.store.graph_revision("shapes"))

    def schema_cache(self) -> dict:
        """Derived data of the Schema layer, computed once per change of the vocab/shapes graphs.

        Returns ``{"vocab": rdflib.Graph, "shapes": rdflib.Graph, "terms": frozenset of the vocab's
        subject IRIs, "skeleton": list of the vocab's rdf:type / rdfs:subClassOf /
        rdfs:subPropertyOf triples}``. Shared objects: callers must not modify them.
        """
        # keyed on the store object itself (``is``) and its per-graph revisions: a Workspace may swap
        # the store of an Ontology (replace_base), and revisions of two stores are not comparable
        key = self._schema_key()
        cached = self._vocab_cache
        if cached is None or key is None or cached[0] is not self.store or cached[1] != key:
            from rdflib.namespace import RDF, RDFS

            vocab = self.graph("vocab")
            keep = {RDF.type, RDFS.subClassOf, RDFS.subPropertyOf}
            cached = self._vocab_cache = (self.store, key, {
                "vocab": vocab,
                "shapes": self.graph("shapes"),
                "terms": frozenset(vocab.subjects()),
                "skeleton": [t for t in vocab if t[1] in keep],
            })
        return cached[2]

    def catalog(self) -> "Catalog":
        """The :class:`~evoonto.catalog.Catalog` of this version (every source, table, column and
        document): :func:`~evoonto.catalog.read_catalog` of this ontology, read once per change of
        an embedded store and shared (immutable)."""
        from evoonto.catalog import read_catalog

        return read_catalog(self)

    def record(self, iri):
        """The typed record (:mod:`evoonto.records`) of the content node ``iri``.

        Raises:
            evoonto.records.RecordError: ``iri`` is not a Term, Mapping, Constraint, Evidence, Probe or
            Relation of the content graph.
        """
        from rdflib import URIRef

        from evoonto.records import RECORD_TYPES, RecordError

        node = URIRef(str(iri))
        graph = rdflib.Graph()
        for row in self.store.query(f"SELECT ?p ?o WHERE {{ <{node}> ?p ?o }}", default_graphs=["content"]):
            graph.add((node, row["p"], row["o"]))
        for rdf_type, cls in RECORD_TYPES.items():
            if (node, rdflib.RDF.type, rdf_type) in graph:
                return cls.from_graph(graph, node)
        raise RecordError(
            f"<{node}> is not a Term, Mapping, Constraint, Evidence, Probe or Relation in the content graph")

    def vocab_graph_cached(self) -> rdflib.Graph:
        """A fresh copy of the vocab graph, from the per-revision cache (cheaper than :meth:`graph`)."""
        out = rdflib.Graph()
        for triple in self.schema_cache()["vocab"]:
            out.add(triple)
        return out

    def with_patch(self, patch) -> "Ontology":
        """An in-memory candidate: a copy of this version with ``patch`` applied (self is unchanged).

        The candidate is a new value, ``parent`` + ``delta``: its :attr:`parent` is ``self`` and its
        :attr:`delta` the patch, so derived data (e.g. the browse index) can be updated from the
        parent's instead of rebuilt.

        Args:
            patch: an :class:`evoonto.patch.Patch`.
        Raises:
            whatever the store raises when a triple cannot be written (e.g. a non-RDF value).
        """
        store = self.store.copy() if hasattr(self.store, "copy") else _copy_to_memory(self.store)
        patch.apply_to(store)
        return Ontology(store, version=self.version + 1, base_iri=self.base_iri, candidate=True,
                        parent=self, delta=patch)


def _copy_to_memory(store: Store) -> OxigraphStore:
    out = OxigraphStore()
    for name in GRAPH_NAMES:
        out.add(store.graph(name).triples((None, None, None)), name)
    return out


__all__ = ["Ontology"]
