"""browse: tokenizer, ranking over the fixture ontology, value hits, kinds, settings, hostile args."""

from __future__ import annotations

from pathlib import Path

import pytest
import rdflib

from evoonto.errors import ToolArgumentError
from evoonto.ontology import Ontology
from evoonto.store import OxigraphStore, parse_rdf_file
from evoonto.tools.index import stem, tokenize
from evoonto.tools.toolkit import OntologyTools

FIXTURE = Path(__file__).parent / "fixtures" / "tools_concert.trig"
BASE = "https://example.org/evoonto/tools-test/"
EVO = rdflib.Namespace("https://w3id.org/evoonto/ns#")


def load(version: int = 3) -> Ontology:
    store = OxigraphStore()
    store.load_quads(parse_rdf_file(FIXTURE))
    return Ontology(store, version=version, base_iri=BASE)


@pytest.fixture(scope="module")
def tools() -> OntologyTools:
    return OntologyTools(load())


def test_tokenizer_splits_identifiers():
    assert tokenize("Singer_ID") == ["singer", "id"]
    # tokens are Snowball stems (evoonto.text): matching keys, not display words
    assert tokenize("totalRevenue2024") == ["total", "revenu", "2024"]
    assert tokenize("HTTPServer status") == ["http", "server", "status"]
    assert tokenize("What is the average age of the singers?") == ["averag", "age", "singer"]
    assert tokenize("the singer's seat in district A11") == ["singer", "seat", "district", "a11"]
    assert tokenize("") == [] and tokenize("!!!") == []
    assert stem("companies") == stem("company") == "compani"
    assert stem("status") == "status" and stem("singers") == "singer" and stem("hosted") == stem("host")


def test_browse_ranks_label_match_first(tools):
    hits = tools.browse("average singer age", format="verbose")
    assert hits[0]["id"] == "term/cs/singer-age"
    assert set(hits[0]) == {"id", "kind", "label", "snippet", "score"}
    assert hits[0]["kind"] == "term" and hits[0]["label"] == "Singer age"
    assert "singer.Age" in hits[0]["snippet"]
    assert all(0 < h["score"] <= 1 for h in hits)
    assert [h["score"] for h in hits] == sorted((h["score"] for h in hits), reverse=True)


def test_browse_synonym_and_column_name(tools):
    assert tools.browse("nationality", format="verbose")[0]["id"] == "term/cs/country"
    assert tools.browse("artist", format="verbose")[0]["id"] == "term/cs/singer"
    assert tools.browse("Status", format="verbose")[0]["id"] == "term/cs/legal-status"


def test_browse_value_hit_from_evidence(tools):
    hits = tools.browse("Banned", format="verbose")
    assert hits[0]["id"] == "term/cs/legal-status"
    assert 'value "Banned"' in hits[0]["snippet"]


def test_browse_misspelling_is_corrected(tools):
    assert tools.browse("nationalty", format="verbose")[0]["id"] == "term/cs/country"


def test_browse_kinds(tools):
    assert {h["kind"] for h in tools.browse("banned", kind="constraint", format="verbose")} == {"constraint"}
    assert tools.browse("banned", kind="constraint", format="verbose")[0]["id"] == "constraint/banned"
    assert tools.browse("Age", kind="mapping", format="verbose")[0]["label"] == "singer.Age"
    rel = tools.browse("concert year singer", kind="relation", format="verbose")
    assert rel[0]["id"] == "relation/Association/r1" and "Association" in rel[0]["label"]
    assert tools.browse("status", kind="evidence", format="verbose")[0]["id"] == "evidence/status1"
    assert {h["kind"] for h in tools.browse("singer", kind="any", n=20, format="verbose")} >= {"term", "mapping"}


def test_browse_skips_deprecated_terms(tools):
    assert all(h["id"] != "term/cs/old-age" for h in tools.browse("obsolete singer age", n=10, format="verbose"))


def test_browse_no_match_is_empty(tools):
    assert tools.browse("zzzqqq xxyyzz", format="verbose") == []
    assert tools.browse("???", format="verbose") == []


def test_browse_n_and_default(tools):
    assert len(tools.browse("singer", kind="any", n=2, format="verbose")) == 2
    assert len(tools.browse("singer", kind="any", format="verbose")) <= 5


@pytest.mark.parametrize("args, message", [
    (("",), "non-empty"),
    (("   ",), "non-empty"),
    ((None,), "non-empty"),
    (("x" * 100_000,), "maximum is 20000"),
    (("age", "table"), "unknown kind"),
    (("age", "term", 0), "n must be"),
    (("age", "term", 10**9), "n must be"),
    (("age", "term", -3), "n must be"),
    (("age", "term", True), "n must be"),
    (("age", "term", "5"), "n must be"),
])
def test_browse_rejects_bad_arguments(tools, args, message):
    q, kind, n = (list(args) + ["term", None])[:3]
    with pytest.raises(ToolArgumentError, match=message):
        tools.browse(q, kind=kind, n=n, format="verbose")


def test_browse_treats_sparql_looking_queries_as_text():
    onto = load()
    tools = OntologyTools(onto)
    quads = onto.store.count()
    baseline = tools.browse("singer", kind="any", format="verbose")
    assert baseline
    for q in ['"} } ; DROP ALL ; SELECT * WHERE { ?s ?p ?o', "') UNION { ?s ?p ?o } #", "<http://x> ?s"]:
        assert isinstance(tools.browse(q, kind="any", format="verbose"), list)
    assert onto.store.count() == quads  # the store is untouched (no DROP ALL ran)
    # a fresh index sees the same data
    assert OntologyTools(onto).browse("singer", kind="any", format="verbose") == baseline


def test_settings_from_tools_graph_change_browse():
    onto = load(version=4)
    tools_graph = rdflib.URIRef("https://w3id.org/evoonto/graph/tools")
    settings = rdflib.URIRef(BASE + "tools/browse")
    # a Tool-level patch: only definitions are searched, at most 2 results
    onto.store.apply(
        removals={tools_graph: [(settings, EVO.maxResults, rdflib.Literal(20))]},
        additions={tools_graph: [(settings, EVO.searchField, rdflib.Literal("definition")),
                                 (settings, EVO.maxResults, rdflib.Literal(2))]},
    )
    tools = OntologyTools(onto)
    assert tools.settings.browse.max_results == 2
    assert set(tools.settings.browse.weights) == {"definition"}
    with pytest.raises(ToolArgumentError, match="from 1 to 2"):
        tools.browse("age", n=3, format="verbose")
    assert tools.browse("nationality", format="verbose") == []          # synonyms are no longer searched
    assert tools.browse("performer", format="verbose")[0]["id"] == "term/cs/singer"  # definitions are


def test_index_is_built_once_per_version():
    onto = load()
    a, b = OntologyTools(onto), OntologyTools(onto)
    assert a.built is b.built
    assert OntologyTools(onto, version=99).built is not a.built


def test_index_follows_a_replaced_store(tmp_path):
    from evoonto.workspace import Workspace

    ws = Workspace.init(tmp_path / "ws", base_iri=BASE)
    assert OntologyTools(ws.ontology, version=ws.version).browse("singer age", format="verbose") == []
    store = OxigraphStore()
    store.load_quads(parse_rdf_file(FIXTURE))
    ws.replace_base({name: store.graph(name) for name in ("catalog", "content", "tools")}, validate_shapes=False)
    hits = OntologyTools(ws.ontology, version=ws.version).browse("singer age", format="verbose")
    assert hits[0]["id"] == "term/cs/singer-age"


def _column_doc(table: str, column: str, label: str, definition: str, ordinal: int, key: bool = False):
    from evoonto.tools.index import Document

    doc = Document(f"urn:t/{table}/{column}", "term")
    doc.add("prefLabel", label)
    doc.add("definition", definition)
    doc.add("column", table)
    doc.add("column", column)
    doc.locations.append(f"{table}.{column}")
    doc.ordinals[f"{table}.{column}"] = ordinal
    doc.types[f"{table}.{column}"] = "TEXT"
    if key:
        doc.keys.add(f"{table}.{column}")
    doc.label = label
    return doc


def test_compact_key_matched_weakly_keeps_its_key_floor():
    """Issue 19: a join key that a query word matches weakly (a ``uuid`` whose definition says "id",
    named by the question's evidence) ranks at its table's score like every unmatched key, not below
    the table's unmatched non-key columns, so a tight budget still lists it."""
    from evoonto.tools.browse import browse
    from evoonto.tools.index import Document, SearchIndex
    from evoonto.tools.settings import BrowseSettings

    table = Document("urn:t/cards", "term")
    table.add("prefLabel", "cards")
    table.add("column", "cards")
    table.locations.append("cards")
    table.label = "cards"
    docs = [table,
            _column_doc("cards", "name", "card name", "The name of the card.", 1),
            _column_doc("cards", "uuid", "uuid", "Universally unique key of the card; other tables refer to it, "
                        "a long text about identifiers, printings, faces, sets and the id of rows elsewhere.", 40,
                        key=True)]
    docs += [_column_doc("cards", f"attr{k}", f"attribute {k}", f"Attribute number {k}.", k + 2) for k in range(60)]
    docs.sort(key=lambda d: d.iri)
    index = SearchIndex(docs)
    hits = browse(index, BrowseSettings(), "the name with id 3", kind="term", format="compact", budget=400)
    text = " ".join(hit["label"] for hit in hits)
    assert '"name"' in text and '"uuid"' in text and '"attr0"' in text, text
    assert text.index('"uuid"') < text.index('"attr0"'), text


def test_compact_prior_candidate_does_not_end_the_full_lines_of_later_matches():
    """Issue 19: a candidate only its table's prior brought in (an unmatched key) is named in its
    table's line; it no longer ends the full lines, so a later match still shows its matched value."""
    from evoonto.tools.browse import browse
    from evoonto.tools.index import SearchIndex
    from evoonto.tools.settings import BrowseSettings

    docs = [_column_doc("card", "name", "card name", "The name of the card.", 1),
            _column_doc("card", "uuid", "uuid", "Universally unique key.", 2, key=True),
            _column_doc("foreign_data", "language", "foreign language", "Language of a translated card.", 1)]
    docs[2].add("value", "Italian")
    docs[2].values = ["Italian"]
    docs += [_column_doc("stats", f"attr{k}", f"attribute {k}", f"Attribute number {k}.", k) for k in range(150)]
    docs.sort(key=lambda d: d.iri)
    hits = browse(SearchIndex(docs), BrowseSettings(), "the name in Italian", kind="term",
                  format="compact", budget=1200)
    text = " ".join(hit["label"] for hit in hits)
    assert "'Italian'" in text and '"uuid"' in text, text


def test_compact_floored_key_keeps_the_value_the_question_names():
    """Issue 19: a key column raised to its table's score keeps its full line when a value of it
    matched (a country code the question names), so the floor never hides a matched value."""
    from evoonto.tools.browse import browse
    from evoonto.tools.index import SearchIndex
    from evoonto.tools.settings import BrowseSettings

    docs = [_column_doc("country", "name", "country name", "The name of the country.", 1),
            _column_doc("country", "code", "country code", "Three-letter key of the country.", 2, key=True)]
    docs[1].add("value", "AKO")
    docs[1].values = ["AKO"]
    docs += [_column_doc("stats", f"attr{k}", f"attribute {k}", f"Attribute number {k}.", k) for k in range(150)]
    docs.sort(key=lambda d: d.iri)
    hits = browse(SearchIndex(docs), BrowseSettings(), "name of the country named name AKO", kind="term",
                  format="compact", budget=1200)
    text = " ".join(hit["label"] for hit in hits)
    assert "'AKO'" in text, text


def test_candidates_of_a_kind_cut_sorted_postings_by_binary_search_with_the_same_scores():
    """Issue 19 (browse at 70,000 columns): a kind's candidates were found by scoring every posting
    of the query tokens over all 256k documents and masking the other kinds afterwards; the sorted
    posting lists are now cut to the kind's range first. Scores equal the masked full computation,
    and a field whose postings were not sorted falls back to the mask."""
    import numpy as np

    from evoonto.tools.index import Document, SearchIndex

    docs = []
    for kind in ("term", "mapping", "evidence"):
        for k in range(30):
            doc = Document(f"urn:{kind}/{k:02d}", kind)
            doc.add("prefLabel", f"order amount {k % 7} customer" if k % 3 else "customer region")
            if k % 2:
                doc.add("value", f"north {k % 5}")
            docs.append(doc)
    index = SearchIndex(docs)
    weights = {"prefLabel": 1.0, "value": 0.5}
    tokens = [("order", 1.0), ("custom", 0.8), ("north", 1.0)]
    all_docs, all_scores = index.candidates(tokens, weights)
    assert index._sorted_postings("prefLabel") and index._sorted_postings("value")
    for kind in ("term", "mapping", "evidence"):
        start, end = index.kind_ranges[kind]
        inside = (all_docs >= start) & (all_docs < end)
        cut_docs, cut_scores = index.candidates(tokens, weights, start, end)
        assert len(cut_docs) > 0
        assert np.array_equal(cut_docs, all_docs[inside]) and np.allclose(cut_scores, all_scores[inside])
        index._sorted = {"prefLabel": False, "value": False}  # unsorted postings: masked, same answer
        masked_docs, masked_scores = index.candidates(tokens, weights, start, end)
        index._sorted = {}
        assert np.array_equal(masked_docs, cut_docs) and np.allclose(masked_scores, cut_scores)


def test_compact_answer_of_a_wide_schema_builds_unmatched_tables_lazily_with_the_same_answer():
    """Issue 19 (compact browse at 70,000 columns took 2.8 s CPU per query): every column of every
    unmatched table became a candidate and every column name was quoted (sqlglot) to count the
    terse size of the whole schema, per query. When the names alone exceed twice the budget, those
    columns are now merged in lazily, in the same order, and the exact count is skipped (it could not
    change a decision): the answer equals the exhaustive one at several budgets and kinds."""
    from evoonto.tools.browse import browse
    from evoonto.tools.settings import BrowseSettings

    index = _wide_index(40, 25, keys=1)
    layout = index.layout()
    floor = layout.terse_floor
    for q, kind, budget in (("customer region amount", "term", 1500), ("invoice status 7", "any", 600),
                            ("price", "term", 3000), ("supplier order", "term", 200)):
        assert floor > 2 * budget
        lazy = browse(index, BrowseSettings(), q, kind=kind, format="compact", budget=budget)
        layout.terse_floor = 0  # force the exhaustive path
        exhaustive = browse(index, BrowseSettings(), q, kind=kind, format="compact", budget=budget)
        layout.terse_floor = floor
        assert lazy == exhaustive and (len(lazy) > 2 or budget < 300), (q, lazy)


def _wide_index(tables: int, columns: int, keys: int = 2):
    from evoonto.tools.index import Document, SearchIndex

    words = ["order", "amount", "customer", "region", "price", "status", "invoice", "supplier"]
    docs = []
    for t in range(tables):
        table = f"{words[t % 8]}_{words[(t * 3 + 1) % 8]}_{t}"
        doc = Document(f"urn:t/{table}", "term")
        doc.add("prefLabel", table.replace("_", " "))
        doc.add("column", table)
        doc.locations.append(table)
        doc.label = table
        docs.append(doc)
        for c in range(columns):
            column = f"{words[(t + c) % 8]}_{words[(c * 5) % 8]}_{c}"
            docs.append(_column_doc(table, column, column.replace("_", " "), f"The {column} of {table}.", c,
                                    key=c < keys))
    docs.sort(key=lambda d: d.iri)
    return SearchIndex(docs)


@pytest.mark.slow
def test_compact_browse_built_every_column_of_matched_tables_per_query():
    """Issue 19 (compact browse p50 ~90 ms at 70,000 columns): stage two made a candidate of every
    column of every matched table (~8,000 per query there) and sorted them all, while the answer
    names a few hundred. The non-key columns are now merged in per table as read: far fewer columns
    are looked at than the matched tables hold, and the answer is the same at every budget (the
    exhaustive path materializes the same merge)."""
    from evoonto.tools.browse import browse
    from evoonto.tools.settings import BrowseSettings

    index = _wide_index(40, 200)
    layout = index.layout()

    class Counting(dict):
        reads = 0

        def __getitem__(self, key):
            Counting.reads += 1
            return super().__getitem__(key)

    plain = layout.column_term
    layout.column_term = Counting(plain)
    try:
        hits = browse(index, BrowseSettings(), "customer region amount", kind="term", format="compact", budget=1500)
    finally:
        layout.column_term = plain
    matched_tables = {hit["label"].partition("(")[0].partition(".")[0] for hit in hits}
    assert len(hits) > 2 and Counting.reads < len(matched_tables) * 200 / 2, (Counting.reads, len(matched_tables))
    floor = layout.terse_floor
    for q, budget in (("customer region amount", 1500), ("invoice status 7", 600), ("price", 5000)):
        lazy = browse(index, BrowseSettings(), q, kind="term", format="compact", budget=budget)
        layout.terse_floor = 0  # the exhaustive path: every candidate materialized and counted
        exhaustive = browse(index, BrowseSettings(), q, kind="term", format="compact", budget=budget)
        layout.terse_floor = floor
        assert lazy == exhaustive and len(lazy) > 2, (q, lazy)


def test_index_warm_froze_every_object_of_the_process():
    """``SearchIndex.warm`` ran ``gc.unfreeze(); gc.collect(); gc.freeze()``: a process-wide policy
    decided by a library object (a notebook or test process embedding the index paid a full
    collection and had all its objects frozen). ``warm`` now only builds browse's first-use maps;
    the freeze is the MCP server's (test_mcp_server.py,
    test_compact_browse_multi_second_tail_from_full_collections_of_the_loaded_index)."""
    import gc

    index = _wide_index(4, 10)
    gc.unfreeze()
    gc.disable()  # no automatic collection: only one warm() asked for would be counted
    collections = gc.get_stats()[2]["collections"]
    try:
        index.warm()
        assert gc.get_freeze_count() == 0
        assert gc.get_stats()[2]["collections"] == collections  # no full collection either
        assert any(obj is index.documents for obj in gc.get_objects())  # still tracked, not frozen
        assert index._layout is not None and index._at is not None  # the first-use maps are built
    finally:
        gc.enable()
        gc.unfreeze()


@pytest.mark.slow
def test_compact_browse_built_full_lines_it_could_no_longer_take(monkeypatch):
    """Issue 19 (compact browse p50 ~22 ms at 70,000 columns): past the head, every matched candidate
    had its full line built (values sorted, quoted, JSON-sized) and then dropped once the answer had
    used its share of the budget for full lines (about 70 lines built per query there). A full line
    is no longer built when it cannot be taken; the answers are the same (600 queries at 70,000
    columns compared byte for byte). With no share at all, only the head's lines and the one that
    ends the head are built."""
    import evoonto.tools.browse as browse_module
    from evoonto.tools.browse import browse
    from evoonto.tools.settings import BrowseSettings

    index = _wide_index(40, 200)
    built: list[str] = []
    real = browse_module.compact_line

    def counting(*args, **kwargs):
        line = real(*args, **kwargs)
        built.append(line)
        return line

    monkeypatch.setattr(browse_module, "compact_line", counting)
    monkeypatch.setattr(browse_module, "HEAD_SHARE", 0.0)
    hits = browse(index, BrowseSettings(), "customer region amount", kind="term", format="compact", budget=1500)
    full = [hit for hit in hits if hit["label"] in built]
    assert len(hits) > len(full) >= 1  # full lines first, then the per-table lines
    assert len(built) <= len(full) + 1, (len(built), len(full))
