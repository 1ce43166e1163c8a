"""Issue 17 item 5: `evoonto eval` (and `evolve`) drew tqdm bars into a redirected stderr, so a log
file filled with carriage-return frames. Bars are drawn only on a terminal, as `build` does, through
the one helper :func:`evoonto.progress.progress_bar`."""

from __future__ import annotations

import pytest

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from evoonto.cli import main
from evoonto.demo import bundled_data
from evoonto.progress import progress_bar
from fixtures.eval_support import make_db

TESTS = Path(__file__).resolve().parents[1]
QUESTIONS = [
    ("How many singers are there?", "SELECT count(*) FROM singer"),
    ("List the names of singers from France.", "SELECT Name FROM singer WHERE Country = 'France'"),
    ("What is the average age of singers?", "SELECT avg(Age) FROM singer"),
    ("Which concerts took place in 2014?", "SELECT concert_Name FROM concert WHERE Year = 2014"),
    ("Show the name and country of every singer.", "SELECT Name, Country FROM singer"),
    ("How many concerts are there per year?", "SELECT Year, count(*) FROM concert GROUP BY Year"),
    ("What is the oldest singer's name?", "SELECT Name FROM singer ORDER BY Age DESC LIMIT 1"),
    ("Count the singers older than 30.", "SELECT count(*) FROM singer WHERE Age > 30"),
]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_helper_draws_only_on_a_terminal():
    log, tty = io.StringIO(), _Terminal()
    for stream in (log, tty):
        with progress_bar(3, desc="work", unit="q", file=stream) as bar:
            for _ in range(3):
                bar.update(1)
    assert log.getvalue() == ""
    assert "work" in tty.getvalue() and "\r" in tty.getvalue()
    off = _Terminal()
    with progress_bar(3, desc="work", enabled=False, file=off) as bar:
        bar.update(3)
    assert off.getvalue() == ""


@pytest.mark.slow
def test_eval_writes_no_bar_into_a_redirected_stderr(tmp_path):
    make_db(tmp_path / "spider" / "database" / "cs" / "cs.sqlite")
    rows = [{"db_id": "cs", "question": q, "query": sql} for q, sql in QUESTIONS]
    (tmp_path / "spider" / "dev.json").write_text(json.dumps(rows))
    env = {k: v for k, v in os.environ.items() if k not in ("EVOONTO_WORKSPACE", "ANTHROPIC_API_KEY")}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    with open(tmp_path / "stderr.log", "w") as log:  # stderr redirected to a file, as `2> log` does
        proc = subprocess.run([sys.executable, "-m", "evoonto", "eval", "--data", str(tmp_path / "spider"),
                               "--condition", "baseline", "--runs", str(tmp_path / "runs")],
                              cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=log, text=True, timeout=300)
    err = (tmp_path / "stderr.log").read_text()
    assert proc.returncode == 0, err
    assert "strict" in proc.stdout  # the run happened and printed its summary
    assert "\r" not in err and "eval linking" not in err, err[:500]


@pytest.mark.slow
def test_evolve_writes_no_bar_into_a_redirected_stderr(tmp_path, capsys):
    ws = tmp_path / "ws"
    assert main(["build", "-w", str(ws), "--source", str(bundled_data().database)]) == 0
    capsys.readouterr()
    code = main(["evolve", "-w", str(ws), "--data", str(bundled_data().questions.parent), "--rounds", "1"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "round 1:" in captured.out  # the per-round line still reaches stdout
    assert "\r" not in captured.err and "evolve:" not in captured.err, captured.err[:500]
