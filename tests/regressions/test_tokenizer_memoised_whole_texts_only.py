"""Regression (issue 33, cold ``serve``): the tokenizer memoised whole texts (up to 100,000 of them)
and tokenized every longer or new text from scratch. An index's texts are mostly new as wholes
(410,000 distinct field texts at 70,000 columns) but made of the same words, so nearly every text
was tokenized word by word again: 7.5 CPU s. Texts are now tokenized chunk by chunk (split at
whitespace, which no run, segment or possessive spans), each chunk memoised: 3.8 CPU s, same tokens.
"""

from __future__ import annotations

from evoonto import text as text_module
from evoonto.text import tokenize

TRICKY = [
    "the singer's age in district A11",
    "Who's  the oldest singer-songwriter’s  record in 1999?",
    "H1N1_cases totalRevenue2024 GNPOld addr_line2\tFree Meal Count (K-12)",
    "", "   ", "x" * 250 + " abc's " + "customerID" * 30,
    "stale since 2026-12-03 (drift: changed: values: +'United States' -'USA'); The category Country",
]


def test_tokenizer_memoised_whole_texts_only():
    text_module._tokenize_chunk_cached.cache_clear()
    tokenize("customer_amount of the order_total")
    before = text_module._tokenize_chunk_cached.cache_info()
    # a new text made of chunks seen before: every chunk is read from the memo
    assert tokenize("order_total of the customer_amount") == ["order", "total", "custom", "amount"]
    after = text_module._tokenize_chunk_cached.cache_info()
    assert after.misses == before.misses and after.hits == before.hits + 4


def test_chunked_tokens_are_the_whole_texts_tokens():
    for text in TRICKY:
        whole = [t for t in (part.casefold() for part in text_module.split_identifier(
            text_module._POSSESSIVE.sub("", text))) if t and t not in text_module.STOP_WORDS]
        assert tokenize(text, stemmed=False) == whole
        assert tokenize(text) == [text_module.stem(t) for t in whole]
