"""Regression: preparing one version for serving read the whole catalog twice.

Defect: the compact answer's table joins (:func:`evoonto.tools.joinpaths.join_graph_of`) and the
manifest's source list (:func:`evoonto.tools.manifest.sources`) each called
:func:`evoonto.catalog.read_catalog` on the same, unchanged version. Each call ran the catalog's
SPARQL query and rebuilt every table and column record: about 7 CPU s each on a 70,000-column
workspace, twice before a cold ``evoonto serve`` answered its first call.

Now :meth:`evoonto.ontology.Ontology.catalog` keeps the catalog it read until the store is written
to (or swapped), and ``read_catalog`` of an Ontology goes through it. These tests count the reads
and check that a write is seen.
"""

from __future__ import annotations

import rdflib
from rdflib import Literal, URIRef
from rdflib.namespace import DCTERMS, RDF

from evoonto import catalog as catalog_module
from evoonto.catalog import read_catalog
from evoonto.namespaces import CSVW
from evoonto.ontology import Ontology
from evoonto.server import _served_tools
from fixtures.core_support import finance_workspace


def _count_reads(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = catalog_module.catalog_from_rows

    def counting(source):
        calls.append(1)
        return real(source)

    monkeypatch.setattr(catalog_module, "catalog_from_rows", counting)
    return calls


def test_serving_a_version_reads_its_catalog_once(tmp_path, monkeypatch):
    ws = finance_workspace(tmp_path / "ws")
    calls = _count_reads(monkeypatch)
    tools, manifest = _served_tools(ws, sources={})
    assert tools.built.table_joins() is not None and manifest
    assert len(calls) == 1, f"the catalog was read {len(calls)} times for one version"


def test_a_write_to_the_store_is_seen_by_the_next_catalog(tmp_path, monkeypatch):
    ws = finance_workspace(tmp_path / "ws")
    onto = ws.ontology
    before = read_catalog(onto)
    assert read_catalog(onto) is before  # unchanged store: the same catalog object
    source = before.sources[0]
    table = URIRef(str(source.tables[0].iri) + "_added")
    graph = rdflib.Graph()
    graph.add((table, RDF.type, CSVW.Table))
    graph.add((table, DCTERMS.title, Literal("added_table")))
    graph.add((table, DCTERMS.isPartOf, source.iri))
    onto.store.add(graph, "catalog")
    after = read_catalog(onto)
    assert after is not before
    names = [t.name for t in after.source(source.id).tables]
    assert "added_table" in names, names


def test_two_ontologies_never_share_a_catalog(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    onto = ws.ontology
    empty = Ontology.from_graphs({})
    assert read_catalog(onto).sources
    assert read_catalog(empty).sources == ()
