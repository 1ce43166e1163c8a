"""Defect (issue 33 item 2, "gaps between an analyst's words and column names"): a column that closes
up a compound the question writes as two words (``newdelhi_wind`` for "New Delhi wind", ``birthdate``
for "birth date") never matched: the tokenizer splits ``snake_case`` and ``camelCase`` names but
cannot split a closed-up lower-case word, and the question's two words are two other tokens. Two
adjacent question words now also search their closed-up form when the index holds it
(:func:`evoonto.tools.browse.compounds`)."""

from __future__ import annotations

from evoonto.evaluation.linking import recognise
from evoonto.tools.browse import browse, compounds
from evoonto.tools.index import Document, SearchIndex, tokenize
from evoonto.tools.settings import BrowseSettings
from fixtures.retrieval_support import column_doc


def _column(table: str, column: str, ordinal: int) -> Document:
    return column_doc(table, column, column.replace("_", " "), ordinal, type_name="REAL")


COLUMNS = {"storm": ["sid", "name", "tokyo_grade", "tokyo_wind", "newdelhi_grade", "newdelhi_wind", "usa_wind"],
           "person": ["person_id", "birthdate", "first_name"]}


def _index() -> SearchIndex:
    docs = [_column(table, column, k) for table, columns in COLUMNS.items() for k, column in enumerate(columns)]
    # other tables whose words the question also uses
    docs += [_column(f"wind_report_{k}", "wind_speed", 0) for k in range(30)]
    docs += [_column(f"city_{k}", "new_city_name", 0) for k in range(30)]
    docs.sort(key=lambda d: d.iri)
    return SearchIndex(docs)


def test_two_question_words_find_the_closed_up_column_name():
    index = _index()
    assert compounds(index, "List the New Delhi wind speed of each storm") == ["newdelhi"]
    assert compounds(index, "people by birth date") == tokenize("birthdate")  # the stemmed index token
    assert compounds(index, "wind speed") == []  # "windspeed" is not in the index: nothing added
    hits = browse(index, BrowseSettings(), "List the New Delhi wind speed of each storm", format="compact", budget=400)
    assert ("storm", "newdelhi_wind") in recognise(hits, COLUMNS)[1], hits
    hits = browse(index, BrowseSettings(), "people by birth date", format="compact", budget=300)
    assert ("person", "birthdate") in recognise(hits, COLUMNS)[1], hits
