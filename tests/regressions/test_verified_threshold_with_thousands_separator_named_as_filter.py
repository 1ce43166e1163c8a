"""Regression: a threshold the question states with a thousands separator became a named filter.

Evolution on bird_synth_dev with verified queries proposed "named filter 'approved' = loan.amount >=
250000" from "how many loans in the amount of at least 250,000 … were approved?": the miner looked
for ``250000`` among the question's words, which read "250,000" as "250" and "000", so the stated
threshold looked unstated and the leftover word "approved" was taken as its name. Numbers are now
read with their separators.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build


def test_verified_threshold_with_thousands_separator_named_as_filter(tmp_path):
    db = tmp_path / "bank.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE loan (id INTEGER PRIMARY KEY, amount INTEGER, status TEXT)")
        con.executemany("INSERT INTO loan VALUES (?, ?, ?)",
                        [(i, 50_000 * i, ("A", "B")[i % 2]) for i in range(20)])
    stated = [{"id": "v", "question": "How many loans of at least 250,000 were approved?",
               "sql": "SELECT COUNT(*) FROM loan WHERE amount >= 250000"}]
    result = build([db], None, verified=stated, validate=False)
    assert result.counts["filters"] == 0, result.counts
    unstated = [{"id": "w", "question": "How many loans were large?",
                 "sql": "SELECT COUNT(*) FROM loan WHERE amount >= 250000"}]
    result = build([db], None, verified=unstated, validate=False)
    assert result.counts["filters"] == 1, result.counts


def test_threshold_written_with_a_space_or_a_leading_point(tmp_path):
    """Review: "250 000" (a space as separator) and ".5" were still read as unstated thresholds."""
    db = tmp_path / "meter.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE reading (id INTEGER PRIMARY KEY, amount INTEGER, temp REAL)")
        con.executemany("INSERT INTO reading VALUES (?, ?, ?)", [(i, 50_000 * i, 0.1 * i) for i in range(20)])
    for question, sql in (("How many readings of at least 250 000 units?",
                           "SELECT COUNT(*) FROM reading WHERE amount >= 250000"),
                          ("How many readings above .5 degrees?", "SELECT COUNT(*) FROM reading WHERE temp > 0.5")):
        result = build([db], None, verified=[{"id": "v", "question": question, "sql": sql}], validate=False)
        assert result.counts["filters"] == 0, (question, result.counts)
