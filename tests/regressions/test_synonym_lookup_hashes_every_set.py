"""Regression (issue 19, wide-schema build): ``Lexicon.synonyms`` found its phrase index through a
cache keyed by the lexicon's whole tuple of synonym sets, so each of the 85,566 look-ups made while
labelling the wide schema hashed every set again. The index is now kept on the lexicon instance (built
once per lexicon); answers are unchanged and a lexicon with other sets gets its own index.
"""

from __future__ import annotations

from evoonto import lexicon as lexicon_module
from evoonto.lexicon import Lexicon


def test_synonym_lookup_hashes_every_set_once_per_lexicon(monkeypatch):
    built: list[int] = []
    real = lexicon_module._sets_index

    def counting(sets):
        built.append(len(sets))
        return real(sets)

    monkeypatch.setattr(lexicon_module, "_sets_index", counting)
    lex = Lexicon(synonym_sets=(("price", "cost", "how much"), ("age", "how old")))
    for _ in range(50):
        assert lex.synonyms("Price") == ("cost", "how much")
        assert lex.synonyms("how  old") == ("age",)
        assert lex.synonyms("name") == ()
    assert built == [2]
    other = Lexicon(synonym_sets=(("price", "fee"),))
    assert other.synonyms("price") == ("fee",) and built == [2, 1]
    assert lex == Lexicon(synonym_sets=(("price", "cost", "how much"), ("age", "how old")))  # index not compared
