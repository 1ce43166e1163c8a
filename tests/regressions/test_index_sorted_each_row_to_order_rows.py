"""Regression (issue 33, cold ``serve``): the index sorted its SPARQL rows by each row's sorted
``(name, value)`` items, sorting every one of the 706,000 rows of a 70,000-column index first
(3 CPU s). Rows binding every projected variable are now ordered by their values in the order of
the sorted variable names, the same order, without listing any row's items (the last test fails on
the old code); rows with an unbound variable keep the old key. The order still never depends on the
order the store returns solutions in.
"""

from __future__ import annotations

import itertools

from evoonto.store import SelectRows
from evoonto.tools import index as index_module


def _select_returning(rows, variables):
    def select(_ontology, _query):
        out = SelectRows(rows)
        out.variables = tuple(variables)
        return out
    return select


def test_index_sorted_each_row_to_order_rows(monkeypatch):
    bound = [{"s": s, "p": p, "o": o} for s, p, o in itertools.product("ba", ("label", "altLabel"), ("x", "y"))]
    for order in (bound, bound[::-1], bound[3:] + bound[:3]):
        monkeypatch.setattr(index_module, "select", _select_returning([dict(r) for r in order], ("s", "p", "o")))
        assert index_module._rows(None, "q") == sorted(bound, key=lambda row: sorted(row.items()))


def test_rows_with_unbound_variables_keep_the_items_order(monkeypatch):
    rows = [{"m": "m1", "term": "t2"}, {"m": "m1", "table": "a"}, {"m": "m0"}, {"m": "m1", "term": "t1", "table": "b"}]
    expected = sorted(rows, key=lambda row: sorted(row.items()))
    for order in (rows, rows[::-1]):
        monkeypatch.setattr(index_module, "select", _select_returning(list(order), ("m", "term", "table")))
        assert index_module._rows(None, "q") == expected


def test_one_variable_and_no_rows(monkeypatch):
    monkeypatch.setattr(index_module, "select", _select_returning([{"x": "b"}, {"x": "a"}], ("x",)))
    assert index_module._rows(None, "q") == [{"x": "a"}, {"x": "b"}]
    monkeypatch.setattr(index_module, "select", _select_returning([], ("x", "y")))
    assert index_module._rows(None, "q") == []


class CountingRow(dict):
    """A row that counts how often its items are listed (the old key sorted them for every row)."""

    listed = 0

    def items(self):
        type(self).listed += 1
        return super().items()


def test_rows_binding_every_variable_are_not_sorted_item_by_item(monkeypatch):
    rows = [CountingRow(s=s, p="label", o=o) for s in "cba" for o in "yx"]
    monkeypatch.setattr(index_module, "select", _select_returning(rows, ("s", "p", "o")))
    expected = sorted(rows, key=lambda row: sorted(dict.items(row)))  # the old order
    CountingRow.listed = 0
    assert index_module._rows(None, "q") == expected
    assert CountingRow.listed == 0
