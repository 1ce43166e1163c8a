"""Regression: out_of_range verdicts said more than the data or the probe behind them.

Review of today's date checks: over a column with NULLs, ``d < '2030-01-01'`` was said to hold "for
every row" (the NULL rows fail it; the probe only looked among rows with a value); on a sampled table
``day LIKE '2019%'`` was said to hold "for no row" from a sample that had missed 2019; ``BETWEEN
SYMMETRIC`` with its bounds high-to-low was judged as an empty range. The verdict now reads "every row
with a value" when NULLs were observed, "… of that sample" for a sample's range no probe confirmed,
and a symmetric BETWEEN is judged on its sorted bounds.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder.pipeline import build
from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.sources.profiling import DEFAULT_SAMPLE_THRESHOLD
from evoonto.tools.sqlcheck import check_sql


def _onto(path):
    result = build([path], None, validate=False)
    return Ontology.from_graphs(result.graphs, base_iri=result.base_iri)


def test_every_row_verdict_over_nulls(tmp_path):
    db = tmp_path / "d.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, d DATE)")
        con.executemany("INSERT INTO t VALUES (?, ?)",
                        [(i, None if i % 2 else f"{1996 + i % 3}-01-1{i % 10}") for i in range(40)])
    onto = _onto(db)
    with open_source(str(db)) as source:
        [found] = check_sql(onto, "SELECT COUNT(*) FROM t WHERE d < '2030-01-01'", sources={source.id: source})
    assert "holds for every row with a value;" in found.message, found.message


def test_no_row_verdict_from_a_sample(tmp_path):
    db = tmp_path / "s.sqlite"
    rows = DEFAULT_SAMPLE_THRESHOLD + 10
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, amount INTEGER)")
        # values 0..99 everywhere except one row far out: a sample may miss it
        con.executemany("INSERT INTO t VALUES (?, ?)", ((i, i % 100) for i in range(rows)))
    onto = _onto(db)
    found = [f for f in check_sql(onto, "SELECT COUNT(*) FROM t WHERE amount = 500") if f.kind == "out_of_range"]
    assert found and "holds for no row of that sample; not checked" in found[0].message, found


def test_between_symmetric_with_bounds_high_to_low(tmp_path):
    db = tmp_path / "o.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, placed DATE, total REAL)")
        con.executemany("INSERT INTO orders VALUES (?, ?, ?)",
                        [(i, f"{1996 + i % 3}-0{1 + i % 9}-1{i % 10}", 10.0 + i) for i in range(60)])
    onto = _onto(db)
    for sql in ("SELECT COUNT(*) FROM orders WHERE placed BETWEEN SYMMETRIC '1999-12-31' AND '1990-01-01'",
                "SELECT COUNT(*) FROM orders WHERE total BETWEEN SYMMETRIC 1000 AND 0"):
        [found] = check_sql(onto, sql, dialect="postgres")
        assert "holds for every row" in found.message and "no row" not in found.message, found.message
