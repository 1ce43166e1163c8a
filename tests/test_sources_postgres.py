"""A real PostgreSQL server (issue 18 must-hold): Chinook with ``COMMENT ON`` statements.

The session fixture starts Debian's PostgreSQL (initdb into a temporary folder, a free 127.0.0.1
port) and stops it at the end; it is skipped with the reason only where PostgreSQL is not installed
(``.ci/run`` installs it). ``evoonto build --source postgresql://…`` reads the comments, profiles
through the server, and browse / resolve / run_sql work over that URL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixtures.postgres_support import PostgresServer, load_sqlite, postgres_binaries, start_postgres

from evoonto.cli import main

pytestmark = pytest.mark.slow

COMMENTS = [
    """COMMENT ON TABLE "Invoice" IS 'One sale to a customer: billing address and total'""",
    """COMMENT ON COLUMN "Invoice"."Total" IS 'Amount charged for the sale, in US dollars'""",
    """COMMENT ON COLUMN "Invoice"."BillingCountry" IS '''USA'' = United States of America; """
    """''Canada'' = the northern neighbour; ''Atlantis'' = the lost continent'""",
    """COMMENT ON COLUMN "Track"."Milliseconds" IS 'Playing time of the track'""",
]


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    bindir, reason = postgres_binaries()
    if bindir is None:
        pytest.skip(reason)
    pytest.importorskip("psycopg", reason="the postgres driver: pip install 'evoonto[postgres]'")
    server = start_postgres()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def chinook_url(postgres_server: PostgresServer, shared_data: Path) -> str:
    sqlite = shared_data / "chinook" / "Chinook_Sqlite.sqlite"
    if not sqlite.is_file():
        pytest.skip("../shared/data/chinook is not present")
    load_sqlite(sqlite, postgres_server.url(), statements=COMMENTS)
    return postgres_server.url()


@pytest.fixture(scope="session")
def chinook_ws(chinook_url: str, tmp_path_factory) -> Path:
    ws = tmp_path_factory.mktemp("pg") / "ws"
    plain = chinook_url.replace("postgresql+psycopg://", "postgresql://")  # as a user types it
    assert main(["build", "--source", plain, "-w", str(ws), "--no-progress"]) == 0
    return ws


def _tools(ws: Path):
    from evoonto.tools.toolkit import OntologyTools
    from evoonto.workspace import Workspace

    opened = Workspace.open(ws)
    return OntologyTools(opened.ontology, sources=opened.settings.get("sources"), data_tools=True)


def test_comments_are_reflected(chinook_url):
    from evoonto.sources import open_source

    with open_source(chinook_url) as src:
        invoice = src.table("Invoice")
        assert invoice.comment == "One sale to a customer: billing address and total"
        assert invoice.column("Total").comment == "Amount charged for the sale, in US dollars"
        assert src.table("Album").comment is None


def test_build_reads_comments_and_profiles_through_the_server(chinook_ws, capsys):
    from evoonto.namespaces import EVO
    from evoonto.workspace import Workspace

    content = Workspace.open(chinook_ws).ontology.graph("content")
    definitions = {str(d) for d in content.objects(None, __import__("rdflib").SKOS.definition)}
    assert any(d.startswith("Amount charged for the sale, in US dollars") for d in definitions)
    assert any(d.startswith("One sale to a customer") for d in definitions)
    statuses = {str(content.value(e, EVO.summary)): str(s) for e, s in content.subject_objects(EVO.status)}
    contradicted = [summary for summary, status in statuses.items() if status == "contradicted"]
    assert len(contradicted) == 1 and "'Atlantis'" in contradicted[0] and "Invoice.BillingCountry" in contradicted[0]
    # profiled through the server: row counts and value distributions came from PostgreSQL
    summaries = [str(s) for s in content.objects(None, EVO.summary)]
    assert any("412 rows" in s for s in summaries)


def test_browse_resolve_and_run_sql_over_the_url(chinook_ws, capsys):
    assert main(["browse", "United States of America", "-w", str(chinook_ws)]) == 0
    out = capsys.readouterr().out
    assert "USA" in out
    tools = _tools(chinook_ws)
    hits = tools.browse("amount charged for the sale", format="verbose")
    assert hits and hits[0]["label"].lower().startswith("invoice total"), hits[:3]
    resolved = tools.resolve([hits[0]["id"]])
    assert "Amount charged for the sale" in json.dumps(resolved)
    answer = tools.call("run_sql", {"sql": 'SELECT COUNT(*) AS n FROM "Invoice" WHERE "BillingCountry" = \'USA\''})
    assert answer["rows"] == [[91]], answer
    from evoonto.errors import ReadOnlyViolation

    with pytest.raises(ReadOnlyViolation):
        tools.call("run_sql", {"sql": 'DELETE FROM "Invoice"'})


def test_percent_sign_in_sql_never_read_as_a_parameter(chinook_url):
    """Regression (found in review, issue 29): psycopg read every "%" of a statement as a parameter
    marker, so ``LIKE '%Love%'`` failed ("only '%s', '%b', '%t' are allowed as placeholders") and a
    non-ASCII letter after a "%" raised UnicodeDecodeError out of the source layer."""
    from evoonto.sources import open_source

    with open_source(chinook_url) as src:
        rows = src.run("""SELECT COUNT(*) FROM "Track" WHERE "Name" LIKE '%Love%'""").rows
        assert rows[0][0] > 0, rows
        assert src.run("""SELECT COUNT(*) FROM "Track" WHERE "Name" LIKE '%Ökonomie%'""").rows[0][0] == 0
        assert [list(row) for row in src.run("""SELECT '100%' AS share""").rows] == [["100%"]]
