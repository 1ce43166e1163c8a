"""Regression: a sample's values were listed as the column's values.

A column Term's definition ends with the values its profile saw (``…; values: north, south.``). On a
table larger than the sampling threshold the profile reads a sample, yet the definition said
``values:`` as for a whole-table probe, a claim stronger than the probe behind it (the table may hold
values the sample missed). It now says ``values in a sample of N rows: …``; a whole-table probe keeps
``values: …``.
"""

from __future__ import annotations

import re
import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.sources.profiling import DEFAULT_SAMPLE_ROWS, DEFAULT_SAMPLE_THRESHOLD
from evoonto.tools.toolkit import OntologyTools


def _definition(tools: OntologyTools, table: str, column: str) -> str:
    hit = next(h for h in tools.browse(f"{table} {column}", n=20, format="verbose")
               if h["id"].endswith(f"/{table}.{column}"))
    return tools.resolve([hit["id"]])["records"][0]["definition"]


def test_sampled_values_listed_as_the_columns_values(tmp_path):
    db = tmp_path / "events.sqlite"
    rows = DEFAULT_SAMPLE_THRESHOLD + 10
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE event (id INTEGER PRIMARY KEY, region TEXT)")
        con.executemany("INSERT INTO event VALUES (?, ?)", ((i, ("north", "south")[i % 2]) for i in range(rows)))
        con.execute("CREATE TABLE office (id INTEGER PRIMARY KEY, region TEXT)")
        con.executemany("INSERT INTO office VALUES (?, ?)", [(i, ("north", "south")[i % 2]) for i in range(10)])
    result = build([db], None, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    sampled = _definition(tools, "event", "region")
    observed = re.search(r"; values in a sample of (\d+) rows: north, south\.$", sampled)
    assert observed and 0 < int(observed.group(1)) <= DEFAULT_SAMPLE_ROWS, sampled
    assert "; values: " not in sampled, sampled
    whole = _definition(tools, "office", "region")
    assert "; values: " in whole and "sample" not in whole, whole


def test_value_with_a_comma_splits_in_the_definition_list(tmp_path):
    """``values: Paris, Berlin, Germany`` read as three values; a value holding a comma is now quoted."""
    db = tmp_path / "towns.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE town (id INTEGER PRIMARY KEY, place TEXT)")
        con.executemany("INSERT INTO town VALUES (?, ?)",
                        [(i, ("Paris", "Berlin, Germany", "Paris", "Rome")[i % 4]) for i in range(12)])
    result = build([db], None, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    definition = _definition(tools, "town", "place")
    assert definition.endswith("; values: Paris, 'Berlin, Germany', Rome."), definition
