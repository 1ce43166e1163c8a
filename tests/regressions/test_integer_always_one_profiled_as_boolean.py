"""``invoice_line.quantity`` (INTEGER, 1 in every row) was profiled with the value pattern ``boolean``
(PostgreSQL review), which invites ``quantity = true``, an error on PostgreSQL. An integer column is a
flag only when both 0 and 1 occur."""

from __future__ import annotations

from evoonto.sources.profiling import value_pattern


def test_integer_always_one_is_no_boolean():
    assert value_pattern([1, 1, 1]) == "integer"
    assert value_pattern([0, 0]) == "integer"


def test_zero_one_integers_and_boolean_words_stay_boolean():
    assert value_pattern([0, 1, 1, 0]) == "boolean"
    assert value_pattern(["yes", "no"]) == "boolean"
    assert value_pattern([True, False]) == "boolean"
