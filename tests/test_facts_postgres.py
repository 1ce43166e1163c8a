"""Issue 28 on a real PostgreSQL server: fair samples, honest Evidence, drift that tells the truth, and
``postgresql://`` workspaces end to end (build, browse, check_sql, verified add, evolve, drift).

A scaled-down run of ``benchmarks/facts_bench.py`` (the must-hold benchmark): the fact table is
loaded in date order and is larger than the (lowered) sampling threshold, so its Evidence is
sampled with ``TABLESAMPLE``; no Evidence claim is contradicted by the full tables, an unchanged
database (also after ``CLUSTER`` moved every row) gives no drift on PostgreSQL, SQLite and DuckDB,
and each of the 10 scripted changes is reported. The server is started like
tests/test_sources_postgres.py starts it (skipped with the reason where PostgreSQL is not installed).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixtures.postgres_support import PostgresServer, postgres_binaries, start_postgres

from evoonto.cli import main
from evoonto.sources.profiling import profile

pytestmark = pytest.mark.slow

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import facts_bench  # noqa: E402

RIDES, STATIONS = 12_000, 3_000


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    bindir, reason = postgres_binaries()
    if bindir is None:
        pytest.skip(reason)
    pytest.importorskip("psycopg", reason="the postgres driver: pip install 'evoonto[postgres]'")
    running = start_postgres()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture()
def scaled(monkeypatch):
    """The bench's data scaled down, with the sampling threshold scaled with it (rides is sampled,
    stations and regions are read whole)."""
    monkeypatch.setitem(profile.__kwdefaults__, "sample_threshold", 5_000)
    monkeypatch.setitem(profile.__kwdefaults__, "sample_rows", 1_000)
    monkeypatch.setattr(facts_bench, "STATIONS", STATIONS)
    return facts_bench.generate(RIDES)


def test_facts_on_postgres_sampled_in_date_order(server, scaled, tmp_path):
    result = facts_bench.run_backend("postgres", scaled, tmp_path, server.url(driver=""), changes=True)
    assert result.sampled_evidence >= 5  # every column of rides, by TABLESAMPLE
    assert result.contradicted == []
    assert result.drift_changes == [] and result.drift_after_move == []
    missed = [(name, detail) for name, ok, detail in result.changes if not ok]
    assert len(result.changes) == 10 and missed == []


@pytest.mark.parametrize("backend", ["sqlite", "duckdb"])
def test_facts_on_sqlite_and_duckdb(backend, scaled, tmp_path):
    result = facts_bench.run_backend(backend, scaled, tmp_path, None, changes=False)
    assert result.sampled_evidence >= 5
    assert result.contradicted == [] and result.drift_changes == []


def test_a_postgresql_workspace_end_to_end(server, tmp_path, capsys):
    """build, browse, check_sql, verified add, a served session, evolve on verified queries, drift."""
    from evoonto.tools.toolkit import OntologyTools
    from evoonto.tools.trajectory import TrajectoryLog
    from evoonto.workspace import Workspace

    facts_bench._admin(server.url(driver=""), "CREATE DATABASE e2e")
    url = facts_bench._database_url(server.url(driver=""), "e2e")
    facts_bench.load_postgres(url, facts_bench.generate(2_000))
    facts_bench._admin(url, "COMMENT ON COLUMN rides.status IS '''cancelled'' = called off; ''late'' = arrived late'",
                       "COMMENT ON TABLE stations IS 'Where rides start and end'")
    ws = tmp_path / "ws"
    assert main(["build", "--source", url, "-w", str(ws), "--no-progress"]) == 0
    questions = [f"Question {i}: {sql}" for i, sql in enumerate(facts_bench.QUERIES)]
    verified = tmp_path / "verified.jsonl"
    lines = [json.dumps({"id": f"q{i}", "question": q, "sql": sql})
             for i, (q, sql) in enumerate(zip(questions, facts_bench.QUERIES, strict=True))]
    verified.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["verified", "add", str(verified), "-w", str(ws)]) == 0
    capsys.readouterr()
    assert main(["browse", "-w", str(ws), "station name"]) == 0
    assert "stations" in capsys.readouterr().out
    assert main(["check-sql", "-w", str(ws), "SELECT COUNT(*) FROM rides WHERE month = 7"]) in (0, 1)
    capsys.readouterr()

    # served tasks (in process, logged like the MCP server logs them): the agent answers every
    # question, a sum in another order than its verified query (the same number)
    opened = Workspace.open(ws)
    tools = OntologyTools(opened.ontology, sources=opened.settings.get("sources"), data_tools=True)
    log = TrajectoryLog.for_workspace(ws, session="served")
    for i, (question, sql) in enumerate(zip(questions, facts_bench.QUERIES, strict=True)):
        task = log.for_task(f"t{i}", question)
        tools.call("browse", {"q": question[:60]}, trajectory=task)
        tools.call("run_sql", {"sql": sql}, trajectory=task)
    tools.close()
    code = main(["evolve", "-w", str(ws), "--verified", str(verified), "--no-progress", "--rounds", "1",
                 "--min-validation", "3", "--test", "bayes"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "with outcomes" in err and "verified" in err and "SQLite" not in err, err

    report = json.loads(_drift(ws, capsys))
    assert report["findings"] == [] and report["unchecked"] == 0  # the comments were read again, not run
    facts_bench._admin(url, "COMMENT ON TABLE stations IS 'Where rides begin and end'")
    [changed] = json.loads(_drift(ws, capsys))["findings"]
    assert changed["detail"].startswith("documentation: now ") and "begin" in changed["detail"]


def _drift(ws: Path, capsys) -> str:
    assert main(["drift", "-w", str(ws), "--json", "--no-progress", "--dry-run"]) == 0
    return capsys.readouterr().out


def test_postgres_sampling_methods_and_their_fallbacks(server, tmp_path):
    """Tables: TABLESAMPLE BERNOULLI (SYSTEM for very large ones); views have no TABLESAMPLE: rows
    ordered by a hash of their text; an empty page sample hands over to the next method."""
    from evoonto.iris import IriFactory
    from evoonto.sources import open_source

    facts_bench._admin(server.url(driver=""), "CREATE DATABASE sampling")
    url = facts_bench._database_url(server.url(driver=""), "sampling")
    facts_bench.load_postgres(url, facts_bench.generate(3_000))
    facts_bench._admin(url, "CREATE VIEW late_rides AS SELECT * FROM rides WHERE status = 'late'")
    iris = IriFactory("https://example.org/evoonto/test/")
    with open_source(url) as src:
        rides, view = src.table("rides"), src.table("late_rides")
        assert src.sampling_methods(rides)[0] == "tablesample bernoulli"
        assert src.sampling_methods(view) == ("hash order", "first rows")
        by_table = {(p.table, p.column): p for p in profile(src, iris, tables=["rides", "late_rides"],
                                                            sample_threshold=100, sample_rows=300)}
        assert by_table[("rides", "month")].sampling_method == "tablesample bernoulli"
        assert by_table[("rides", "month")].distinct_count == 12  # spread over the whole year
        assert by_table[("late_rides", "month")].sampling_method == "hash order"
        assert by_table[("late_rides", "month")].rows == 300 and by_table[("late_rides", "month")].distinct_count == 12
        # a page sample of a tiny share comes back empty: the next method takes over
        from dataclasses import replace

        huge = replace(rides, row_count=10**12)  # as if the table were huge: SYSTEM first, at 1e-7 %
        assert src.sampling_methods(huge)[0] == "tablesample system"
        from evoonto.sources.profiling import profile_column

        fallback = profile_column(src, huge, huge.column("month"), iris, sample_rows=300)
        # both TABLESAMPLE methods at that share return no row: the generic first rows, recorded as such
        assert fallback.sampling_method == "first rows" and fallback.rows == 300
        assert "(first rows)" in fallback.evidence.summary
