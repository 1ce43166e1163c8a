"""Issue 28 item 1: samples that are not samples, and sampled facts worded as whole-table facts.

Every SQLAlchemy URL sampled "the first N physical rows": on a table stored in date order a month
column became "1 distinct, 1..1". Samples now spread over the whole table (SQLite and ``sqlite://``
URLs: every k-th rowid; DuckDB: a seeded reservoir; PostgreSQL: ``TABLESAMPLE``, tested in
tests/test_facts_postgres.py), the generic fallback is recorded as ``first rows``, and a sampled
Evidence says in RDF (``evo:wholeTable false``, ``evo:samplingMethod``, ``evo:tableRows``) and in its
summary that its counts and bounds are the sample's.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from rdflib import Graph

from evoonto.iris import IriFactory
from evoonto.records import describes_whole_table, records_to_graph
from evoonto.sources import open_source
from evoonto.sources.profiling import profile

IRIS = IriFactory("https://example.org/evoonto/test/")


def _sorted_table(path: Path, rows: int = 6000, without_rowid: bool = False) -> Path:
    con = sqlite3.connect(path)
    tail = " WITHOUT ROWID" if without_rowid else ""
    con.execute(f"CREATE TABLE trip (id INTEGER PRIMARY KEY, month INTEGER, city TEXT, mode TEXT){tail}")
    con.executemany("INSERT INTO trip VALUES (?, ?, ?, ?)",
                    [(i, 1 + i * 12 // rows, f"city {i * 40 // rows:02d}", ("bus", "car", "ship")[i % 3])
                     for i in range(rows)])
    con.commit()
    con.close()
    return path


def _profiles(location: str) -> dict:
    with open_source(location) as src:
        return {p.column: p for p in profile(src, IRIS, sample_threshold=1000, sample_rows=500)}


def test_a_sample_of_a_sorted_table_spreads_over_the_whole_table(tmp_path: Path):
    db = _sorted_table(tmp_path / "t.sqlite")
    for location in (str(db), f"sqlite:///{db}"):  # the SQLite connector and the SQLAlchemy URL
        month = _profiles(location)["month"]
        assert month.sampled and month.sampling_method == "rowid stride"
        assert (month.min_value, month.max_value, month.distinct_count) == ("1", "12", 12)
        ev = month.evidence
        assert (ev.whole_table, ev.sampling_method, ev.table_rows) == (False, "rowid stride", 6000)
        assert 450 <= ev.rows_observed <= 550
        assert ev.summary.startswith(f"sample of {ev.rows_observed:,} of 6,000 rows (rowid stride): ")
        assert "12 distinct in the sample" in ev.summary and "seen 1..12" in ev.summary


def test_the_generic_fallback_is_recorded_as_first_rows(tmp_path: Path):
    db = _sorted_table(tmp_path / "t.sqlite", without_rowid=True)  # no rowid: no stride
    month = _profiles(str(db))["month"]
    assert month.sampling_method == "first rows" and month.evidence.sampling_method == "first rows"
    assert "(first rows)" in month.evidence.summary and not month.evidence.whole_table


def test_whole_table_and_sampled_evidence_in_rdf(tmp_path: Path):
    db = _sorted_table(tmp_path / "t.sqlite", rows=800)
    with open_source(str(db)) as src:
        whole = {p.column: p for p in profile(src, IRIS)}
        sampled = {p.column: p for p in profile(src, IRIS, sample_threshold=100, sample_rows=200)}
    graph: Graph = records_to_graph(r for p in [*whole.values(), *sampled.values()] for r in p.records())
    city_whole, city_sampled = whole["city"].evidence, sampled["city"].evidence
    assert describes_whole_table(city_whole.iri, graph) and describes_whole_table(city_whole)
    assert not describes_whole_table(city_sampled.iri, graph) and not describes_whole_table(city_sampled)
    assert city_whole.summary == "800 rows, 0% null, 40 distinct, city 00..city 39, text"
    assert city_whole.value_digest and city_sampled.value_digest is None
    # a sample's values are values of the table, not its domain: no "takes only these values" constraint
    from types import SimpleNamespace

    from evoonto.builder.propose import _constraint_candidates

    table = SimpleNamespace(name="trip")
    col = SimpleNamespace(name="mode", declared_type="TEXT", references=())
    rules = lambda p: {c.rule for c in _constraint_candidates(table, col, "Category", p, {})}  # noqa: E731
    assert "domain" in rules(whole["mode"]) and "domain" not in rules(sampled["mode"])
