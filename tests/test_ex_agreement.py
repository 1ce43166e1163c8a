"""Scorer agreement (issue 14.5): evoonto's Spider and BIRD EX rules agree, question by question,
with verdicts written by hand from the official evaluators' definitions (tests/fixtures/ex_agreement/
cases.json: column order, row order with and without ORDER BY, duplicates and DISTINCT, float vs int,
NULLs). The same committed prediction set is also scored end to end through
``evoonto eval --scorer ex --predictions``, in a Spider layout and in a BIRD layout with BIRD's
prediction-file format and a duplicated question id.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from evoonto.cli import main
from evoonto.evaluation.benchmarks import Gold
from evoonto.evaluation.execution import rules_for, score_ex

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "ex_agreement"
CASES = json.loads((FIXTURE / "cases.json").read_text(encoding="utf-8"))["cases"]
RULES = {"spider": "spider", "spider_keep_distinct": "spider-keep-distinct", "bird": "bird"}


def _database(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as con:
        con.executescript((FIXTURE / "singers.sql").read_text(encoding="utf-8"))
    con.close()
    return path


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return _database(tmp_path_factory.mktemp("agree") / "singers.sqlite")


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
@pytest.mark.parametrize("verdict", list(RULES))
def test_each_verdict_agrees_with_the_official_rules(db, case, verdict):
    result = score_ex(Gold(case["id"], "singers", case["gold"]), db, case["pred"], rules=rules_for(RULES[verdict]))
    assert result.gold_error is None
    assert int(result.correct) == case[verdict], case["why"]


def test_the_cases_separate_the_rules():
    """The fixture is not trivial: each pair of rule sets disagrees on some case."""
    for a in RULES:
        for b in RULES:
            if a < b:
                assert any(c[a] != c[b] for c in CASES), (a, b)


def _ex_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("EX ")]


def _results(out: str) -> list[dict]:
    path = out.strip().splitlines()[-1].split(": ", 1)[1]
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def spider_layout(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("spider_layout")
    _database(root / "database" / "singers" / "singers.sqlite")
    questions = [{"db_id": "singers", "question": c["why"], "query": c["gold"]} for c in CASES]
    (root / "dev.json").write_text(json.dumps(questions), encoding="utf-8")
    predictions = root / "pred.sql"
    predictions.write_text("".join(c["pred"] + "\n" for c in CASES), encoding="utf-8")
    return root, predictions


@pytest.mark.parametrize("extra, verdict", [([], "spider"), (["--keep-distinct"], "spider_keep_distinct"),
                                             (["--ex-mode", "bird"], "bird")])
def test_predictions_file_spider_layout(spider_layout, tmp_path, capsys, extra, verdict):
    data, predictions = spider_layout
    assert main(["eval", "--benchmark", "spider", "--data", str(data), "--scorer", "ex", "--predictions",
                 str(predictions), "--runs", str(tmp_path), "--no-progress", *extra]) == 0
    out = capsys.readouterr().out
    [line] = _ex_lines(out)
    expected = [c[verdict] for c in CASES]
    assert line.startswith(f"EX {sum(expected) / len(expected):.3f} ({sum(expected)}/{len(expected)} correct)")
    assert (f"{verdict.split('_')[0]} rules") in line
    assert ("DISTINCT kept" in line) == (verdict == "spider_keep_distinct")
    assert [r["ex"] for r in _results(out)] == expected


def test_predictions_file_bird_layout_with_duplicate_ids(tmp_path, capsys):
    root = tmp_path / "bird"
    _database(root / "dev_databases" / "singers" / "singers.sqlite")
    # BIRD ids; the mini-dev file repeats ids (137, 138): here 7 appears twice
    ids = [i if i != 8 else 7 for i in range(len(CASES))]
    questions = [{"question_id": qid, "db_id": "singers", "question": c["why"], "evidence": "", "SQL": c["gold"],
                  "difficulty": "simple"} for qid, c in zip(ids, CASES, strict=True)]
    (root / "dev.json").write_text(json.dumps(questions), encoding="utf-8")
    predictions = tmp_path / "predict_dev.json"
    predictions.write_text(json.dumps({str(n): f"{c['pred']}\t----- bird -----\tsingers"
                                       for n, c in enumerate(CASES)}), encoding="utf-8")
    assert main(["eval", "--benchmark", "bird", "--data", str(root), "--scorer", "ex", "--predictions",
                 str(predictions), "--runs", str(tmp_path / "runs"), "--no-progress", "--ves-iterations", "3"]) == 0
    captured = capsys.readouterr()
    assert "repeated question id" in captured.err and "singers/7 -> singers/7_2" in captured.err
    [line] = _ex_lines(captured.out)
    expected = [c["bird"] for c in CASES]
    assert line.startswith(f"EX {sum(expected) / len(expected):.3f}") and "bird rules" in line
    assert "VES " in line and "R-VES " in line
    results = _results(captured.out)
    assert [r["ex"] for r in results] == expected
    assert [r["id"] for r in results][7:9] == ["singers/7", "singers/7_2"]
    # VES on BIRD's scale: sqrt(time ratio) x 100 for correct predictions, 0 for wrong ones
    assert all((r["ves"] > 1) == bool(r["ex"]) and (r["r_ves"] > 0) == bool(r["ex"]) for r in results)


def test_prediction_file_errors(spider_layout, tmp_path, capsys):
    data, predictions = spider_layout
    short = tmp_path / "short.sql"
    short.write_text("SELECT 1\n", encoding="utf-8")
    wrong_db = tmp_path / "wrong.sql"
    wrong_db.write_text("".join(f"{c['pred']}\tother_db\n" for c in CASES), encoding="utf-8")
    for path, message in ((short, "1 predictions for 20 questions"), (wrong_db, "names database 'other_db'"),
                          (tmp_path / "missing.sql", "prediction file not found")):
        assert main(["eval", "--benchmark", "spider", "--data", str(data), "--scorer", "ex",
                     "--predictions", str(path), "--runs", str(tmp_path), "--no-progress"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("evoonto: error:") and message in err and len(err.splitlines()) == 1
    assert main(["eval", "--benchmark", "spider", "--data", str(data), "--scorer", "ex", "--predictions",
                 str(predictions), "--ex-mode", "bird", "--keep-distinct"]) == 2
    assert "--keep-distinct" in capsys.readouterr().err
