"""Issue 29 item 2: Content from evidence — the question's name for a value its verified SQL uses.

A failed task whose verified SQL (``reference_sql``) filters a column on a text value that no word of
its question states, and that no tool result showed, is diagnosed ``unnamed_value``. The candidate is
a synonym on the value's Term, with the phrase :func:`evoonto.builder.verified.value_phrase` picks:
the one phrase a single question leaves unexplained, or one two or more such questions share; never
a phrase of one question among several (a guess: "comes" for ``colors = 'B'``), nor one that a
verified question without the value uses. The value Term must exist (a probe saw the value).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from rdflib.namespace import SKOS

from evoonto.builder import build
from evoonto.builder.verified import value_phrase
from evoonto.evolution.attribute import attribute
from evoonto.evolution.candidates import propose
from evoonto.evolution.diagnose import diagnose
from evoonto.evolution.edits import AddSynonym, EditContext
from evoonto.evolution.loop import to_patch, validate_candidate
from evoonto.evolution.probes import ValueProber
from evoonto.evolution.trajectories import Event, TaskTrajectory
from evoonto.evolution.view import OntologyView
from evoonto.ontology import Ontology
from evoonto.resources import vocab_graph
from evoonto.sources import open_source

BAD = "SELECT COUNT(*) FROM hero WHERE alignment = 'Bad'"


def _heroes(path: Path) -> Path:
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE hero (id INTEGER PRIMARY KEY, name TEXT, alignment TEXT, skin TEXT)")
        con.executemany("INSERT INTO hero VALUES (?, ?, ?, ?)",
                        [(i, f"Hero {i}", ("Good", "Bad", "Good", "Neutral")[i % 4], ("Blue", "Green")[i % 2])
                         for i in range(40)])
    return path


@pytest.fixture()
def heroes(tmp_path):
    db = _heroes(tmp_path / "heroes.sqlite")
    result = build([db], None, validate=False)
    onto = Ontology.from_graphs({**result.graphs, "vocab": vocab_graph()}, base_iri=result.base_iri)
    source = open_source(str(db))
    yield onto, ValueProber({"heroes": source})
    source.close()


def _task(task: str, question: str, sql: str, passed: bool = False) -> TaskTrajectory:
    return TaskTrajectory(task, question, "heroes", [Event("browse", {"q": question}, result=[])],
                          passed=passed, score=1.0 if passed else 0.0, reference_sql=sql)


def _synonyms(onto, prober, trajs):
    view = OntologyView(onto)
    ctx = EditContext(view, onto.iris)
    sigs = [s for s in diagnose(trajs, view, prober=prober, kinds=("unnamed_value",))]
    cands = [c for s in sigs for c in propose(attribute(s, view), view, prober=prober, iris=ctx.iris, now=ctx.now)]
    return sigs, cands, ctx


def test_the_one_leftover_phrase_names_the_value(heroes):
    onto, prober = heroes
    sigs, cands, ctx = _synonyms(onto, prober, [_task("t1", "How many villains are there?", BAD)])
    assert [(s.kind, s.key, s.tasks) for s in sigs] == [("unnamed_value", "hero.alignment = Bad", ("t1",))]
    (cand,) = cands
    assert cand.level == "content" and isinstance(cand.edits[0], AddSynonym) and not cand.edits[0].hidden
    assert cand.edits[0].label == "villains" and "t1" in cand.intervention, cand
    patched, why = validate_candidate(onto, to_patch(cand, ctx))
    assert why is None
    term = next(s for s, _p, o in patched.graph("content").triples((None, SKOS.prefLabel, None)) if str(o) == "Bad")
    assert "villains" in {str(o) for o in patched.graph("content").objects(term, SKOS.altLabel)}


def test_one_question_with_two_leftover_phrases_names_nothing(heroes):
    onto, prober = heroes
    sigs, cands, _ctx = _synonyms(onto, prober, [_task("t1", "How many villains does the multiverse hold?", BAD)])
    assert [s.key for s in sigs] == ["hero.alignment = Bad"] and cands == []


def test_a_phrase_two_questions_share_names_the_value(heroes):
    onto, prober = heroes
    trajs = [_task("t1", "How many villains does the multiverse hold?", BAD),
             _task("t2", "Which villains have blue skin?",
                   "SELECT name FROM hero WHERE alignment = 'Bad' AND skin = 'Blue'")]
    _sigs, cands, _ctx = _synonyms(onto, prober, trajs)
    assert [c.edits[0].label for c in cands] == ["villains"]


def test_a_passed_verified_task_naming_the_value_alike_supports_the_phrase(heroes):
    onto, prober = heroes
    trajs = [_task("t1", "How many villains does the multiverse hold?", BAD),
             _task("t2", "List the villains.", "SELECT name FROM hero WHERE alignment = 'Bad'", passed=True)]
    sigs, cands, _ctx = _synonyms(onto, prober, trajs)
    assert [s.tasks for s in sigs] == [("t1",)]  # only the failed task is diagnosed
    assert [c.edits[0].label for c in cands] == ["villains"]


def test_a_phrase_a_question_without_the_value_uses_names_nothing(heroes):
    onto, prober = heroes
    trajs = [_task("t1", "How many villains are there?", BAD),
             _task("t3", "How many villains and heroes are there?", "SELECT COUNT(*) FROM hero", passed=True)]
    sigs, cands, _ctx = _synonyms(onto, prober, trajs)
    assert [s.key for s in sigs] == ["hero.alignment = Bad"] and cands == []


def test_a_value_the_tools_showed_or_the_question_states_is_no_signature(heroes):
    onto, prober = heroes
    shown = TaskTrajectory("t4", "How many villains are there?", "heroes",
                           [Event("browse", {"q": "villains"}, result=[{"label": "\"hero\".\"alignment\" = 'Bad'"}])],
                           passed=False, score=0.0, reference_sql=BAD)
    stated = _task("t5", "How many heroes are bad?", BAD)
    sigs, cands, _ctx = _synonyms(onto, prober, [shown, stated])
    assert sigs == [] and cands == []


@pytest.mark.parametrize("runs, others, expected", [
    ([["villains"]], [], "villains"),
    ([["villains", "multiverse"]], [], None),
    ([["villains", "multiverse"], ["villains"]], [], "villains"),
    ([["villains", "multiverse"], ["evil villains"]], [], "villains"),
    ([["villains"]], ["How many villains and heroes are there?"], None),
    ([["multiverse"], ["galaxy"]], [], None),
])
def test_value_phrase(runs, others, expected):
    assert value_phrase(runs, others) == expected


def test_a_lookup_tables_value_gets_a_value_term_named_by_the_phrase(tmp_path):
    """A lookup table holds each value once, so the builder makes no value Terms of it: the candidate
    adds the probed value's Evidence and a value Term named by the phrase, and the patched version's
    answer to the phrase carries the value."""
    from evoonto.evolution.edits import AddEvidence, AddValueTerm
    from evoonto.tools.toolkit import OntologyTools

    db = tmp_path / "lookup.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE alignment (id INTEGER PRIMARY KEY, name TEXT)")
        con.execute("CREATE TABLE hero (id INTEGER PRIMARY KEY, hero_name TEXT, "
                    "alignment_id INTEGER REFERENCES alignment(id))")
        con.executemany("INSERT INTO alignment VALUES (?, ?)", [(1, "Good"), (2, "Bad"), (3, "Neutral")])
        con.executemany("INSERT INTO hero VALUES (?, ?, ?)", [(i, f"Hero {i}", 1 + i % 3) for i in range(30)])
    result = build([db], None, validate=False)
    onto = Ontology.from_graphs({**result.graphs, "vocab": vocab_graph()}, base_iri=result.base_iri)
    sql = "SELECT COUNT(*) FROM hero h JOIN alignment a ON h.alignment_id = a.id WHERE a.name = 'Bad'"
    with open_source(str(db)) as source:
        prober = ValueProber({"lookup": source})
        task = TaskTrajectory("t1", "How many villains are there?", "lookup",
                              [Event("browse", {"q": "villains"}, result=[])], passed=False, score=0.0,
                              reference_sql=sql)
        sigs, cands, ctx = _synonyms(onto, prober, [task])
    assert [s.key for s in sigs] == ["alignment.name = Bad"]
    (cand,) = cands
    assert [type(e) for e in cand.edits] == [AddEvidence, AddValueTerm]
    assert cand.edits[1].value == "Bad" and cand.edits[1].alt_labels == ("villains",)
    patched, why = validate_candidate(onto, to_patch(cand, ctx))
    assert why is None, why
    lines = [h["label"] for h in OntologyTools(patched).browse("how many villains are there?", format="compact")]
    assert any("\"alignment\".\"name\"" in line and "= 'Bad'" in line for line in lines[:3]), lines
