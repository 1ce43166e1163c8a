"""Regression: ``coverage`` called a value of the data "unavailable" when the builder's sample missed it.

PostgreSQL review: the ontology keeps a sample of each column's values, and coverage looked only at
the ontology, so a name stored in the table but not sampled read like a name the data does not have,
and an agent told so abstains. With the value index (the sources' distinct values) a word spelled as
a stored value is now covered, and the Term of its column joins the phrase's ids; a close spelling
of a stored value still is not (it may be another thing)."""

from __future__ import annotations

import sqlite3

import pytest

from evoonto.builder.pipeline import build
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools
from evoonto.tools.values import ensure_value_index

_SYLLABLES = ("ba", "ke", "lo", "mi", "nu", "ra", "si", "to", "vu", "ze")


def _word(i: int) -> str:
    """A made-up word of its own for each ``i`` < 1000 (``kelomin``): no two band names share a word."""
    return (_SYLLABLES[i // 100 % 10] + _SYLLABLES[i // 10 % 10] + _SYLLABLES[i % 10] + "n").capitalize()


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bands")
    db = folder / "music.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE band (band_id INTEGER PRIMARY KEY, band_name TEXT, formed INTEGER)")
    names = [f"{_word(i)} {_word(i + 500)}" for i in range(200)]  # 200 names, no word in two of them
    con.executemany("INSERT INTO band VALUES (?, ?, ?)", [(i, n, 1960 + i % 50) for i, n in enumerate(names)])
    con.commit()
    con.close()
    result = build([str(db)], base_iri="https://example.org/music/")
    found = OntologyTools(Ontology.from_graphs(dict(result.graphs), base_iri=result.base_iri),
                          sources={"music": str(db)})
    yield found, names, folder


def _unsampled(tools: OntologyTools, names: list[str]) -> str:
    """A stored band name whose words the ontology does not hold (the build's sample missed it)."""
    for name in reversed(names):
        answer = tools.coverage(f"when was {name} formed")
        phrase = next(p for p in answer["phrases"] if name.split()[0].lower() in p["phrase"].lower())
        if set(name.lower().split()) <= {w.lower() for w in phrase["uncovered"] + phrase["approximate"]}:
            return name
    raise AssertionError("every name was sampled: the test needs a value outside the sample")


def test_coverage_calls_an_unsampled_value_unavailable(tools):
    facade, names, folder = tools
    facade.value_index = None
    name = _unsampled(facade, names)
    facade.value_index = ensure_value_index(folder / "values.sqlite", {"music": facade.source("music")})
    try:
        answer = facade.coverage(f"when was {name} formed")
    finally:
        facade.value_index = None
    phrase = next(p for p in answer["phrases"] if name.split()[0].lower() in p["phrase"].lower())
    assert not {w.lower() for w in phrase["uncovered"]} & set(name.lower().split()), answer
    assert any("band_name" in i for i in phrase["ids"]), answer


def test_a_close_spelling_of_a_stored_value_stays_uncovered(tools):
    facade, names, folder = tools
    name = _unsampled(facade, names)
    misspelt = name[:-2] + "zq"  # not a stored value: only a fuzzy match would find it
    facade.value_index = ensure_value_index(folder / "values.sqlite", {"music": facade.source("music")})
    try:
        answer = facade.coverage(f"when was {misspelt} formed")
    finally:
        facade.value_index = None
    phrase = next(p for p in answer["phrases"] if name.split()[0].lower() in p["phrase"].lower())
    assert misspelt.split()[-1] in phrase["uncovered"] + phrase["approximate"], answer
