"""Regression: ``evoonto feedback`` took a verdict on a task no trajectory has, without a word.

A mistyped task id (or a session served from another workspace) was appended to feedback.jsonl and
reported as "recorded"; evolve never finds a trajectory for it, so the verdict is never used, and
nothing said so. It is still recorded (trajectories may arrive later), with a warning on stderr that
names some of the tasks the workspace's trajectories do record.
"""

from __future__ import annotations

import json

from evoonto.cli import main
from evoonto.evolution.outcomes import read_feedback
from evoonto.evolution.trajectories import recorded_tasks
from fixtures.core_support import finance_workspace


def _trajectory(ws, session: str, tasks: list[str]) -> None:
    folder = ws.path / "trajectories"
    folder.mkdir(exist_ok=True)
    lines = [json.dumps({"session": session, "task": task, "tool": "browse", "arguments": {"q": "x"}})
             for task in tasks]
    (folder / f"{session}.jsonl").write_text("\n".join(lines) + "\n{torn", encoding="utf-8")


def test_feedback_on_a_task_no_trajectory_has(tmp_path, capsys):
    ws = finance_workspace(tmp_path / "ws")
    assert main(["feedback", "monthly-revenue", "fail", "-w", str(ws.path)]) == 0
    assert "no trajectories yet" in capsys.readouterr().err
    _trajectory(ws, "s1", ["monthly-revenue", "top-customers"])
    assert main(["feedback", "monthly-revenue", "pass", "-w", str(ws.path)]) == 0
    out = capsys.readouterr()
    assert "recorded pass" in out.out and out.err == ""
    assert main(["feedback", "monthly-revenu", "fail", "-w", str(ws.path)]) == 0
    err = capsys.readouterr().err
    assert "no trajectory" in err and "'monthly-revenu'" in err and "monthly-revenue, top-customers" in err, err
    assert set(read_feedback(ws.path)) == {"monthly-revenue", "monthly-revenu"}  # recorded all the same


def test_recorded_tasks_reads_every_log(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    assert recorded_tasks(ws.path / "trajectories") == set()
    _trajectory(ws, "s1", ["a"])
    _trajectory(ws, "s2", ["b", "c"])
    assert recorded_tasks(ws.path / "trajectories") == {"a", "b", "c"}
