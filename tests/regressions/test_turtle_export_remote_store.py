"""Regression: ``evoonto.export.to_turtle`` read ``ontology.store.ox`` although ``Ontology.store`` is
any :class:`~evoonto.store.Store` (the protocol has no ``ox``), so a Turtle export of an ontology over
another store (e.g. a remote SPARQL endpoint) died with ``AttributeError: ... has no attribute 'ox'``.
It now raises a one-line EvoontoError naming the export. (Found by mypy once ``to_turtle`` was typed:
``"Store" has no attribute "ox"``.)"""

from __future__ import annotations

import pytest

from evoonto.errors import EvoontoError
from evoonto.export import to_turtle
from evoonto.ontology import Ontology


class _OtherStore:
    """A store behind the Store protocol that is not the embedded Oxigraph store."""

    def query(self, sparql, *, default_union=True, default_graphs=None):
        return []

    def count(self, name=None) -> int:
        return 0


def test_turtle_export_of_a_non_embedded_store_is_a_clear_error():
    with pytest.raises(EvoontoError, match="Turtle export needs an ontology in an embedded Oxigraph store"):
        to_turtle(Ontology(_OtherStore()))


def test_turtle_export_of_an_embedded_store_still_works():
    import rdflib

    graph = rdflib.Graph()
    graph.add((rdflib.URIRef("https://example.org/a"), rdflib.RDFS.label, rdflib.Literal("a")))
    text = to_turtle(Ontology.from_graphs({"content": graph})).decode("utf-8")
    assert "<https://example.org/a>" in text and '"a"' in text
