"""Regression: ``write_workspace`` decided whether a build's graphs were still the ones validated and
held in the build's Oxigraph store by their sizes alone. A caller who read ``result.graphs["content"]``
and replaced one triple by another (same size) had the change silently dropped (the store was written
instead of the changed copy) and not validated either. Copies handed out by ``StoreGraphs`` now record
every change."""

from __future__ import annotations

import pytest
from fixtures.sources_support import make_shop_db
from rdflib import RDF, RDFS, SKOS, Literal, URIRef

from evoonto.builder import build, write_workspace
from evoonto.errors import ShapeViolationError
from evoonto.namespaces import EVO
from evoonto.workspace import Workspace


def _a_term_label(graph) -> tuple[URIRef, Literal]:
    term = sorted(graph.subjects(RDF.type, EVO.Term), key=str)[0]
    label = next(iter(graph.objects(term, SKOS.prefLabel)))
    return term, label


def test_same_size_change_of_a_read_graph_is_written(tmp_path):
    result = build([str(make_shop_db(tmp_path))])
    content = result.graphs["content"]
    term, label = _a_term_label(content)
    size = len(content)
    content.remove((term, SKOS.prefLabel, label))
    content.add((term, SKOS.prefLabel, Literal("renamed by the caller")))
    assert len(content) == size  # the case sizes cannot see
    write_workspace(result, tmp_path / "ws")
    written = Workspace.open(tmp_path / "ws").ontology.store
    labels = {o for _s, _p, o in written.triples("content") if _s == term and _p == SKOS.prefLabel}
    assert Literal("renamed by the caller") in labels
    assert label not in labels


def test_same_size_change_that_breaks_a_shape_is_validated(tmp_path):
    result = build([str(make_shop_db(tmp_path))])
    content = result.graphs["content"]
    term, label = _a_term_label(content)
    content.remove((term, SKOS.prefLabel, label))  # a Term needs its skos:prefLabel (shapes/content.ttl)
    content.add((URIRef(str(term) + "-other"), RDFS.comment, Literal("keeps the size")))
    with pytest.raises(ShapeViolationError):
        write_workspace(result, tmp_path / "ws")
    assert not (tmp_path / "ws" / "config.json").exists()


def test_unread_graphs_still_hand_the_store_over(tmp_path):
    result = build([str(make_shop_db(tmp_path))])
    store = result.graphs.unchanged_store()
    assert store is not None and not result.graphs.changed()
    _ = result.graphs["catalog"]  # reading a copy changes nothing
    assert result.graphs.unchanged_store() is store
