"""Regression: ``unseen_value`` offered values that only contain the literal as its fix.

The data's values near a literal the data does not hold were ranked with rapidfuzz's weighted ratio,
whose partial match scores ``'us'`` inside ``'australia'`` like a misspelling: ``Country = 'US'``
suggested ``'Australia', 'Austria', 'USA'`` (best first), ``Name = 'Roc'`` put ``'Rock And Roll'``
before ``'Rock'``, ``InvoiceDate = '2023-01-01'`` suggested another day. Another value selects other
rows, so it must not be offered as the fix; a data value is now suggested only when it spells the
literal differently (:func:`~evoonto.tools.sqlcheck.context.nearest_spellings`): no value with other
numbers (review: ``'2023-01-01'`` still got ``'2023-01-02'``, ratio 90), the same day at midnight, and
the one value a literal begins when exactly one does (``'F'`` → ``'Female'``).
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck.context import nearest_spellings


def test_unseen_value_suggests_values_that_contain_it():
    countries = ["Australia", "Austria", "Brazil", "USA", "United Kingdom"]
    assert nearest_spellings("US", countries) == ["USA"]
    assert nearest_spellings("Roc", ["Rock And Roll", "Rock", "Soundtrack"]) == ["Rock"]
    assert nearest_spellings("rock", ["Soundtrack", "Rock"]) == ["Rock"]
    assert nearest_spellings("2023-01-01", ["2023-01-02 00:00:00", "2023-01-20 00:00:00"]) == []
    assert nearest_spellings("Califronia", ["California", "Carolina"]) == ["California"]
    assert nearest_spellings("x", []) == []
    # another day, year or code number is another value, however close its spelling (review)
    assert nearest_spellings("2023-01-01", ["2023-01-02", "2023-01-03"]) == []
    assert nearest_spellings("2019", ["2018", "2020"]) == []
    assert nearest_spellings("A-11", ["A12", "A11"]) == ["A11"]
    # the same day stored with a midnight time is the value meant
    assert nearest_spellings("2023-01-02", ["2023-01-20 00:00:00", "2023-01-02 00:00:00"]) == ["2023-01-02 00:00:00"]
    # the one value that begins with the literal, when exactly one does
    assert nearest_spellings("F", ["Male", "Female"]) == ["Female"]
    assert nearest_spellings("Jan", ["January", "February"]) == ["January"]
    assert nearest_spellings("Aus", ["Australia", "Austria"]) == []


def test_check_sql_offers_only_spellings(tmp_path):
    from evoonto.tools.sqlcheck import check_sql

    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE customer (id INTEGER PRIMARY KEY, country TEXT)")
        con.executemany("INSERT INTO customer VALUES (?, ?)",
                        enumerate(["Australia", "Austria", "Brazil", "USA", "Canada", "Austria"]))
    ontology = Ontology.from_graphs(build([path], None, validate=False).graphs)
    found = [f for f in check_sql(ontology, "SELECT id FROM customer WHERE country = 'US'")
             if f.kind == "unseen_value"]
    assert found and found[0].suggestion == "'USA'", found
    found = [f for f in check_sql(ontology, "SELECT id FROM customer WHERE country = 'Aus'")
             if f.kind == "unseen_value"]
    assert found and not found[0].suggestion, found  # Australia and Austria are other countries
