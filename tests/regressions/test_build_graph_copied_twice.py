"""Regression (issue 19): writing a build copied its rdflib graphs into a new Oxigraph store although
the build's SHACL validation had made one already (and converted every IRI anew: the IRI cache of
``to_ox`` was looked up with the URIRef, whose Python hash never matches its str key). The validated
store now becomes the workspace store; the written base must be exactly what the plain copy gives."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.sources_support import make_shop_db
from rdflib import BNode, URIRef

from evoonto.builder import build, write_workspace
from evoonto.errors import WorkspaceError
from evoonto.namespaces import GRAPH_NAMES
from evoonto.store import to_ox
from evoonto.workspace import Workspace


def test_build_graph_copied_twice_written_base_equals_plain_copy(tmp_path: Path):
    result = build([make_shop_db(tmp_path)], base_iri="https://example.org/evoonto/shop/")
    assert result.validated_store is not None
    expected = {name: set(graph) for name, graph in result.graphs.items()}
    reused = write_workspace(result, tmp_path / "a")
    assert result.validated_store is None  # handed over to the workspace
    plain = Workspace.init(tmp_path / "b", base_iri="https://example.org/evoonto/shop/")
    plain.replace_base(dict(result.graphs))  # the copy (and a full validation)
    a, b = Workspace.open(tmp_path / "a"), Workspace.open(tmp_path / "b")  # as read back from base.trig
    for name in GRAPH_NAMES:
        if name != "history":  # history records the init time, which differs
            assert set(a.store.triples(name)) == set(b.store.triples(name)), name
    for name, triples in expected.items():
        assert set(reused.store.triples(name)) == triples
        assert set(Workspace.open(tmp_path / "a").store.triples(name)) == triples
    assert set(reused.store.triples("shapes")) == set(plain.store.triples("shapes"))
    assert set(reused.store.triples("vocab")) == set(plain.store.triples("vocab"))


def test_build_graph_copied_twice_changed_graph_is_copied_and_validated(tmp_path: Path):
    result = build([make_shop_db(tmp_path)], base_iri="https://example.org/evoonto/shop/")
    extra = (URIRef("https://example.org/evoonto/shop/x"), URIRef("https://example.org/p"), BNode())
    result.graphs["content"].add(extra)  # changed after validation: the validated store is not used
    with pytest.raises(WorkspaceError, match="blank node"):
        write_workspace(result, tmp_path / "c")
    # the refused base changed nothing: no workspace was made (it is assembled aside, then renamed into place)
    assert not (tmp_path / "c").exists() and not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_build_graph_copied_twice_iri_conversion_cached():
    iri = URIRef("https://example.org/evoonto/shop/term/customer")
    assert to_ox(iri) is to_ox(URIRef(str(iri)))
