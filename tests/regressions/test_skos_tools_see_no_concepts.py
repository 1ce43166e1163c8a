"""Regression (issue 16, item 5): SKOS tools saw no concepts.

``SELECT ?t { ?t a skos:Concept }`` returned 0 in the CLI, the notebook magic and the Turtle export:
only ``evo:Term rdfs:subClassOf skos:Concept`` existed and nothing infers it. Every Term is now
asserted ``a skos:Concept``, ``skos:inScheme`` the workspace's ``skos:ConceptScheme``, and the scheme
names its top concepts (``skos:hasTopConcept`` / ``skos:topConceptOf``), so a SKOS browser has a
hierarchy to start from; the shapes accept it.
"""

from __future__ import annotations

import json

import pytest
import rdflib
from rdflib.namespace import RDF, SKOS

from evoonto.cli import main
from evoonto.export import to_turtle
from evoonto.validation import validate
from evoonto.workspace import Workspace

CONCEPTS = "SELECT ?t WHERE { ?t a skos:Concept }"


@pytest.fixture(scope="module")
def ws(concert_workspace):
    return Workspace.open(concert_workspace)  # the session's concert_singer workspace, read only


def test_turtle_export_has_concepts_in_a_scheme(ws):
    g = rdflib.Graph().parse(data=to_turtle(ws.ontology), format="turtle")
    concepts = set(g.subjects(RDF.type, SKOS.Concept))
    terms = set(g.subjects(RDF.type, rdflib.URIRef("https://w3id.org/evoonto/ns#Term")))
    assert concepts and concepts == terms
    scheme = ws.iris.scheme()
    assert (scheme, RDF.type, SKOS.ConceptScheme) in g
    assert all((t, SKOS.inScheme, scheme) in g for t in concepts)
    tops = set(g.objects(scheme, SKOS.hasTopConcept))
    assert tops and tops < concepts  # columns are parts (evo:partOf ⊑ skos:broader) of their table Term
    assert all((t, SKOS.topConceptOf, scheme) in g for t in tops)
    assert not any((t, SKOS.broader, None) in g for t in tops)
    assert validate(ws.ontology).conforms


def test_cli_sparql_finds_concepts(ws, capsys):
    assert main(["sparql", "-w", str(ws.path), "--format", "json", CONCEPTS]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == len(list(ws.ontology.query("PREFIX evo: <https://w3id.org/evoonto/ns#> "
                                                    "SELECT ?t WHERE { ?t a evo:Term }"))) > 0


def test_notebook_magic_finds_concepts(ws, capsys):
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    try:
        ip.run_cell("%load_ext evoonto.sparql_magic")
        result = ip.run_cell(f"%sparql -w {ws.path} {CONCEPTS}")
        assert result.error_in_exec is None, capsys.readouterr().out
        assert len(result.result) > 0
    finally:
        InteractiveShell.clear_instance()
