"""Regression (issue 33, cold open): loading base.trig parsed every quad into a list, renamed each
into a second list and only then handed them to the store. At 70,000 columns (3.7 million quads)
that cost 50 CPU s of a cold ``serve``; the quads now stream from the parser through the graph
renaming into one store transaction (32 CPU s). The store must hold exactly the quads the lists gave,
and a file malformed part way must still name its line and load nothing."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest

from evoonto.errors import RDFParseError
from evoonto.store import OxigraphStore, iter_localized_quads, iter_rdf_file, localize_quads, parse_rdf_file
from evoonto.workspace import BASE_FILE, Workspace, _load_base
from fixtures.core_support import finance_workspace


@pytest.fixture
def ws(tmp_path):
    return finance_workspace(tmp_path / "ws")


def test_base_trig_loaded_as_a_stream_holds_the_same_quads(ws, monkeypatch):
    given: list[object] = []
    original = OxigraphStore.load_quads

    def spy(self, quads):
        given.append(quads)
        return original(self, quads)

    listed = ox.Store()
    listed.extend(localize_quads(parse_rdf_file(ws.path / BASE_FILE), ws.iris.base))
    # the file evoonto writes is loaded by the parser alone (test_open_renamed_every_quad_in_python)
    parsed = _load_base(ws.path, ws.iris.base)
    assert set(parsed.ox) == set(listed) and len(parsed.ox) == len(listed) > 100
    # any other file is loaded quad by quad: as a stream
    monkeypatch.setattr("evoonto.workspace.load_localized_trig", lambda data, base_iri: None)
    monkeypatch.setattr(OxigraphStore, "load_quads", spy)
    streamed = _load_base(ws.path, ws.iris.base)
    assert given and not isinstance(given[0], (list, tuple))  # a stream, never a list of every quad
    assert set(streamed.ox) == set(listed) and len(streamed.ox) == len(listed) > 100


def test_base_trig_malformed_part_way_names_its_line_and_loads_nothing(ws):
    file = ws.path / BASE_FILE
    lines = file.read_text(encoding="utf-8").splitlines()
    bad = len(lines) - 2
    lines.insert(bad, '<a> <b> "unterminated .')
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    store = OxigraphStore()
    with pytest.raises(RDFParseError) as err:
        store.load_quads(iter_localized_quads(iter_rdf_file(file, file.read_bytes()), ws.iris.base))
    assert f"{file}:{bad + 1}" in str(err.value)
    assert len(store.ox) == 0  # the quads parsed before the error were not kept
    with pytest.raises(RDFParseError, match=str(file)):
        Workspace.open(ws.path)


def test_rdf_file_of_unknown_format_raises_when_read(tmp_path: Path):
    file = tmp_path / "x.txt"
    file.write_text("<a> <b> <c> .", encoding="utf-8")
    with pytest.raises(RDFParseError):
        list(iter_rdf_file(file, file.read_bytes()))
