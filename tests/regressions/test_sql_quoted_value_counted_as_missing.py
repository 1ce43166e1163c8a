"""Regression: the scorer counted a value with an apostrophe as missing when the answer showed it.

The compact answer prints a value as an SQL literal, ready to paste: ``"card"."name" TEXT =
'Ancestor''s Chosen'`` (the quote doubled, as SQL writes it). The linking scorer searched the
surfaced text for ``Ancestor's Chosen`` only, so four wide BIRD questions that name the card were
scored as missing it. A value inside a JSON string (``\\"``) was missed the same way.
"""

from __future__ import annotations

import json

from evoonto.evaluation.linking import value_surfaced


def test_sql_quoted_value_counted_as_missing():
    line = json.dumps([{"label": '"card"."name" TEXT = \'Ancestor\'\'s Chosen\''}], ensure_ascii=False)
    assert value_surfaced("Ancestor's Chosen", line)
    assert value_surfaced('The "Big" One', json.dumps(['title = The "Big" One']))
    # still a whole value, not a part of a longer word, and still not an other value
    assert not value_surfaced("Ancestor's", "'Ancestor''sChosen'")
    assert not value_surfaced("Ancestor's Chosen", "'Ancestor Chosen'")
    assert value_surfaced("F", "gender = 'F'") and not value_surfaced("F", "France")


def test_value_with_both_quote_kinds_and_a_line_break():
    value = 'Research "QA" O\'Brien'
    shown = json.dumps(["\"t\"(\"a\", \"b\" = 'Research \"QA\" O''Brien')"], ensure_ascii=False)
    assert value_surfaced(value, shown)
    from evoonto.evaluation.linking import recognise

    # a literal holding a line break does not hide the columns listed around it
    _tables, columns = recognise(["\"t\"(\"a\", \"b\" = 'x\ny', \"c\")"], {"t": ["a", "b", "c"]})
    assert columns == {("t", "a"), ("t", "b"), ("t", "c")}
