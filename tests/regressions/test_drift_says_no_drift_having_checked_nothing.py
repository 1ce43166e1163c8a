"""Regression: ``evoonto drift`` said "no drift" having re-run no probe query.

With the recorded source moved away and ``--source moved.sqlite`` (a plain path gets its file stem as
id, so it replaced nothing), drift printed "0 probe queries re-run …; 175 Evidence not checked", then
"no drift: every re-run probe matches its Evidence", exit 0; without ``--source`` the error said the
workspace "records none" while naming the source it records. Checking nothing is now an error (exit
2) that says why; a report that re-ran no probe says the drift is unknown.
"""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

from evoonto.cli import main
from evoonto.drift import DriftReport

DB = Path(__file__).resolve().parents[2] / "evoonto" / "data" / "concert_singer" / "concert_singer.sqlite"


def test_drift_says_no_drift_having_checked_nothing(tmp_path, capsys):
    db = tmp_path / "cs.sqlite"
    shutil.copy(DB, db)
    ws = tmp_path / "ws"
    assert main(["build", "--source", str(db), "-w", str(ws), "--no-progress"]) == 0
    moved = tmp_path / "moved.sqlite"
    db.rename(moved)
    capsys.readouterr()
    assert main(["drift", "-w", str(ws), "--source", str(moved), "--dry-run", "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert "no drift" not in captured.out
    assert "'moved' is not a source of this workspace (cs); name it ID=PATH" in captured.err
    assert main(["drift", "-w", str(ws), "--dry-run", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "records none" not in err and "source 'cs'" in err and "--source ID=PATH" in err
    assert main(["drift", "-w", str(ws), "--source", f"cs={moved}", "--dry-run", "--no-progress"]) == 0
    assert "no drift: every re-run probe matches its Evidence" in capsys.readouterr().out


def test_report_of_no_re_run_says_drift_unknown():
    now = dt.datetime.now(dt.timezone.utc)
    text = DriftReport(now, now, checked=0, unchecked=12, sources=["cs"]).format()
    assert "no drift" not in text and "drift unknown: no probe query could be re-run" in text
    partial = DriftReport(now, now, checked=5, unchecked=2, sources=["cs"]).format()
    assert "no drift: every re-run probe matches its Evidence (2 Evidence not checked)" in partial
