"""Regression (issue 29): evolution added the synonym "Newark" to ``airports.faa`` because a probe for
the question word found the code 'NEW' of another airport by its first letters. A code that shares
letters with a name is not that name; a value Term or synonym needs the task's own record (its SQL,
e.g. ``WHERE faa = 'EWR'``) and a probe that finds that value stored."""

from __future__ import annotations

import sqlite3

from rdflib import URIRef

from evoonto.catalog import ColumnInfo
from evoonto.evolution.diagnose import sql_columns
from evoonto.evolution.probes import ValueProber
from fixtures.evolution_toy import ToySource


def _airports(tmp_path):
    path = tmp_path / "flights.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE airports (faa TEXT PRIMARY KEY, name TEXT)")
    con.executemany("INSERT INTO airports VALUES (?, ?)",
                    [("NEW", "Lakefront Airport"), ("EWR", "Newark Liberty Intl"), ("JFK", "John F Kennedy Intl")])
    con.commit()
    con.close()
    columns = [ColumnInfo(name, URIRef(f"urn:x:{name}"), table="airports", source_id="flights", declared_type="TEXT")
               for name in ("faa", "name")]
    return ToySource(path, "flights"), columns


def test_a_name_is_not_matched_to_a_code_by_its_first_letters(tmp_path):
    source, columns = _airports(tmp_path)
    assert ValueProber({"flights": source}).find("flights", "Newark", columns) == []


def test_the_tasks_sql_names_the_code_and_a_probe_confirms_it(tmp_path):
    source, columns = _airports(tmp_path)
    used, values = sql_columns("SELECT count(*) FROM flights AS f JOIN airports AS a ON a.faa = f.dest "
                               "WHERE a.faa = 'EWR'", columns)
    assert ("airports", "faa") in used and values[("airports", "faa")] == {"EWR"}
    hits = ValueProber({"flights": source}).find("flights", "EWR", columns)
    assert [(h.column, h.value) for h in hits] == [("faa", "EWR")]
