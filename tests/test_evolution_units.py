"""Unit tests of the evolution pieces on toy data: gate statistics, trajectories, diagnosis,
attribution, edits/candidates and fingerprints."""

from __future__ import annotations

import json
import re

import pytest
from rdflib import Literal
from rdflib.namespace import SKOS

from evoonto.errors import ConfigurationError, WorkloadError
from evoonto.evolution.attribute import attribute
from evoonto.evolution.candidates import Candidate, CandidateError, merge, propose
from evoonto.evolution.diagnose import Signature, diagnose
from evoonto.evolution.edits import (AddEvidence, AddManifestNote, AddRelation, AddRelationType, AddSynonym,
                                     DeprecateTerm, EditContext, EditError, ModifyTerm, SetToolSetting)
from evoonto.evolution.gate import Gate, GateConfig, compare, paired_bootstrap, sign_test
from evoonto.evolution.probes import ValueProber
from evoonto.evolution.trajectories import Event, TaskTrajectory, group_events, read_log
from evoonto.evolution.view import OntologyView
from evoonto.namespaces import EVO
from fixtures.evolution_toy import IRIS, ToySource, make_database, toy_ontology


@pytest.fixture()
def onto():
    return toy_ontology()


@pytest.fixture()
def view(onto):
    return OntologyView(onto)


@pytest.fixture()
def prober(tmp_path):
    return ValueProber({"toy": ToySource(make_database(tmp_path / "toy.sqlite"))})


# ---------------------------------------------------------------- gate

def test_sign_test_exact_values():
    assert sign_test(0, 0) == 1.0
    assert sign_test(1, 0) == 0.5
    assert sign_test(3, 0) == pytest.approx(0.125)
    assert sign_test(5, 1) == pytest.approx(7 / 64)
    assert sign_test(0, 3) == 1.0


def test_paired_bootstrap_is_seeded_and_directional():
    diffs = [1.0] * 6 + [0.0] * 20
    assert paired_bootstrap(diffs, resamples=500, seed=1) == paired_bootstrap(diffs, resamples=500, seed=1)
    assert paired_bootstrap(diffs, resamples=500, seed=1) < 0.05
    assert paired_bootstrap([-1.0, 0.0, 0.0], resamples=200, seed=1) == 1.0


def test_compare_accepts_supported_gain_and_rejects_losses():
    parent = {f"q{i}": 0.0 for i in range(10)}
    better = dict(parent, q1=1.0, q2=1.0, q3=1.0)
    d = compare(parent, better, GateConfig(tau=0.01, alpha=0.25))
    assert d.accepted and d.wins == 3 and d.losses == 0 and d.gain == pytest.approx(0.3)
    worse = dict(better, q4=-0.0)
    harmful = {k: (0.0 if k in ("q1", "q2", "q3") else v) for k, v in better.items()}
    d = compare(better, harmful, GateConfig())
    assert d.decision == "rejected" and d.losses == 3 and "margin" in d.reason
    # a gain carried by one question out of two changed is not supported by the sign test
    mixed = dict(parent, q1=1.0, q2=1.0, q3=1.0, q4=0.0)
    base = dict(parent, q4=1.0)
    d = compare(base, mixed, GateConfig(tau=0.0, alpha=0.25, test="sign"))
    assert d.wins == 3 and d.losses == 1 and d.decision == "rejected" and "paired test" in d.reason
    assert worse  # same V, untouched


def test_compare_no_gate_ablation_accepts_anything_and_needs_same_v():
    d = compare({"a": 1.0}, {"a": 0.0}, GateConfig(enabled=False))
    assert d.accepted and d.gain == -1.0 and "disabled" in d.reason
    with pytest.raises(ConfigurationError):
        compare({"a": 1.0}, {"b": 1.0}, GateConfig())
    with pytest.raises(ConfigurationError):
        GateConfig(test="t-test")
    with pytest.raises(ConfigurationError):
        GateConfig(alpha=0)


def test_gate_caches_parent_scores_per_parent_and_backbone():
    calls = []

    def score(onto):
        calls.append(onto)
        return {"a": 1.0 if onto == "child" else 0.0, "b": 1.0 if onto == "child" else 0.0}

    gate = Gate(score, backbone_key="bb", config=GateConfig(tau=0.1, alpha=0.3))
    assert gate.evaluate(0, "parent", "child").accepted
    assert gate.evaluate(0, "parent", "child2").decision == "rejected"
    assert calls.count("parent") == 1 and gate.scorings == 3
    gate.evaluate(1, "parent", "child")  # a new parent version is scored again
    assert calls.count("parent") == 2


# ---------------------------------------------------------------- trajectories

def test_group_events_by_task_with_verdicts(tmp_path):
    log = tmp_path / "t.jsonl"
    events = [
        {"session": "s1", "task": "q1", "seq": 0, "tool": "browse", "arguments": {"q": "age"},
         "result_ids": ["term/toy/singer-age"], "ts": "2026-01-01T00:00:00.000Z", "error": None},
        {"session": "s2", "task": "q2", "seq": 0, "tool": "run_sql", "arguments": {"sql": "SELECT 1"},
         "error": "no such column: agee"},
        {"session": "s1", "task": "q1", "seq": 1, "tool": "resolve", "arguments": {"ids": ["x"]}},
        {"tool": "browse"},  # no task: dropped
    ]
    log.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    trajs = group_events(read_log(log), {"q1": True, "q2": 0.5, "q3": False},
                         questions={"q1": "How old?", "q3": "Unasked"})
    assert [t.task_id for t in trajs] == ["q1", "q2", "q3"]
    q1, q2, q3 = trajs
    assert [e.tool for e in q1.events] == ["browse", "resolve"] and q1.passed and q1.question == "How old?"
    assert q1.events[0].result_ids == ("term/toy/singer-age",)
    assert q2.failed and q2.score == 0.5 and q2.events[0].error
    assert q3.events == [] and q3.failed


def test_read_log_errors_name_the_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"tool": "browse"}\nnot json\n')
    with pytest.raises(WorkloadError, match=":2:"):
        read_log(bad)
    with pytest.raises(WorkloadError, match="not found"):
        read_log(tmp_path / "missing.jsonl")


# ---------------------------------------------------------------- diagnosis

def _failed(task, question, result, **kw):
    return TaskTrajectory(task, question, "toy", [Event("browse", {"q": question}, result)], passed=False, **kw)


def test_diagnose_unlinked_phrases_ranked_by_frequency(view):
    hits = [{"id": "term/toy/singer-name", "label": "Singer name"}]
    trajs = [_failed("q1", "Who is the youngest singer?", hits),
             _failed("q2", "Name the youngest singers.", hits),
             _failed("q3", "Which stadium is biggest?", hits),
             TaskTrajectory("q4", "Who is the youngest?", "toy", [], passed=True)]
    sigs = diagnose(trajs, view, kinds=("unlinked_phrase",))
    assert sigs[0].key == "youngest" and sigs[0].tasks == ("q1", "q2") and sigs[0].frequency == 2
    keys = [s.key for s in sigs]
    assert "singer" not in keys and "singers" not in keys  # linked by the surfaced label
    assert {"stadium", "biggest"} <= set(keys)
    assert sigs[0].id == "unlinked_phrase:toy:youngest"


def test_diagnose_missing_value_by_new_probe(view, prober):
    trajs = [_failed("q1", "How many singers are from France?", [])]
    sigs = diagnose(trajs, view, prober=prober, kinds=("missing_value",))
    assert [s.key for s in sigs] == ["france"]
    table, column, value, query, rows = sigs[0].detail("hits")[0]
    assert (table, column, value, rows) == ("singer", "Country", "France", 4)
    assert query.startswith("SELECT") and "France" in query
    # a value already in Evidence is not a signature
    assert diagnose(trajs, view, kinds=("missing_value",)) == []


def test_diagnose_agent_signatures(view):
    sql = "SELECT T1.Name FROM singer AS T1 JOIN concert AS T2 ON T1.Singer_ID = T2.Singer_ID"
    traj = TaskTrajectory("q1", "Names of singers with concerts", "toy", [
        Event("run_sql", {"sql": "SELECT agee FROM singer"}, error="no such column: agee"),
        Event("browse", {"q": "x"}), Event("browse", {"q": "x"}), Event("browse", {"q": "x"}),
        Event("run_sql", {"sql": sql})], passed=False, final_sql=sql)
    kinds = {s.kind: s for s in diagnose([traj], view, kinds=("guessed_join", "repeated_probe", "unknown_column"))}
    assert kinds["unknown_column"].key == "agee"
    assert kinds["guessed_join"].key == "concert.singer_id = singer.singer_id"
    assert kinds["repeated_probe"].detail("times") == 3


# ---------------------------------------------------------------- attribution

def test_attribution_levels(view):
    def sig(kind):
        return Signature(kind, "k", "toy", ("q1",))
    assert attribute(sig("unlinked_phrase"), view).level == "content"
    assert attribute(sig("missing_value"), view).level == "content"
    assert attribute(sig("guessed_join"), view).level == "content"
    assert attribute(sig("shallow_retrieval"), view).level == "tool"
    assert attribute(sig("repeated_probe"), view).level == "tool"
    assert "value" in attribute(sig("missing_value"), view).reason


# ---------------------------------------------------------------- edits and candidates

def test_edits_compile_to_one_level(onto, view):
    ctx = EditContext(view, IRIS)
    age = str(IRIS.term("toy", "singer-age"))
    out = AddSynonym(age, "how old").compile(ctx)
    assert (IRIS.term("toy", "singer-age"), SKOS.altLabel, Literal("how old", lang="en")) in out.additions["content"]
    mod = ModifyTerm(age, label="Age of singer").compile(ctx)
    assert len(mod.removals["content"]) == 1 and len(mod.additions["content"]) == 1
    dep = DeprecateTerm(age).compile(ctx)
    assert dep.additions["content"][0][1].endswith("deprecated")
    tool = SetToolSetting("browse.defaultResults", 7).compile(ctx)
    assert set(tool.additions) == {"tools"}
    schema = AddRelationType("temporal dependency", "b happens after a").compile(ctx)
    assert set(schema.additions) == {"vocab"}
    rel = AddRelation("Association", str(IRIS.term("toy", "singer")), str(IRIS.term("toy", "concert")),
                      join_condition="singer.Singer_ID = concert.Singer_ID").compile(ctx)
    assert any(p == EVO.joinCondition for _, p, _ in rel.additions["content"])
    with pytest.raises(EditError):
        AddSynonym(str(IRIS.term("toy", "nope")), "x").compile(ctx)
    with pytest.raises(EditError):
        SetToolSetting("browse.colour", 3).compile(ctx)


def test_candidate_levels_fingerprints_and_bisection(view):
    ctx = EditContext(view, IRIS)
    age = str(IRIS.term("toy", "singer-age"))
    with pytest.raises(CandidateError, match="one level"):
        Candidate("s", "mixed", "content", (AddSynonym(age, "old"), AddManifestNote("note")))
    with pytest.raises(CandidateError):
        Candidate("s", "empty", "content", ())
    a = Candidate("s1", "a", "content", (AddSynonym(age, "old"),))
    b = Candidate("s2", "b", "content", (AddSynonym(age, "young"),))
    m = merge([a, b])
    assert len(m.edits) == 2 and m.signature == "s1 | s2"
    assert m.fingerprint(ctx) == merge([a, b]).fingerprint(ctx) != a.fingerprint(ctx)
    h1, h2 = m.split()
    assert h1.edits == a.edits and h2.edits == b.edits and a.split() is None


def test_offline_writer_cue_words_and_value_probes(view, prober):
    sig = Signature("unlinked_phrase", "youngest", "toy", ("q1", "q2"))
    cands = propose(attribute(sig, view), view, prober=prober)
    assert cands and cands[0].edits[0].term == str(IRIS.term("toy", "singer-age"))
    # a word that only shares letters with a stored value is no evidence (French is not 'France' by
    # its first letters); the stored value itself is found by an exact probe
    sig = Signature("unlinked_phrase", "french", "toy", ("q1",))
    assert not any(isinstance(e, AddEvidence) for c in propose(attribute(sig, view), view, prober=prober)
                   for e in c.edits)
    sig = Signature("unlinked_phrase", "france", "toy", ("q1",))
    first = propose(attribute(sig, view), view, prober=prober)[0]
    assert isinstance(first.edits[0], AddEvidence) and first.edits[0].sample_values == ("France",)
    assert len(first.edits) == 1  # the word is the value: no synonym to add
    ctx = EditContext(view, IRIS)
    triples = first.compile(ctx).additions["content"]
    assert any(p == EVO.sampleValue and str(o) == "France" for _, p, o in triples)
    assert any(p == EVO.query for _, p, _ in triples)  # the probe's exact query is kept (PROV)


def test_read_outcomes_accepts_json_lines_and_one_object_and_names_bad_lines(tmp_path):
    from evoonto.errors import WorkloadError
    from evoonto.evolution.trajectories import read_outcomes

    lines = tmp_path / "v.jsonl"
    lines.write_text('{"task": "a", "passed": true}\n\n{"id": "b", "score": 0.5}\n')
    assert read_outcomes(lines) == {"a": True, "b": 0.5}
    whole = tmp_path / "v.json"
    whole.write_text('{"a": false, "b": 1}')
    assert read_outcomes(whole) == {"a": False, "b": 1.0}
    for body, message in (('{"task": "a", "passed": true}\nnot json\n', "v.jsonl:2: not JSON"),
                          ('{"passed": true}\n', "needs a task id"),
                          ('{"task": "a", "score": 3}\n', "score in [0, 1]"),
                          ('[1, 2]\n', "must be a JSON object")):
        lines.write_text(body)
        with pytest.raises(WorkloadError, match=re.escape(message)):
            read_outcomes(lines)
    with pytest.raises(WorkloadError, match="not found"):
        read_outcomes(tmp_path / "missing.jsonl")


def test_cue_word_synonyms_never_target_value_terms():
    from fixtures.evolution_toy import IRIS, toy_ontology

    from evoonto.evolution.view import OntologyView
    from evoonto.records import Mapping, Term

    src, table, column = IRIS.source("toy"), IRIS.table("toy", "singer"), IRIS.column("toy", "singer", "Country")
    term, m = IRIS.term("toy", "singer-country-france"), IRIS.mapping("toy", "singer", "France")
    extra = list(Term(term, "France", kinds=["Category"], mappings=[m]).to_triples())
    extra += list(Mapping(m, term, src, table, column, filter='"Country" = \'France\'').to_triples())
    view = OntologyView(toy_ontology(extra_content=extra))
    assert view.term(term).filtered and not view.term(IRIS.term("toy", "singer-country")).filtered
    sig = Signature("unlinked_phrase", "nation", "toy", ("q1",))
    targets = [c.edits[0].term for c in propose(attribute(sig, view), view)]
    assert str(term) not in targets
    assert str(IRIS.term("toy", "singer-country")) in targets  # 'nation' is a synonym of country
