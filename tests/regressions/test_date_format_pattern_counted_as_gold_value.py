"""Regression: the scorer counted the format pattern of ``strftime('%Y', date)`` as a gold value.

No column stores ``'%Y'``, so no retrieval policy could ever surface it: 12 of 196 wide BIRD
questions missed a "value" that is SQL mechanics (as numeric literals are), which held their value
recall down for every policy alike. The compared literal next to it stays a value.
"""

from evoonto.evaluation.gold import analyze_sql

SCHEMA = {"trans": ["trans_id", "date", "type"]}


def test_date_format_pattern_counted_as_gold_value():
    sql = ("SELECT COUNT(*) FROM trans WHERE STRFTIME('%Y', date) = '1996' "
           "AND STRFTIME('%Y-%m', date) <> '1996-01' AND type = 'VYDAJ'")
    assert analyze_sql(sql, SCHEMA).values == frozenset({"1996", "1996-01", "VYDAJ"})


def test_string_arguments_that_are_data_stay_values():
    # a LIKE pattern and a searched substring are data the question names, not a format
    sql = "SELECT trans_id FROM trans WHERE type LIKE '%VYB%' OR INSTR(type, 'PRIJEM') > 0"
    assert analyze_sql(sql, SCHEMA).values == frozenset({"VYB", "PRIJEM"})
