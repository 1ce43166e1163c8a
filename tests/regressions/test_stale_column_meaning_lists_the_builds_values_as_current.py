"""Regression: after ``evoonto drift`` marked a column stale, its meaning still listed the build's
values as the column's values.

A profiled column Term's definition ends with the values the build saw (``…; values: France,
Netherlands, …``). Drift marks the column's Mapping stale and browse puts "stale since DATE (change
note)" first, but the text after it still said ``values: … Netherlands …`` as a present fact, though
drift had just found 'Netherlands' gone. The list now reads ``values when built: …``.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from evoonto.cli import main
from evoonto.tools.toolkit import OntologyTools
from evoonto.workspace import Workspace

DB = Path(__file__).resolve().parents[2] / "evoonto" / "data" / "concert_singer" / "concert_singer.sqlite"


def _country_definition(ws: Path) -> str:
    tools = OntologyTools.for_workspace(Workspace.open(ws))
    index = tools.built.index
    doc = next(d for d in index.documents if d.kind == "term" and d.locations[:1] == ["singer.Country"]
               and not d.iri.endswith(("%3DNetherlands", "%3DFrance")) and "=" not in d.iri.rsplit("/", 1)[-1])
    return doc.fields["definition"][0]


def test_stale_column_meaning_lists_the_builds_values_as_current(tmp_path, capsys):
    db, ws = tmp_path / "cs.sqlite", tmp_path / "ws"
    shutil.copy(DB, db)
    assert main(["build", "--source", str(db), "-w", str(ws), "--no-progress"]) == 0
    before = _country_definition(ws)
    assert "; values: " in before and "Netherlands" in before, before
    with sqlite3.connect(db) as con:
        con.execute("UPDATE singer SET Country = 'Atlantis' WHERE Country = 'Netherlands'")
    assert main(["drift", "-w", str(ws), "--no-progress"]) == 0
    capsys.readouterr()
    after = _country_definition(ws)
    assert after.startswith("stale since "), after
    meaning = after.split("); ", 1)[1]  # after the mark and its change note
    assert meaning.startswith("The category Country"), after
    assert "; values: " not in meaning, after
    assert meaning.endswith("; values when built: France, Netherlands, United States."), after
