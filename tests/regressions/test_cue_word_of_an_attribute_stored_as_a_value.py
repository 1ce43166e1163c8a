"""Regression: a question word that points at an attribute stored as a *value* got no Content patch.

In an entity–attribute–value table the attribute names are rows ('Speed', 'Strength' in
``attribute.attribute_name``), so "Which hero was the fastest?" needs the value 'Speed'. The
lexicon's cue row ``fast → speed`` pointed only at Terms whose names hold "speed"; no Term does, so
the offline evolver wrote nothing and the task stayed failed. Now the cue target is probed as a
whole stored value, and the word becomes the value's ``skos:hiddenLabel`` (the word points at the
value; it is not its name). Browse used to ignore a value Term's hidden labels when choosing which
value to show in its column's line, so even that patch did not put 'Speed' in the answer.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from rdflib.namespace import SKOS

from evoonto.builder import build
from evoonto.evolution.attribute import attribute
from evoonto.evolution.candidates import propose
from evoonto.evolution.diagnose import diagnose
from evoonto.evolution.edits import AddEvidence, AddValueTerm, EditContext
from evoonto.evolution.loop import to_patch, validate_candidate
from evoonto.evolution.probes import ValueProber
from evoonto.evolution.trajectories import Event, TaskTrajectory
from evoonto.evolution.view import OntologyView
from evoonto.ontology import Ontology
from evoonto.resources import vocab_graph
from evoonto.sources import open_source
from evoonto.tools.toolkit import OntologyTools


def _attributes(path: Path) -> Path:
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE attribute (id INTEGER PRIMARY KEY, attribute_name TEXT)")
        con.execute("CREATE TABLE hero (id INTEGER PRIMARY KEY, hero_name TEXT, theme_song TEXT)")
        con.execute("CREATE TABLE hero_attribute (hero_id INTEGER REFERENCES hero(id), "
                    "attribute_id INTEGER REFERENCES attribute(id), attribute_value INTEGER)")
        con.executemany("INSERT INTO attribute VALUES (?, ?)",
                        [(1, "Intelligence"), (2, "Strength"), (3, "Speed"), (4, "Durability")])
        con.executemany("INSERT INTO hero VALUES (?, ?, ?)", [(i, f"Hero {i}", ("Time", "Date", "Age")[i % 3])
                                                              for i in range(20)])
        con.executemany("INSERT INTO hero_attribute VALUES (?, ?, ?)",
                        [(h, a, (h * 7 + a * 13) % 100) for h in range(20) for a in range(1, 5)])
    return path


@pytest.fixture()
def heroes(tmp_path):
    db = _attributes(tmp_path / "heroes.sqlite")
    result = build([db], None, validate=False)
    onto = Ontology.from_graphs({**result.graphs, "vocab": vocab_graph()}, base_iri=result.base_iri)
    source = open_source(str(db))
    yield onto, ValueProber({"heroes": source})
    source.close()


def _candidates(onto, prober, question: str):
    view = OntologyView(onto)
    ctx = EditContext(view, onto.iris)
    task = TaskTrajectory("t1", question, "heroes", [Event("browse", {"q": question}, result=[])],
                          passed=False, score=0.0)
    sigs = diagnose([task], view, prober=prober, kinds=("unlinked_phrase",))
    cands = [c for s in sigs for c in propose(attribute(s, view), view, prober=prober, iris=ctx.iris, now=ctx.now)]
    return sigs, cands, ctx


def _speed_line(tools: OntologyTools, question: str) -> list[str]:
    return [h["label"] for h in tools.browse(question, format="compact") if "attribute_name" in h["label"]]


def test_cue_word_of_an_attribute_stored_as_a_value(heroes):
    onto, prober = heroes
    question = "Which hero was the fastest?"
    assert not any("'Speed'" in line for line in _speed_line(OntologyTools(onto), question))
    sigs, cands, ctx = _candidates(onto, prober, question)
    assert "fastest" in [s.key for s in sigs]
    (cand,) = [c for c in cands if any(isinstance(e, AddValueTerm) for e in c.edits)]
    evidence, value_term = cand.edits
    assert isinstance(evidence, AddEvidence) and evidence.sample_values == ("Speed",)
    assert (value_term.table, value_term.column, value_term.value) == ("attribute", "attribute_name", "Speed")
    assert value_term.hidden_labels == ("fastest",) and value_term.alt_labels == ()
    assert cand.level == "content" and "cue word" in cand.intervention
    patched, why = validate_candidate(onto, to_patch(cand, ctx))
    assert why is None, why
    term = next(s for s, _p, o in patched.graph("content").triples((None, SKOS.prefLabel, None)) if str(o) == "Speed")
    assert "fastest" in {str(o) for o in patched.graph("content").objects(term, SKOS.hiddenLabel)}
    assert "fastest" not in {str(o) for o in patched.graph("content").objects(term, SKOS.altLabel)}
    assert any("= 'Speed'" in line for line in _speed_line(OntologyTools(patched), question))


def test_cue_word_without_a_stored_target_writes_nothing(heroes):
    """'cheapest' points at price/cost, which no column stores as a value: no value Term is made,
    and a word that is no cue ('bravest') gets none either."""
    onto, prober = heroes
    for question in ("Which hero was the cheapest?", "Which hero was the bravest?"):
        _sigs, cands, _ctx = _candidates(onto, prober, question)
        assert not [c for c in cands if any(isinstance(e, AddValueTerm) for e in c.edits)], question


def test_value_term_hidden_label_already_there_is_not_proposed_again(heroes):
    onto, prober = heroes
    question = "Which hero was the fastest?"
    _sigs, cands, ctx = _candidates(onto, prober, question)
    (cand,) = [c for c in cands if any(isinstance(e, AddValueTerm) for e in c.edits)]
    patched, why = validate_candidate(onto, to_patch(cand, ctx))
    assert why is None, why
    _sigs, again, _ctx = _candidates(patched, prober, question)
    assert not [c for c in again if "'Speed'" in c.intervention], [c.intervention for c in again]


def test_two_cue_words_of_one_value_make_one_value_term(heroes):
    """'fastest' and 'slowest' both point at 'Speed': batched together they add one value Term
    found by both words, not two AddValueTerm edits of the same Term."""
    from evoonto.evolution.candidates import merge

    onto, prober = heroes
    picked = []
    for question in ("Which hero was the fastest?", "Which hero was the slowest?"):
        _sigs, cands, ctx = _candidates(onto, prober, question)
        picked += [c for c in cands if any(isinstance(e, AddValueTerm) for e in c.edits)]
    merged = merge(picked)
    value_terms = [e for e in merged.edits if isinstance(e, AddValueTerm)]
    assert len(value_terms) == 1 and value_terms[0].hidden_labels == ("fastest", "slowest")
    assert sum(isinstance(e, AddEvidence) for e in merged.edits) == 1
    patched, why = validate_candidate(onto, to_patch(merged, ctx))
    assert why is None, why
    for question in ("Which hero was the fastest?", "Which hero was the slowest?"):
        assert any("= 'Speed'" in line for line in _speed_line(OntologyTools(patched), question)), question


def test_cue_target_in_an_ordinary_text_column_is_no_value_of_it(heroes):
    """'latest' points at date/year/time: the theme songs 'Time' and 'Date' are stored whole, but in
    a column of an ordinary table, not in an attribute table's names: no candidate."""
    from evoonto.evolution.candidates import attribute_name_columns

    onto, prober = heroes
    assert [(c.table, c.column) for c in attribute_name_columns(OntologyView(onto), "heroes")] == \
        [("attribute", "attribute_name")]
    for question in ("Which hero is the latest?", "Which hero is the oldest?"):
        _sigs, cands, _ctx = _candidates(onto, prober, question)
        assert not [c for c in cands if "cue word of" in c.intervention], [c.intervention for c in cands]
