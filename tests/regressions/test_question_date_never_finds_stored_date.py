"""Regression: a date the question writes never found the date the column stores.

The value index held text columns only, and looked a question's words up as they are spelt, so
"What did the customer pay on 2012/8/24?" never reached ``transactions.date = '2012-08-24'`` and
"in September, 2013" never reached a ``yearmonth.date`` of ``'201309'``. A phrase that found nothing
was then matched fuzzily, where ``2012 08 25`` is a close spelling of ``2012 08 24``. Date and time
columns are indexed now, a question's dates and months are looked up in the forms columns store them
in (:func:`evoonto.tools.values.date_phrases`), and numbers and dates are never matched fuzzily.
"""

from __future__ import annotations

import datetime as dt
import sqlite3

from evoonto.sources import open_source
from evoonto.tools.values import _stored_text, build_value_index, date_phrases


def _shop(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE transactions (id INTEGER PRIMARY KEY, date DATE, price REAL)")
    con.execute("CREATE TABLE yearmonth (customer_id INTEGER, date TEXT, consumption REAL)")
    con.executemany("INSERT INTO transactions VALUES (?, ?, ?)",
                    [(i, f"2012-08-{23 + i % 3}", 10.0 * i) for i in range(1, 31)])
    con.executemany("INSERT INTO yearmonth VALUES (?, ?, ?)",
                    [(i, f"2013{m:02d}", 1.5 * i) for i, m in enumerate(range(1, 13), start=1)])
    con.commit()
    con.close()
    return path


def test_question_date_never_finds_stored_date(tmp_path):
    with open_source(str(_shop(tmp_path / "shop.sqlite"))) as src:
        index = build_value_index(tmp_path / "values.sqlite", {src.id: src})
        hits = index.value_hits("What did the customer pay on 2012/8/24?")
        assert ("transactions.date", "2012-08-24") in {(h.location, h.value) for h in hits}
        # the next day is another value, not a misspelling
        assert not any(h.value in ("2012-08-23", "2012-08-25") for h in hits), hits
        months = index.value_hits("Which customers consumed the most in September, 2013?")
        assert ("yearmonth.date", "201309") in {(h.location, h.value) for h in months}
        assert not any(h.value in ("201308", "201310") for h in months), months
        index.close()


def test_date_phrases_read_common_ways_of_writing_a_date():
    assert date_phrases("paid on 2012/8/24")[:2] == ["2012-08-24", "20120824"]
    assert "2012-08-24" in date_phrases("on August 24th, 2012")
    assert "2012-08-24" in date_phrases("the 24th of August 2012")
    assert {"1980-12-31"} <= set(date_phrases("opened before 12/31/1980"))
    assert {"2012-03-04", "2012-04-03"} <= set(date_phrases("on 3/4/2012"))  # either order
    assert date_phrases("in Jan. 1996") == ["1996-01", "199601"]
    # no date: ranges of years, versions, impossible days
    assert date_phrases("the 2014-2015 school year, version 1.2.3, on 2012-02-30 or 13/25/2012") == []


def test_driver_date_objects_are_stored_as_iso_text():
    assert _stored_text(dt.date(2012, 8, 24)) == "2012-08-24"
    assert _stored_text(dt.datetime(2012, 8, 24, 16, 25)) == "2012-08-24 16:25:00"
    assert _stored_text("201309") == "201309"
    assert _stored_text(12.5) is None
