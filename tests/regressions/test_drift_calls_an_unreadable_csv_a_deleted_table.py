"""Regression: ``drift`` reported a CSV file that no longer parses as a deleted table.

CSV review: one unterminated quote appended to ``sys_user.csv`` made ``drift`` say "STALE
missing_table …: table sys_user is gone from the source" and invalidate 46 records, though the file
was still there. A table the source holds but cannot read is now named in a note and its Evidence is
left unchecked; nothing is invalidated. (The file's SourceWarning prints as one ``evoonto: warning:``
line, not as a Python warning with a module path.)
"""

from __future__ import annotations

import pytest

from evoonto.cli import main
from evoonto.drift import run_drift
from evoonto.sources.base import SourceWarning


def test_drift_calls_an_unreadable_csv_a_deleted_table(tmp_path, capsys):
    data = tmp_path / "desk"
    data.mkdir()
    (data / "incidents.csv").write_text("id,caller,state\n" + "".join(
        f"{i},user {i % 4},{('New', 'Closed')[i % 2]}\n" for i in range(30)), encoding="utf-8")
    users = data / "users.csv"
    users.write_text("name,department\n" + "".join(f"user {i},{('IT', 'HR')[i % 2]}\n" for i in range(4)),
                     encoding="utf-8")
    ws = tmp_path / "ws"
    assert main(["build", "--source", str(data), "--workspace", str(ws), "--no-progress"]) == 0
    with users.open("a", encoding="utf-8") as handle:
        handle.write('x,y\n"unterminated,1,2\n')
    with pytest.warns(SourceWarning, match="cannot read users.csv"):
        report = run_drift(ws, mark=True)
    assert not [f for f in report.findings if f.kind == "missing_table"], report.findings
    assert report.version is None  # nothing turned stale, nothing committed
    assert any("table users is present but cannot read users.csv" in note for note in report.notes), report.notes
    capsys.readouterr()
    main(["drift", "--dry-run", "--workspace", str(ws)])
    err = capsys.readouterr().err
    assert "evoonto: warning: source 'desk': cannot read users.csv" in err and "SourceWarning" not in err, err
