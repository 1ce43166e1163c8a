"""Regression: ``evoonto build --verified FILE`` aborted on one malformed line.

CSV review: a file with a line ``not json`` stopped the build ("vq.jsonl:7: a verified query must be
a JSON object") and nothing was built, although ``build --help`` says "a bad line is reported as
FILE:LINE and left out" and ``evoonto verified add`` leaves it out. The build now reads the file as
``verified add`` does.
"""

from __future__ import annotations

import json
import sqlite3

from evoonto.cli import main


def test_build_verified_aborts_on_one_bad_line(tmp_path, capsys):
    db = tmp_path / "shop.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE customer (id INTEGER PRIMARY KEY, country TEXT)")
        con.executemany("INSERT INTO customer VALUES (?, ?)", [(i, ("UK", "France")[i % 2]) for i in range(10)])
    verified = tmp_path / "vq.jsonl"
    good = {"id": "v1", "question": "How many customers are in France?",
            "sql": "SELECT COUNT(*) FROM customer WHERE country = 'France'"}
    verified.write_text(json.dumps(good) + "\nnot json\n", encoding="utf-8")
    ws = tmp_path / "ws"
    code = main(["build", "--source", str(db), "--workspace", str(ws), "--verified", str(verified), "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "vq.jsonl:2" in err, err
    assert "1 verified queries" in out, out
