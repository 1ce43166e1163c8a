"""Defect (issue 29 item 2, "content from evidence"): a failed question that quotes part of a stored
value ("the concerts having 'Visits' in their name", stored ``'Home Visits'``) got no value probe hit:
the prober finds a value only when it is stored exactly as written, so evolution could not propose
the Evidence that would show the agent the stored value. A quoted literal with no exact match is now
probed for the stored values that contain it as a whole word (``LIKE '%Visits%'``, pattern
characters escaped); the Evidence records the stored value and its query, and no synonym is written
(a part of a value is not another name of its column). Unquoted words are still never probed this
way (test_prefix_like_synonyms)."""

from __future__ import annotations

from evoonto.evolution.attribute import attribute
from evoonto.evolution.candidates import propose
from evoonto.evolution.diagnose import diagnose
from evoonto.evolution.edits import AddEvidence, AddSynonym
from evoonto.evolution.probes import ValueProber
from evoonto.evolution.trajectories import Event, TaskTrajectory
from evoonto.evolution.view import OntologyView
from fixtures.evolution_toy import ToySource, make_database, toy_ontology


def _setup(tmp_path):
    source = ToySource(make_database(tmp_path / "toy.sqlite"), "toy")
    view = OntologyView(toy_ontology())
    return source, ValueProber({"toy": source}), view


def test_quoted_part_finds_the_stored_value_that_contains_it(tmp_path):
    source, prober, view = _setup(tmp_path)
    assert prober.find("toy", "Visits", view.columns) == []  # not stored as written
    hits = prober.find_containing("toy", "Visits", view.columns)
    assert [(h.table, h.column, h.value, h.rows) for h in hits] == [("concert", "concert_Name", "Home Visits", 1)]
    assert "LIKE" in hits[0].query.upper()
    # a whole word only ("camp" is inside "bootcamp"), and the pattern characters are literal
    assert prober.find_containing("toy", "camp", view.columns) == []
    assert prober.find_containing("toy", "Home%s", view.columns) == []
    assert any("'%Home!%s%'" in sql for sql in source.statements)  # "%" escaped: a character, not a wildcard
    assert prober.find_containing("toy", "Ho", view.columns) == []  # under 3 characters: not probed


def test_evolution_proposes_the_stored_value_without_a_synonym(tmp_path):
    _source, prober, view = _setup(tmp_path)
    question = "Which concerts have 'Visits' in their name?"
    failed = TaskTrajectory("q1", question, "toy", [Event("browse", {"q": question}, [])], passed=False)
    signatures = [s for s in diagnose([failed], view, prober=prober) if s.kind == "missing_value"]
    assert [(s.key, s.detail("contained")) for s in signatures] == [("visits", True)]
    candidates = propose(attribute(signatures[0], view), view, prober=prober)
    assert candidates, "no candidate for the quoted value"
    edits = [e for c in candidates for e in c.edits]
    assert any(isinstance(e, AddEvidence) and "Home Visits" in e.sample_values for e in edits), edits
    assert not any(isinstance(e, AddSynonym) for e in edits), edits


def test_an_unquoted_word_is_never_probed_by_containment(tmp_path):
    source, prober, view = _setup(tmp_path)
    question = "Which concerts were Visits?"  # capitalised, not quoted
    failed = TaskTrajectory("q1", question, "toy", [Event("browse", {"q": question}, [])], passed=False)
    assert not [s for s in diagnose([failed], view, prober=prober) if s.kind == "missing_value"]
    assert not any("LIKE" in sql.upper() for sql in source.statements)


def test_an_apostrophe_inside_a_word_opens_no_quote():
    """Review finding: "artist's songs have 'Love'" was read as the quote ``s songs have``."""
    from evoonto.evolution.text import quoted_literals

    assert quoted_literals("Which artist's songs have 'Love' in their title?") == ["Love"]
    assert quoted_literals("songs that don't have 'Hey' in the name") == ["Hey"]


def test_whole_word_means_any_script_letters(tmp_path):
    """Review finding: ``'Caf'`` counted as a whole word of "Café Noir" (only ASCII letters
    bounded a word)."""
    import sqlite3

    from rdflib import URIRef

    from evoonto.catalog import ColumnInfo

    path = tmp_path / "bars.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE bar (name TEXT)")
    con.executemany("INSERT INTO bar VALUES (?)", [("Café Noir",), ("René's Caf Corner",)])
    con.commit()
    con.close()
    columns = [ColumnInfo("name", URIRef("urn:x:name"), table="bar", source_id="bars", declared_type="TEXT")]
    prober = ValueProber({"bars": ToySource(path, "bars")})
    assert [h.value for h in prober.find_containing("bars", "Caf", columns)] == ["René's Caf Corner"]
    assert prober.find_containing("bars", "Ren", columns) == []
