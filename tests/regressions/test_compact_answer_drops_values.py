"""Defect (issue 33 item 2): the value index (the distinct values of the data, issue 19) fed only
the verbose browse answer; the compact answer, the default, carried only values that the builder
happened to sample, so at small budgets a value the question names (a person, a code) was lost.
The value index's hits now ride in their column's compact line, ranked at least at the hit's score."""

from __future__ import annotations

import sqlite3

from evoonto.builder.pipeline import build
from evoonto.ontology import Ontology
from evoonto.tools.toolkit import OntologyTools
from evoonto.tools.values import ensure_value_index


def _club_db(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE member (member_id INTEGER PRIMARY KEY, full_name TEXT, city TEXT, joined INTEGER)")
    con.execute("CREATE TABLE payment (payment_id INTEGER PRIMARY KEY, member_id INTEGER REFERENCES member, "
                "amount REAL, paid_on TEXT)")
    con.executemany("INSERT INTO member VALUES (?, ?, ?, ?)",
                    [(i, f"Person{i:03d} Surname{i % 17}", f"Town{i % 40}", 2000 + i % 20) for i in range(300)])
    con.executemany("INSERT INTO payment VALUES (?, ?, ?, ?)",
                    [(i, i % 300, 10.0 + i % 7, f"2020-01-{1 + i % 28:02d}") for i in range(600)])
    con.commit()
    con.close()
    return path


def test_a_value_outside_the_evidence_sample_survives_a_small_compact_budget(tmp_path):
    db = _club_db(tmp_path / "club.sqlite")
    result = build([str(db)], base_iri="https://example.org/club/")
    tools = OntologyTools(Ontology.from_graphs(dict(result.graphs), base_iri=result.base_iri),
                          sources={"club": str(db)})
    question = "How much did Person217 Surname13 pay in total?"
    without = " ".join(h["label"] for h in tools.browse(question, format="compact", budget=400))
    assert "Person217 Surname13" not in without  # not in the builder's sample: only the data holds it
    tools.value_index = ensure_value_index(tmp_path / "values.sqlite", {"club": tools.source("club")})
    hits = tools.browse(question, format="compact", budget=400)
    line = next(h["label"] for h in hits if "Person217 Surname13" in h["label"])
    assert line.startswith('"member"."full_name"') and "= 'Person217 Surname13'" in line


def test_a_number_found_somewhere_brings_no_column_in():
    """A value-index hit that is a number or date ('2012', '0.3') matched hundreds of distractor
    columns on a wide schema (wide_bird_dev strict 0.801 -> 0.760 at 6,000 characters): it now only
    rides in the line of a column that is a candidate anyway; a name or code still brings its
    column in."""
    from evoonto.tools.browse import browse
    from evoonto.tools.index import Document, SearchIndex
    from evoonto.tools.settings import BrowseSettings

    docs = []
    for table in ("payment", "weather_2012"):
        for k, column in enumerate(("amount", "year", "holder")):
            doc = Document(f"urn:t/{table}/{column}", "term", label=f"{table} {column}")
            doc.add("prefLabel", f"{column}")
            doc.add("column", table)
            doc.add("column", column)
            doc.locations.append(f"{table}.{column}")
            doc.ordinals[f"{table}.{column}"] = k
            docs.append(doc)
    docs += [Document(f"urn:t/filler/{k}", "term", label=f"filler {k}", locations=[f"filler_{k}.c"])
             for k in range(200)]
    for doc in docs[6:]:
        doc.add("prefLabel", doc.label)
        doc.ordinals[doc.locations[0]] = 0
    index = SearchIndex(docs)
    hits = browse(index, BrowseSettings(), "payment amount in 2012 by Stephen Daniel", format="compact", budget=1000,
                  value_hits=[("weather_2012.year", "2012", 0.8), ("payment.holder", "Stephen Daniel", 0.8),
                              ("payment.year", "2012", 0.8)])
    text = " ".join(h["label"] for h in hits)
    assert "\"weather_2012\".\"year\" = '2012'" not in text  # a number alone brings no column in
    assert "\"payment\".\"holder\" = 'Stephen Daniel'" in text
