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
    assert tools.browse("average singer age", format="verbose")[0]["score"] == 1.0
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
    ids = [[h["id"] for h in OntologyTools(load(order)).browse("singer", kind="any", n=10, format="verbose")]
           for order in (quads, list(reversed(quads)))]
    assert ids[0] == ids[1]


def test_hits_per_column_collapses_results_mapping_one_column():
    from fixtures.evolution_toy import IRIS, toy_ontology

    from evoonto.records import Mapping, Term

    # two value Terms of singer.Country besides the column's own Term
    extra = []
    src, table, column = IRIS.source("toy"), IRIS.table("toy", "singer"), IRIS.column("toy", "singer", "Country")
    for value in ("France", "Japan"):
        term, m = IRIS.term("toy", f"singer-country-{value.lower()}"), IRIS.mapping("toy", "singer", value)
        extra += list(Term(term, f"{value} country", kinds=["Category"], mappings=[m]).to_triples())
        extra += list(Mapping(m, term, src, table, column).to_triples())

    def tools(**settings):
        onto = toy_ontology(extra_content=extra)
        browse = IRIS.tools("browse")
        onto.store.apply(removals={}, additions={TOOLS_GRAPH: [(browse, rdflib.RDF.type, EVO.BrowseSettings)] + [
            (browse, EVO[name], rdflib.Literal(value)) for name, value in settings.items()]})
        return OntologyTools(onto)

    query = "country of singers from France or Japan"
    plain = tools()
    assert plain.settings.browse.hits_per_column == 0  # default: no collapsing
    before = [h["label"] for h in plain.browse(query, n=10, format="verbose")]
    assert {"France country", "Japan country", "Singer country"} <= set(before)
    collapsed = tools(hitsPerColumn=1)
    assert collapsed.settings.browse.hits_per_column == 1
    after = [h["label"] for h in collapsed.browse(query, n=10, format="verbose")]
    on_country = [label for label in after if label in ("France country", "Japan country", "Singer country")]
    assert len(on_country) == 1 and on_country[0] == next(b for b in before if b in on_country)  # the best one
    assert [label for label in before if label in after] == after[:len([b for b in before if b in after])]
    two = tools(hitsPerColumn=2).browse(query, n=10, format="verbose")
    assert two != collapsed.browse(query, n=10, format="verbose")
    assert tools(hitsPerColumn=-2).settings.browse.hits_per_column == 0  # malformed: ignored


def test_collapse_by_column_keeps_unlocated_documents_and_order():
    from types import SimpleNamespace

    from evoonto.tools.browse import collapse_by_column

    specs = [("term", ["t.a"]), ("term", ["t.a"]), ("term", []), ("term", ["t.b"]), ("term", ["t.a"]),
             ("term", ["t"]), ("term", ["t"]), ("mapping", ["t.a"]), ("term", ["t.z", "t.b"])]
    docs = [SimpleNamespace(kind=kind, locations=loc) for kind, loc in specs]
    ranked = [(1.0 - i / 10, i) for i in range(len(docs))]
    # table-level documents ("t") and documents of another kind are never collapsed with column Terms;
    # a Term with several columns is keyed by its first column in sorted order (t.b)
    assert [i for _, i in collapse_by_column(ranked, docs, 1)] == [0, 2, 3, 5, 6, 7]
    assert [i for _, i in collapse_by_column(ranked, docs, 2)] == [0, 1, 2, 3, 5, 6, 7, 8]
    assert collapse_by_column(ranked, docs, 0) == ranked
