"""Defect: the builder writes ``<scheme> skos:hasTopConcept <term>`` / ``<term> skos:topConceptOf
<scheme>`` for every Term without a broader one, but patches did not keep them: a Term added by
evolution was never a top concept, a top concept given a broader Term stayed one, and removing a
Term's own triples left ``<scheme> skos:hasTopConcept <gone>`` dangling. ``Workspace.commit`` now
completes each patch with the top-concept rows its changes call for (``Patch.with_top_concepts``),
so rollback, which restores such a state, is consistent too."""

from __future__ import annotations

import pytest

from rdflib import URIRef
from rdflib.namespace import RDF, SKOS

from evoonto.cli import main
from evoonto.patch import Patch
from evoonto.records import Term
from evoonto.workspace import Workspace


def top_concepts(ws: Workspace) -> tuple[set, set, set]:
    """(hasTopConcept pairs, topConceptOf pairs as (scheme, term), the skos:Concepts) of the active content."""
    content = set(ws.store.triples("content"))
    has = {(s, o) for s, p, o in content if p == SKOS.hasTopConcept}
    of = {(o, s) for s, p, o in content if p == SKOS.topConceptOf}
    concepts = {s for s, p, o in content if p == RDF.type and o == SKOS.Concept}
    return has, of, concepts


def assert_consistent(ws: Workspace) -> set:
    has, of, concepts = top_concepts(ws)
    assert has == of  # the inverse pair always both
    assert {t for _, t in has} <= concepts  # none dangling
    return {t for _, t in has}


@pytest.mark.slow
def test_skos_top_concepts_follow_added_narrowed_removed_terms_and_rollback(tmp_path, shared_data):
    path = tmp_path / "ws"
    Workspace.init(path, base_iri="https://example.org/evoonto/cs/", name="cs")
    db = shared_data / "spider" / "database" / "concert_singer" / "concert_singer.sqlite"
    assert main(["build", "--source", str(db), "--workspace", str(path), "--no-progress"]) == 0
    ws = Workspace.open(path)
    scheme = ws.iris.scheme()
    base_tops = assert_consistent(ws)
    assert base_tops
    # a Term added without a broader one becomes a top concept
    new = Term(ws.iris.term("cs", "attendance_rate"), "Attendance rate", kinds=["Metric"], scheme=scheme)
    ws.commit(Patch.from_graphs("content", {"content": new.to_graph()}))
    assert assert_consistent(ws) == base_tops | {new.iri}
    # given a broader Term, it is not a top concept any more
    broader = sorted(base_tops, key=str)[0]
    ws.commit(Patch.from_graphs("content", {"content": [(new.iri, SKOS.broader, broader)]}))
    assert assert_consistent(ws) == base_tops
    ws.commit(Patch.from_graphs("content", {}, {"content": [(new.iri, SKOS.broader, broader)]}))
    assert assert_consistent(ws) == base_tops | {new.iri}
    # removing the Term's own triples removes the scheme's hasTopConcept row too (no dangling reference)
    own = [t for t in ws.store.triples("content") if t[0] == new.iri]
    ws.commit(Patch.from_graphs("content", {}, {"content": own}))
    assert assert_consistent(ws) == base_tops
    assert not any(o == new.iri for _, _, o in ws.store.triples("content"))
    # rollback restores a consistent state; the patch files hold the extra rows, so a re-open agrees
    ws.rollback(1)
    assert assert_consistent(ws) == base_tops | {new.iri}
    reopened = Workspace.open(path)
    assert assert_consistent(reopened) == base_tops | {new.iri}
    assert (scheme, SKOS.hasTopConcept, URIRef(new.iri)) in set(reopened.store.triples("content"))
