"""A whole-table profile of 365 rows with one NULL read "365 rows, 0% null": a share rounded to a whole
percent said no row was null (PostgreSQL review, ``"DailyKpi"."Value"``). Shares now read "<1%" or
">99%" rather than "0%" or "100%" unless they are exactly that. Same review: the Evidence of a domain
Constraint read "0 rows checked for domain rule", although its probe counts the rows breaking the rule."""

from __future__ import annotations

import sqlite3

import pytest

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.sources.profiling import share_text
from evoonto.tools.sparql import select


@pytest.mark.parametrize("fraction, text", [(0.0, "0%"), (1 / 365, "<1%"), (0.004999, "<1%"), (0.0051, "1%"),
                                            (0.42, "42%"), (0.9949, "99%"), (364 / 365, ">99%"), (1.0, "100%")])
def test_share_text(fraction, text):
    assert share_text(fraction) == text


def test_half_a_percent_is_not_zero():
    assert share_text(0.005) != "0%" and share_text(0.995) != "100%"


@pytest.fixture(scope="module")
def kpi(tmp_path_factory):
    path = tmp_path_factory.mktemp("kpi") / "kpi.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE kpi (day INTEGER PRIMARY KEY, value REAL, region TEXT)")
        con.executemany("INSERT INTO kpi VALUES (?, ?, ?)",
                        [(d, None if d == 100 else float(d), ("north", "south", "east")[d % 3]) for d in range(365)])
    return Ontology.from_graphs(build([path], None, validate=False).graphs)


def _summaries(onto) -> list[str]:
    return [row["s"] for row in select(onto, "SELECT ?s WHERE { ?e a evo:Evidence ; evo:summary ?s }")]


def test_one_null_in_365_rows_is_not_zero_percent(kpi):
    value = [s for s in _summaries(kpi) if s.startswith("365 rows") and "364 distinct" in s]
    assert value and all("<1% null" in s for s in value), value
    assert not [s for s in _summaries(kpi) if "365 rows, 0% null, 364 distinct" in s]


def test_domain_rule_evidence_counts_rows_breaking_it(kpi):
    domain = [s for s in _summaries(kpi) if "domain rule" in s]
    assert domain, _summaries(kpi)
    assert all(s.startswith("0 rows of kpi break the domain rule on kpi.") for s in domain), domain
