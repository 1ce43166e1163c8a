"""Issue 17, item 4: every numeric column got the default aggregation SUM (unit prices, discounts,
ages, rates, percentages), which no careful analyst would sign. Aggregations now follow general rules
on names and value profiles: SUM for additive measures, AVG for intensive ones (prices, rates,
fractions), none for identifiers, codes, years and positions."""

from __future__ import annotations

from fixtures.sources_support import sqlite_db
from rdflib.namespace import RDF, SKOS

from evoonto.builder import build
from evoonto.namespaces import EVO


def _aggregations(result) -> dict[str, str | None]:
    g = result.graphs["content"]
    out = {}
    for mapping in g.subjects(RDF.type, EVO.Mapping):
        if g.value(mapping, EVO.filter) is not None:
            continue
        term = g.value(mapping, EVO.mapsTerm)
        agg = g.value(mapping, EVO.aggregation)
        out[str(g.value(term, SKOS.prefLabel))] = None if agg is None else str(agg)
    return out


def test_aggregations_are_ones_an_analyst_would_sign(tmp_path):
    rows = ", ".join(f"({i}, {10 + i}, {2.5 + i}, {0.05 * (i % 3)}, {20 + i}, {3.5 + i / 10}, {1990 + i}, "
                     f"{i * 7}, {40.1 + i / 100}, {i % 4 + 1}, {0.3 + i / 50})" for i in range(1, 13))
    db = sqlite_db(tmp_path / "shop.sqlite", f"""
        CREATE TABLE sale (sale_id INTEGER PRIMARY KEY, quantity INTEGER, unit_price REAL, discount REAL,
                           customer_age INTEGER, interest_rate REAL, year INTEGER, freight_cost INTEGER,
                           latitude REAL, shelf_rank INTEGER, fill_level REAL);
        INSERT INTO sale VALUES {rows};
    """)
    aggs = _aggregations(build([str(db)]))
    assert aggs["Sale quantity"] == "SUM" and aggs["Sale freight cost"] == "SUM"
    for label in ("Sale unit price", "Sale discount", "Sale customer age", "Sale interest rate", "Sale fill level"):
        assert aggs[label] == "AVG", label
    for label in ("Sale id", "Sale year", "Sale latitude", "Sale shelf rank"):
        assert label in aggs and aggs[label] is None, label
    assert aggs["Sale"] == "COUNT"


def test_a_fraction_without_a_telling_name_is_averaged(tmp_path):
    db = sqlite_db(tmp_path / "lab.sqlite", """
        CREATE TABLE sample (sample_id INTEGER PRIMARY KEY, purity REAL, mystery REAL);
        INSERT INTO sample VALUES (1, 0.91, 12.5), (2, 0.85, 14.25), (3, 0.99, 3.75), (4, 0.42, 8.5);
    """)
    aggs = _aggregations(build([str(db)]))
    assert aggs["Sample purity"] == "AVG"   # values within [0, 1]: a fraction
    assert aggs["Sample mystery"] is None  # no rule applies: no default rather than a guess
