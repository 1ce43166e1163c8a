"""``evoonto evolve`` end to end on a tiny Spider-format benchmark (offline builder, linking backbone),
and its error paths (clear one-line errors, exit status 2, workspace unchanged)."""

from __future__ import annotations

import json
import shutil

import pytest

from evoonto.cli import main
from fixtures.evolution_toy import make_database

QUESTIONS = [
    ("How many singers are there?", "SELECT count(*) FROM singer"),
    ("What is the average age of all singers?", "SELECT avg(Age) FROM singer"),
    ("Who is the youngest singer?", "SELECT Name FROM singer ORDER BY Age LIMIT 1"),
    ("Name the oldest singer.", "SELECT Name FROM singer ORDER BY Age DESC LIMIT 1"),
    ("List the names of French singers.", "SELECT Name FROM singer WHERE Country = 'France'"),
    ("Which singers come from France?", "SELECT Name FROM singer WHERE Country = 'France'"),
    ("How many concerts were held in 2014?", "SELECT count(*) FROM concert WHERE Year = 2014"),
    ("Show all concert names.", "SELECT concert_Name FROM concert"),
    ("What are the countries of all singers?", "SELECT DISTINCT Country FROM singer"),
    ("Show the sex of every singer.", "SELECT Sex FROM singer"),
    ("Which year had the most concerts?", "SELECT Year FROM concert GROUP BY Year ORDER BY count(*) DESC LIMIT 1"),
    ("List singer names and their concerts.",
     "SELECT T1.Name, T2.concert_Name FROM singer AS T1 JOIN concert AS T2 ON T1.Singer_ID = T2.Singer_ID"),
    ("How old is the youngest singer?", "SELECT min(Age) FROM singer"),
    ("Count the female singers.", "SELECT count(*) FROM singer WHERE Sex = 'F'"),
    ("What is the maximum age of singers from France?", "SELECT max(Age) FROM singer WHERE Country = 'France'"),
    ("Give the concert names of 2015.", "SELECT concert_Name FROM concert WHERE Year = 2015"),
    ("Which singer performed in Auditions?",
     "SELECT T1.Name FROM singer AS T1 JOIN concert AS T2 ON T1.Singer_ID = T2.Singer_ID "
     "WHERE T2.concert_Name = 'Auditions'"),
    ("List singers older than 40.", "SELECT Name FROM singer WHERE Age > 40"),
    ("What are the names of male singers?", "SELECT Name FROM singer WHERE Sex = 'M'"),
    ("Show concert years.", "SELECT Year FROM concert"),
]


@pytest.fixture()
def data_dir(tmp_path):
    folder = tmp_path / "bench"
    (folder / "database" / "toy").mkdir(parents=True)
    make_database(folder / "database" / "toy" / "toy.sqlite")
    rows = [{"db_id": "toy", "question": q, "query": sql} for q, sql in QUESTIONS]
    (folder / "dev.json").write_text(json.dumps(rows))
    return folder


@pytest.fixture()
def workspace(tmp_path, data_dir):
    from evoonto.builder.pipeline import build, write_workspace

    questions = [q for q, _ in QUESTIONS[:10]]  # question texts only: the builder never sees gold
    path = tmp_path / "ws"
    write_workspace(build([str(data_dir / "database" / "toy" / "toy.sqlite")], questions), path)
    return path


@pytest.mark.slow
def test_evolve_runs_and_records_every_decision(workspace, data_dir, capsys):
    from evoonto.workspace import Workspace

    code = main(["evolve", "--workspace", str(workspace), "--data", str(data_dir), "--rounds", "2",
                 "--patience", "2", "--no-progress"])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "stopped:" in out.out and "|V| =" in out.err
    ws = Workspace.open(workspace)
    decisions = {e.decision for e in ws.log()}
    assert decisions <= {"accepted", "rejected", "invalid"}
    assert ws.version == sum(1 for e in ws.log() if e.decision == "accepted")
    assert (workspace / "splits.json").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("extra, message", [
    (["--fold", "Z"], "unknown fold"),
    (["--evolver", "openai:gpt"], "unknown evolver"),
    (["--db", "nope"], "no source"),
    (["--rounds", "0"], "at least 1"),
    (["--scorer", "ex"], "--agent"),
])
def test_evolve_errors_are_one_line_and_change_nothing(workspace, data_dir, capsys, extra, message):
    before = sorted(p.name for p in (workspace / "patches").iterdir()) if (workspace / "patches").exists() else []
    code = main(["evolve", "--workspace", str(workspace), "--data", str(data_dir), "--no-progress", *extra])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") <= 2
    after = sorted(p.name for p in (workspace / "patches").iterdir()) if (workspace / "patches").exists() else []
    assert before == after


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::evoonto.evaluation.benchmarks.MissingDatabaseWarning")
def test_evolve_missing_workspace_or_data(tmp_path, data_dir, workspace, capsys):
    assert main(["evolve", "--workspace", str(tmp_path / "none"), "--data", str(data_dir)]) == 2
    shutil.rmtree(data_dir / "database")
    assert main(["evolve", "--workspace", str(workspace), "--data", str(data_dir), "--no-progress"]) == 2


def _v_and_construction_ids(data_dir):
    from evoonto.evaluation.benchmarks import load_benchmark
    from evoonto.evaluation.splits import make_splits

    splits = make_splits(load_benchmark("spider", data_dir).questions, seed=0)
    return splits.fold("A", "validation", "toy"), splits.fold("A", "construction", "toy")


def _write_log(path, tasks):
    with path.open("w") as fh:
        for task, question in tasks:
            fh.write(json.dumps({"session": "s1", "task": task, "seq": 0, "version": 0, "tool": "browse",
                                 "arguments": {"q": question}, "result_ids": [], "question": question}) + "\n")
            fh.write(json.dumps({"session": "s1", "task": task, "seq": 1, "version": 7, "tool": "browse",
                                 "arguments": {"q": "stale"}, "result_ids": []}) + "\n")


@pytest.mark.slow
def test_evolve_diagnoses_a_recorded_mcp_log_and_leaves_out_v_and_stale_events(workspace, data_dir, tmp_path, capsys):
    from evoonto.workspace import Workspace

    validation, construction = _v_and_construction_ids(data_dir)
    log, verdicts = tmp_path / "log.jsonl", tmp_path / "verdicts.jsonl"
    _write_log(log, [("agent-1", "Who is the youngest performer?"), (validation[0], "a V question"),
                     (construction[0], "a construction question")])
    verdicts.write_text("\n".join(json.dumps(r) for r in (
        {"task": "agent-1", "passed": False}, {"task": validation[0], "passed": False},
        {"task": construction[0], "score": 1.0})) + "\n")
    code = main(["evolve", "--workspace", str(workspace), "--data", str(data_dir), "--rounds", "1",
                 "--patience", "1", "--no-progress", "--trajectories", str(log), "--outcomes", str(verdicts)])
    out = capsys.readouterr()
    assert code == 0, out.err
    # agent-1 and the construction task are kept; the V task and the version-7 events are left out
    assert "trajectories: 2 tasks" in out.err and "1 failed" in out.err
    assert "2 events of other versions" not in out.err and "3 events of other versions" in out.err
    assert "1 verdicts of V/other folds left out" in out.err
    assert "evolving toy from version 0: 2 recorded tasks" in out.err
    # a folder of logs is read whole; a verdict whose task has no event at this version is not a task
    folder = tmp_path / "logs"
    folder.mkdir()
    log.rename(folder / "s1.jsonl")
    with (folder / "s2.jsonl").open("w") as fh:  # agent-2 has events at version 7 only
        fh.write(json.dumps({"session": "s2", "task": "agent-2", "seq": 0, "version": 7, "tool": "browse",
                             "arguments": {"q": "x"}, "result_ids": []}) + "\n")
    with verdicts.open("a") as fh:
        fh.write(json.dumps({"task": "agent-2", "passed": False}) + "\n")
    code = main(["evolve", "--workspace", str(workspace), "--data", str(data_dir), "--rounds", "1",
                 "--patience", "1", "--no-progress", "--trajectories", str(folder), "--outcomes", str(verdicts)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "trajectories: 2 tasks" in err  # agent-2 is not diagnosed: it has no event at version 0
    assert Workspace.open(workspace).version == sum(1 for e in Workspace.open(workspace).log()
                                                     if e.decision == "accepted")


@pytest.mark.slow
def test_evolve_recorded_log_errors(workspace, data_dir, tmp_path, capsys):
    validation, _ = _v_and_construction_ids(data_dir)
    log, verdicts = tmp_path / "log.jsonl", tmp_path / "verdicts.json"
    _write_log(log, [(validation[0], "a V question")])
    verdicts.write_text(json.dumps({validation[0]: False}))
    base = ["evolve", "--workspace", str(workspace), "--data", str(data_dir), "--no-progress"]
    assert not (workspace / "splits.json").exists()
    assert main(base + ["--trajectories", str(log)]) == 2
    assert "go together" in capsys.readouterr().err
    assert main(base + ["--trajectories", str(tmp_path / "missing.jsonl"), "--outcomes", str(verdicts)]) == 2
    assert "not found" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(base + ["--trajectories", str(empty), "--outcomes", str(verdicts)]) == 2
    assert "without .jsonl" in capsys.readouterr().err
    assert main(base + ["--trajectories", str(log), "--outcomes", str(verdicts)]) == 2
    assert "V and of other folds are left out" in capsys.readouterr().err  # only a V task: nothing to diagnose
    verdicts.write_text(json.dumps({"x": "maybe"}))
    assert main(base + ["--trajectories", str(log), "--outcomes", str(verdicts)]) == 2
    assert "score in [0, 1]" in capsys.readouterr().err
    assert not (workspace / "patches").exists() or not any((workspace / "patches").iterdir())
    assert not (workspace / "splits.json").exists()  # failed commands wrote nothing, not even the splits


@pytest.mark.slow
def test_evolve_reads_a_log_written_by_the_tool_layer_itself(workspace, data_dir, tmp_path, capsys):
    # the log is written by the same code the MCP server uses (OntologyTools.call + TrajectoryLog)
    from evoonto.tools.toolkit import OntologyTools
    from evoonto.tools.trajectory import TrajectoryLog
    from evoonto.workspace import Workspace

    ws = Workspace.open(workspace)
    log = tmp_path / "agent.jsonl"
    tools = OntologyTools(ws.ontology, version=ws.version, trajectory=TrajectoryLog(log, session="agent-1"))
    hits = tools.call("browse", {"q": "youngest performer"})
    tools.call("resolve", {"ids": [h["id"] for h in hits[:2]] or ["nothing"]})
    (tmp_path / "verdicts.json").write_text(json.dumps({"agent-1": False}))
    code = main(["evolve", "--workspace", str(workspace), "--data", str(data_dir), "--rounds", "1",
                 "--patience", "1", "--no-progress", "--trajectories", str(log),
                 "--outcomes", str(tmp_path / "verdicts.json")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "trajectories: 1 tasks" in err and "1 failed" in err and "0 events of other versions" in err
