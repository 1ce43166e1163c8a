"""Issue 34 item 4: the builder kept word lists in code (quantity words such as ``mpg``,
``horsepower``, ``milliseconds``, ``bytes``, ``freight`` deciding a Metric's aggregation) and two
hand-coded concepts (price × quantity as "sales amount", shipped after required as "late"),
although the lexicon files said domain words were removed. Word classes and two-column concepts
are now lexicon data (``evoonto/data/lexicon/classes.tsv``, ``concepts.tsv``) that a workspace's
``lexicon.tsv`` extends; the automotive units are no longer packaged."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from evoonto.builder import build
from evoonto.builder.labels import use_lexicon
from evoonto.builder.propose import default_aggregation
from evoonto.errors import ConfigurationError
from evoonto.lexicon import Lexicon

from tests.test_builder_concepts import _concepts


def test_aggregation_words_are_lexicon_data():
    packaged = Lexicon.packaged()
    assert {"price", "rate"} <= packaged.words_of("intensive") and "bytes" in packaged.words_of("additive")
    assert not {"mpg", "horsepower"} & (packaged.words_of("intensive") | packaged.words_of("additive"))
    assert default_aggregation("Metric", "unit_price") == "AVG" and default_aggregation("Metric", "bytes") == "SUM"
    assert default_aggregation("Metric", "mpg") is None  # a domain unit: not packaged knowledge
    with use_lexicon(packaged.extended(Lexicon.from_text("class\tintensive\tmpg\n"))):
        assert default_aggregation("Metric", "mpg") == "AVG"  # a workspace can add it


@pytest.fixture(scope="module")
def loads_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("loads") / "loads.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE loads (load_id INTEGER PRIMARY KEY, weight_kg REAL, trips INTEGER, note TEXT)")
    con.executemany("INSERT INTO loads VALUES (?, ?, ?, ?)", [(i, 10.0 + i, 1 + i % 4, f"n{i}") for i in range(1, 31)])
    con.commit()
    con.close()
    return path


def test_two_column_concepts_come_from_lexicon_rows(loads_db: Path):
    question = ["What is the hauled tonnage?"]
    assert _concepts(build([loads_db], question)) == {}  # no packaged concept covers it
    own = Lexicon.packaged().extended(Lexicon.from_text(
        "class\tload weight\tweight\nclass\ttrip count\ttrips\n"
        "concept\tproduct\tload weight\ttrip count\thauled tonnage\ttonnage\n"))
    concepts = _concepts(build([loads_db], question, lexicon=own))
    assert concepts["Hauled tonnage"][1] == "SUM(loads.weight_kg * loads.trips)"
    # without the packaged concept rows, "sales amount" and "late" are not made
    bare = Lexicon.from_text("class\tunit price\tprice\n")
    assert bare.concepts == () and Lexicon.packaged().concepts[0].phrases[0] == "sales amount"


def test_a_concept_row_with_an_unknown_operation_names_its_line():
    with pytest.raises(ConfigurationError, match=r"own.tsv:2: unknown concept operation 'ratio'"):
        Lexicon.from_text("class\ta\tx\nconcept\tratio\ta\ta\tthing\n", name="own.tsv")
