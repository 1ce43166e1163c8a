"""Tool settings read from the tools graph: defaults, overrides, malformed values ignored."""

from __future__ import annotations

import rdflib

from evoonto.ontology import Ontology
from evoonto.tools.settings import DEFAULT_WEIGHTS, load_settings
from evoonto.tools.toolkit import OntologyTools

BASE = "https://example.org/evoonto/settings-test/"
EVO = rdflib.Namespace("https://w3id.org/evoonto/ns#")
SKOS = rdflib.Namespace("http://www.w3.org/2004/02/skos/core#")
PROV = rdflib.Namespace("http://www.w3.org/ns/prov#")


def ontology(tools_triples=(), content_triples=()) -> Ontology:
    tools, content = rdflib.Graph(), rdflib.Graph()
    for t in tools_triples:
        tools.add(t)
    for t in content_triples:
        content.add(t)
    return Ontology.from_graphs({"tools": tools, "content": content}, base_iri=BASE)


def test_defaults_when_absent():
    settings = load_settings(ontology())
    assert settings.browse.weights == DEFAULT_WEIGHTS
    assert (settings.browse.default_results, settings.browse.max_results) == (8, 50)
    assert (settings.resolve.response_budget, settings.resolve.evidence_budget) == (6000, 3)


def test_overrides_and_malformed_values():
    b, r = rdflib.URIRef(BASE + "tools/browse"), rdflib.URIRef(BASE + "tools/resolve")
    w1, w2, w3 = (rdflib.URIRef(f"{BASE}tools/browse/w{i}") for i in range(3))
    L = rdflib.Literal
    settings = load_settings(ontology([
        (b, rdflib.RDF.type, EVO.BrowseSettings), (b, EVO.maxResults, L(10)), (b, EVO.defaultResults, L(3)),
        (b, EVO.searchField, L("prefLabel")), (b, EVO.searchField, SKOS.altLabel), (b, EVO.searchField, L("bogus")),
        (b, EVO.fieldWeight, w1), (w1, EVO.field, L("prefLabel")), (w1, EVO.weight, L(5.0)),
        (b, EVO.fieldWeight, w2), (w2, EVO.field, L("altLabel")), (w2, EVO.weight, L(-1.0)),      # ignored
        (b, EVO.fieldWeight, w3), (w3, EVO.field, L("altLabel")), (w3, EVO.weight, L("heavy")),   # ignored
        (r, rdflib.RDF.type, EVO.ResolveSettings), (r, EVO.responseBudget, L(100)), (r, EVO.evidenceBudget, L(0)),
    ]))
    assert settings.browse.weights == {"prefLabel": 5.0, "altLabel": DEFAULT_WEIGHTS["altLabel"]}
    assert (settings.browse.default_results, settings.browse.max_results) == (3, 10)
    assert settings.resolve.response_budget == 500  # floor
    assert settings.resolve.evidence_budget == 0


def test_evidence_budget_limits_attached_evidence():
    r = rdflib.URIRef(BASE + "tools/resolve")
    term = rdflib.URIRef(BASE + "term/x/t")
    content = [(term, rdflib.RDF.type, EVO.Term), (term, SKOS.prefLabel, rdflib.Literal("t"))]
    for i in range(5):
        ev = rdflib.URIRef(f"{BASE}evidence/e{i}")
        content += [(ev, rdflib.RDF.type, EVO.Evidence), (ev, EVO.summary, rdflib.Literal(f"s{i}")),
                    (term, PROV.wasDerivedFrom, ev)]
    default = OntologyTools(ontology(content_triples=content)).resolve(["term/x/t"])
    assert len(default["records"][0]["evidence"]) == 3
    settings = [(r, rdflib.RDF.type, EVO.ResolveSettings), (r, EVO.evidenceBudget, rdflib.Literal(1))]
    tools = OntologyTools(ontology(settings, content))
    assert [e["id"] for e in tools.resolve(["term/x/t"])["records"][0]["evidence"]] == ["evidence/e0"]
