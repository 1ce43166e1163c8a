"""Regression (issue 13, defect 4, text half): two stemmers and three word splitters.

Diagnosis cut words to a 6-character stem, browse used a Harman S-stemmer and the builder's labels
had their own identifier splitter, so they disagreed on what "the same word" is (youngest/young,
hosted/host), and browse reduced a code such as ``A11`` to ``11``. Now one text module
(:mod:`evoonto.text`) serves all of them.
"""

from __future__ import annotations

import pytest

from evoonto.builder import labels
from evoonto.evolution import text as diagnosis_text
from evoonto.text import split_identifier, stem, tokenize
from evoonto.tools import index as browse_index

WORDS = ["youngest", "young", "younger", "hosted", "host", "hosting", "countries", "country",
         "singers", "status", "populous", "population", "nationality", "A11"]


@pytest.mark.parametrize("word", WORDS)
def test_diagnosis_and_browse_stem_every_word_alike(word):
    assert diagnosis_text.stem(word) == browse_index.stem(word) == stem(word)


def test_inflections_meet_on_one_stem():
    assert stem("hosted") == stem("host") == stem("hosting")
    assert stem("countries") == stem("country")
    # a question saying "hosted" is linked by a browse answer showing "Host city" ...
    assert diagnosis_text.mentions("hosted", ["Host city"])
    # ... and browse matches the same pair
    assert set(browse_index.tokenize("hosted")) <= set(browse_index.tokenize("Host city"))


def test_codes_stay_whole_tokens():
    assert "a11" in tokenize("the population of district A11")
    assert "11" not in tokenize("the population of district A11")
    assert "a11" in diagnosis_text.content_words("What is the population of district A11?")
    assert split_identifier("district_A11") == ["district", "A11"]
    assert labels.split_identifier("H1N1_cases") == ["H1N1", "cases"]
    assert labels.column_labels("district", "A11").pref == "District A11"  # a code keeps its case
    # a plain number after a word is still its own token
    assert split_identifier("addr_line2") == ["addr", "line", "2"]


def test_possessive_s_is_dropped():
    assert tokenize("the singer's age") == tokenize("singer age")
    assert diagnosis_text.content_words("What is each singer's age?") == ["singer", "age"]


def test_one_copy_of_each_text_function():
    import evoonto.text as text

    assert labels.normalize is text.normalize and labels.singularize is text.singularize
    assert labels.split_identifier is text.split_identifier
    assert browse_index.tokenize is text.tokenize and diagnosis_text.stem is text.stem
