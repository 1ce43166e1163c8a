"""Regression: after drift found a column gone, its table's line still listed it, unmarked.

CSV review: with ``title`` dropped from sys_user.csv and ``evoonto drift`` run, the column's own Term
was marked stale, but browse's line for the table still read "… named by …, sys_user.title;
columns: …, title, email." with no mark. The table's Term now says first which of its columns drift
found gone, and since when.
"""

from __future__ import annotations

from evoonto.cli import main
from evoonto.drift import run_drift
from evoonto.tools.toolkit import OntologyTools
from evoonto.workspace import Workspace


def test_table_line_lists_a_dropped_column(tmp_path):
    data = tmp_path / "desk"
    data.mkdir()
    users = data / "sys_user.csv"
    users.write_text("user_name,title,email\n" + "".join(f"u{i},T{i % 2},u{i}@x.org\n" for i in range(6)),
                     encoding="utf-8")
    ws = tmp_path / "ws"
    assert main(["build", "--source", str(data), "--workspace", str(ws), "--no-progress"]) == 0
    users.write_text("user_name,email\n" + "".join(f"u{i},u{i}@x.org\n" for i in range(6)), encoding="utf-8")
    report = run_drift(ws, mark=True)
    assert report.version is not None, report
    tools = OntologyTools(Workspace.open(ws).ontology)
    lines = [h["label"] for h in tools.browse("sys user", format="compact")]
    line = next(label for label in lines if label.startswith('"sys_user" --'))
    assert "column gone since" in line and ": title;" in line, line
