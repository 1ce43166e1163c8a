"""A column whose values read as one value (all 1s) was profiled as ``boolean``: the pattern rule
accepted any subset of the boolean words, so a quantity that is always 1, or a version column, was
described to the agent as a flag ("the category X ... (BOOL)") on the strength of a single value.
A ``boolean`` pattern now needs both values of one two-valued pair, or the database's own boolean
type."""

import sqlite3
from pathlib import Path

import pytest
from fixtures.sources_support import IRIS

from evoonto.sources import open_source, profile
from evoonto.sources.profiling import value_pattern


@pytest.mark.parametrize("values", [[1, 1, 1], ["1"], ["Y", "Y"], ["true"], ["no"], ["T", "N"], ["yes", "1"]])
def test_one_value_or_a_mixed_pair_is_not_boolean(values):
    assert value_pattern(values) != "boolean"


@pytest.mark.parametrize("values", [[0, 1, 1], ["Y", "N"], ["true", "FALSE"], ["t", "f"], ["Yes", "No"],
                                    [True], [False, True]])
def test_both_values_of_a_pair_or_a_boolean_type_is_boolean(values):
    assert value_pattern(values) == "boolean"


def test_always_one_integer_column_is_profiled_as_integer(tmp_path: Path):
    db = tmp_path / "orders.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE line (id INTEGER PRIMARY KEY, quantity INTEGER, shipped INTEGER)")
        con.executemany("INSERT INTO line VALUES (?, 1, ?)", [(i, i % 2) for i in range(1, 21)])
    with open_source(db) as src:
        profiles = {p.column: p for p in profile(src, IRIS)}
    assert profiles["quantity"].pattern == "integer"
    assert profiles["shipped"].pattern == "boolean"


def test_declared_boolean_column_of_ones_stays_boolean(tmp_path: Path):
    """SQLite keeps a BOOLEAN column as 1 / 0: declared boolean, one value seen is still a flag."""
    db = tmp_path / "flags.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE account (id INTEGER PRIMARY KEY, active BOOLEAN, level INTEGER)")
        con.executemany("INSERT INTO account VALUES (?, 1, 1)", [(i,) for i in range(1, 11)])
    with open_source(db) as src:
        profiles = {p.column: p for p in profile(src, IRIS)}
    assert profiles["active"].pattern == "boolean"
    assert profiles["level"].pattern == "integer"
