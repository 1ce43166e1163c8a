"""Regression (issue 17, item 7): labels are ``@en``, so ``ASK { ?t skos:prefLabel "Invoice total" }``
is false and the magic gave no clue. The magic now has a language- and case-insensitive label
lookup (``find_label`` / ``%sparql --label``) and prints a note when a plain label literal finds
nothing; the data model is unchanged (labels stay tagged)."""

from __future__ import annotations

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, SKOS

from evoonto.namespaces import EVO
from evoonto.ontology import Ontology
from evoonto.sparql_magic import find_label, label_hint, run_query

TERM = URIRef("https://example.org/evoonto/t/term/db/Invoice.Total")


@pytest.fixture()
def onto() -> Ontology:
    content = Graph()
    content.add((TERM, RDF.type, EVO.Term))
    content.add((TERM, SKOS.prefLabel, Literal("Invoice total", lang="en")))
    content.add((TERM, SKOS.hiddenLabel, Literal("Total")))
    return Ontology.from_graphs({"content": content})


def test_labels_stay_tagged_and_the_lookup_ignores_tag_and_case(onto):
    assert run_query(onto, 'ASK { ?t skos:prefLabel "Invoice total" }') is False  # SPARQL semantics
    assert run_query(onto, 'ASK { ?t skos:prefLabel "Invoice total"@en }') is True
    rows = find_label(onto, "  invoice TOTAL ")
    assert [(r["node"], r["property"], r["label"]) for r in rows] == [
        (TERM, SKOS.prefLabel, Literal("Invoice total", lang="en"))]
    assert [r["property"] for r in find_label(onto, "total")] == [SKOS.hiddenLabel]
    assert find_label(onto, 'x" } . ?s ?p ?o { "') == []  # the text is a literal, not query syntax


def test_a_plain_label_literal_that_finds_nothing_gets_a_note(onto, capsys):
    query = 'ASK { ?t skos:prefLabel "Invoice total" }'
    note = label_hint(query, run_query(onto, query))
    assert note is not None and '"Invoice total"@en' in note
    assert label_hint('ASK { ?t skos:prefLabel "Invoice total"@en }', False) is None
    assert label_hint(query, True) is None

    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    try:
        ip.run_cell("%load_ext evoonto.sparql_magic")
        ip.user_ns["onto"] = onto
        ip.run_cell(f"%sparql -o onto {query}")
        assert "labels are language-tagged" in capsys.readouterr().out
        found = ip.run_cell('%sparql -o onto --label "invoice total"')
    finally:
        InteractiveShell.clear_instance()
    assert [r["node"] for r in found.result] == [TERM]
