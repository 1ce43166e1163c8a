"""Defect (found in review, issue 29): evolution's value probes and the documentation check wrote
``CAST(col AS TEXT)``, which MySQL rejects (it has ``CAST … AS CHAR``), so on a MySQL source every
such probe failed and was skipped in silence. The cast is now written by sqlglot for the source's
dialect (:func:`evoonto.sources.quoting.column_as_text`)."""

from __future__ import annotations

from rdflib import URIRef

from evoonto.catalog import ColumnInfo
from evoonto.evolution.probes import ValueProber
from evoonto.sources.quoting import column_as_text


class _RecordingSource:
    """A read-only source double of ``dialect`` that records each statement and finds nothing."""

    kind, id, location = "sqlalchemy", "shop", "mysql://example/shop"

    def __init__(self, dialect: str):
        self.dialect = dialect
        self.statements: list[str] = []

    def run(self, sql, *, limit=1000, timeout_ms=5000):
        self.statements.append(sql)
        return {"columns": ["v", "n"], "rows": []}


def test_casts_are_written_for_the_dialect():
    assert column_as_text("Name", "mysql") == "CAST(`Name` AS CHAR)"
    assert column_as_text("Name", "sqlite") == 'CAST("Name" AS TEXT)'
    assert column_as_text('a"b', "postgres") == 'CAST("a""b" AS TEXT)'
    assert column_as_text("Name", "tsql") == "CAST([Name] AS VARCHAR(MAX))"


def test_value_probes_on_mysql_never_cast_as_text():
    source = _RecordingSource("mysql")
    columns = [ColumnInfo("Name", URIRef("urn:x:name"), table="Track", source_id="shop", declared_type="VARCHAR"),
               ColumnInfo("Year", URIRef("urn:x:year"), table="Track", source_id="shop", declared_type="INT")]
    prober = ValueProber({"shop": source})
    prober.find("shop", "Love", columns)
    prober.find("shop", "1999", columns)
    prober.find_containing("shop", "Love", columns)
    assert len(source.statements) == 3, source.statements
    assert all("AS TEXT" not in sql and "AS CHAR)" in sql for sql in source.statements), source.statements
