"""Regression: a case slip got another value offered beside its right spelling.

``WHERE City = 'berlin'`` on a column holding 'Berlin' and 'Bern' suggested ``'Berlin', 'Bern'``
(Northwind): 'Bern' is another city, and taking it changes the answer. When a value equal ignoring
case exists, it is the only suggestion; likewise the same date at midnight.
"""

from __future__ import annotations

from evoonto.tools.sqlcheck.context import nearest_spellings


def test_case_slip_suggests_another_city():
    assert nearest_spellings("berlin", ["Berlin", "Bern", "Bergamo"]) == ["Berlin"]
    assert nearest_spellings("2020-01-05", ["2020-01-05 00:00:00", "2020-01-06 00:00:00", "2020-01-05 12:00:00"]) \
        == ["2020-01-05 00:00:00"]
    assert nearest_spellings("Berln", ["Berlin", "Bern"])[:1] == ["Berlin"]  # a misspelling still finds it
