"""After half of a column's rows were set to NULL, ``drift`` found nothing on its sampled Evidence
("sample of 9,982 of 250,000 rows: 1% null" stayed in force, unmarked, with the table 49% null; PostgreSQL
review): drift checked only that a sample's values still occur and that its range still fits. The
sample's null share is now compared with the whole table's: a difference a sample of its size could not
show (more than SAMPLE_SHARE_Z standard errors) marks the Evidence changed."""

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
def sampled(tmp_path, monkeypatch):
    monkeypatch.setitem(profile.__kwdefaults__, "sample_threshold", 1_000)
    monkeypatch.setitem(profile.__kwdefaults__, "sample_rows", 500)
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE sale (id INTEGER PRIMARY KEY, status TEXT)")
        rng = random.Random(7)
        con.executemany("INSERT INTO sale VALUES (?, ?)",
                        [(i, None if rng.random() < 0.02 else rng.choice(("open", "paid", "void")))
                         for i in range(1, 4001)])
    onto = Ontology.from_graphs(build([path], None, validate=False).graphs)
    summaries = [r["s"] for r in onto.query("SELECT ?s WHERE { ?e a evo:Evidence ; evo:summary ?s ; "
                                            "evo:wholeTable false }")]
    assert any(s.startswith("sample of") and "open..void" in s and " 0% null" not in s for s in summaries), summaries
    return path, onto


def _null_share_findings(onto, path) -> list:
    source = open_source(path)
    try:
        report = check_drift(onto, {source.id: source})
    finally:
        source.close()
    return [f for f in report.findings if "null share" in f.detail]


def test_unchanged_sampled_column_has_no_null_share_drift(sampled):
    path, onto = sampled
    assert _null_share_findings(onto, path) == []


def test_null_share_change_is_drift_on_a_sampled_column(sampled):
    path, onto = sampled
    with sqlite3.connect(path) as con:
        con.execute("UPDATE sale SET status = NULL WHERE id <= 2000")
    found = _null_share_findings(onto, path)
    assert [(f.kind, f.column) for f in found] == [("changed", "status")], found
    assert "the whole table now has 5" in found[0].detail and "of 4,000 rows)" in found[0].detail, found[0].detail
