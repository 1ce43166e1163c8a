"""Tool settings in evolution: fraction-valued settings (evo:fuzzyWeight), and one batch slot for a
Tool candidate that several signatures of a member share."""

from __future__ import annotations

import pytest
from rdflib import Literal

from evoonto.evolution.attribute import attribute
from evoonto.evolution.candidates import propose
from evoonto.evolution.diagnose import Signature
from evoonto.evolution.edits import EditContext, EditError, SetToolSetting
from evoonto.evolution.view import OntologyView
from evoonto.namespaces import EVO
from fixtures.evolution_toy import IRIS, toy_ontology


@pytest.fixture()
def view():
    # the verbose answer, whose depth is browse.defaultResults (the compact default's depth is its budget:
    # tests/test_evolution_answer_size.py)
    return OntologyView(toy_ontology(answer_format="verbose"))


def test_fraction_settings_compile_and_reject_bad_values(view):
    ctx = EditContext(view, IRIS)
    out = SetToolSetting("browse.fuzzyWeight", 0.2).compile(ctx)
    assert any(p == EVO.fuzzyWeight and o == Literal(0.2) for _, p, o in out.additions["tools"])
    counts = SetToolSetting("browse.defaultResults", 7).compile(ctx)
    assert any(p == EVO.defaultResults and o == Literal(7) for _, p, o in counts.additions["tools"])
    for setting, value in (("browse.fuzzyWeight", 1.5), ("browse.fuzzyWeight", -0.1),
                           ("browse.defaultResults", 2.5), ("browse.defaultResults", 0),
                           ("browse.fuzzyWeight", "much"), ("browse.colour", 1)):
        with pytest.raises(EditError):
            SetToolSetting(setting, value).compile(ctx)


def test_a_shared_tool_alternative_takes_one_batch_slot(view):
    from evoonto.evolution.loop import Member, _batch

    ctx = EditContext(view, IRIS)
    a, b = Member("a", None, [], []), Member("b", None, [], [])
    sigs = [Signature("shallow_retrieval", key, None, ("q1",)) for key in ("x", "y", "z")]
    proposals = [(-3, rank, "a", a, propose(attribute(sig, view), view)) for rank, sig in enumerate(sigs)]
    proposals.append((-1, 0, "b", b, propose(attribute(sigs[0], view), view)))
    chosen = _batch(proposals, {"a": ctx, "b": ctx}, batch_size=2)
    # member a's three signatures share one candidate; the second slot goes to member b
    assert [m.key for m, _ in chosen] == ["a", "b"]
    assert chosen[0][1].edits == chosen[1][1].edits and chosen[0][1].level == "tool"


def test_shallow_retrieval_proposes_deeper_browse_steps_first_then_field_weights(view):
    from evoonto.evolution.candidates import DEPTH_STEPS
    from evoonto.evolution.edits import SetFieldWeight

    sig = Signature("shallow_retrieval", "browse-depth", None, ("q1", "q2"))
    alternatives = propose(attribute(sig, view), view)
    current, ceiling = view.browse_counts
    assert (current, ceiling) == (8, 50)  # the tool layer's defaults: the toy sets neither
    depth = [c.edits[0].value for c in alternatives if isinstance(c.edits[0], SetToolSetting)]
    assert depth == [min(current + step, ceiling) for step in DEPTH_STEPS]
    assert all(c.level == "tool" for c in alternatives)
    assert isinstance(alternatives[len(depth)].edits[0], SetFieldWeight)


def test_cut_off_browse_answers_are_diagnosed_as_shallow_retrieval(view):
    from evoonto.evolution.diagnose import diagnose
    from evoonto.evolution.trajectories import Event, TaskTrajectory

    def traj(task, shown, passed=False, n=None):
        args = {"q": "zyxwv qwerty", "kind": "term", **({} if n is None else {"n": n})}
        return TaskTrajectory(task, "zyxwv qwerty", "db", [Event("browse", args, result=[{"id": f"x{i}"}
                                                                                     for i in range(shown)])],
                              passed=passed)

    # the words are unlinked (nothing surfaced mentions them), yet a full answer means more was ranked
    sigs = diagnose([traj("full", 8), traj("short", 3), traj("full-n", 5, n=5), traj("ok", 8, passed=True)],
                    view, kinds=("shallow_retrieval",))
    assert [(s.kind, s.tasks) for s in sigs] == [("shallow_retrieval", ("full", "full-n"))]


def test_crowded_browse_answers_are_diagnosed_and_answered_by_result_collapsing():
    from evoonto.evolution.candidates import COLLAPSE_STEPS
    from evoonto.evolution.diagnose import diagnose
    from evoonto.evolution.trajectories import Event, TaskTrajectory
    from evoonto.records import Mapping, Term

    # two value Terms of singer.Country besides the column's own Term: three Terms on one column
    extra = []
    src, table, column = IRIS.source("toy"), IRIS.table("toy", "singer"), IRIS.column("toy", "singer", "Country")
    for value in ("France", "Japan"):
        term, m = IRIS.term("toy", f"singer-country-{value.lower()}"), IRIS.mapping("toy", "singer", value)
        extra += list(Term(term, value, kinds=["Category"], mappings=[m]).to_triples())
        extra += list(Mapping(m, term, src, table, column).to_triples())
    view = OntologyView(toy_ontology(extra_content=extra))
    country = [str(t.iri) for t in view.terms_at("toy", "singer", "Country")]
    assert len(country) == 3
    age = str(IRIS.term("toy", "singer-age"))

    def traj(task, ids, passed=False):
        return TaskTrajectory(task, "French singers by age", "toy",
                              [Event("browse", {"q": "French singers by age"}, result=[{"id": i} for i in ids])],
                              passed=passed)

    short_ids = [i.split("/", 3)[-1] for i in country]  # ids without the base, as a short-id tool prints them
    sigs = diagnose([traj("crowded", country + [age]), traj("short-ids", short_ids),
                     traj("spread", country[:2] + [age]), traj("passed", country, passed=True)],
                    view, kinds=("crowded_retrieval",))
    assert [(s.kind, s.tasks) for s in sigs] == [("crowded_retrieval", ("crowded", "short-ids"))]
    alternatives = propose(attribute(sigs[0], view), view)
    assert [c.edits[0] for c in alternatives] == [SetToolSetting("browse.hitsPerColumn", n) for n in COLLAPSE_STEPS]
    assert all(c.level == "tool" for c in alternatives)
    compiled = alternatives[0].edits[0].compile(EditContext(view, IRIS))
    assert any(p == EVO.hitsPerColumn and o == Literal(1) for _, p, o in compiled.additions["tools"])
    with pytest.raises(EditError):
        SetToolSetting("browse.hitsPerColumn", -1).compile(EditContext(view, IRIS))
