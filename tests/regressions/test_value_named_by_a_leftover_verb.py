"""Regression: a verified query's leftover verb became the name of the country value it filters on.

On Chinook, "Which American customers spent the most?" and another question about spending, both
with ``WHERE Country = 'USA'``, made 'spent' an ``skos:altLabel`` of the value 'USA' (the phrase two
questions share); afterwards "Which customers spent the most?" answered with ``Country = 'USA'``.
``value_phrase`` now takes first a phrase that general knowledge says names the value (a country's
demonym or other name, ``Lexicon.place_names``), and otherwise keeps its earlier rule.
"""

from __future__ import annotations

from evoonto.builder.verified import value_phrase


def test_value_named_by_a_leftover_verb():
    runs = [["american", "spent"], ["spent", "total"]]
    assert value_phrase(runs) == "spent"  # the shared-phrase rule alone, as before
    assert value_phrase(runs, value="USA") == "american"
    assert value_phrase([["united states"]], value="USA") == "united states"
    # a phrase a question without the value uses is never the value's name
    assert value_phrase(runs, ["Which american bands play here?"], value="USA") != "american"


def test_value_phrase_without_a_place_name_keeps_its_rule():
    assert value_phrase([["villains"]], value="Bad") == "villains"
    assert value_phrase([["villains", "scary"]], value="Bad") is None  # one question, two leftovers: a guess
    # a demonym of another country names no value here
    assert value_phrase([["french", "spent"]], value="USA") is None
