"""Issue 17, item 4: lexicon synonyms applied word by word gave altLabels such as "unit how much"
(the head noun "price" replaced by its question cue "how much")."""

from __future__ import annotations

from evoonto.builder.labels import column_labels, synonym_phrases
from evoonto.lexicon import Lexicon


def test_question_cues_do_not_replace_the_head_of_a_compound():
    labels = column_labels("invoice_line", "unit_price", lexicon=Lexicon.packaged())
    assert not [a for a in labels.alt if a.endswith(" how much")], labels.alt
    assert "unit cost" in labels.alt  # a noun synonym still replaces the head
    assert "how much" in synonym_phrases(["price"], Lexicon.packaged())  # a cue on its own stays


def test_cue_alone_for_a_one_word_name():
    labels = column_labels("singer", "age", lexicon=Lexicon.packaged())
    assert "how old" in labels.alt and not [a for a in labels.alt if a.endswith("how old") and a != "how old"]
