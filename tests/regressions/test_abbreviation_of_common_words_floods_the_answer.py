"""Defects found in review of the abbreviation search (issue 33; :func:`evoonto.tools.browse.abbreviations`):

1. Ordinary identifier words were taken for abbreviations: "country" found ``count`` and ``cost``,
   "company department" ``code``, "daily temperature" ``date``, and "Total sales per country state"
   ranked every ``*_count`` and ``cost`` column above ``customer.state``. A common English word
   (wordfreq's ``small`` list) is now never an abbreviation.
2. Stemming made a word of the next term's letters: ``curre`` stems to ``curr``, so "current
   exchange" gave ``exchange`` the abbreviation ``curr``. Candidates are now compared as written.
3. A closed-up pair (``dewp``) was searched twice (once per term it stands for), and an
   abbreviation counted as full coverage of its term; it now counts once, at its weight.
4. The search tokenized about ``len(term) × len(next term)`` strings per pair, so a long query took
   seconds to minutes. It now stops at the first beginning no candidate word has (a sorted list).
5. A column the value index found a question's value in was not raised above its table's unmatched
   columns (only matched words and value Terms were)."""

from __future__ import annotations

import bisect
import random

from evoonto.evaluation.linking import recognise
from evoonto.tools import browse as browse_module
from evoonto.tools.browse import (ABBREVIATION_WEIGHT, abbreviations, browse, common_english_word, compact_answer,
                                  query_terms, rank)
from evoonto.tools.index import SearchIndex
from evoonto.tools.settings import BrowseSettings
from fixtures.retrieval_support import column_doc

SALES = {"customer": ["customer_id", "name", "state", "country_code"],
         "sales_order": ["order_id", "customer_id", "order_date", "currency_code", "line_count", "amount"],
         "invoice": ["invoice_id", "cost", "cost_center", "item_count", "page_count"],
         "fx": ["curr", "exch_rate"]}


def _sales_index() -> SearchIndex:
    docs = [column_doc(table, column, column.replace("_", " "), k)
            for table, columns in SALES.items() for k, column in enumerate(columns)]
    docs.sort(key=lambda d: d.iri)
    return SearchIndex(docs)


def _abbreviated(index: SearchIndex, question: str) -> dict[str, list[str]]:
    terms = query_terms(index, question)
    return {t: short for t, short in zip(dict.fromkeys(terms), abbreviations(index, terms), strict=True) if short}


def test_common_english_words_are_not_abbreviations():
    assert all(common_english_word(w) for w in ("count", "code", "date", "cost", "state"))
    assert not any(common_english_word(w) for w in ("visib", "dewp", "curr", "exch"))
    index = _sales_index()
    for question in ("Total sales per country state", "orders per company department", "daily temperature"):
        assert _abbreviated(index, question) == {}, question


def test_country_state_question_ranks_the_state_column_first():
    hits = browse(_sales_index(), BrowseSettings(), "Total sales per country state", format="verbose", n=3)
    assert hits[0]["id"].endswith("/customer/state"), hits


def test_candidates_are_compared_as_written_not_stemmed():
    index = _sales_index()
    # "curr" truncates "current"; "exchange" keeps its own "exch"; nothing made of a stem's letters
    assert _abbreviated(index, "current exchange rate") == {"current": ["curr"], "exchang": ["exch"]}


def test_a_closed_up_pair_is_searched_once_and_covers_at_its_weight():
    docs = [column_doc("obs", "dewp", "dewp", 0), column_doc("obs", "dew_point", "dew point", 1)]
    index = SearchIndex(docs)
    ranked, matched = rank(index, BrowseSettings(), query_terms(index, "dew point"), "term")
    scores = {index.documents[i].locations[0]: score for score, i in ranked}
    assert "dewp" in matched
    assert scores["obs.dew_point"] > scores["obs.dewp"] > 0
    assert 0 < ABBREVIATION_WEIGHT < 1


def test_long_query_costs_few_lookups(monkeypatch):
    long_name = "custnumber" + "x" * 240  # an identifier word far longer than any abbreviation
    docs = [column_doc("crm", column, column, k) for k, column in enumerate(["custnum", "cust_nm", long_name])]
    index = SearchIndex(docs)
    calls = []
    real = bisect.bisect_left

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(browse_module.bisect, "bisect_left", counted)
    rng = random.Random(0)
    # terms that begin like the candidate words, so the single and the pair loops both run
    terms = ["custnumber" + "x" * 140 + str(k) if k % 2 else "number" + "".join(rng.choice("abcdefgh")
             for _ in range(150)) for k in range(64)]
    terms = [t if t.isalpha() else t.rstrip("0123456789") + "q" * (k + 1) for k, t in enumerate(terms)]
    found = abbreviations(index, terms)
    assert any("cust" in group for group in found)  # (the search did run)
    assert len(calls) <= 64 * 2 * 25 * 25, len(calls)  # bounded by ABBREVIATION_MAX squared per pair
    assert len(calls) <= 64 * 120, len(calls)  # and a few lookups per term in practice


def test_a_longer_beginning_of_one_term_is_not_a_pair():
    """Review finding: "customer type" credited ``cust`` to "type" (``cust`` + no letter of it)."""
    index = _sales_index()
    docs = [column_doc("crm", "cust_id", "cust id", 0), column_doc("ref_type", "type_cd", "type cd", 0)]
    index = SearchIndex(docs)
    assert _abbreviated(index, "customer type") == {"custom": ["cust"]}


def test_browse_works_without_wordfreq(monkeypatch):
    """Review finding: browse raised when wordfreq could not load; the abbreviation search is now off then."""
    def broken(word):
        raise ModuleNotFoundError("No module named 'wordfreq'")

    monkeypatch.setattr(browse_module, "common_english_word", broken)
    index = SearchIndex([column_doc("obs", "visib", "visib", 0), column_doc("obs", "visibility", "visibility", 1)])
    hits = browse(index, BrowseSettings(), "visibility", format="verbose", n=2)
    assert [h["id"].rsplit("/", 1)[1] for h in hits] == ["visibility"], hits


def test_value_index_find_ranks_with_the_matched_columns():
    filler = [f"reading_{k:02d}" for k in range(24)]
    docs = [column_doc("station", "station_name", "station name", 0)]
    docs += [column_doc("station", c, c.replace("_", " "), k + 1, type_name="REAL") for k, c in enumerate(filler)]
    docs.append(column_doc("station", "hgt", "hgt", len(filler) + 1))
    docs.sort(key=lambda d: d.iri)
    index = SearchIndex(docs)
    tokens = query_terms(index, "station name of Zugspitze")
    ranked, matched = rank(index, BrowseSettings(), tokens, "term")
    shortlist = [(s, i) for s, i in ranked if index.documents[i].locations[0] == "station.station_name"]
    hits = compact_answer(index, shortlist, matched, kind="term", budget=300, query_tokens=tokens,
                          value_hits=[("station.hgt", "Zugspitze", 0.5)])
    found = recognise(hits, {"station": ["station_name", *filler, "hgt"]})[1]
    assert ("station", "hgt") in found, hits
    line = next(h["label"] for h in hits if '"hgt"' in h["label"])
    assert line.index('"hgt"') < line.index('"reading_00"'), line  # before its unmatched siblings
