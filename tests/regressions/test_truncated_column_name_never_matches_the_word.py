"""Defect (issue 33, "gaps between an analyst's words and cryptic column names"): a column whose name
truncates the question's word (``visib`` for "visibility", ``dewp`` for "dew point", ``custnum`` for
"customer number") never matched. The tokenizer and the stemmer keep ``visib`` and ``visibl`` apart,
and the fuzzy expansion only replaces words the index does not hold. Identifier words that are
truncations of question words (one word, or the beginnings of two adjacent words closed up) are now
searched too, at half the weight of the word (:func:`evoonto.tools.browse.abbreviations`)."""

from __future__ import annotations

from evoonto.evaluation.linking import recognise
from evoonto.tools.browse import ABBREVIATION_MIN, ABBREVIATION_WEIGHT, abbreviations, browse, query_terms
from evoonto.tools.index import Document, SearchIndex, tokenize
from evoonto.tools.settings import BrowseSettings
from fixtures.retrieval_support import column_doc


def _column(table: str, column: str, ordinal: int, meaning: str | None = None) -> Document:
    return column_doc(table, column, meaning or f"The numeric measure {column} of table {table}", ordinal,
                      type_name="REAL")


COLUMNS = {"daily_weather": ["stn", "year", "mo", "da", "temp", "dewp", "visib", "wdsp", "prcp"],
           "customer": ["custnum", "cust_name", "per_id"]}


def _index() -> SearchIndex:
    docs = [_column(table, column, k) for table, columns in COLUMNS.items() for k, column in enumerate(columns)]
    # tables that hold the question's whole words, in prose, and compete for the answer's room
    # (a table matching a whole question word, e.g. "mean", outranks a column matching only an
    # abbreviation, which counts half a word by design, ABBREVIATION_WEIGHT: these match "per" alone)
    docs += [_column(f"report_{k}", "score", 0, "the score per report") for k in range(12)]
    # the index knows the word "visibility" (so no fuzzy match of an unknown word stands in for it)
    docs.append(_column("runway", "light", 0, "lights that raise visibility"))
    docs.sort(key=lambda d: d.iri)
    return SearchIndex(docs)


def _abbreviated(index: SearchIndex, question: str) -> dict[str, list[str]]:
    terms = query_terms(index, question)
    return {term: short for term, short in zip(dict.fromkeys(terms), abbreviations(index, terms), strict=True)
            if short}


def test_truncated_identifier_words_are_found():
    index = _index()
    # one word's beginning; two words' beginnings closed up, standing for both words
    assert _abbreviated(index, "Average dew point and mean visibility per month") == {
        "dew": ["dewp"], "point": ["dewp"], tokenize("visibility")[0]: ["visib"]}
    assert _abbreviated(index, "each customer number") == {
        tokenize("customer")[0]: tokenize("cust") + tokenize("custnum"), "number": tokenize("custnum")}
    # a query term is never another's abbreviation; nothing shorter than the minimum counts, also
    # when the stemmer shortens a longer beginning ("pers" -> "per")
    assert _abbreviated(index, "the cust and customer") == {}
    assert _abbreviated(index, "percent of persons") == {} and ABBREVIATION_MIN > len("per")


def test_an_abbreviation_weighs_less_than_the_word():
    assert 0 < ABBREVIATION_WEIGHT < 1
    docs = [_column("obs", "visib", 0), _column("obs2", "visibility", 0)]
    hits = browse(SearchIndex(docs), BrowseSettings(), "visibility", format="verbose", n=2)
    assert [h["id"].rsplit("/", 1)[1] for h in hits] == ["visibility", "visib"], hits


def test_truncated_column_names_reach_the_compact_answer():
    index = _index()
    hits = browse(index, BrowseSettings(), "Average dew point and mean visibility per month", format="compact",
                  budget=600)
    found = recognise(hits, COLUMNS)[1]
    assert {("daily_weather", "dewp"), ("daily_weather", "visib")} <= found, hits
