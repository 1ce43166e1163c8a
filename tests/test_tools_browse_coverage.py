"""browse: query-coverage re-ranking (evo:coverageDiversity), evo:fuzzyWeight, and documents that do
not depend on the order in which the store returns triples."""

from __future__ import annotations

from pathlib import Path

import rdflib

from evoonto.ontology import Ontology
from evoonto.store import OxigraphStore, parse_rdf_file
from evoonto.tools.browse import diversify
from evoonto.tools.index import gather_documents
from evoonto.tools.toolkit import OntologyTools

FIXTURE = Path(__file__).parent / "fixtures" / "tools_concert.trig"
BASE = "https://example.org/evoonto/tools-test/"
EVO = rdflib.Namespace("https://w3id.org/evoonto/ns#")
TOOLS_GRAPH = rdflib.URIRef("https://w3id.org/evoonto/graph/tools")
BROWSE = rdflib.URIRef(BASE + "tools/browse")


def load(quads=None, version: int = 3) -> Ontology:
    store = OxigraphStore()
    store.load_quads(quads if quads is not None else parse_rdf_file(FIXTURE))
    return Ontology(store, version=version, base_iri=BASE)


def with_settings(**values) -> OntologyTools:
    onto = load(version=5)
    onto.store.apply(removals={}, additions={TOOLS_GRAPH: [(BROWSE, EVO[name], rdflib.Literal(value))
                                              for name, value in values.items()]})
    return OntologyTools(onto)


def test_diversify_moves_a_new_word_ahead_of_repeats():
    ranked = [(0.9, 0), (0.8, 1), (0.7, 2), (0.3, 3)]
    matched = [frozenset({0}), frozenset({0}), frozenset({0}), frozenset({1})]
    assert diversify(ranked, matched, 3, 1.0) == [(0.9, 0), (0.3, 3), (0.8, 1), (0.7, 2)]
    # half strength: 0.8 * 0.5 = 0.4 beats 0.38, then 0.38 beats 0.7 * 0.5
    ranked_b = ranked[:3] + [(0.38, 3)]
    assert diversify(ranked_b, matched, 3, 0.5) == [(0.9, 0), (0.8, 1), (0.38, 3), (0.7, 2)]
    # nothing to cover: the order is kept
    assert diversify(ranked, [frozenset({0})] * 4, 4, 1.0) == ranked


def test_default_settings_do_not_diversify():
    tools = OntologyTools(load())
    assert tools.settings.browse.diversity == 0.0 and tools.settings.browse.fuzzy_weight == 0.3


def test_coverage_diversity_and_fuzzy_weight_come_from_the_tools_graph():
    tools = with_settings(coverageDiversity=0.75, fuzzyWeight=0.1)
    assert tools.settings.browse.diversity == 0.75 and tools.settings.browse.fuzzy_weight == 0.1
    bad = with_settings(coverageDiversity=3.5, fuzzyWeight=-1)  # out of range: ignored
    assert bad.settings.browse.diversity == 0.0 and bad.settings.browse.fuzzy_weight == 0.3


def test_diversity_covers_more_query_words():
    query = "age of singers and their concerts"
    plain = [h["label"] for h in OntologyTools(load()).browse(query, n=2)]
    spread = [h["label"] for h in with_settings(coverageDiversity=1.0).browse(query, n=2)]
    assert plain == ["Singer age", "Singer"]            # two hits about singers
    assert spread == ["Singer age", "Concert year"]     # the second covers "concerts"


def test_documents_do_not_depend_on_triple_order():
    quads = list(parse_rdf_file(FIXTURE))

    def snapshot(docs):
        return [(d.iri, d.kind, d.label, d.snippet, d.values, d.locations,
                 {k: list(v) for k, v in d.fields.items() if v}) for d in docs]

    forward = snapshot(gather_documents(load(quads)))
    backward = snapshot(gather_documents(load(list(reversed(quads)))))
    assert forward == backward
