"""Regression (issue 29): a value probe matched question words by their first two letters
(``LIKE 'co%'``), so evolution proposed the synonyms "contain" and "minutes" for ``Album.Title`` from
album titles that merely began with the same letters. A value is evidence only when it is stored as
the question says it: the prober finds exact (case-insensitive) values and nothing else, and the
unlinked-phrase writer proposes no synonym from spelling likeness."""

from __future__ import annotations

import sqlite3

from rdflib import URIRef

from evoonto.catalog import ColumnInfo
from evoonto.evolution.probes import ValueProber
from fixtures.evolution_toy import ToySource


def _album_source(tmp_path):
    path = tmp_path / "music.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE Album (AlbumId INTEGER PRIMARY KEY, Title TEXT)")
    con.executemany("INSERT INTO Album VALUES (?, ?)",
                    [(1, "Contact"), (2, "Minuet"), (3, "Minute By Minute"), (4, "Container")])
    con.commit()
    con.close()
    column = ColumnInfo("Title", URIRef("urn:x:title"), table="Album", source_id="chinook", declared_type="TEXT")
    return ToySource(path, "chinook"), [column]


def test_a_word_sharing_first_letters_with_stored_values_finds_nothing(tmp_path):
    source, columns = _album_source(tmp_path)
    prober = ValueProber({"chinook": source})
    assert prober.find("chinook", "contain", columns) == []
    assert prober.find("chinook", "minutes", columns) == []
    assert not any("LIKE" in sql.upper() for sql in source.statements)  # no prefix guess was even asked


def test_the_stored_value_itself_is_found_with_its_exact_query(tmp_path):
    source, columns = _album_source(tmp_path)
    hits = ValueProber({"chinook": source}).find("chinook", "contact", columns)
    assert [(h.table, h.column, h.value, h.rows) for h in hits] == [("Album", "Title", "Contact", 1)]
    assert "LOWER" in hits[0].query and "'contact'" in hits[0].query


def test_spelling_likeness_alone_proposes_no_synonym():
    from evoonto.evolution.attribute import attribute
    from evoonto.evolution.candidates import propose
    from evoonto.evolution.diagnose import Signature
    from evoonto.evolution.edits import AddSynonym
    from evoonto.evolution.view import OntologyView
    from fixtures.evolution_toy import toy_ontology

    view = OntologyView(toy_ontology())
    # "singr" is one letter from "singer": a look-alike, not evidence of meaning
    sig = Signature("unlinked_phrase", "singr", "toy", ("q1",))
    assert not [c for c in propose(attribute(sig, view), view) if any(isinstance(e, AddSynonym) for e in c.edits)]
