"""Regression: the ``coverage`` tool told the agent to "say the data does not cover it" on a phrase the
ontology does not hold, but the ontology keeps a sample of each column's values (PostgreSQL review: a
value stored late in a table read 'unavailable'). The description now says the records hold a sample
and asks the agent to check the data or ask rather than guess.

(Covering such a word by any stored value of the value index was tried and reverted: a review found
'salary' covered by a memo column's value and numbers covered by a phone extension column.)"""

from __future__ import annotations

from evoonto.tools.toolkit import COVERAGE_DESCRIPTION


def test_coverage_description_does_not_call_an_unheld_value_absent_from_the_data():
    text = " ".join(COVERAGE_DESCRIPTION.split())
    assert "the data does not cover" not in text
    assert "sample of each column's values" in text and "check the data" in text
