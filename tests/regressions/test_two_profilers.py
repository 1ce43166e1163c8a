"""Regression (issue 13, defect 2 "two profilers"): what ``build`` writes as a column's Evidence is
exactly what the documented ``evoonto.sources.profile`` returns.

Before the fix the builder profiled columns with its own ``Prober.column_profile`` (other SQL, other
pattern rules, other summaries), so the Evidence IRIs and their pattern/summary/counts differed from
``sources.profile`` on 35 of 280 Spider value patterns and 60 of 280 summaries.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from rdflib import Graph

from evoonto.builder import build
from evoonto.iris import IriFactory
from evoonto.records import Evidence, ProbeActivity
from evoonto.sources import open_source, profile

AT = dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.timezone.utc)
BASE = "https://example.org/evoonto/regression/"
DATABASES = ["concert_singer", "world_1", "car_1"]


def _content(result) -> Graph:
    graphs = result.graphs
    return graphs["content"]


@pytest.mark.slow
@pytest.mark.parametrize("db", DATABASES)
def test_builder_evidence_equals_sources_profile(spider_dir: Path, db: str):
    path = spider_dir / "database" / db / f"{db}.sqlite"
    result = build([path], None, base_iri=BASE, at=AT, validate=False)
    content = _content(result)
    with open_source(path) as src:
        profiles = profile(src, IriFactory(BASE))  # the documented call, wall-clock times
        n_columns = sum(len(t.columns) for t in src.tables())
    assert len(profiles) == n_columns
    compared = 0
    for p in profiles:
        where = f"{db}: {p.table}.{p.column}"
        # every column becomes a Term whose Evidence is the profiler's Evidence, IRI included
        assert (p.evidence.iri, None, None) in content, f"{where}: the builder wrote other Evidence"
        written = Evidence.from_graph(content, p.evidence.iri)
        assert written.summary == p.evidence.summary, where
        assert written.value_pattern == p.evidence.value_pattern, where
        assert written.rows_observed == p.evidence.rows_observed == p.rows, where
        assert written.distinct_count == p.evidence.distinct_count == p.distinct_count, where
        assert written.null_fraction == pytest.approx(p.evidence.null_fraction), where
        assert (written.min_value, written.max_value) == (p.evidence.min_value, p.evidence.max_value), where
        assert sorted(written.sample_values) == sorted(p.evidence.sample_values), where
        assert written.value_distribution == p.evidence.value_distribution, where
        activity = ProbeActivity.from_graph(content, p.probe.iri)
        assert activity.query == p.probe.query, where
        compared += 1
    assert compared == n_columns


def test_builder_reuses_the_profile_objects(spider_dir: Path, monkeypatch):
    """The builder's probe step calls the one profiler (no second implementation to drift)."""
    import evoonto.sources.profiling as profiling

    calls: list[str] = []
    original = profiling.profile_column

    def spy(source, table, column, iris, **kw):
        calls.append(f"{table.name}.{column.name}")
        return original(source, table, column, iris, **kw)

    monkeypatch.setattr(profiling, "profile_column", spy)
    path = spider_dir / "database" / "concert_singer" / "concert_singer.sqlite"
    build([path], None, base_iri=BASE, at=AT, validate=False)
    with open_source(path) as src:
        expected = [f"{t.name}.{c.name}" for t in src.tables() for c in t.columns]
    assert sorted(calls) == sorted(expected)
