"""OWL consistency of the vocabulary with owlready2 + HermiT (needs Java)."""

from __future__ import annotations

import pytest
import rdflib
from rdflib.namespace import OWL, RDF

from evoonto.namespaces import EVO
from evoonto.reasoning import ReasoningError, check_consistency, java_executable
from evoonto.resources import vocab_graph

needs_java = pytest.mark.skipif(java_executable() is None, reason="Java is not installed")


@pytest.mark.slow
@needs_java
def test_packaged_vocabulary_is_consistent_and_an_inconsistency_is_found():
    report = check_consistency(vocab_graph())
    assert report.ok, report.text()
    bad = vocab_graph()
    bad.add((EVO.Metric, OWL.disjointWith, EVO.Term))  # every Metric is a Term
    x = rdflib.URIRef("https://example.org/x")
    bad.add((x, RDF.type, OWL.NamedIndividual))
    bad.add((x, RDF.type, EVO.Metric))
    report = check_consistency(bad)
    assert not report.consistent and "inconsistent" in report.text()


def test_missing_java_is_reported_clearly(monkeypatch):
    import owlready2

    import evoonto.reasoning as reasoning

    monkeypatch.setattr(owlready2, "JAVA_EXE", "/nonexistent/java")
    monkeypatch.setattr(reasoning.shutil, "which", lambda name: None)
    with pytest.raises(ReasoningError, match="needs Java"):
        check_consistency(vocab_graph())
