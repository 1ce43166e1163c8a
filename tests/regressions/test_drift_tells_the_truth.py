"""Issue 28 item 5: drift that tells the truth.

- documentation Evidence was re-run as SQL (``got 'READ'``): it is read again from its document;
- a verified query was compared on the first value of its first row against its row count: it is
  compared on its result (row count and a digest of the rows);
- with ``approval: manual`` drift committed its patch at once: it is recorded as a proposal that
  ``evoonto approve`` commits.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from evoonto.cli import main
from evoonto.workspace import Workspace

DICTIONARY = "original_column_name,column_name,column_description,data_format,value_description\n"


def _database(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "shop.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT, amount REAL)")
    con.executemany("INSERT INTO orders VALUES (?, ?, ?)",
                    [(i, ("open", "paid", "void")[i % 3], round(i * 1.1, 2)) for i in range(1, 61)])
    con.commit()
    con.close()
    docs = folder / "database_description"
    docs.mkdir()
    (docs / "orders.csv").write_text(DICTIONARY + "status,order status,where the order stands,text,"
                                     "'open' = not paid yet; 'paid' = settled\n", encoding="utf-8")
    return db


@pytest.fixture()
def built(tmp_path: Path) -> tuple[Path, Path]:
    db = _database(tmp_path / "data")
    verified = tmp_path / "verified.jsonl"
    verified.write_text(json.dumps({"id": "paid_total", "question": "What is the total amount of paid orders?",
                                    "sql": "SELECT SUM(amount) FROM orders WHERE status = 'paid'"}) + "\n",
                        encoding="utf-8")
    ws = tmp_path / "ws"
    assert main(["build", "--source", str(db), "--verified", str(verified), "-w", str(ws), "--no-progress"]) == 0
    return ws, db


def _drift(capsys, ws: Path, *args: str) -> dict:
    assert main(["drift", "-w", str(ws), "--json", "--no-progress", *args]) == 0
    return json.loads(capsys.readouterr().out)


def test_unchanged_database_with_documentation_and_verified_queries_has_no_drift(built, capsys):
    ws, _db = built
    content = Workspace.open(ws).ontology
    readings = content.query("SELECT ?e WHERE { ?e prov:wasGeneratedBy ?p . ?p a evo:DocumentReading }")
    assert len(readings) >= 1  # the dictionary statement is there to be checked
    report = _drift(capsys, ws)
    assert report["findings"] == [] and report["stale"] == {} and report["unchecked"] == 0
    assert not any("READ" in n for n in report["notes"])


def test_documentation_evidence_is_reread_from_its_document(built, capsys):
    ws, db = built
    (db.parent / "database_description" / "orders.csv").write_text(
        DICTIONARY + "status,order status,where the order stands,text,'open' = unpaid; 'paid' = settled\n",
        encoding="utf-8")
    report = _drift(capsys, ws, "--dry-run")
    [finding] = report["findings"]
    assert finding["kind"] == "changed" and finding["detail"].startswith("documentation: now ")
    assert "unpaid" in finding["detail"] and "query fails" not in finding["detail"]


def test_verified_query_is_compared_on_its_result(built, capsys):
    ws, db = built
    with sqlite3.connect(db) as con:  # same row count (one row), another sum
        con.execute("UPDATE orders SET amount = amount + 1 WHERE id = 1")
    report = _drift(capsys, ws, "--dry-run")
    verified = [f for f in report["findings"] if f["detail"].startswith("result:")]
    assert len(verified) == 1 and "other values" in verified[0]["detail"]


def test_drift_patch_waits_for_approval_in_manual_mode(built, capsys):
    ws, db = built
    assert main(["review", "-w", str(ws), "--approval", "manual"]) == 0
    capsys.readouterr()
    with sqlite3.connect(db) as con:
        con.execute("UPDATE orders SET status = 'cancelled' WHERE status = 'void'")
    before = Workspace.open(ws).version
    report = _drift(capsys, ws)
    assert report["drifted"] and report["version"] is None and report["proposed"]
    opened = Workspace.open(ws)
    assert opened.version == before  # nothing served changed
    from rdflib.namespace import PROV

    assert not list(opened.ontology.graph("content").subjects(PROV.wasInvalidatedBy, None))
    assert main(["approve", "-w", str(ws), "1"]) == 0
    approved = Workspace.open(ws)
    assert approved.version == before + 1
    assert set(map(str, approved.ontology.graph("content").subjects(PROV.wasInvalidatedBy, None))) \
        == set(report["stale"])


def test_a_copy_without_its_documentation_leaves_documentation_unchecked(built, capsys, tmp_path):
    ws, db = built
    copy = tmp_path / "elsewhere" / "shop.sqlite"
    copy.parent.mkdir()
    copy.write_bytes(db.read_bytes())
    report = _drift(capsys, ws, "--dry-run", "--source", f"shop={copy}")
    assert report["findings"] == [] and report["unchecked"] >= 1
