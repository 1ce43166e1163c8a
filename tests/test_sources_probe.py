"""Recorded probes: a timed read-only run and its Evidence + ProbeActivity with stable IRIs."""

from __future__ import annotations

import pytest
from fixtures.sources_support import IRIS, make_hostile_db

from evoonto.errors import ReadOnlyViolation
from evoonto.iris import stable_key
from evoonto.sources import open_source
from evoonto.sources.probe import run_probe


def test_probe_run_and_its_records(tmp_path):
    sql = "SELECT COUNT(*) FROM frpm"
    with open_source(make_hostile_db(tmp_path)) as src:
        run = run_probe(src, sql, limit=1, timeout_ms=5000)
        again = run_probe(src, sql, limit=1, timeout_ms=5000)
    assert run.result.scalar() == 4 and run.sql == sql and run.source_id == "hostile"
    assert run.started.tzinfo is not None and run.started <= run.ended
    evidence, activity = run.records(IRIS, "4 rows", rows_observed=4)
    key = stable_key("hostile", sql)
    assert (evidence.iri, activity.iri) == (IRIS.evidence(key), IRIS.probe(key))
    assert evidence.probe == activity.iri and evidence.generated_at == run.ended
    assert (evidence.summary, evidence.rows_observed) == ("4 rows", 4)
    assert (activity.query, activity.used) == (sql, IRIS.source("hostile"))
    assert (activity.started_at, activity.ended_at) == (run.started, run.ended)
    assert again.records(IRIS, "4 rows")[0].iri == evidence.iri  # a re-run mints the same IRIs


def test_probe_refuses_writes(tmp_path):
    with open_source(make_hostile_db(tmp_path)) as src:
        with pytest.raises(ReadOnlyViolation):
            run_probe(src, "DELETE FROM frpm", limit=1, timeout_ms=5000)
