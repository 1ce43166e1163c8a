"""Regression: a question's plural word never found the singular value stored for it.

"...had both Masters and Bachelors students enrolled?" names the stored values 'Master' and
'Bachelor'. The value probe compared the word whole, so 'masters' found nothing, the unlinked word
got no Evidence, and the failed task kept a value recall below 1. Now a question word's regular
singular is probed too (``ValueProber.find(..., inflected=True)``), never a prefix or look-alike.

Found with it: the probe cache was keyed by (source, value) alone, so a caller asking about one
column got the hits of an earlier call over every column (another column's stored value).
"""

from __future__ import annotations

import sqlite3

import pytest
from rdflib import URIRef

from evoonto.evolution.probes import ValueProber
from evoonto.evolution.view import ColumnInfo
from evoonto.sources import open_source


@pytest.fixture()
def prober(tmp_path):
    db = tmp_path / "degrees.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE degree (id INTEGER PRIMARY KEY, summary TEXT, title TEXT)")
        con.executemany("INSERT INTO degree VALUES (?, ?, ?)",
                        [(1, "Master", "Masters"), (2, "Bachelor", "Art"), (3, "Master", "Science"),
                         (4, "Masterclass", "Masterful")])
    with open_source(str(db)) as source:
        yield ValueProber({"degrees": source})


def _columns(*names: str) -> list[ColumnInfo]:
    return [ColumnInfo(name, URIRef(f"urn:x:degree.{name}"), table="degree", source_id="degrees",
                       declared_type="TEXT") for name in names]


def test_plural_word_misses_its_singular_value(prober):
    found = prober.find("degrees", "bachelors", _columns("summary", "title"), inflected=True)
    assert [(h.column, h.value, h.rows) for h in found] == [("summary", "Bachelor", 1)]
    # a literal of SQL is compared whole: no singular, no prefix
    assert prober.find("degrees", "bachelors", _columns("summary", "title")) == []
    assert prober.find("degrees", "Maste", _columns("summary", "title"), inflected=True) == []


def test_stored_word_itself_comes_before_its_singular(prober):
    # 'Masters' is stored in title, 'Master' in summary: the word itself comes first although its
    # column comes later (a surname 'Williams' before a first name 'William')
    found = prober.find("degrees", "Masters", _columns("summary", "title"), inflected=True)
    assert [(h.column, h.value) for h in found] == [("title", "Masters"), ("summary", "Master")]


def test_probe_cache_answers_per_column(prober):
    everywhere = prober.find("degrees", "Masters", _columns("summary", "title"))
    assert [(h.column, h.value) for h in everywhere] == [("title", "Masters")]
    # asked about one column, the cached answer over both columns must not leak into it
    assert prober.find("degrees", "Masters", _columns("summary")) == []
    queries = prober.queries
    assert [(h.column, h.value) for h in prober.find("degrees", "Masters", _columns("title"))] == [("title", "Masters")]
    assert prober.queries == queries  # answered from the cache
