"""Regression: verified queries that name a country by its demonym mined nonsense into the content.

The Chinook trial's verified queries filter on ``Country = 'USA'`` / ``BillingCountry = 'USA'`` and
ask about "American customers" and "the United States". ``evoonto verified add`` made 'spent' a
name of the value 'USA' (the leftover verb two questions share) and a metric Term "United states" =
``SUM(Invoice.Total)`` with the alternative name "american". The value is now named by the phrase
that names it (``value_phrase(value=)``), and a phrase that names a filtered value never names a
metric (``names_a_value``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import RDF
from rdflib.namespace import SKOS

from evoonto.builder.pipeline import build
from evoonto.namespaces import EVO

QUERIES = [
    {"question": "Which American customers spent the most?",
     "sql": "SELECT c.FirstName, c.LastName, SUM(i.Total) FROM Customer c JOIN Invoice i ON i.CustomerId = "
            "c.CustomerId WHERE c.Country = 'USA' GROUP BY c.CustomerId ORDER BY 3 DESC LIMIT 5"},
    {"question": "How much did American customers spend in total?",
     "sql": "SELECT SUM(i.Total) FROM Invoice i JOIN Customer c ON i.CustomerId = c.CustomerId "
            "WHERE c.Country = 'USA'"},
    {"question": "What is the total invoiced in the United States?",
     "sql": "SELECT SUM(Total) FROM Invoice WHERE BillingCountry = 'USA'"},
    {"question": "What is the total invoiced in the United States in 2010?",
     "sql": "SELECT SUM(Total) FROM Invoice WHERE BillingCountry = 'USA' AND InvoiceDate LIKE '2010%'"},
]


@pytest.mark.slow
def test_country_name_mined_as_a_metric(shared_data: Path):
    result = build([shared_data / "chinook" / "Chinook_Sqlite.sqlite"], verified=QUERIES)
    content = result.graphs["content"]

    def labels(term, prop=SKOS.altLabel) -> set[str]:
        return {str(o).lower() for o in content.objects(term, prop)}

    usa = {str(o).split(".")[0]: t for t, o in content.subject_objects(SKOS.hiddenLabel)
           if str(o).endswith(".Country = USA") or str(o).endswith(".BillingCountry = USA")}
    assert set(usa) == {"Customer", "Invoice"}, "the profile made value Terms of the two columns = 'USA'"
    assert "american" in labels(usa["Customer"]) and "united states" in labels(usa["Invoice"])
    assert not any("spent" in labels(t) or "spend" in labels(t) for t in usa.values())
    metrics = set(content.subjects(RDF.type, EVO.Metric))
    names = {label for m in metrics for prop in (SKOS.prefLabel, SKOS.altLabel) for label in labels(m, prop)}
    assert not names & {"united states", "american", "the united states"}, names
