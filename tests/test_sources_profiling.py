"""Profiling probes: statistics, patterns, sampling, and their PROV Evidence records."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from pathlib import Path

import pytest
import rdflib
from fixtures.sources_support import IRIS, make_hostile_db

from evoonto.iris import stable_key
from evoonto.records import Evidence, ProbeActivity, records_to_graph
from evoonto.sources import ColumnProfile, SourceWarning, open_source, profile
from evoonto.sources.profiling import column_probe_sql, infer_type, profile_column, value_pattern


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    return make_hostile_db(tmp_path)


def _by_column(profiles: list[ColumnProfile]) -> dict[tuple[str, str], ColumnProfile]:
    return {(p.table, p.column): p for p in profiles}


def test_profiles_every_column_with_statistics(hostile_db: Path):
    with open_source(hostile_db) as src:
        profiles = _by_column(profile(src, IRIS))
        assert len(profiles) == sum(len(t.columns) for t in src.tables())  # one per column
    amount = profiles[("order", "amount")]
    assert amount.rows == 5 and amount.null_fraction == pytest.approx(0.2)
    assert amount.distinct_count == 4
    assert (amount.min_value, amount.max_value) == ("1.0", "10.5")
    assert amount.inferred_type == "decimal" and amount.pattern == "decimal"
    status = profiles[("order", "status")]
    assert status.top_values == [("Legal", 3), ("Banned", 2)]
    assert status.samples == ["Legal", "Banned"]  # the whole (small) vocabulary
    assert not status.sampled
    when = profiles[("order", "when")]
    assert when.inferred_type == "date" and when.pattern == "date"
    assert "stored as text" in when.evidence.summary
    code = profiles[("schools", "CDSCode")]
    assert code.pattern == "integer" and code.storage == frozenset({"str"})
    free = profiles[("frpm", "Free Meal Count (K-12)")]
    assert free.max_value == "1208.0"
    charter = profiles[("frpm", "Charter School (Y/N)")]
    assert charter.pattern == "boolean"
    quoted = profiles[("frpm", 'quo"te')]
    assert quoted.null_fraction == pytest.approx(0.25) and 'say "hi"' in quoted.samples
    empty = profiles[("empty table", "a")]
    assert (empty.rows, empty.distinct_count, empty.inferred_type, empty.min_value) == (0, 0, "empty", None)
    assert profiles[("big schools", "CDSCode")].rows == 3  # views are profiled too


def test_each_probe_is_evidence_with_its_exact_query(hostile_db: Path):
    with open_source(hostile_db) as src:
        table = src.table("order")
        p = profile_column(src, table, table.column("status"), IRIS)
        sql = column_probe_sql(src, table, table.column("status"))
        assert p.probe.query == sql
        # the recorded query re-runs through the guard and gives the same observation
        rerun = src.run(p.probe.query)
    assert rerun.rows[0][:2] == ("Legal", 3)
    key = stable_key("hostile", sql)
    assert p.evidence.iri == IRIS.evidence(key) and p.probe.iri == IRIS.probe(key)
    assert isinstance(p.evidence, Evidence) and isinstance(p.probe, ProbeActivity)
    assert p.evidence.probe == p.probe.iri
    assert p.probe.used == IRIS.source("hostile")
    assert p.probe.started_at <= p.probe.ended_at
    assert isinstance(p.evidence.generated_at, dt.datetime)
    assert p.evidence.value_distribution == {"Legal": 3, "Banned": 2}
    assert p.evidence.summary.startswith("5 rows, 0% null, 2 distinct")


def test_evidence_round_trips_through_rdf_and_conforms(hostile_db: Path):
    from evoonto.sources import harvest
    from evoonto.validation import validate

    with open_source(hostile_db) as src:
        profiles = profile(src, IRIS)
        graph = harvest(src, IRIS)
    records_to_graph((r for p in profiles for r in p.records()), graph)
    first = profiles[0]
    again = Evidence.from_graph(graph, first.evidence.iri)
    assert again.summary == first.evidence.summary
    assert again.distinct_count == first.evidence.distinct_count
    assert ProbeActivity.from_graph(graph, first.probe.iri).query == first.probe.query
    # a text column with repeated values records its distribution; a numeric column only its range
    status = next(p for p in profiles if (p.table, p.column) == ("order", "status"))
    dist = graph.value(status.evidence.iri, rdflib.URIRef("https://w3id.org/evoonto/ns#valueDistribution"))
    assert json.loads(str(dist)) == {"Legal": 3, "Banned": 2}
    amount = next(p for p in profiles if (p.table, p.column) == ("order", "amount"))
    assert amount.evidence.value_distribution is None and amount.evidence.sample_values == []
    report = validate(graph)
    assert report.conforms, str(report)


def test_large_tables_are_sampled(tmp_path: Path):
    path = tmp_path / "big.sqlite"
    conn = sqlite3.connect(path)
    conn.execute('CREATE TABLE "big t" (id INTEGER PRIMARY KEY, "grp code" TEXT, v REAL)')
    conn.executemany('INSERT INTO "big t" VALUES (?, ?, ?)',
                     ((i, f"G{i % 7:02d}", i * 0.5) for i in range(1, 5001)))
    conn.commit()
    conn.close()
    with open_source(path) as src:
        profiles = _by_column(profile(src, IRIS, sample_threshold=1000, sample_rows=500))
    grp = profiles[("big t", "grp code")]
    assert grp.sampled and grp.rows == 500 and grp.table_rows == 5000
    assert "sample of 500 of 5,000 rows" in grp.evidence.summary
    assert grp.distinct_count == 7 and grp.pattern == "code"
    ids = profiles[("big t", "id")]
    assert int(ids.max_value) > 4900  # the sample spreads over the whole table, not its head
    assert "evoonto_sample" in ids.probe.query


def test_files_source_sampling_uses_duckdb_sample(tmp_path: Path):
    folder = tmp_path / "csv"
    folder.mkdir()
    lines = ["n,day"] + [f"{i},2024-01-{i % 28 + 1:02d}" for i in range(3000)]
    (folder / "days.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with open_source(folder) as src:
        profiles = _by_column(profile(src, IRIS, sample_threshold=1000, sample_rows=300))
    day = profiles[("days", "day")]
    assert day.sampled and day.rows == 300 and day.inferred_type == "date"
    assert "USING SAMPLE" in day.probe.query


def test_failed_probe_is_skipped_with_warning(hostile_db: Path, monkeypatch):
    from evoonto.errors import QueryTimeout
    from evoonto.sources.sqlite import SQLiteSource

    with open_source(hostile_db) as src:
        tables = src.tables()
        original = SQLiteSource._execute

        def flaky(self, sql, limit, timeout_ms):
            if '"amount"' in sql:
                raise QueryTimeout("query interrupted after 1 ms")
            return original(self, sql, limit, timeout_ms)

        monkeypatch.setattr(SQLiteSource, "_execute", flaky)
        with pytest.warns(SourceWarning, match="order.amount"):
            profiles = profile(src, IRIS, tables=["order"])
    assert [p.column for p in profiles] == ["id", "frpm_CDSCode", "when", "status"]
    assert "order" in [t.name for t in tables]


@pytest.mark.parametrize("values, kind, pattern", [
    ([1, 2, 3], "integer", "integer"),
    ([1.5, 2.0], "decimal", "decimal"),
    (["2020-01-01", "2021-12-31"], "date", "date"),
    (["2020-01-01 10:00:00", "2020-01-02T11:30"], "datetime", "datetime"),
    ([dt.date(2020, 1, 1)], "date", "date"),
    (["a@b.org", "x.y@z.com"], "text", "email"),
    (["https://x.org/a", "http://y.com"], "text", "url"),
    (["INC0000001", "INC0000002"], "text", "code"),
    (["USA", "FRA", "DEU"], "text", "code"),
    (["T", "F"], "text", "boolean"),
    ([0, 1], "integer", "boolean"),
    (["1992", "2016"], "integer", "year"),
    (["Joe Sharp", "Rose White"], "text", "text"),
    (["This is a long sentence with many words in it, clearly free text."], "text", "free text"),
    ([b"\x00\x01"], "blob", "blob"),
    ([], "empty", None),
])
def test_type_and_pattern_inference(values, kind, pattern):
    assert infer_type(values) == kind
    assert value_pattern(values) == pattern


def test_spider_profiles(spider_dir: Path):
    with open_source(spider_dir / "database/concert_singer/concert_singer.sqlite") as src:
        profiles = _by_column(profile(src, IRIS))
    country = profiles[("singer", "Country")]
    assert country.evidence.value_distribution == {"France": 4, "Netherlands": 1, "United States": 1}
    assert profiles[("concert", "Year")].pattern == "year"
    age = profiles[("singer", "Age")]
    assert (age.min_value, age.max_value) == ("25", "52")


def test_hostile_names_profile_on_every_engine(tmp_path: Path, hostile_db: Path):
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "free meals (2024).csv").write_text(
        '"Free Meal Count (K-12)","select","quo""te","naïve café"\n3,1,a,x\n5,2,b,y\n', encoding="utf-8")
    engines = [folder, f"sqlite:///{hostile_db}"]
    for location in engines:
        with open_source(location) as src:
            profiles = _by_column(profile(src, IRIS))
        assert profiles, location
        if location == folder:
            free = profiles[("free meals (2024)", "Free Meal Count (K-12)")]
            assert (free.min_value, free.max_value, free.inferred_type) == ("3", "5", "integer")
            assert profiles[("free meals (2024)", 'quo"te')].samples == ["a", "b"]
        else:
            assert profiles[("frpm", "naïve café")].distinct_count == 3


def test_columns_with_more_values_than_the_vocabulary_cap_get_exact_totals(tmp_path: Path):
    path = tmp_path / "many.sqlite"
    conn = sqlite3.connect(path)
    conn.execute('CREATE TABLE "t" (name TEXT, k INTEGER)')
    conn.executemany('INSERT INTO "t" VALUES (?, ?)',
                     [(f"name {i:03d}", i) for i in range(50)] + [(None, None)] * 5 + [("name 007", 7)] * 3)
    conn.commit()
    conn.close()
    import evoonto.sources.profiling as profiling

    with open_source(path) as src:
        few = _by_column(profile(src, IRIS))
        digested = _by_column(profile(src, IRIS, vocabulary_cap=10))
        # more groups than a whole-table probe fetches for the digest: the query with window totals
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(profiling, "DIGEST_GROUPS", 20)
            many = _by_column(profile(src, IRIS, vocabulary_cap=10))
    # every group fetched (for the value digest), too many values for a vocabulary
    assert digested[("t", "name")].complete and digested[("t", "name")].vocabulary == ()
    assert digested[("t", "name")].evidence.value_digest == few[("t", "name")].evidence.value_digest
    assert few[("t", "name")].evidence.value_digest.startswith("sha256:")
    name = many[("t", "name")]
    assert not name.complete and name.vocabulary == () and name.evidence.value_digest is None
    assert "OVER ()" in name.probe.query  # the recorded query is the one that measured the totals
    assert (name.rows, name.null_count, name.distinct_count) == (58, 5, 50)
    assert (name.min_value, name.max_value) == ("name 000", "name 049")
    assert name.top_values[0] == ("name 007", 4) and len(name.samples) == 10
    full = few[("t", "name")]
    assert full.complete and len(full.vocabulary) == 50 and "OVER" not in full.probe.query
    assert (full.rows, full.null_count, full.distinct_count) == (58, 5, 50)
    assert full.evidence.summary == name.evidence.summary  # both probes observe the same column
