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


def test_timestamps_used_up_the_value_total_before_text_columns(tmp_path):
    """A timestamp column read first filled the index's total, so a later text column's names were
    never indexed (review of this change): text columns are read before date and time columns."""
    db = tmp_path / "events.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE a_events (id INTEGER PRIMARY KEY, at DATETIME)")
    con.execute("CREATE TABLE b_people (id INTEGER PRIMARY KEY, city TEXT)")
    con.executemany("INSERT INTO a_events VALUES (?, ?)",
                    [(i, str(dt.datetime(2012, 8, 1) + dt.timedelta(minutes=i))) for i in range(3000)])
    con.executemany("INSERT INTO b_people VALUES (?, ?)", [(1, "Prague"), (2, "Brno")])
    con.commit()
    con.close()
    from evoonto.tools.values import ValueBounds

    with open_source(str(db)) as src:
        index = build_value_index(tmp_path / "v.sqlite", {src.id: src}, bounds=ValueBounds(per_column=2000, total=2000))
        assert [(h.location, h.value) for h in index.value_hits("people from Prague")] == [("b_people.city", "Prague")]
        index.close()


def test_date_lookups_that_were_wrong():
    # a timestamp written with a T still holds its date
    assert "2012-08-24" in date_phrases("paid at 2012-08-24T10:00")
    # "may" in lower case is the verb
    assert date_phrases("How many players may 2010 have?") == []
    assert date_phrases("in May 2010") == ["2010-05", "201005"]


def test_verbose_date_hits_crowded_out_the_named_columns(tmp_path):
    """In the verbose answer every date column holding the question's date entered as a hit of its
    own (score 0.8) and pushed out the columns the question names (review of this change): a value
    without letters only annotates a record that is a hit already, as in the compact answer."""
    from evoonto.tools.toolkit import OntologyTools
    from fixtures.retrieval_support import tools_with_values

    db = tmp_path / "log.sqlite"
    con = sqlite3.connect(db)
    dates = ", ".join(f"d{i} DATE" for i in range(6))
    con.execute(f"CREATE TABLE log (id INTEGER PRIMARY KEY, customer TEXT, amount REAL, {dates})")
    con.executemany(f"INSERT INTO log VALUES (?, ?, ?{', ?' * 6})",
                    [(i, f"c{i % 5}", 1.5 * i, *[f"2012-08-{20 + (i + k) % 8}" for k in range(6)])
                     for i in range(1, 40)])
    con.commit()
    con.close()
    with tools_with_values(db, tmp_path) as tools:
        hits = tools.browse("total amount per customer on 2012/8/24", format="verbose", n=5)
        labels = [h["label"].lower() for h in hits]
        assert any("customer" in label for label in labels), labels
        without = [h["label"].lower() for h in OntologyTools(tools.ontology).browse(
            "total amount per customer on 2012/8/24", format="verbose", n=5)]
        # the value index adds no date column the ranking did not already hold
        dated = [lb for lb in labels if lb.startswith("log d")]
        assert dated == [lb for lb in without if lb.startswith("log d")], (labels, without)
