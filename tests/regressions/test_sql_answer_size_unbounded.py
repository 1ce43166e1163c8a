"""Issue 17: ``run_sql`` answers had no total size cap (a 4 KB statement returned 201 MB).

Every SQL path now bounds the answer in characters as well as rows, with a one-line note:
``Source.run(max_chars=…)`` (rows are fetched in batches), the MCP ``run_sql`` tool and declared
SQL tools (:data:`evoonto.tools.data.MAX_ANSWER_CHARS` of JSON).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from evoonto.sources import open_source
from evoonto.tools.data import DataTools
from evoonto.tools.declared import DeclaredTool, run_declared

#: evoonto.tools.data.MAX_ANSWER_CHARS (characters of JSON)
MAX_ANSWER_CHARS = 100_000
#: a 3 KB statement producing a wide, long answer (60 columns of 500 characters per row)
WIDE = "SELECT " + ", ".join(f"printf('%.500d', n) AS c{i}" for i in range(60)) + " FROM t"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "n.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (n INTEGER)")
    con.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(5000)])
    con.commit()
    con.close()
    return path


def test_source_run_bounds_characters(db: Path):
    with open_source(db) as src:
        result = src.run(WIDE, limit=5000, max_chars=1_000_000)
    size = sum(len(str(v)) for row in result.rows for v in row)
    assert size <= 1_000_000
    assert result.truncated and 0 < len(result.rows) < 5000
    assert result.note.startswith("answer cut at") and "characters" in result.note


def test_one_huge_row_is_clipped_not_returned_whole(db: Path):
    with open_source(db) as src:
        result = src.run("SELECT printf('%.5000000d', 1) AS big", max_chars=100_000)
    assert len(result.rows) == 1 and len(result.rows[0][0]) <= 100_000
    assert result.truncated and "clipped" in result.note


def test_run_sql_answer_is_capped_with_a_note(db: Path):
    with open_source(db) as src:
        answer = DataTools({"n": src}).run_sql(WIDE, limit=200)
    assert len(json.dumps(answer)) <= MAX_ANSWER_CHARS
    assert answer["truncated"] is True and "characters" in answer["note"]
    assert 0 < len(answer["rows"]) < 200


def test_declared_sql_tool_answer_is_capped(db: Path):
    tool = DeclaredTool("wide", "wide rows", "sql", WIDE, ())
    with open_source(db) as src:
        answer = run_declared(tool, {}, ontology=None, open_source=lambda _iri: src)
    assert len(json.dumps(answer, default=str)) <= MAX_ANSWER_CHARS
    assert answer["truncated"] is True and "note" in answer
