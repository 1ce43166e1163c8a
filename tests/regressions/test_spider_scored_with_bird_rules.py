"""Regression (issue 14.5): ``eval --benchmark spider --scorer ex`` compared results with BIRD rules.

``--ex-mode`` defaulted to ``bird`` whatever the benchmark, so a Spider prediction whose columns come
in another order than the gold's scored 0 (0.763 where the official Spider evaluator gives 0.805 on
the same predictions). Spider data now gets Spider rules unless --ex-mode says otherwise, and the
summary names the rules.
"""

from __future__ import annotations

import json
import sqlite3

from evoonto.cli import main


def test_spider_benchmark_defaults_to_spider_rules(tmp_path, capsys):
    db = tmp_path / "database" / "shop" / "shop.sqlite"
    db.parent.mkdir(parents=True)
    with sqlite3.connect(db) as con:
        con.executescript("CREATE TABLE item (name TEXT, price INTEGER); INSERT INTO item VALUES ('pen', 2);")
    con.close()
    (tmp_path / "dev.json").write_text(json.dumps(
        [{"db_id": "shop", "question": "Names and prices?", "query": "SELECT name, price FROM item"}]))
    pred = tmp_path / "pred.sql"
    pred.write_text("SELECT price, name FROM item\n")  # the same answer, columns swapped
    assert main(["eval", "--benchmark", "spider", "--data", str(tmp_path), "--scorer", "ex",
                 "--predictions", str(pred), "--runs", str(tmp_path / "runs"), "--no-progress"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("EX 1.000 (1/1 correct)") and "spider rules" in line
