"""Regression: after ``evoonto drift`` found a value gone, browse still wrote it as the value to paste.

Drift marks the Evidence that saw the value stale (``prov:invalidatedAtTime``), and Evidence values
stopped backing other records, but the value Term derived from that Evidence (``singer.Country =
Netherlands``) still gave the compact line ``"singer"."Country" TEXT = 'Netherlands'`` with no sign
that the data no longer holds it. A value Term whose Evidence is all stale no longer stands for a
value: its words still find it, its value is not written as matched; and stale records (and the Terms
of stale Mappings) begin their definition with "stale since DATE (change note)", so the compact line
and the verbose snippet say it, as resolve does.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from evoonto.cli import main
from evoonto.tools.toolkit import OntologyTools
from evoonto.workspace import Workspace

DB = Path(__file__).resolve().parents[2] / "evoonto" / "data" / "concert_singer" / "concert_singer.sqlite"


def _country_line(ws: Path) -> str:
    tools = OntologyTools.for_workspace(Workspace.open(ws))
    return next(hit["label"] for hit in tools.browse("singers from Netherlands")
                if hit["label"].startswith('"singer"."Country"'))


def test_browse_pastes_a_value_drift_found_gone(tmp_path, capsys):
    db, ws = tmp_path / "cs.sqlite", tmp_path / "ws"
    shutil.copy(DB, db)
    assert main(["build", "--source", str(db), "-w", str(ws), "--no-progress"]) == 0
    assert "= 'Netherlands'" in _country_line(ws)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE singer SET Country = 'Atlantis' WHERE Country = 'Netherlands'")
    assert main(["drift", "-w", str(ws), "--no-progress"]) == 0
    assert "Netherlands" in capsys.readouterr().out  # drift reported the value gone
    line = _country_line(ws)
    assert "= 'Netherlands'" not in line and "holds 'Netherlands'" not in line, line
    assert "= 'France'" not in line  # no other value put in its place
    # and the line says the column's facts are stale, as resolve does (the mark comes first; the
    # meaning's value list reads "values when built")
    assert " -- stale since " in line, line


def test_stale_value_term_says_what_drift_found(tmp_path, capsys):
    db, ws = tmp_path / "cs.sqlite", tmp_path / "ws"
    shutil.copy(DB, db)
    assert main(["build", "--source", str(db), "-w", str(ws), "--no-progress"]) == 0
    with sqlite3.connect(db) as con:
        con.execute("UPDATE singer SET Country = 'Atlantis' WHERE Country = 'Netherlands'")
    assert main(["drift", "-w", str(ws), "--no-progress"]) == 0
    capsys.readouterr()
    tools = OntologyTools.for_workspace(Workspace.open(ws))
    hits = tools.browse("Netherlands", format="verbose")
    value_term = next(h for h in hits if h["id"].endswith("singer.Country%3DNetherlands"))
    assert "stale since " in value_term["snippet"] and "drift" in value_term["snippet"], value_term
    fresh = tools.browse("stadium capacity", format="verbose")[0]
    assert fresh["id"].endswith("stadium.Capacity") and "stale" not in fresh["snippet"], fresh  # unmarked
