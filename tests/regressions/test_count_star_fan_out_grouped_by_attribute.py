"""Defect (issue 28, COUNT(*) fan-out recall 47.4%): ``COUNT(*)`` over an added 1:N join was never
reported when the statement grouped by any column of the counted table, so
``SELECT singer.country, COUNT(*) FROM singer JOIN singer_in_concert … GROUP BY singer.country``
(singers per country, each counted once per concert) passed. Grouped by a unique key or the join
column of the counted table (one group per row: children per parent) the joined rows are meant;
grouped by another column of it, the count may mean either table's rows: a Warning that names both
readings, with no suggestion (COUNT(DISTINCT key) would give another answer), and only when the data
under the statement's conditions repeats a row."""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.tools.sqlcheck import check_sql

DDL = """
CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT);
CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, year INTEGER);
CREATE TABLE singer_in_concert (concert_id INTEGER REFERENCES concert(concert_id),
                                singer_id INTEGER REFERENCES singer(singer_id));
"""


def _fan_traps(tmp_path, sqls, performances):
    db = tmp_path / "concerts.sqlite"
    con = sqlite3.connect(db)
    con.executescript(DDL)
    con.executemany("INSERT INTO singer VALUES (?, ?, ?)",
                    [(i, f"singer {i}", ["France", "Chile", "Peru"][i % 3]) for i in range(1, 10)])
    con.executemany("INSERT INTO concert VALUES (?, ?)", [(i, 2010 + i) for i in range(1, 6)])
    con.executemany("INSERT INTO singer_in_concert VALUES (?, ?)", performances)
    con.commit()
    con.close()
    onto = Ontology.from_graphs(build([db], None, validate=False).graphs)
    with open_source(db, source_id="concerts") as src:
        return [[f for f in check_sql(onto, sql, sources={"concerts": src}) if f.kind == "fan_trap"]
                for sql in sqls]


PER_COUNTRY = ("SELECT singer.country, COUNT(*) FROM singer JOIN singer_in_concert AS sic "
               "ON sic.singer_id = singer.singer_id GROUP BY singer.country")
PER_SINGER = ("SELECT singer.singer_id, singer.name, COUNT(*) FROM singer JOIN singer_in_concert AS sic "
              "ON sic.singer_id = singer.singer_id GROUP BY singer.singer_id")


def test_count_star_grouped_by_an_attribute_of_the_repeated_table_is_warned(tmp_path):
    performances = [(1 + i % 5, 1 + i % 9) for i in range(20)]  # singers sing in two or three concerts
    per_country, per_singer = _fan_traps(tmp_path, [PER_COUNTRY, PER_SINGER], performances)
    assert [(f.severity, f.subject, f.suggestion) for f in per_country] == [("Warning", "singer", None)]
    message = per_country[0].message
    assert "singer.country" in message and "right if the question counts singer_in_concert rows" in message
    assert per_singer == []  # one group per singer: concerts per singer are meant


def test_no_warning_when_the_data_repeats_no_row(tmp_path):
    performances = [(1 + i % 5, i) for i in range(1, 10)]  # one concert per singer
    assert _fan_traps(tmp_path, [PER_COUNTRY], performances) == [[]]
