"""Regression (issue 19, wide-schema build): work that depends on a table or a name alone was redone
for every Term of the 7,450-column wide schema: ``construct`` minted the scheme IRI and described the
table's grain once per Term (8,857 times for 234 tables), ``SourceSchema.table`` scanned every table
on each of 37,000 look-ups, IRI segments were percent-encoded again for each IRI (278,000 calls), and
``normalize`` ran Unicode decomposition on ASCII labels. Each is now done once per table or distinct
input, with the same answers.
"""

from __future__ import annotations

import sqlite3
import unicodedata
from pathlib import Path
from urllib.parse import quote

from rdflib import URIRef

from evoonto import iris as iris_module
from evoonto.builder import build, construct as construct_module
from evoonto.catalog import SourceSchema, TableInfo, _named
from evoonto.namespaces import EVO
from evoonto.text import normalize


def _db(path: Path) -> Path:
    con = sqlite3.connect(path)
    for t in ("alpha", "beta"):
        con.execute(f"CREATE TABLE {t} (id INTEGER PRIMARY KEY, name TEXT, amount REAL, kind TEXT)")
        con.executemany(f"INSERT INTO {t} VALUES (?, ?, ?, ?)", [(i, f"n{i}", i * 1.5, "ab"[i % 2]) for i in range(9)])
    con.commit()
    con.close()
    return path


def test_per_term_lookups_repeated_grain_once_per_table(tmp_path: Path, monkeypatch):
    calls: list[str] = []
    real = construct_module._grain

    def counting(table):
        calls.append(table.name)
        return real(table)

    monkeypatch.setattr(construct_module, "_grain", counting)
    result = build([_db(tmp_path / "g.sqlite")], validate=False)
    assert sorted(calls) == ["alpha", "beta"]  # once per table, not once per Term
    grains = {str(o) for o in result.graphs["content"].objects(None, EVO.grain)}
    assert grains == {"one row per alpha (alpha.id)", "one row per beta (beta.id)"}


def test_per_term_lookups_repeated_table_index_finds_what_a_scan_finds():
    def table(name: str) -> TableInfo:
        return TableInfo(name=name, iri=URIRef(f"urn:t:{name}"), row_count=0)

    tables = (table("Orders"), table("orders"), table("ORDERS_2"), table("Ünïcode"), table("x"))
    schema = SourceSchema(id="s", iri=URIRef("urn:s"), kind="sqlite", tables=tables)
    for name in ("Orders", "orders", "ORDERS", "orders_2", "ünïcode", "X", "missing", ""):
        assert schema.table(name) is _named(tables, name)
    assert schema == SourceSchema(id="s", iri=URIRef("urn:s"), kind="sqlite", tables=tables)  # index not compared


def test_per_term_lookups_repeated_iri_segments_same_encoding():
    for value in ("plain", "Free Meal Count (K-12)", "a/b?c#d", "naïve café", "%41", 3, "", "x" * 300):
        text = str(value)
        expected = iris_module.EMPTY_SEGMENT if text == "" else quote(text, safe="")
        assert iris_module._seg(value) == expected
        assert iris_module._seg(value) == expected  # again, from the cache


def test_per_term_lookups_repeated_normalize_ascii_same_as_unicode_path():
    def reference(text: str) -> str:
        folded = unicodedata.normalize("NFKD", text)
        folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
        return " ".join(folded.casefold().split())

    for text in ("  Free\tMeal  COUNT (K-12) ", "ABC_def", "", " ", "a\x0bb\x1cc", "Café  Owner", "ǅemal", "ﬁne"):
        assert normalize(text) == reference(text), text


def test_per_term_lookups_repeated_probe_key_hashed_once(monkeypatch):
    import dataclasses
    import pickle
    from datetime import datetime, timezone

    from evoonto.sources.probe import ProbeRun

    calls: list[tuple] = []
    real = iris_module.stable_key

    def counting(*parts, **kw):
        calls.append(parts)
        return real(*parts, **kw)

    monkeypatch.setattr(iris_module, "stable_key", counting)
    at = datetime(2024, 1, 1, tzinfo=timezone.utc)
    run = ProbeRun("src", "SELECT 1", None, at, at, "failed")
    assert run.key == real("src", "SELECT 1") and run.key == run.key
    assert len(calls) == 1  # hashed once per run, not once per IRI minted from it
    assert pickle.loads(pickle.dumps(run)).key == run.key
    other = dataclasses.replace(run, sql="SELECT 2")
    assert other.key == real("src", "SELECT 2") and other != run
