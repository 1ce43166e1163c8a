"""Regression: every ``evoonto browse`` from the shell rebuilt the whole join graph to answer a compact
browse (about 60 CPU s of a 65 s call at 70,000 columns; issue 33 item 3). The table joins compact
browse uses are now kept per content version in ``<workspace>/cache/joins/``; a new process reads
them instead of building the graph, and its answers are the same, byte for byte."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from evoonto.builder import build, write_workspace
from evoonto.tools.joinpaths import JoinGraph, read_table_joins, table_joins
from evoonto.tools.toolkit import OntologyTools
from evoonto.workspace import Workspace

QUERIES = ["singer age", "Banned", "country of singers", "concert stadium capacity", "singers in concerts",
           "song name of the youngest singer"]


def make_workspace(path: Path) -> Path:
    """A built workspace of three joined tables (declared foreign keys, a bridge table)."""
    db = path.parent / "concerts.sqlite"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER, status TEXT);
        CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, concert_name TEXT, stadium TEXT, capacity INTEGER);
        CREATE TABLE singer_in_concert (concert_id INTEGER REFERENCES concert(concert_id),
                                        singer_id INTEGER REFERENCES singer(singer_id), song_name TEXT);
        INSERT INTO singer VALUES (1, 'Joe Sharp', 'Netherlands', 52, 'Active'),
                                  (2, 'Timbaland', 'United States', 32, 'Banned'),
                                  (3, 'Justin Brown', 'France', 29, 'Active');
        INSERT INTO concert VALUES (1, 'Auditions', 'Stark Park', 11998), (2, 'Super bootcamp', 'Hampden', 52500);
        INSERT INTO singer_in_concert VALUES (1, 2, 'Love'), (1, 3, 'Sun'), (2, 1, 'Rain');
    """)
    con.commit()
    con.close()
    write_workspace(build([str(db)]), path, force=True)
    return path


def _answers(tools: OntologyTools) -> str:
    out = [tools.browse(q, format="compact", budget=budget) for q in QUERIES for budget in (300, 1500, 6000)]
    return json.dumps(out, ensure_ascii=False, sort_keys=True)


def test_a_new_process_reads_the_table_joins_instead_of_building_the_join_graph(tmp_path, monkeypatch):
    path = make_workspace(tmp_path / "ws")
    first = OntologyTools.for_workspace(Workspace.open(path))
    expected = _answers(first)
    derived = table_joins(JoinGraph.from_ontology(first.ontology))
    assert derived, "the fixture has key joins (else this test checks nothing)"
    files = list((path / "cache" / "joins").glob("*.json"))
    assert len(files) == 1
    assert read_table_joins(files[0]) == derived

    def no_graph(ontology):
        raise AssertionError("the persisted table joins should have been read")

    monkeypatch.setattr("evoonto.tools.joinpaths.join_graph_of", no_graph)
    again = OntologyTools.for_workspace(Workspace.open(path))  # what a new shell process does
    assert again.built is not first.built
    assert again.built.table_joins() == derived
    assert _answers(again) == expected


def test_a_malformed_or_foreign_table_joins_file_is_derived_again(tmp_path):
    path = make_workspace(tmp_path / "ws")
    expected = _answers(OntologyTools.for_workspace(Workspace.open(path)))
    (file,) = (path / "cache" / "joins").glob("*.json")
    good = file.read_text(encoding="utf-8")
    for bad in ("{not json", json.dumps({"format": 999, "joins": {}}), json.dumps({"format": 1, "joins": {"a": 3}})):
        file.write_text(bad, encoding="utf-8")
        assert read_table_joins(file) is None
        assert _answers(OntologyTools.for_workspace(Workspace.open(path))) == expected
        assert file.read_text(encoding="utf-8") == good  # derived and written again
