"""Patch: levels, normalisation against a state, inverse, diff, quads round trip, fingerprints."""

from __future__ import annotations

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import RDF, SKOS

from evoonto.namespaces import EVO, parse_patch_graph
from evoonto.patch import LEVELS, RESTORE_LEVEL, Patch, PatchError
from evoonto.store import OxigraphStore

A, B, C = (URIRef(f"https://example.org/{x}") for x in "abc")


def test_levels_are_one_per_patch():
    assert LEVELS == {"content": ("content", "catalog"), "tool": ("tools",), "schema": ("vocab", "shapes")}
    p = Patch.from_graphs("content", {"content": [(A, RDF.type, EVO.Term)], "catalog": []}, id="p1")
    assert p.targets == ["content"] and len(p) == 1 and p.id == "p1"
    with pytest.raises(PatchError, match="invalid patch id"):
        Patch.from_graphs("content", {"content": [(A, RDF.type, EVO.Term)]}, id="bad id")
    with pytest.raises(PatchError, match="not an RDF triple"):
        Patch.from_graphs("content", {"content": [(Literal("x"), RDF.type, EVO.Term)]})
    restore = Patch.restore({"vocab": [(A, RDF.type, EVO.Term)], "content": [(B, RDF.type, EVO.Term)]}, {},
                            signature="rollback", intervention="restore 1")
    assert restore.level == RESTORE_LEVEL and restore.targets == ["vocab", "content"]


def test_normalized_and_inverse_are_exact():
    store = OxigraphStore()
    store.add([(A, SKOS.related, B), (A, SKOS.related, C)], "content")
    patch = Patch.from_graphs("content",
                              additions={"content": [(A, SKOS.related, B), (B, SKOS.related, C), (C, SKOS.related, A)]},
                              removals={"content": [(A, SKOS.related, C), (C, SKOS.related, C), (C, SKOS.related, A)]})
    eff = patch.normalized(store.contains)
    # (A related B) already present, (C related C) absent, (C related A) removed+re-added and absent
    assert eff.additions == {"content": frozenset({(B, SKOS.related, C), (C, SKOS.related, A)})}
    assert eff.removals == {"content": frozenset({(A, SKOS.related, C)})}
    before = set(store.triples("content"))
    patch.apply_to(store)
    after = set(store.triples("content"))
    eff.inverse().apply_to(store)
    assert set(store.triples("content")) == before
    assert after == {(A, SKOS.related, B), (B, SKOS.related, C), (C, SKOS.related, A)}


def test_diff_quads_round_trip_and_fingerprint():
    old = {"content": {(A, SKOS.related, B)}}
    new = {"content": {(A, SKOS.related, C)}}
    patch = Patch.diff("content", old, new, signature="Wrong join", intervention="Fix join", id="p2")
    assert patch.additions["content"] == {(A, SKOS.related, C)} and patch.removals["content"] == {(A, SKOS.related, B)}
    quads = patch.quads()
    assert {parse_patch_graph(g)[:2] for *_, g in quads} == {("p2", "additions"), ("p2", "removals")}
    again = Patch.from_quads(quads, level="content", signature="Wrong join", intervention="Fix join")
    assert again == patch
    same_edit = Patch.diff("content", old, new, signature=" wrong join", intervention="fix join ", id="p3")
    assert same_edit.fingerprint == patch.fingerprint and same_edit.id != patch.id
    assert Patch.from_graphs("content", {"content": [(A, SKOS.related, C)]}).fingerprint == \
        Patch.from_graphs("content", {"content": [(A, SKOS.related, C)]}).fingerprint
    assert patch.touched_nodes() == {A, B, C} and patch.subjects() == {A}
    with pytest.raises(PatchError, match="two patches"):
        Patch.from_quads(quads + Patch.from_graphs("content", {"content": [(B, RDF.type, EVO.Term)]}, id="px").quads(),
                         level="content")
