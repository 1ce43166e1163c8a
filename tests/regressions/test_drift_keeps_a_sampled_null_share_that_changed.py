"""After half of a column's rows were set to NULL, ``drift`` found nothing on its sampled Evidence
("sample of 9,982 of 250,000 rows: 1% null" stayed in force, unmarked, with the table 49% null; PostgreSQL
review): drift checked only that a sample's values still occur and that its range still fits. A random
sample's null share (TABLESAMPLE BERNOULLI, DuckDB's reservoir) is now compared with the whole table's:
a difference a sample of its size could not show (more than SAMPLE_SHARE_Z standard errors) marks the
Evidence changed. A spread sample (rowid stride, first rows) is not judged so: a stride of 20 over a
ledger whose every other row is null sees no null in an unchanged table (review of the first fix)."""

from __future__ import annotations

import random
import sqlite3

import pytest

from evoonto.builder import build
from evoonto.drift import check_drift, sample_share_differs
from evoonto.ontology import Ontology
from evoonto.sources import open_source, profile


def test_sample_share_differs():
    assert not sample_share_differs(0.0086, 9_982, 0.0090)  # sampling noise
    assert sample_share_differs(0.0086, 9_982, 0.49)
    assert sample_share_differs(0.01, 500, 0.0)  # the table has no null any more
    assert not sample_share_differs(0.0, 500, 0.0)
    assert not sample_share_differs(0.3, 0, 0.9)


@pytest.fixture()
def small_samples(monkeypatch):
    monkeypatch.setitem(profile.__kwdefaults__, "sample_threshold", 1_000)
    monkeypatch.setitem(profile.__kwdefaults__, "sample_rows", 500)


def _null_share_findings(onto, path) -> list:
    source = open_source(path)
    try:
        report = check_drift(onto, {source.id: source})
    finally:
        source.close()
    return [f for f in report.findings if "null share" in f.detail]


def _write_csv(folder, rows) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "sale.csv").write_text("id,status\n" + "".join(f"{i},{s or ''}\n" for i, s in rows), encoding="utf-8")


@pytest.fixture()
def reservoir(tmp_path, small_samples):
    rng = random.Random(7)
    rows = [(i, None if rng.random() < 0.02 else rng.choice(("open", "paid", "void"))) for i in range(1, 4001)]
    folder = tmp_path / "shop"
    _write_csv(folder, rows)
    result = build([folder], None, validate=False)
    onto = Ontology.from_graphs(result.graphs, base_iri=result.base_iri)
    methods = {str(r["m"]) for r in onto.query("SELECT ?m WHERE { ?e evo:wholeTable false ; evo:samplingMethod ?m }")}
    assert methods == {"reservoir"}, methods
    return folder, onto, rows


def test_unchanged_random_sample_has_no_null_share_drift(reservoir):
    folder, onto, _rows = reservoir
    assert _null_share_findings(onto, folder) == []


def test_null_share_change_is_drift_on_a_random_sample(reservoir):
    folder, onto, rows = reservoir
    _write_csv(folder, [(i, None if i <= 2000 else s) for i, s in rows])
    found = _null_share_findings(onto, folder)
    assert [(f.kind, f.column) for f in found] == [("changed", "status")], found
    assert "the whole table now has 5" in found[0].detail and "of 4,000 rows)" in found[0].detail, found[0].detail


def test_spread_sample_of_an_unchanged_ledger_is_no_drift(tmp_path, small_samples):
    path = tmp_path / "ledger.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE ledger (id INTEGER PRIMARY KEY, fee_code TEXT)")
        con.executemany("INSERT INTO ledger VALUES (?, ?)", [(i, None if i % 2 == 0 else "F1") for i in range(1, 4001)])
    onto = Ontology.from_graphs(build([path], None, validate=False).graphs)
    assert _null_share_findings(onto, path) == []
