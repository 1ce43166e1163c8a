"""Regression (issue 13, defect 9): lexicons fitted to the benchmark.

``builder/labels.py`` hard-coded ``ABBREVIATIONS``/``SYNONYMS`` and ``evolution/candidates.py``
``CUES``, many of them words of the Spider dev schemas (gnp, indep, mpg, cyl, accel, hp). Now the
knowledge is general, lives in packaged data files a user can read, and a workspace extends it
with its own ``lexicon.tsv``.
"""

from __future__ import annotations

from importlib import resources

import pytest
from fixtures.sources_support import sqlite_db

from evoonto.builder import build, write_workspace
from evoonto.builder.labels import column_labels
from evoonto.builder.pipeline import workspace_base_iri
from evoonto.errors import ConfigurationError
from evoonto.evolution import candidates
from evoonto.lexicon import PACKAGED_FILES, Lexicon
from evoonto.tools.toolkit import OntologyTools

BENCHMARK_WORDS = ("gnp", "indep", "mpg", "cyl", "accel", "hp")


def _packaged_rows(kind: str) -> list[list[str]]:
    folder = resources.files("evoonto").joinpath("data", "lexicon")
    rows = []
    for name in PACKAGED_FILES:
        text = folder.joinpath(name).read_text(encoding="utf-8")
        assert text.startswith("#"), f"{name} must open with a comment saying where its knowledge comes from"
        rows += [line.split("\t")[1:] for line in text.splitlines()
                 if line.strip() and not line.startswith("#") and line.split("\t")[0] == kind]
    return rows


def test_lexicon_comes_from_the_packaged_files():
    lexicon = Lexicon.packaged()
    assert lexicon.sources == tuple(f"evoonto/data/lexicon/{name}" for name in PACKAGED_FILES)
    assert dict(lexicon.abbreviations) == {short: long for short, long in _packaged_rows("abbreviation")}
    assert {tuple(r) for r in _packaged_rows("synonyms")} == set(lexicon.synonym_sets)
    assert {r[0]: tuple(r[1:]) for r in _packaged_rows("cue")} == dict(lexicon.cues)
    # no hand list left in the code
    from evoonto.builder import labels

    assert not hasattr(labels, "ABBREVIATIONS") and not hasattr(labels, "SYNONYMS")
    assert not hasattr(candidates, "CUES")


def test_benchmark_schema_words_are_not_packaged_abbreviations():
    abbreviations = Lexicon.packaged().abbreviations
    assert not [w for w in BENCHMARK_WORDS if w in abbreviations]
    # general data-naming abbreviations are there
    assert {"qty", "amt", "num", "desc", "dt", "addr", "cust", "emp", "dept", "avg", "pct", "yr"} <= set(abbreviations)
    assert not any("gallon" in alt for alt in column_labels("cars", "mpg").alt)


def test_cue_words_reach_their_measurements():
    lexicon = Lexicon.packaged()
    assert set(lexicon.cue_targets("youngest")) >= {"age"}
    assert set(lexicon.cue_targets("bigger")) >= {"size"}


@pytest.mark.slow
def test_workspace_file_extends_labels_and_browse(tmp_path):
    db = sqlite_db(tmp_path / "garage.sqlite", """
        CREATE TABLE cars (id INTEGER PRIMARY KEY, model TEXT, mpg REAL, colour TEXT);
        INSERT INTO cars VALUES (1, 'Alpha', 31.5, 'red'), (2, 'Beta', 24.0, 'blue'), (3, 'Gamma', 18.2, 'red');
    """)
    ws_path = tmp_path / "ws"
    first = build([str(db)], base_iri=workspace_base_iri(ws_path))
    before = OntologyTools(write_workspace(first, ws_path).ontology).browse("fuel economy miles per gallon",
                                                                            format="verbose")
    (ws_path / "lexicon.tsv").write_text(
        "# our garage's words\n"
        "abbreviation\tmpg\tmiles per gallon\n"
        "synonyms\tmiles per gallon\tfuel economy\n", encoding="utf-8")
    lexicon = Lexicon.load(ws_path)
    assert lexicon.expand("MPG") == "miles per gallon" and "qty" in lexicon.abbreviations
    assert str(ws_path / "lexicon.tsv") in lexicon.sources
    labels = column_labels("cars", "mpg", lexicon=lexicon)
    assert "miles per gallon" in labels.alt and "fuel economy" in labels.alt
    rebuilt = build([str(db)], base_iri=workspace_base_iri(ws_path), lexicon=lexicon)
    tools = OntologyTools(write_workspace(rebuilt, ws_path, force=True).ontology)  # replaces the first build
    after = tools.browse("fuel economy miles per gallon", format="verbose")
    assert after and after[0]["label"] == "Car mpg"
    assert all(hit["label"] != "Car mpg" for hit in before)  # without the workspace file: not found
    # the packaged lexicon is unchanged by a workspace's additions
    assert "mpg" not in Lexicon.packaged().abbreviations


def test_malformed_workspace_file_names_the_line(tmp_path):
    (tmp_path / "lexicon.tsv").write_text("abbreviation\tmpg\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"lexicon.tsv:1"):
        Lexicon.load(tmp_path)
    (tmp_path / "lexicon.tsv").write_text("# ok\nsynonym mpg fuel\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match=r"lexicon.tsv:2: unknown row kind"):
        Lexicon.load(tmp_path)
