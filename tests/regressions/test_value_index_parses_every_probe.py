"""Regression (issue 33, cold ``serve``): the value index sent each column's probe to the source as
plain text, so the read-only guard parsed every one of them with sqlglot: 43,000 parses, 60 CPU s of
a 70,000-column workspace's first serve. The probes now share one :class:`SqlTemplate` (checked once
per dialect, each rendering run unparsed); their text, and so the evidence keys made from it, is
unchanged."""

from __future__ import annotations

import sqlite3

import pytest

from evoonto.sources.registry import open_source
from evoonto.tools.values import ValueBounds, build_value_index, iter_columns
from fixtures.sources_support import count_guard_parses


def _wide(path, tables=6, columns=8):
    con = sqlite3.connect(path)
    for t in range(tables):
        cols = ", ".join(f'"col {c}" TEXT' for c in range(columns))
        con.execute(f'CREATE TABLE "t{t}" (id INTEGER PRIMARY KEY, {cols})')
        marks = ", ".join("?" for _ in range(columns + 1))
        con.executemany(f'INSERT INTO "t{t}" VALUES ({marks})',
                        [(r, *(f"v{t}.{c}.{r % 3}" for c in range(columns))) for r in range(5)])
    con.commit()
    con.close()
    return path


@pytest.mark.parametrize("served", [False, True], ids=["source", "served pool"])
def test_value_index_parses_every_probe(tmp_path, monkeypatch, served):
    from evoonto.tools.pool import SourcePool

    parsed = count_guard_parses(monkeypatch)
    path = str(_wide(tmp_path / "wide.sqlite"))
    source = SourcePool.open(path, source_id="w") if served else open_source(path)  # serve opens pools
    bounds = ValueBounds()
    index = build_value_index(tmp_path / "values.sqlite", {"w": source}, bounds=bounds)
    probes = [sql for sql in parsed if "DISTINCT" in sql and "evoonto_slot_" not in sql]  # not the template's check
    assert probes == []  # 48 text columns probed, none parsed again at run time
    columns = list(iter_columns(index))
    assert len(columns) == 48 and all(status == "ok" and n == 3 for _, _, _, n, _, status in columns)
    probe_sql = {row[0] for row in sqlite3.connect(tmp_path / "values.sqlite").execute(
        "SELECT probe_sql FROM columns WHERE table_name = 't2' AND column_name = 'col 5'")}
    assert probe_sql == {f'SELECT DISTINCT "col 5" FROM "t2" WHERE "col 5" IS NOT NULL LIMIT {bounds.per_column + 1}'}
    assert any(hit.value == "v2.5.1" for hit in index.value_hits("v2.5.1"))  # the values are found as before
