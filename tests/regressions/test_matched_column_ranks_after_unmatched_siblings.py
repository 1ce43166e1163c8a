"""Defect (issue 33 item 2, "budget spent where the answer is"): in the compact answer a column a
query word matched weakly (one word of several, in its description) ranked below its table's
columns that no word matched: stage two gives those :data:`~evoonto.tools.browse.TABLE_PRIOR` × the
table's score, while the matched column kept its own, lower score. On a wide table the matched
column was pushed past the budget by a dozen unmatched ones. A column matched by its own name,
label or value now ranks at least with its table's unmatched columns."""

from __future__ import annotations

from evoonto.evaluation.linking import recognise
from evoonto.tools.browse import TABLE_PRIOR, browse
from evoonto.tools.index import Document, SearchIndex
from evoonto.tools.settings import BrowseSettings
from fixtures.retrieval_support import column_doc

FILLER = [f"reading_{k:02d}" for k in range(24)]
COLUMNS = {"station": ["station_name", *FILLER, "hgt"], "city": ["city_name"]}


def _index() -> SearchIndex:
    docs: list[Document] = [column_doc("station", "station_name", "station name", 0)]
    docs += [column_doc("station", column, column.replace("_", " "), k + 1, type_name="REAL")
             for k, column in enumerate(FILLER)]
    height = column_doc("station", "hgt", "hgt", len(FILLER) + 1, type_name="REAL")
    height.add("definition", "height of the mast above the ground, in metres (elevation)")
    docs.append(height)
    docs.append(column_doc("city", "city_name", "city name", 0))
    docs.sort(key=lambda d: d.iri)
    return SearchIndex(docs)


def test_weakly_matched_column_comes_before_unmatched_siblings():
    index = _index()
    question = "station name and elevation of each station"
    verbose = {h["id"].rsplit("/", 1)[1]: h["score"]
               for h in browse(index, BrowseSettings(), question, format="verbose", n=40)}
    assert verbose["hgt"] < TABLE_PRIOR * verbose["station_name"]  # the weak match this defect is about
    hits = browse(index, BrowseSettings(), question, format="compact", budget=300)
    found = recognise(hits, COLUMNS)[1]
    assert ("station", "hgt") in found, hits
    assert not set(FILLER) <= {column for _, column in found}, hits  # the budget holds only some columns
