"""Regression: a value was written as named when a question word only shared its stem.

:func:`~evoonto.tools.browse.names_value` compared index tokens, which Snowball stems: "units" and
"United" are both ``unit``. So "units sold in each state" named every word of ``'United States'``
and the compact answer wrote ``"customer"."country" = 'United States'``, a filter the question never
asked for, offered as the value to paste. A value's word now counts as named only when a word of
the question is the same word inflected (one begins the other: "teachers" names 'Teacher');
otherwise the value is shown as ``holds 'United States'``.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.text import tokenize
from evoonto.tools.browse import names_value, query_words
from evoonto.tools.toolkit import OntologyTools


def _shop(path):
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE customer (id INTEGER PRIMARY KEY, job TEXT, country TEXT, units INTEGER)")
        rows = [("Teacher", "United States"), ("Nurse", "Canada"), ("Teacher", "United States"),
                ("Driver", "Mexico"), ("Nurse", "United States"), ("Driver", "Canada")]
        con.executemany("INSERT INTO customer VALUES (?, ?, ?, ?)",
                        [(i, job, country, i * 3) for i, (job, country) in enumerate(rows)])
    return path


def _line(tools: OntologyTools, query: str, column: str) -> str:
    answer = tools.browse(query, format="compact")
    return next(hit["label"] for hit in answer if hit["label"].startswith(f'"customer"."{column}"'))


def test_compact_line_names_a_value_its_stem_only_folds(tmp_path):
    result = build([_shop(tmp_path / "shop.sqlite")], None, validate=False)
    tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
    folded = _line(tools, "total units by customer country and state", "country")
    assert "= 'United States'" not in folded, folded
    named = _line(tools, "customers in the United States by country", "country")
    assert "= 'United States'" in named, named
    plural = _line(tools, "how many teachers are customers, by job", "job")
    assert "= 'Teacher'" in plural, plural


def test_names_value_needs_the_word_not_only_its_stem():
    said_text = "units sold in each state"
    said = set(tokenize(said_text))
    assert names_value(said, "United States")  # without the question's words: stems only, as before
    assert not names_value(said, "United States", query_words(said_text))
    assert names_value(set(tokenize("united states")), "United States", query_words("united states"))
    assert names_value(set(tokenize("teachers")), "Teacher", query_words("teachers"))
    assert names_value(set(tokenize("running")), "Run", query_words("running"))
    # a compound the question writes apart still names a closed-up value word
    assert names_value(set(tokenize("new delhi newdelhi")), "NewDelhi", query_words("New Delhi"))
