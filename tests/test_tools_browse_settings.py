"""browse: evo:fuzzyWeight from the Tool graph, and documents that do not depend on the order in
which the store returns triples."""

from __future__ import annotations

from pathlib import Path

import rdflib

from evoonto.ontology import Ontology
from evoonto.store import OxigraphStore, parse_rdf_file
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


def test_fuzzy_weight_comes_from_the_tools_graph():
    assert OntologyTools(load()).settings.browse.fuzzy_weight == 0.3  # default
    tools = with_settings(fuzzyWeight=0.0)
    assert tools.settings.browse.fuzzy_weight == 0.0
    # no fuzzy share: scores are the normalised BM25 part only, the best hit scores 1
    assert tools.browse("average singer age")[0]["score"] == 1.0
    assert with_settings(fuzzyWeight=1.5).settings.browse.fuzzy_weight == 0.3   # out of range: ignored
    assert with_settings(fuzzyWeight=-1).settings.browse.fuzzy_weight == 0.3


def test_documents_do_not_depend_on_triple_order():
    quads = list(parse_rdf_file(FIXTURE))

    def snapshot(docs):
        return [(d.iri, d.kind, d.label, d.snippet, d.values, d.locations,
                 {k: list(v) for k, v in d.fields.items() if v}) for d in docs]

    forward = snapshot(gather_documents(load(quads)))
    backward = snapshot(gather_documents(load(list(reversed(quads)))))
    assert forward == backward
    assert [h["id"] for h in OntologyTools(load(quads)).browse("singer", kind="any", n=10)] == \
        [h["id"] for h in OntologyTools(load(list(reversed(quads)))).browse("singer", kind="any", n=10)]


def test_hits_per_column_collapses_results_mapping_one_column():
    from evoonto.tools.index import SearchIndex  # noqa: F401  (documents carry their table.column locations)

    plain = OntologyTools(load())
    assert plain.settings.browse.hits_per_column == 0  # default: no collapsing
    query = "singer name age country"
    before = plain.browse(query, kind="any", n=20)
    docs = {d.iri: d for d in gather_documents(load())}

    def column_of(hit):
        doc = docs.get(hit["id"]) or next(d for iri, d in docs.items() if iri.endswith(hit["id"]))
        return doc.locations[0] if doc.locations else None

    counts = {}
    for hit in before:
        if column_of(hit):
            counts[column_of(hit)] = counts.get(column_of(hit), 0) + 1
    assert max(counts.values()) >= 2  # the fixture has a column hit twice (else the test proves nothing)
    collapsed = with_settings(hitsPerColumn=1)
    assert collapsed.settings.browse.hits_per_column == 1
    after = collapsed.browse(query, kind="any", n=20)
    columns = [column_of(h) for h in after if column_of(h)]
    assert len(columns) == len(set(columns))  # one hit per column
    # order is kept: the hits that remain appear in their original relative order
    kept = [h["id"] for h in after]
    assert kept == [h["id"] for h in before if h["id"] in set(kept)]
    assert with_settings(hitsPerColumn=-2).settings.browse.hits_per_column == 0  # malformed: ignored


def test_collapse_by_column_keeps_unlocated_documents_and_order():
    from types import SimpleNamespace

    from evoonto.tools.browse import collapse_by_column

    docs = [SimpleNamespace(locations=loc) for loc in (["t.a"], ["t.a"], [], ["t.b"], ["t.a"], [])]
    ranked = [(1.0 - i / 10, i) for i in range(len(docs))]
    assert [i for _, i in collapse_by_column(ranked, docs, 1)] == [0, 2, 3, 5]
    assert [i for _, i in collapse_by_column(ranked, docs, 2)] == [0, 1, 2, 3, 5]
    assert collapse_by_column(ranked, docs, 0) == ranked
