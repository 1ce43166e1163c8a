"""A record field written as an untyped ``"false"`` (or ``"0"``) read as True.

``_python`` turned a boolean field into ``bool(literal.toPython())``; an untyped literal's Python
value is its text, and every non-empty text is true: ``evo:primaryKey "false"`` in a hand-written
or imported catalog made the column a key (read through rdflib), while the embedded store's string
path read False. Both read the lexical form now: ``true`` / ``1`` (any case) is true.
"""

from __future__ import annotations

import rdflib
from rdflib import Literal, URIRef
from rdflib.namespace import DCAT, DCTERMS, RDF, XSD

from evoonto.catalog import read_catalog
from evoonto.namespaces import CSVW, EVO


def _catalog(primary_key: Literal) -> rdflib.Graph:
    g = rdflib.Graph()
    src, tbl, col = (URIRef("https://example.org/s"), URIRef("https://example.org/s/t"),
                     URIRef("https://example.org/s/t/c"))
    g.add((src, RDF.type, DCAT.Dataset))
    g.add((src, DCTERMS.identifier, Literal("s")))
    g.add((src, EVO.sourceKind, Literal("sqlite")))
    g.add((tbl, RDF.type, CSVW.Table))
    g.add((tbl, DCTERMS.title, Literal("t")))
    g.add((tbl, DCTERMS.isPartOf, src))
    g.add((col, RDF.type, CSVW.Column))
    g.add((col, CSVW.name, Literal("c")))
    g.add((col, DCTERMS.isPartOf, tbl))
    g.add((col, EVO.primaryKey, primary_key))
    return g


def test_untyped_false_is_false_and_true_is_true():
    for text, expected in (("false", False), ("0", False), ("FALSE", False), ("true", True), ("1", True)):
        column = read_catalog(_catalog(Literal(text))).sources[0].tables[0].columns[0]
        assert column.primary_key is expected, text
    typed = read_catalog(_catalog(Literal(False, datatype=XSD.boolean))).sources[0].tables[0].columns[0]
    assert typed.primary_key is False
