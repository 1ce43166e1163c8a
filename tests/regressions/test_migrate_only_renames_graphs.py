"""Regression: ``evoonto migrate`` only renamed graphs. A workspace built by an older release kept Terms not
asserted ``skos:Concept``, relation nodes not typed ``owl:Axiom``, no concept scheme, a vocabulary without
its ontology header (license, version) and older property declarations, and still validated and pushed.
Now migrate commits a schema patch (packaged vocabulary and shapes) and a content patch (types, scheme)."""

from __future__ import annotations

import rdflib
from rdflib.namespace import OWL, RDF, SKOS

from evoonto.builder import build, write_workspace
from evoonto.builder.upgrade import upgrade_patches
from evoonto.cli import main
from evoonto.namespaces import EVO
from evoonto.patch import Patch
from evoonto.validation import validate
from evoonto.workspace import Workspace
from fixtures.sources_support import make_shop_db

HEADER = rdflib.URIRef("https://w3id.org/evoonto/ns")


def _built(tmp_path) -> Workspace:
    result = build([str(make_shop_db(tmp_path))], None, base_iri="https://example.org/shop/")
    write_workspace(result, tmp_path / "ws")
    return Workspace.open(tmp_path / "ws")


def _make_it_old(ws: Workspace) -> None:
    """Remove what newer releases write, as an older builder would have left it."""
    content = ws.ontology.graph("content")
    old = [(t, RDF.type, SKOS.Concept) for t in content.subjects(RDF.type, EVO.Term)]
    old += [(r, RDF.type, OWL.Axiom) for r in content.subjects(RDF.type, EVO.Relation)]
    old += [t for t in content if t[1] in (SKOS.inScheme, SKOS.hasTopConcept, SKOS.topConceptOf)
            or (t[1] == RDF.type and t[2] == SKOS.ConceptScheme) or t[0] == ws.iris.scheme()]
    ws.commit(Patch.from_graphs("content", removals={"content": old}))
    vocab = ws.ontology.graph("vocab")
    header = list(vocab.triples((HEADER, None, None)))
    typed = [(EVO.relationType, RDF.type, OWL.AnnotationProperty)]
    ws.commit(Patch.from_graphs("schema", {"vocab": [(EVO.relationType, RDF.type, OWL.ObjectProperty)]},
                                {"vocab": header + typed}))


def test_a_current_workspace_needs_no_upgrade(tmp_path):
    ws = _built(tmp_path)
    assert upgrade_patches(ws.ontology, ws.iris) == []


def test_migrate_upgrades_content_vocabulary_and_shapes(tmp_path, capsys):
    ws = _built(tmp_path)
    _make_it_old(ws)
    old = Workspace.open(ws.path).ontology
    assert not any(True for _ in old.graph("content").subjects(RDF.type, SKOS.Concept))
    assert main(["migrate", "--workspace", str(ws.path)]) == 0
    out = capsys.readouterr().out
    assert "schema patch" in out and "content patch" in out
    new = Workspace.open(ws.path)
    content = new.ontology.graph("content")
    terms = set(content.subjects(RDF.type, EVO.Term))
    assert terms and all((t, RDF.type, SKOS.Concept) in content for t in terms)
    assert all((r, RDF.type, OWL.Axiom) in content for r in content.subjects(RDF.type, EVO.Relation))
    assert (new.iris.scheme(), RDF.type, SKOS.ConceptScheme) in content
    assert any(True for _ in content.objects(new.iris.scheme(), SKOS.hasTopConcept))
    vocab = new.ontology.graph("vocab")
    assert (HEADER, RDF.type, OWL.Ontology) in vocab
    assert set(vocab.objects(EVO.relationType, RDF.type)) == {OWL.AnnotationProperty}
    assert validate(new.ontology).conforms
    assert upgrade_patches(new.ontology, new.iris) == []
    # the upgrade is history like any change: two new versions, and a second run changes nothing
    assert new.version == 4  # 0 built, 1-2 made old, 3-4 the upgrade
    assert main(["migrate", "--workspace", str(ws.path)]) == 0
    assert "nothing to upgrade" in capsys.readouterr().out
    assert Workspace.open(ws.path).version == new.version
