"""Issue 34 item 4: the Term kinds were written out in four modules (records, the proposer, the
evolution view, the visual explorer), so a kind added to the vocabulary had to be added four times.
There is one tuple now, :data:`evoonto.records.TERM_KINDS`, and it is the vocabulary's."""

from __future__ import annotations

from rdflib import OWL, RDF, RDFS

from evoonto.namespaces import EVO
from evoonto.records import TERM_KINDS
from evoonto.resources import vocab_graph


def test_term_kinds_are_the_vocabulary_subclasses_of_term():
    vocab = vocab_graph()
    subclasses = {str(s).removeprefix(str(EVO)) for s in vocab.transitive_subjects(RDFS.subClassOf, EVO.Term)
                  if s != EVO.Term and (s, RDF.type, OWL.Class) in vocab and str(s).startswith(str(EVO))}
    assert set(TERM_KINDS) == subclasses


def test_every_module_uses_the_one_tuple():
    from evoonto.builder import llm
    from evoonto.evolution import view
    from evoonto.viz import content

    for module in (llm, content):
        assert module.TERM_KINDS is TERM_KINDS, module.__name__
    assert view.TERM_CLASSES == ("Term", *TERM_KINDS)
    from evoonto.builder import propose

    assert not hasattr(propose, "TERM_KINDS")
