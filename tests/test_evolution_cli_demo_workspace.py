"""``evoonto evolve`` on the workspace ``evoonto demo`` leaves: no --data needed (the demo records its
benchmark in the workspace settings), the key check comes first, and stored splits are reused when they
assign the evolved database's questions (splits are drawn per database)."""

from __future__ import annotations

import json
import os
import sys
import subprocess
from pathlib import Path

import pytest

from evoonto.cli import main
from evoonto.demo import bundled_data

#: the console script of the interpreter running the tests (the project's own venv)
EVOONTO = str(Path(sys.executable).with_name("evoonto"))


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The installed console script in a subprocess, without ANTHROPIC_API_KEY."""
    env = {k: v for k, v in os.environ.items() if k not in ("EVOONTO_WORKSPACE", "ANTHROPIC_API_KEY")}
    command = [EVOONTO] if Path(EVOONTO).exists() else [sys.executable, "-m", "evoonto"]
    return subprocess.run([*command, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def demo_workspace(tmp_path_factory) -> Path:
    """A workspace made by ``evoonto demo`` (one evolution round, to keep it quick)."""
    root = tmp_path_factory.mktemp("demo")
    proc = run_cli("demo", "-w", "T", "--rounds", "1", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return root / "T"


@pytest.mark.slow
def test_the_demo_records_its_benchmark(demo_workspace):
    settings = json.loads((demo_workspace / "config.json").read_text())["settings"]
    data = bundled_data()
    assert settings["benchmark"] == {"format": "jsonl", "data": str(data.questions.parent),
                                     "db_id": data.db_id, "seed": 0, "fold": "A"}  # built from fold A


@pytest.mark.slow
def test_evolve_and_log_run_on_the_demo_workspace_without_flags(demo_workspace):
    root = demo_workspace.parent
    before = (demo_workspace / "splits.json").read_bytes()
    proc = run_cli("evolve", "-w", "T", "--rounds", "2", "--no-progress", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "stopped:" in proc.stdout and "evolving concert_singer" in proc.stderr
    assert (demo_workspace / "splits.json").read_bytes() == before  # the demo's splits are reused
    # the loop trains on the fold the demo built from (A), never on the demo's held-out fold B
    fold_a = json.loads(before)["databases"][bundled_data().db_id]["A"]
    assert f"{len(fold_a['construction'])} trajectory questions, |V| = {len(fold_a['validation'])}" in proc.stderr
    log = run_cli("log", "-w", "T", cwd=root)
    assert log.returncode == 0, log.stderr
    assert "base" in log.stdout


@pytest.mark.slow
def test_the_bundled_folder_and_question_file_are_accepted_as_data(demo_workspace, capsys):
    folder = bundled_data().questions.parent
    for data in (folder, folder / "questions.jsonl"):
        code = main(["evolve", "-w", str(demo_workspace), "--data", str(data), "--rounds", "1", "--no-progress"])
        assert code == 0, capsys.readouterr().err


def _copy_workspace(source: Path, target: Path) -> Path:
    import shutil

    shutil.copytree(source, target)
    return target


@pytest.mark.slow
def test_missing_key_is_reported_before_anything_else(demo_workspace, tmp_path):
    ws = _copy_workspace(demo_workspace, tmp_path / "ws")
    (ws / "splits.json").write_text("{}")  # would fail if the splits were read first
    proc = run_cli("evolve", "-w", str(ws), "--evolver", "anthropic:claude-x", cwd=tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1
    assert "ANTHROPIC_API_KEY" in lines[0] and "anthropic:claude-x" in lines[0]


@pytest.mark.slow
def test_no_recorded_benchmark_asks_for_data(demo_workspace, tmp_path, capsys):
    ws = _copy_workspace(demo_workspace, tmp_path / "ws")
    config = json.loads((ws / "config.json").read_text())
    del config["settings"]["benchmark"]
    (ws / "config.json").write_text(json.dumps(config))
    assert main(["evolve", "-w", str(ws), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("evoonto: error: no benchmark recorded in this workspace and no verified queries: "
                          "pass --data DIR, or --verified FILE")


@pytest.mark.slow
def test_splits_of_a_larger_benchmark_are_reused_for_one_database(demo_workspace, tmp_path, capsys):
    from evoonto.builder.workload import Question
    from evoonto.evaluation.benchmarks import load_jsonl
    from evoonto.evaluation.splits import make_splits

    ws = _copy_workspace(demo_workspace, tmp_path / "ws")
    bench = load_jsonl(bundled_data().questions.parent)
    others = [Question(id=f"other/{i}", db_id="other", text=f"question {i}") for i in range(7)]
    superset = make_splits([*others, *bench.questions], seed=0)
    (ws / "splits.json").write_text(json.dumps(superset.to_json()))
    assert main(["evolve", "-w", str(ws), "--rounds", "1", "--no-progress"]) == 0, capsys.readouterr().err
    assert json.loads((ws / "splits.json").read_text()) == superset.to_json()


@pytest.mark.slow
def test_splits_of_other_questions_say_what_to_do(demo_workspace, tmp_path, capsys):
    ws = _copy_workspace(demo_workspace, tmp_path / "ws")
    splits = json.loads((ws / "splits.json").read_text())
    splits["databases"]["concert_singer"]["A"]["construction"].pop()
    (ws / "splits.json").write_text(json.dumps(splits))
    assert main(["evolve", "-w", str(ws), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "1 differ" in err and f"delete {ws / 'splits.json'}" in err


@pytest.mark.slow
def test_the_recorded_seed_is_the_default_even_with_data(demo_workspace, tmp_path, capsys):
    from evoonto.evaluation.benchmarks import load_jsonl
    from evoonto.evaluation.splits import make_splits

    ws = _copy_workspace(demo_workspace, tmp_path / "ws")
    config = json.loads((ws / "config.json").read_text())
    config["settings"]["benchmark"]["seed"] = 3
    (ws / "config.json").write_text(json.dumps(config))
    folder = bundled_data().questions.parent
    (ws / "splits.json").write_text(json.dumps(make_splits(load_jsonl(folder).questions, seed=3).to_json()))
    assert main(["evolve", "-w", str(ws), "--data", str(folder), "--rounds", "1", "--no-progress"]) == 0
    assert main(["evolve", "-w", str(ws), "--seed", "0", "--rounds", "1", "--no-progress"]) == 2
    assert "made with seed 3; pass --seed 3" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::evoonto.evaluation.benchmarks.MissingDatabaseWarning")
def test_full_spider_data_reuses_the_demo_splits(demo_workspace, tmp_path, spider_dir, capsys):
    ws = _copy_workspace(demo_workspace, tmp_path / "ws")
    before = (ws / "splits.json").read_bytes()
    code = main(["evolve", "-w", str(ws), "--data", str(spider_dir), "--db", "concert_singer", "--rounds", "1",
                 "--no-progress"])
    assert code == 0, capsys.readouterr().err
    assert (ws / "splits.json").read_bytes() == before
