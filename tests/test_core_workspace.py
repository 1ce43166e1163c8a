"""Workspace: init/open, commit with validation, rejection log, replay, rollback, locking, bad input."""

from __future__ import annotations

import json
import random

import pytest
import rdflib
from rdflib import Literal
from rdflib.namespace import RDF, SKOS

from evoonto.errors import RDFParseError, ShapeViolationError, WorkspaceError
from evoonto.fileio import WriterLock
from evoonto.namespaces import EVO, GRAPH_NAMES
from evoonto.patch import Patch, PatchError
from evoonto.records import Mapping
from evoonto.workspace import Workspace
from fixtures.core_support import finance_workspace, term_patch


def state(onto) -> dict:
    return {name: set(onto.store.triples(name)) for name in GRAPH_NAMES}


def files(path) -> dict:
    return {p.relative_to(path).as_posix(): p.read_bytes()
            for p in path.rglob("*") if p.is_file() and p.name != ".lock"}


@pytest.fixture
def ws(tmp_path):
    return finance_workspace(tmp_path / "ws")


def test_init_creates_layout_and_refuses_existing(tmp_path):
    ws = Workspace.init(tmp_path / "new")
    assert ws.version == 0 and ws.name == "new"
    assert ws.base_iri == "https://example.org/evoonto/new/"
    for name in ("config.json", "base.trig", "patches", "trajectories", "runs"):
        assert (tmp_path / "new" / name).exists()
    assert ws.ontology.counts()["vocab"] > 300
    with pytest.raises(WorkspaceError, match="already exists"):
        Workspace.init(tmp_path / "new")
    with pytest.raises(WorkspaceError, match="not an absolute IRI"):
        Workspace.init(tmp_path / "bad", base_iri="relative/")
    assert not (tmp_path / "bad").exists()


def test_open_errors(tmp_path):
    with pytest.raises(WorkspaceError, match="no workspace"):
        Workspace.open(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(WorkspaceError, match="config.json is missing"):
        Workspace.open(tmp_path / "empty")
    Workspace.init(tmp_path / "w")
    (tmp_path / "w" / "config.json").write_text("{not json")
    with pytest.raises(WorkspaceError, match="malformed JSON"):
        Workspace.open(tmp_path / "w")


def test_malformed_trig_names_file_and_line(ws):
    ws.commit(term_patch(ws, "ebitda"))
    patch_file = next((ws.path / "patches").glob("0001-*.trig"))
    lines = patch_file.read_text().splitlines()
    lines.insert(len(lines) - 1, "<a> <b> \"unterminated .")
    patch_file.write_text("\n".join(lines) + "\n")
    with pytest.raises(RDFParseError) as err:
        Workspace.open(ws.path)
    assert str(patch_file) in str(err.value) and f":{len(lines) - 1}" in str(err.value)


def test_commit_applies_and_reopens_identically(ws):
    v = ws.commit(term_patch(ws, "ebitda", signature="missing term", intervention="add EBITDA"),
                  metadata={"parent_score": 0.5, "candidate_score": 0.6, "round": 2})
    assert v == 1 == ws.version == ws.ontology.version
    rows = ws.ontology.query("SELECT ?l WHERE { ?t skos:prefLabel ?l FILTER(str(?l) = 'Ebitda') }")
    assert len(rows) == 1
    again = Workspace.open(ws.path)
    assert again.version == 1 and state(again.ontology) == state(ws.ontology)
    entry = again.log()[0]
    assert (entry.decision, entry.version, entry.parent_version, entry.level) == ("accepted", 1, 0, "content")
    assert entry.scores == {"parent_score": 0.5, "candidate_score": 0.6} and entry.metadata == {"round": 2}
    assert entry.intervention == "add EBITDA"
    hist = again.ontology.query("ASK { ?v prov:wasRevisionOf ?p ; evo:versionNumber 1 . "
                                "?g prov:generated ?v ; evo:decision 'accepted' }")
    assert hist is True


def test_invalid_commit_changes_nothing(ws):
    before_files, before_state = files(ws.path), state(ws.ontology)
    iris = ws.iris
    bad = Mapping(iris.mapping("finance", "fact_cost", "ghost"), iris.term("finance", "cost"),
                  iris.source("finance"), iris.table("finance", "fact_cost"),
                  iris.column("finance", "fact_cost", "ghost"))
    with pytest.raises(ShapeViolationError) as err:
        ws.commit(Patch.from_graphs("content", {"content": bad.to_graph()}))
    assert "evo:column" in str(err.value) and err.value.report.violations
    assert files(ws.path) == before_files and state(ws.ontology) == before_state and ws.version == 0


def test_removing_a_referenced_node_is_caught(ws):
    cost = ws.iris.term("finance", "cost")
    triples = set(ws.store.triples("content"))
    removal = {t for t in triples if t[0] == cost}
    with pytest.raises(ShapeViolationError):
        ws.commit(Patch.from_graphs("content", removals={"content": removal}))
    assert ws.version == 0


def test_patch_level_and_blank_node_rules(ws):
    g = rdflib.Graph()
    g.add((ws.iris.tools("browse"), RDF.type, EVO.BrowseSettings))
    with pytest.raises(PatchError, match="one level"):
        Patch.from_graphs("content", {"content": term_patch(ws, "x").additions["content"], "tools": g})
    with pytest.raises(PatchError, match="unknown patch level"):
        Patch.from_graphs("contents", {"content": g})
    with pytest.raises(PatchError, match="history"):
        Patch.from_graphs("content", {"history": g})
    with pytest.raises(PatchError, match="blank node"):
        Patch.from_graphs("content", {"content": [(ws.iris.term("x"), SKOS.related, rdflib.BNode())]})
    p = term_patch(ws, "x")
    ws.commit(p)
    with pytest.raises(PatchError, match="already exists"):
        ws.commit(p)
    with pytest.raises(PatchError, match="changes nothing"):
        ws.commit(Patch.from_graphs("content", {"content": p.additions["content"]}))


@pytest.mark.slow
def test_tool_and_schema_patches(ws):
    g = rdflib.Graph()
    settings = ws.iris.tools("browse")
    g.add((settings, RDF.type, EVO.BrowseSettings))
    g.add((settings, EVO.defaultResults, Literal(5)))
    assert ws.commit(Patch.from_graphs("tool", {"tools": g})) == 1
    bad = rdflib.Graph()
    bad.add((settings, EVO.maxResults, Literal(0)))
    with pytest.raises(ShapeViolationError):
        ws.commit(Patch.from_graphs("tool", {"tools": bad}))
    # schema patch: a new relation type is data in the vocab graph (full validation runs)
    new_type = rdflib.URIRef(str(EVO) + "TemporalDependency")
    schema = rdflib.Graph()
    schema.add((new_type, RDF.type, EVO.RelationType))
    schema.add((new_type, EVO.directProperty, SKOS.related))
    assert ws.commit(Patch.from_graphs("schema", {"vocab": schema})) == 2
    assert (new_type, RDF.type, EVO.RelationType) in ws.ontology.graph("vocab")


def test_record_rejected_is_logged_not_applied(ws):
    p = term_patch(ws, "churn", signature="sig", intervention="add churn")
    before = state(ws.ontology)["content"]
    ws.record_rejected(p, metadata={"parent_score": 0.7, "candidate_score": 0.69})
    ws.record_rejected(term_patch(ws, "bad"), metadata={"decision": "invalid"})
    assert ws.version == 0 and state(ws.ontology)["content"] == before
    again = Workspace.open(ws.path)
    assert [e.decision for e in again.log()] == ["rejected", "invalid"]
    assert p.fingerprint in again.rejected_fingerprints()
    assert again.version == 0
    with pytest.raises(WorkspaceError, match="unknown gate decision"):
        ws.record_rejected(term_patch(ws, "z"), metadata={"decision": "maybe"})


@pytest.mark.slow
def test_replay_reproduces_every_version(ws):
    rng = random.Random(7)
    states = {0: state(ws.ontology)}
    terms = []
    for i in range(12):
        if terms and rng.random() < 0.3:
            victim = terms.pop(rng.randrange(len(terms)))
            rem = {t for t in ws.store.triples("content") if t[0] == victim}
            patch = Patch.from_graphs("content", removals={"content": rem})
        elif terms and rng.random() < 0.3:
            target = rng.choice(terms)
            old = {t for t in ws.store.triples("content") if t[0] == target and t[1] == SKOS.prefLabel}
            new = {(target, SKOS.prefLabel, Literal(f"renamed {i}", lang="en"))}
            patch = Patch.from_graphs("content", {"content": new}, {"content": old})
        else:
            patch = term_patch(ws, f"t{i}", f"Term {i} \"quoted\"\nline")
            terms.append(ws.iris.term("finance", f"t{i}"))
        if rng.random() < 0.2:
            ws.record_rejected(term_patch(ws, f"r{i}"))
        version = ws.commit(patch)
        states[version] = state(ws.ontology)
    reopened = Workspace.open(ws.path)
    assert state(reopened.ontology) == states[reopened.version]
    for version, expected in states.items():
        got = state(reopened.ontology_at(version))
        assert {k: v for k, v in got.items() if k != "history"} == {k: v for k, v in expected.items() if k != "history"}


def test_rollback_restores_state_as_new_version(ws):
    ws.commit(term_patch(ws, "a"))
    ws.commit(term_patch(ws, "b"))
    v1 = {k: v for k, v in state(ws.ontology_at(1)).items() if k != "history"}
    assert ws.rollback(1) == 3
    now = {k: v for k, v in state(ws.ontology).items() if k != "history"}
    assert now == v1
    assert ws.log()[-1].restores == 1 and ws.log()[-1].level == "restore"
    assert Workspace.open(ws.path).version == 3
    with pytest.raises(WorkspaceError):
        ws.rollback(9)
    diff = ws.diff(0, 2)
    assert len(diff.additions["content"]) == 8 and not diff.removals  # 2 Terms, each also a skos:Concept


def test_second_writer_must_reopen(ws):
    other = Workspace.open(ws.path)
    ws.commit(term_patch(ws, "a"))
    with pytest.raises(WorkspaceError, match="changed on disk"):
        other.commit(term_patch(other, "b"))
    assert Workspace.open(ws.path).version == 1


def test_lock_blocks_concurrent_writer(ws):
    with WriterLock(ws.path / ".lock"):
        blocked = WriterLock(ws.path / ".lock", timeout_s=0.2)
        with pytest.raises(WorkspaceError, match="locked by another writer"):
            blocked.__enter__()
    with WriterLock(ws.path / ".lock", timeout_s=0.2):
        pass


def test_replace_base_rules(tmp_path, ws):
    fresh = Workspace.init(tmp_path / "fresh")
    with pytest.raises(WorkspaceError, match="unknown or read-only"):
        fresh.replace_base({"history": rdflib.Graph()})
    g = rdflib.Graph()
    g.add((fresh.iris.term("x"), RDF.type, EVO.Term))  # no prefLabel
    with pytest.raises(ShapeViolationError):
        fresh.replace_base({"content": g})
    bn = rdflib.Graph()
    bn.add((fresh.iris.term("x"), SKOS.related, rdflib.BNode()))
    with pytest.raises(WorkspaceError, match="blank node"):
        fresh.replace_base({"content": bn})
    assert Workspace.open(tmp_path / "fresh").ontology.counts()["content"] == 2
    ws.commit(term_patch(ws, "a"))
    with pytest.raises(WorkspaceError, match="patch"):
        ws.replace_base({"content": rdflib.Graph()})


def test_settings_round_trip(ws):
    ws.set_setting("backbone", "retrieval")
    assert Workspace.open(ws.path).settings == {"backbone": "retrieval"}
    assert json.loads((ws.path / "config.json").read_text())["base_iri"] == ws.base_iri


def test_inconsistent_files_are_reported(ws):
    ws.commit(term_patch(ws, "a"))
    ws.commit(term_patch(ws, "b"))
    first = next((ws.path / "patches").glob("0001-*.trig"))
    first.unlink()  # version 2 now follows the base directly
    with pytest.raises(WorkspaceError, match="claims version 2"):
        Workspace.open(ws.path)
    base = ws.path / "base.trig"
    base.write_text(base.read_text() + "\n<https://example.org/other-graph> { <urn:a> <urn:b> <urn:c> . }\n")
    with pytest.raises(WorkspaceError, match="unexpected graph"):
        Workspace.open(ws.path)


def test_init_with_graphs_creates_version_0_in_one_step(tmp_path):
    """``Workspace.init(graphs=…)`` writes a builder's base atomically: a refused base leaves nothing."""
    source = Workspace.init(tmp_path / "a", name="a", base_iri="https://example.org/evoonto/b/")
    source.commit(term_patch(source, "k1"))
    content = source.ontology.graph("content")
    made = Workspace.init(tmp_path / "b", name="b", graphs={"content": content})
    assert made.version == 0 and not made.log()
    reopened = Workspace.open(tmp_path / "b")
    assert set(reopened.ontology.graph("content")) == set(content)
    broken = rdflib.Graph()
    broken.add((rdflib.BNode(), RDF.type, SKOS.Concept))
    with pytest.raises(WorkspaceError, match="blank node"):
        Workspace.init(tmp_path / "c", graphs={"content": broken})
    with pytest.raises(WorkspaceError, match="unknown or read-only"):
        Workspace.init(tmp_path / "c", graphs={"history": content})
    assert not (tmp_path / "c").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_atomic_write_chunk_error_leaves_no_temp_file(tmp_path):
    from evoonto.fileio import atomic_write

    target = tmp_path / "base.trig"
    target.write_bytes(b"old\n")

    def chunks():
        yield b"new part one\n"
        raise ValueError("serializer failed half-way")

    with pytest.raises(ValueError, match="half-way"):
        atomic_write(target, chunks())
    assert target.read_bytes() == b"old\n"  # the target is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base.trig"]  # and no temp file is left
    atomic_write(target, iter([b"a", b"b"]))
    assert target.read_bytes() == b"ab"
