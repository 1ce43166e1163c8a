"""Defect (issue 33 item 2): a one-letter code the question or its evidence names (``Status = 'C'``)
is found by the value index in every column that holds a ``'C'`` (flags, time zones, grades), and
each such column was brought into the compact answer as if the question had named it: on wide BIRD,
six full lines of NOAA flags for a question about running loan contracts. A one-character value,
like a number or a date, says little about which column the question means: it now only rides in
the line of a column that is a candidate anyway (here ``loan.status``, which the question names)."""

from __future__ import annotations

from evoonto.tools.browse import browse
from evoonto.tools.index import SearchIndex
from evoonto.tools.settings import BrowseSettings
from fixtures.retrieval_support import column_doc


def _index() -> SearchIndex:
    docs = [column_doc("loan", "loan_id", "loan id", 0), column_doc("loan", "status", "repayment status", 1),
            column_doc("loan", "amount", "loan amount", 2)]
    # a schema too large to list whole within the budget
    docs += [column_doc(f"station_{k}", column, column.replace("_", " "), j) for k in range(120)
             for j, column in enumerate(("flag", "reading_day", "reading_hour", "air_temp", "sea_temp"))]
    docs.sort(key=lambda d: d.iri)
    return SearchIndex(docs)


def test_a_one_letter_code_rides_only_in_a_candidatecolumn_doc():
    hits = [("loan.status", "C", 1.0)] + [(f"station_{k}.flag", "C", 1.0) for k in range(40)]
    answer = browse(_index(), BrowseSettings(), "How many loans have running contracts?", format="compact",
                    budget=1200, value_hits=hits, context="status = 'C' stands for a running contract")
    labels = [h["label"] for h in answer]
    assert any(label.startswith('"loan"."status"') and "'C'" in label for label in labels), labels
    # the stations' columns may still fill the rest of the budget by name, not as matches of 'C'
    assert not any("station_" in label and "'C'" in label for label in labels), labels
    # a code of two or more characters still brings its column in
    answer = browse(_index(), BrowseSettings(), "How many loans have running contracts?", format="compact",
                    budget=1200, value_hits=[("station_7.flag", "CR", 1.0)])
    assert any(h["label"].startswith('"station_7"') for h in answer), answer
