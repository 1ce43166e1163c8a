"""Regression: a value holding a carriage return crashed the build of a documented column.

Review: a column documented in its DDL comment (``'S' = shipped; 'P' = waiting``) whose data held
``'S\\rP'`` stopped ``evoonto build`` with "unexpected Error: new-line character seen in unquoted
field": the definition's value list left the value unquoted and the documentation intake's reader
refused it. A value with a line break is now quoted, and a list that does not read is split plainly.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.records import definition_listed_values, definition_value_list


def test_value_with_a_carriage_return_crashes_the_build(tmp_path):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY,\n"
                    "  stat TEXT -- 'S' = shipped to the buyer; 'P' = waiting for payment\n)")
        con.executemany("INSERT INTO orders VALUES (?, ?)", [(i, ["S", "P", "S\rP"][i % 3]) for i in range(30)])
    result = build([db], None, validate=False)
    assert result.counts["terms"] > 0
    values = ["S", "P", "S\rP", "a\nb"]
    assert definition_listed_values(definition_value_list(values)) == values
