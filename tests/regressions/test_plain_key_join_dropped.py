"""Issue 19: join discovery dropped a plain key.

KaggleDBQA-style ``FINREV_FED_17.state_code → FINREV_FED_KEY_17.State_Code``: same name up to
case, every left value occurs on the right, the right side is unique, and no table declares a key.
Both columns look id-like, so the name candidates of the pair were kept in one direction only
(whichever table came first); the kept direction pointed at the repeating ``state_code`` column,
failed the uniqueness check, and the ontology had no join path at all. Both directions now stay
candidates until uniqueness decides.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from evoonto.iris import IriFactory
from evoonto.sources import discover_joins, open_source

IRIS = IriFactory("https://example.org/evoonto/test/")


def _make(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE FINREV_FED_17 (state_code INTEGER, idcensus TEXT, t_fed_rev INTEGER)")
    con.execute("CREATE TABLE FINREV_FED_KEY_17 (State_Code INTEGER, State TEXT, \"#\" INTEGER)")
    states = ["Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado"]
    con.executemany("INSERT INTO FINREV_FED_KEY_17 VALUES (?, ?, ?)",
                    [(i + 1, s, i) for i, s in enumerate(states)])
    con.executemany("INSERT INTO FINREV_FED_17 VALUES (?, ?, ?)",
                    [(1 + i % len(states), f"c{i}", 1000 * i) for i in range(60)])
    con.commit()
    con.close()
    return path


def test_plain_key_with_case_different_names_is_joined(tmp_path: Path):
    with open_source(_make(tmp_path / "finrev.sqlite")) as src:
        joins = discover_joins(src, IRIS)
    found = {(j.child, *j.child_columns, j.parent, *j.parent_columns): j for j in joins}
    join = found.get(("FINREV_FED_17", "state_code", "FINREV_FED_KEY_17", "State_Code"))
    assert join is not None, sorted(found)
    assert join.inclusion == 1.0 and join.parent_unique and join.evidence is not None
    # the reverse direction (right side repeats its values) is not reported
    assert ("FINREV_FED_KEY_17", "State_Code", "FINREV_FED_17", "state_code") not in found


def test_one_to_one_pair_is_reported_once(tmp_path: Path):
    path = tmp_path / "one.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE a (item_code TEXT, x INTEGER)")
    con.execute("CREATE TABLE b (Item_Code TEXT, y INTEGER)")
    con.executemany("INSERT INTO a VALUES (?, ?)", [(f"k{i}", i) for i in range(10)])
    con.executemany("INSERT INTO b VALUES (?, ?)", [(f"k{i}", i) for i in range(10)])
    con.commit()
    con.close()
    with open_source(path) as src:
        joins = discover_joins(src, IRIS)
    pairs = [frozenset({(j.child, *j.child_columns), (j.parent, *j.parent_columns)}) for j in joins]
    assert pairs.count(frozenset({("a", "item_code"), ("b", "Item_Code")})) == 1, pairs
