"""Regression (issue 19): writing base.trig held every quad of the workspace in a list, a second list
for the serializer and the whole TriG text at once (a large share of peak memory on a 70,000-column
build). It is now serialized graph by graph and streamed to the file; the bytes must be exactly those
of serializing all sorted quads at once."""

from __future__ import annotations

import pytest

import sqlite3
from pathlib import Path

from evoonto.builder import build, write_workspace
from evoonto.fileio import atomic_write
from evoonto.store import publish_quads, serialize_ox
from evoonto.workspace import _base_bytes


@pytest.mark.slow
def test_base_trig_held_whole_in_memory_same_bytes(tmp_path: Path):
    path = tmp_path / "s.sqlite"
    con = sqlite3.connect(path)
    con.executescript("CREATE TABLE team (team_id INTEGER PRIMARY KEY, name TEXT, city TEXT);"
                      "CREATE TABLE player (id INTEGER PRIMARY KEY, team_id INTEGER REFERENCES team, nick TEXT);"
                      "INSERT INTO team VALUES (1,'Reds','Lyon'),(2,'Blues','Nice');"
                      "INSERT INTO player VALUES (1,1,'a'),(2,1,'b'),(3,2,'c');")
    con.execute("INSERT INTO team VALUES (3, ?, ?)", ('Ré"al\nMadrid\t\u0001 <x> .', "São Paulo@en"))
    con.commit()
    con.close()
    ws = write_workspace(build([path], base_iri="https://example.org/evoonto/t/"), tmp_path / "ws")
    whole = serialize_ox(publish_quads(ws.store.ox.quads_for_pattern(None, None, None, None), ws.base_iri))
    chunks = list(_base_bytes(ws.store, ws.base_iri))
    assert len(chunks) > 3 and b"".join(chunks) == whole
    assert "Ré\\\"al\\nMadrid".encode() in whole  # escaped text sorted and written as before
    assert (tmp_path / "ws" / "base.trig").read_bytes() == whole
    atomic_write(tmp_path / "x.trig", iter(chunks))
    assert (tmp_path / "x.trig").read_bytes() == whole
