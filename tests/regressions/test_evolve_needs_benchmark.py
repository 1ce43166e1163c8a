"""Regression (issue 14): `evoonto evolve` on a user's workspace stopped with "no benchmark recorded
in this workspace; pass --data DIR", and with a handful of verified questions the gate's V was so
small that it rejected everything without saying why.

Now a workspace without a benchmark evolves from its served sessions and verified queries
(``--verified FILE``), and a V too small to support a decision is refused up front with what it
needs (how many more verified queries), before anything is written.

Issue 29: the refusal came far too early. With a held-back 30% share, a team's 10 verified queries
gave |V| = 3 < 20, and the defaults needed about 67 verified queries. Now every verified query is in V
and judges every candidate it did not produce (leave-the-source-out), so 10-30 verified queries run
with the default settings; only fewer than ``--min-validation`` (5) are refused, and a held-back
share (``--validation-share``) is still checked against it.
"""

from __future__ import annotations

import json

import pytest
from fixtures.sources_support import sqlite_db

from evoonto.cli import main
from evoonto.workspace import Workspace


def test_evolve_without_benchmark_says_what_v_needs(tmp_path, capsys):
    db = sqlite_db(tmp_path / "shop.sqlite", """
        CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT, country TEXT);
        INSERT INTO customer VALUES (1, 'Ann', 'France'), (2, 'Bo', 'Chile'), (3, 'Cy', 'France');
    """)
    ws_path = tmp_path / "ws"
    assert main(["build", "--source", str(db), "--workspace", str(ws_path), "--no-progress"]) == 0
    verified = tmp_path / "verified.jsonl"
    verified.write_text("".join(json.dumps({"question": f"How many customers live in country {i}?",
                                            "sql": f"SELECT COUNT(*) FROM customer WHERE id > {i}"}) + "\n"
                                for i in range(12)), encoding="utf-8")
    capsys.readouterr()
    base = ["evolve", "--workspace", str(ws_path), "--verified", str(verified), "--no-progress"]
    assert main(base + ["--validation-share", "0.3", "--min-validation", "20"]) == 2
    err = capsys.readouterr().err
    assert "no benchmark recorded" not in err
    assert "needs at least 20 to support any decision" in err and "add about" in err, err
    assert "--min-validation" in err
    assert Workspace.open(ws_path).version == 0 and not list((ws_path / "patches").glob("*.trig"))
    few = tmp_path / "few.jsonl"
    few.write_text("".join(verified.read_text(encoding="utf-8").splitlines(keepends=True)[:3]), encoding="utf-8")
    assert main(["evolve", "--workspace", str(ws_path), "--verified", str(few), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "needs at least 5 verified queries" in err and "--min-validation 3" in err, err
    assert not list((ws_path / "patches").glob("*.trig"))


@pytest.mark.slow
def test_ten_verified_queries_evolve_with_default_settings(tmp_path, capsys):
    db = sqlite_db(tmp_path / "shop.sqlite", """
        CREATE TABLE customer (id INTEGER PRIMARY KEY, name TEXT, country TEXT);
        CREATE TABLE purchase (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id), amount REAL);
        INSERT INTO customer VALUES (1, 'Ann', 'France'), (2, 'Bo', 'Chile'), (3, 'Cy', 'France');
        INSERT INTO purchase VALUES (1, 1, 9.5), (2, 2, 3.0), (3, 1, 4.0);
    """)
    ws_path = tmp_path / "ws"
    assert main(["build", "--source", str(db), "--workspace", str(ws_path), "--no-progress"]) == 0
    verified = tmp_path / "verified.jsonl"
    pairs = [(f"How many buyers live in {c}?", f"SELECT COUNT(*) FROM customer WHERE country = '{c}'")
             for c in ("France", "Chile")]
    pairs += [(f"Total spend of buyer number {i}?", f"SELECT SUM(amount) FROM purchase WHERE customer_id = {i}")
              for i in range(1, 5)]
    pairs += [(f"Names of buyers with an id above {i}", f"SELECT name FROM customer WHERE id > {i}") for i in range(4)]
    verified.write_text("".join(json.dumps({"question": q, "sql": s}) + "\n" for q, s in pairs), encoding="utf-8")
    capsys.readouterr()
    assert main(["evolve", "--workspace", str(ws_path), "--verified", str(verified), "--no-progress"]) == 0
    out, err = capsys.readouterr()
    assert "|V| = 10 verified queries" in err and "judged on those that did not produce it" in err, err
    assert "stopped:" in out, out
