"""Regression (issue 14): `evoonto evolve` on a user's workspace stopped with "no benchmark recorded
in this workspace; pass --data DIR", and with a handful of verified questions the gate's V was so
small that it rejected everything without saying why.

Now a workspace without a benchmark evolves from its served sessions and verified queries
(``--verified FILE``), and a V too small to support a decision is refused up front with what it
needs (how many more verified queries), before anything is written.
"""

from __future__ import annotations

import json

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
    assert main(["evolve", "--workspace", str(ws_path), "--verified", str(verified), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "no benchmark recorded" not in err
    assert "needs at least 20 to support any decision" in err and "add about" in err, err
    assert "--min-validation" in err
    assert Workspace.open(ws_path).version == 0 and not list((ws_path / "patches").glob("*.trig"))
