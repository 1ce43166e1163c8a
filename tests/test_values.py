"""The value index (issue 19): distinct values of text columns, bounded, persisted, queried by browse."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from evoonto.builder import build, write_workspace
from evoonto.sources import open_source
from evoonto.tools.toolkit import OntologyTools
from evoonto.tools.values import (
    ValueBounds,
    ValueIndex,
    build_value_index,
    ensure_value_index,
    iter_columns,
    value_key,
    workspace_value_index,
)

FIRST = ["Anthony", "Beatrice", "Chiara", "Dmitri", "Elena", "François", "Gustav", "Hiroshi", "Ingrid",
         "Javier", "Kalani", "Ludmila", "Mateo", "Nkechi", "Olamide", "Pradeep", "Quentin", "Rosalind"]


def make_db(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE person (person_id INTEGER PRIMARY KEY, first_name TEXT, region TEXT, note TEXT)")
    con.execute("CREATE TABLE country (code TEXT PRIMARY KEY, name TEXT)")
    regions = ["North-Bohemia", "South Moravia", "Prague"]
    con.executemany("INSERT INTO person VALUES (?, ?, ?, ?)",
                    [(i, f"{FIRST[i % len(FIRST)]}{'' if i < len(FIRST) else i}", regions[i % 3], "x" * 300)
                     for i in range(400)])
    con.executemany("INSERT INTO country VALUES (?, ?)", [("FR", "France"), ("DE", "Germany"), ("CZ", "Czechia")])
    con.commit()
    con.close()
    return path


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return make_db(tmp_path / "people.sqlite")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_value_key_folds_case_accents_and_punctuation():
    assert value_key("North-Bohemia") == "north bohemia"
    assert value_key("  François ") == "francois"
    assert value_key("{1}{R}") == "1 r"
    assert value_key("%%") == "%%"


def test_exact_normalized_and_fuzzy_hits_name_the_column_and_the_stored_spelling(db: Path, tmp_path: Path):
    before = _digest(db)
    with open_source(db) as src:
        index = build_value_index(tmp_path / "v.sqlite", {src.id: src})
    assert _digest(db) == before  # read-only
    hits = index.value_hits("people named Pradeep")
    assert [(h.table, h.column, h.value, h.match) for h in hits][:1] == [("person", "first_name", "Pradeep", "exact")]
    hit = hits[0]
    assert hit.score == 1.0 and hit.complete and hit.location == "person.first_name"
    assert hit.probe_sql.startswith('SELECT DISTINCT "first_name" FROM "person"') and len(hit.evidence_key) > 8
    normalized = index.value_hits("who lives in north bohemia")
    assert normalized and (normalized[0].column, normalized[0].value, normalized[0].match) == (
        "region", "North-Bohemia", "normalized")
    assert normalized[0].score == 0.95
    accents = index.value_hits("Francois")
    assert accents and accents[0].value == "François" and accents[0].match == "normalized"
    fuzzy = index.value_hits("customers from Frannce")
    assert fuzzy and (fuzzy[0].table, fuzzy[0].value, fuzzy[0].match) == ("country", "France", "fuzzy")
    assert 0.0 < fuzzy[0].score < 0.9
    assert index.value_hits("the of and") == [] and index.value_hits("Zebulon") == []


def test_bounds_are_applied_and_recorded(db: Path, tmp_path: Path):
    bounds = ValueBounds(per_column=50, total=55, max_value_chars=100)
    with open_source(db) as src:
        index = build_value_index(tmp_path / "v.sqlite", {src.id: src}, bounds=bounds)
    columns = {(t, c): (n, complete, status) for _s, t, c, n, complete, status in iter_columns(index)}
    stats = index.stats()
    assert stats["bounds"]["per_column"] == 50 and stats["values"] == 55
    # in source order: 400 distinct names (first 50 kept, marked incomplete), 3 regions, no note
    # (300-character values), 2 of 3 country codes (the total is reached), then nothing
    assert columns[("person", "first_name")] == (50, False, "ok")
    assert columns[("person", "region")] == (3, True, "ok")
    assert columns[("country", "code")] == (2, False, "ok")
    assert columns[("country", "name")] == (0, False, "total bound reached")
    assert columns[("person", "note")][0] == 0
    assert stats["incomplete_columns"] == 3


def test_rebuilt_only_when_the_sources_change(db: Path, tmp_path: Path):
    target = tmp_path / "ws" / "cache" / "values.sqlite"
    with open_source(db) as src:
        first = ensure_value_index(target, {src.id: src})
        stamp = target.stat().st_mtime_ns
        first.close()
        again = ensure_value_index(target, {src.id: src})
        assert target.stat().st_mtime_ns == stamp and again.value_hits("Czechia")
        again.close()
    con = sqlite3.connect(db)
    con.execute("INSERT INTO country VALUES ('NO', 'Norway')")
    con.commit()
    con.close()
    os.utime(db, ns=(stamp + 10**9, stamp + 10**9))
    with open_source(db) as src:
        rebuilt = ensure_value_index(target, {src.id: src})
    assert [h.value for h in rebuilt.value_hits("Norway")] == ["Norway"]


def test_corrupt_index_file_is_rebuilt(db: Path, tmp_path: Path):
    target = tmp_path / "values.sqlite"
    target.write_bytes(b"not a database")
    with open_source(db) as src:
        index = ensure_value_index(target, {src.id: src})
    assert index.value_hits("Germany")[0].value == "Germany"


@pytest.mark.slow
def test_browse_reports_a_value_no_evidence_sampled(db: Path, tmp_path: Path):
    with open_source(db) as src:
        ontology = write_workspace(build([src]), tmp_path / "ws").ontology
        tools = OntologyTools(ontology)
        # 400 distinct first names: the Evidence samples a few, not 'Rosalind359'
        plain = tools.browse("Rosalind359", kind="term", n=5, format="verbose")
        assert not any("Rosalind359" in h["snippet"] for h in plain)
        index = workspace_value_index(tmp_path / "ws", {src.id: src})
        assert index is not None and (tmp_path / "ws" / "cache" / "values.sqlite").is_file()
        tools = OntologyTools(ontology, value_index=index)
        hits = tools.browse("Rosalind359", kind="term", n=5, format="verbose")
    top = [h for h in hits if "Rosalind359" in h["snippet"]]
    assert top and top[0]["label"] and "person.first_name" in top[0]["snippet"]
    assert 'value "Rosalind359" in person.first_name (exact)' in top[0]["snippet"]
    assert len(hits) <= 5
    assert tools.value_hits("Rosalind359")[0].column == "first_name"


def test_index_file_is_a_value_index(tmp_path: Path):
    bogus = tmp_path / "x.sqlite"
    sqlite3.connect(bogus).close()
    with pytest.raises(sqlite3.DatabaseError):
        ValueIndex(bogus)


def test_value_fuzzy_lookup_scores_every_reachable_key_not_a_trigram_shortlist(tmp_path: Path):
    """Issue 19 (browse at 70,000 columns spent ~200 ms per query here): the fuzzy lookup ranked, by
    FTS5 bm25, every value sharing one trigram with the phrase and kept the best 200. It now scores
    the distinct keys whose length can reach the cutoff: the same keys a brute-force rapidfuzz scan
    over all values finds, also when hundreds of values share the phrase's trigrams."""
    from rapidfuzz import fuzz

    from evoonto.tools.values import FUZZY_KEYS

    path = tmp_path / "many.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE city (name TEXT)")
    names = [f"Grenoble Quarter {i}" for i in range(400)] + [f"Noble {i}" for i in range(300)]
    names += ["Grenoble", "Grenobles", "Grenoblr", "Gren", "Grenoble-Alpes"]
    con.executemany("INSERT INTO city VALUES (?)", [(n,) for n in names])
    con.commit()
    con.close()
    with open_source(path) as src:
        index = build_value_index(tmp_path / "v.sqlite", {src.id: src})
    for phrase in ("Grenobel", "Grenoble Quartr 17", "Nobel 3"):
        scored = sorted((-fuzz.ratio(value_key(phrase), value_key(n)), value_key(n), n) for n in names)
        expected = {n for score, _key, n in scored[:FUZZY_KEYS] if -score >= 85}  # the best FUZZY_KEYS keys
        found = {value for _col, value, _score in index._fuzzy(phrase, 85.0)}
        assert found == expected and expected, (phrase, found ^ expected)
    hits = index.value_hits("cities called Grenobel")
    assert hits and hits[0].value == "Grenoble" and hits[0].match == "fuzzy"
