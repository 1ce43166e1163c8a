"""Regression: the compact answer wrote a value the question does not name as ``"column" = 'value'``.

A column's sampled values joined its line when any word of theirs matched the query, and the line
wrote them as the value to paste (the tool description says ``TYPE = matched values``, "ready to
paste into SQL"): on Chinook, "customers in the United States" gave ``"Customer"."Country"
NVARCHAR(40) = 'United Kingdom'`` (one word of two, and the data spells the country 'USA'), and
"units sold" gave the same (``unit`` is the stem of both "units" and "United"). ``= …`` now holds only
values every word of which the query names (:func:`~evoonto.tools.browse.names_value`); values
sharing some words follow as ``holds …`` (the column holds them; "contains 'North'" still shows
'North Carolina').
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.browse import names_value
from evoonto.tools.toolkit import OntologyTools
from evoonto.text import tokenize


def _shop(path):
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE customer (id INTEGER PRIMARY KEY, first_name TEXT, country TEXT, state TEXT)")
        rows = [("United Kingdom", "London"), ("USA", "North Carolina"), ("Canada", "Ontario"),
                ("United Kingdom", "Kent"), ("USA", "Texas"), ("Brazil", "SP")]
        con.executemany("INSERT INTO customer VALUES (?, ?, ?, ?)",
                        [(i, f"name {i}", country, state) for i, (country, state) in enumerate(rows)])
    return path


def _line(tools: OntologyTools, query: str, column: str) -> str:
    answer = tools.browse(query, format="compact")
    return next(hit["label"] for hit in answer if hit["label"].startswith(f'"customer"."{column}"'))


def test_compact_line_pastes_a_value_the_query_does_not_name(tmp_path):
    result = build([_shop(tmp_path / "shop.sqlite")], None, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    line = _line(tools, "customers in the United States by country", "country")
    assert "= 'United Kingdom'" not in line and "holds 'United Kingdom'" in line, line
    named = _line(tools, "customers in the United Kingdom by country", "country")
    assert "= 'United Kingdom'" in named, named
    contains = _line(tools, "customers in a state whose name contains 'North'", "state")
    assert "holds 'North Carolina'" in contains and "= 'North Carolina'" not in contains, contains


def test_names_value_needs_every_word():
    matched = set(tokenize("units sold in the United States"))
    assert not names_value(matched, "United Kingdom")
    assert names_value(matched, "United States") and names_value(set(tokenize("rock")), "Rock")
    assert not names_value(matched, "the")  # stop words only: never named


def test_scorer_reads_columns_after_a_held_value():
    """The linking scorer reads what an agent reads: a terse line's column followed by ``holds 'v'``
    and the columns after it."""
    from evoonto.evaluation.linking import recognise

    schema = {"customer": ["id", "country", "state", "first_name"]}
    _tables, columns = recognise(['"customer"("id", "country" holds \'United Kingdom\', "state" = \'Texas\', '
                                  '"first_name")'], schema)
    assert columns == {("customer", c) for c in ("id", "country", "state", "first_name")}


def test_fuzzy_value_index_hit_is_held_not_named(tmp_path):
    """The value index's fuzzy matches (a spelling within ratio 85) rode in as named values: on
    Chinook "customers in the United States" served ``"Track"."Name" = 'Untitled'``. A fuzzy hit is
    written ``holds``; an exact one stays ``=``."""
    from evoonto.builder import write_workspace
    from evoonto.sources import open_source
    from evoonto.tools.values import workspace_value_index

    db = tmp_path / "music.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE track (id INTEGER PRIMARY KEY, name TEXT, composer TEXT)")
        con.executemany("INSERT INTO track VALUES (?, ?, ?)",
                        [(i, ["Untitled", "Blue Train", "So What"][i % 3] if i < 3 else f"song {i}",
                          f"composer {i}") for i in range(400)])
    with open_source(db) as src:
        ontology = write_workspace(build([src]), tmp_path / "ws").ontology
        index = workspace_value_index(tmp_path / "ws", {src.id: src})
        tools = OntologyTools(ontology, value_index=index)
        assert [h.match for h in tools.value_hits("united") if h.value == "Untitled"] == ["fuzzy"]
        fuzzy = " ".join(hit["label"] for hit in tools.browse("tracks called united"))
        exact = " ".join(hit["label"] for hit in tools.browse("tracks called untitled"))
    assert "holds 'Untitled'" in fuzzy and "= 'Untitled'" not in fuzzy, fuzzy
    assert "= 'Untitled'" in exact, exact
