"""Defect (issue 33 item 2): a column named like its table (``schools."School"``, ``race."race"``,
the table's naming column) never counted as matched by its own name: browse discounts the table's
words in a column's match (every column of a table carries them), and this column's whole name is
one of them. "List the names of virtual schools" then listed ``"School"`` with the table's unmatched
columns, in schema order, and on a wide table the line's cap cut it. Its own name now counts."""

from __future__ import annotations

from evoonto.evaluation.linking import recognise
from evoonto.tools.browse import TABLE_PRIOR, compact_answer, query_terms, rank
from evoonto.tools.index import Document, SearchIndex
from evoonto.tools.settings import BrowseSettings
from fixtures.retrieval_support import column_doc

FILLER = [f"admin_field_{k:02d}" for k in range(40)]
COLUMNS = {"state_schools": ["cds_code", *FILLER, "School", "Virtual"], "county": ["county_name"]}


def _index() -> SearchIndex:
    docs: list[Document] = [column_doc("state_schools", "cds_code", "cds code", 0, key=True)]
    docs += [column_doc("state_schools", column, column.replace("_", " "), k + 1)
             for k, column in enumerate(FILLER)]
    docs.append(column_doc("state_schools", "School", "School", len(FILLER) + 1))
    virtual = column_doc("state_schools", "Virtual", "Virtual", len(FILLER) + 2)
    virtual.add("definition", "the type of virtual instruction the school offers")
    docs.append(virtual)
    docs.append(column_doc("county", "county_name", "county name", 0))
    docs.sort(key=lambda d: d.iri)
    return SearchIndex(docs)


def test_column_named_like_its_table_is_matched_by_its_name():
    index = _index()
    question = "List the names of virtual schools"
    tokens = query_terms(index, question)
    ranked, matched = rank(index, BrowseSettings(), tokens, "term")
    position = {index.documents[i].locations[0]: (score, i) for score, i in ranked}
    # as on a wide schema, where the BM25 shortlist holds a few of a table's columns: the table's
    # best column and its naming column (the others match only the table's own word "school")
    shortlist = [position["state_schools.Virtual"], position["state_schools.School"]]
    assert shortlist[1][0] < TABLE_PRIOR * shortlist[0][0]  # below the prior its unmatched columns get
    hits = compact_answer(index, shortlist, matched, kind="term", budget=500, query_tokens=tokens)
    found = recognise(hits, COLUMNS)[1]
    assert {("state_schools", "school"), ("state_schools", "virtual")} <= found, hits  # (recognise lower-cases)
    assert not {column.lower() for column in FILLER} <= {column for _, column in found}, hits  # only some fit
