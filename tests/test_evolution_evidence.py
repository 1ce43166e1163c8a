"""Issue 29, items 2 and 3: content from evidence, not from letters, and a gate that works with a
team's few verified queries.

* A failed task's own record (its verified SQL, the agent's SQL or a feedback note such as "should use
  dest, not origin") names the column the tools never showed it; the candidates join that column with
  the question words that linked to nothing, or record the literal the SQL compared it with once a
  probe finds it stored. Each candidate lists the tasks it is meant to fix.
* Leave-the-source-out: a candidate is gated on every question of V that did not produce it.
"""

from __future__ import annotations

from evoonto.evolution.attribute import attribute
from evoonto.evolution.candidates import propose
from evoonto.evolution.diagnose import diagnose, note_columns
from evoonto.evolution.edits import AddEvidence, AddSynonym
from evoonto.evolution.probes import ValueProber
from evoonto.evolution.trajectories import Event, TaskTrajectory
from evoonto.evolution.view import OntologyView
from fixtures.evolution_toy import IRIS, ToyQuestion, ToySource, make_database, toy_ontology


def _failed(task, question, *, sql=None, notes=(), shown=("singer-name",)):
    result = [{"id": str(IRIS.term("toy", t))} for t in shown]
    return TaskTrajectory(task, question, "toy", [Event("browse", {"q": question}, result=result)],
                          passed=False, score=0.0, reference_sql=sql, notes=tuple(notes))


def test_the_tasks_verified_sql_names_the_column_and_the_unlinked_word_becomes_its_synonym(tmp_path):
    view = OntologyView(toy_ontology())
    prober = ValueProber({"toy": ToySource(make_database(tmp_path / "toy.sqlite"))})
    trajs = [_failed("t1", "How many performers hail from Netherlands?",
                     sql="SELECT count(*) FROM singer WHERE Country = 'Netherlands'"),
             _failed("t2", "Which performers hail from the United States?",
                     sql="SELECT Name FROM singer AS s WHERE s.Country = 'United States'")]
    sigs = [s for s in diagnose(trajs, view, prober=prober, kinds=("unused_column",))]
    assert [(s.key, s.tasks) for s in sigs] == [("singer.Country", ("t1", "t2"))]
    assert set(sigs[0].detail("values")) == {"Netherlands", "United States"}
    cands = propose(attribute(sigs[0], view), view, prober=prober)
    evidence = [c for c in cands if isinstance(c.edits[0], AddEvidence)]
    assert evidence and evidence[0].edits[0].sample_values in (("Netherlands",), ("United States",))
    synonyms = [c.edits[0] for c in cands if isinstance(c.edits[0], AddSynonym)]
    country = str(IRIS.term("toy", "singer-country"))
    # the words both tasks asked and that linked to nothing come first, on the column their SQL used
    assert synonyms and {s.term for s in synonyms} == {country}
    assert [s.label for s in synonyms][:2] == ["hail", "performers"]


def test_a_column_the_tools_showed_is_no_candidate():
    view = OntologyView(toy_ontology())
    traj = _failed("t1", "How many singers per country?", sql="SELECT Country, count(*) FROM singer GROUP BY Country",
                   shown=("singer-country",))
    assert diagnose([traj], view, kinds=("unused_column",)) == []


def test_a_feedback_note_names_the_column_to_use_not_the_one_to_avoid():
    view = OntologyView(toy_ontology())
    cols = [c for c in view.columns if c.source_id == "toy"]
    assert note_columns("should use Country, not Name", cols) == {("singer", "Country")}
    traj = _failed("t9", "Where are the singers from?", notes=("wrong: should use singer.Country, not Name",))
    sigs = diagnose([traj], view, kinds=("unused_column",))
    assert [(s.key, s.tasks) for s in sigs] == [("singer.Country", ("t9",))]


def test_a_benchmark_trajectory_carries_no_sql_so_no_column_is_read_from_gold():
    view = OntologyView(toy_ontology())
    traj = _failed("t1", "How many performers hail from Netherlands?")  # no reference SQL, no notes
    assert diagnose([traj], view, kinds=("unused_column",)) == []


def test_leave_the_source_out_gates_a_candidate_on_the_rest_of_v():
    from evoonto.evolution.candidates import Candidate
    from evoonto.evolution.loop import Member, sources_in_v
    from fixtures.evolution_toy import FakeWorkspace

    qs = [ToyQuestion("v1", "Who is the youngest singer?"), ToyQuestion("v2", "List every concert."),
          ToyQuestion("v3", "who is the YOUNGEST singer?")]
    member = Member("m", FakeWorkspace(toy_ontology()), qs, qs)
    cand = Candidate("s", "x", "content", (AddSynonym(str(IRIS.term("toy", "singer-age")), "youngest"),), tasks=("v1",))
    assert sources_in_v(member, cand) == {"v1", "v3"}  # the task itself and the same question asked again
    assert sources_in_v(member, Candidate("s", "x", "content", cand.edits)) == set()
    # a saving is produced by no failure: its (passed) tasks stay in V, which must show it keeps them
    from evoonto.evolution.candidates import merge
    from evoonto.evolution.edits import SetToolSetting

    saving = Candidate("a", "x", "tool", (SetToolSetting("browse.answerBudget", 3000),), tasks=("v2",), aim="cost")
    assert sources_in_v(member, saving) == set()
    weight = Candidate("b", "y", "tool", (SetToolSetting("browse.hitsPerColumn", 1),), tasks=("v1",))
    bundled = merge([saving, weight])
    assert bundled.aim == "score" and bundled.tasks == ("v1",) and sources_in_v(member, bundled) == {"v1", "v3"}
