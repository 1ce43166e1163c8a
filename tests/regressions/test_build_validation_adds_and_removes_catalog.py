"""Regression (issue 19): the build's SHACL check added every vocab and catalog triple to the content
graph and removed them one by one afterwards (tens of thousands of rdflib adds and removes on a wide
schema). Catalog and content are now two named graphs of one rdflib store and pyshacl reads their union
with the vocab as a third graph, which is dropped afterwards; the check finds the same violations."""

from __future__ import annotations

import pytest
from rdflib import RDF, Literal

from evoonto.namespaces import EVO, GRAPH


def test_build_validation_adds_and_removes_catalog_union_without_copies(tmp_path, monkeypatch):
    from fixtures.builder_support import make_cards_db

    from evoonto.builder import build
    from evoonto.builder.pipeline import _validate
    from evoonto.errors import ShapeViolationError

    result = build([make_cards_db(tmp_path)], validate=False)
    content, catalog = result.graphs["content"], result.graphs["catalog"]
    assert content.store is catalog.store and content.identifier == GRAPH.content
    before = {name: set(g) for name, g in result.graphs.items()}
    monkeypatch.setattr(content, "remove", lambda *a, **k: pytest.fail("content.remove called"))
    assert _validate(result).conforms
    monkeypatch.undo()
    assert {name: set(g) for name, g in result.graphs.items()} == before
    assert {c.identifier for c in content.store.contexts()} <= {GRAPH.catalog, GRAPH.content}  # vocab dropped
    # a violation that needs the catalog's types (a Mapping onto a table the catalog does not type) is found
    mapping = next(m for m in content.subjects(RDF.type, EVO.Mapping) if content.value(m, EVO.table) is not None)
    table = content.value(mapping, EVO.table)
    typed = set(catalog.triples((table, RDF.type, None)))
    catalog.remove((table, RDF.type, None))
    with pytest.raises(ShapeViolationError, match="exists in the catalog"):
        _validate(result)
    for triple in typed:
        catalog.add(triple)
    assert _validate(result).conforms
    content.add((mapping, EVO.aggregation, Literal("SUMM")))
    with pytest.raises(ShapeViolationError, match="violates the shapes"):
        _validate(result)
