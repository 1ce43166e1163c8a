"""Regression (issue 14.5): a question file with a repeated id lost a question.

The official BIRD mini-dev file repeats question ids 137 and 138. The loader kept both questions
under one id, so the second gold SQL replaced the first and the splits then refused the file
("duplicate question id"). Now the repeated id gets a suffix (``_2``) with a warning, and both
questions keep their own gold.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from evoonto.evaluation.benchmarks import load_bird
from evoonto.evaluation.splits import make_splits


def test_repeated_ids_are_kept_with_a_suffix(tmp_path):
    db = tmp_path / "dev_databases" / "d" / "d.sqlite"
    db.parent.mkdir(parents=True)
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
    con.close()
    rows = [{"question_id": 137, "db_id": "d", "question": f"question {n}", "SQL": f"SELECT {n}",
             "evidence": ""} for n in range(3)]
    rows[2]["question_id"] = 138
    rows.append({**rows[1], "question": "question 3", "SQL": "SELECT 3"})
    (tmp_path / "dev.json").write_text(json.dumps(rows))
    with pytest.warns(UserWarning, match="d/137 -> d/137_2"):  # DuplicateQuestionIdWarning
        bench = load_bird(tmp_path)
    ids = [q.id for q in bench.questions]
    assert ids == ["d/137", "d/137_2", "d/138", "d/137_3"]
    assert [bench.gold[i].sql for i in ids] == ["SELECT 0", "SELECT 1", "SELECT 2", "SELECT 3"]
    assert make_splits(bench.questions, folds=2, seed=0)  # the splits accept the file
