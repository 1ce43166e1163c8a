"""Defect 5 (issue 13): Schema-level attribution was unreachable offline.

``evolution/attribute.py`` read ``view.vocab``, which ``OntologyView`` did not have, and a ``getattr``
default answered "the relation type exists", so a guessed join was always attributed to Content and
the offline evolver never proposed a Schema patch. Here the vocab loses ``evo:Association`` (a type
content uses); a failed task joining two tables on an unrecorded condition must yield a Schema
candidate that declares the type again, and that candidate must compile, apply and validate.
"""

from __future__ import annotations

import rdflib
from rdflib import RDF

from evoonto.evolution.attribute import attribute
from evoonto.evolution.diagnose import diagnose
from evoonto.evolution.edits import EditContext
from evoonto.evolution.loop import to_patch, validate_candidate
from evoonto.evolution.offline import OfflineEvolver
from evoonto.evolution.trajectories import TaskTrajectory
from evoonto.evolution.view import OntologyView
from evoonto.namespaces import EVO
from evoonto.ontology import Ontology
from evoonto.records import Relation
from evoonto.resources import vocab_graph
from fixtures.evolution_toy import BASE, IRIS, toy_graphs

JOIN_SQL = ("SELECT c.concert_Name FROM concert AS c JOIN singer AS s ON c.Singer_ID = s.Singer_ID "
            "WHERE s.Country = 'France'")


def _ontology(*, drop_association: bool) -> Ontology:
    graphs = toy_graphs()
    singer, country = IRIS.term("toy", "singer"), IRIS.term("toy", "singer-country")
    relation = Relation(IRIS.relation("Association", singer, country), "Association", singer, country)
    for triple in relation.to_triples():  # content uses the Association type
        graphs["content"].add(triple)
    vocab = vocab_graph()
    if drop_association:
        for triple in list(vocab.triples((EVO.Association, None, None))):
            vocab.remove(triple)
    return Ontology.from_graphs({**graphs, "vocab": vocab}, base_iri=BASE)


def _failed_join() -> list[TaskTrajectory]:
    return [TaskTrajectory("q1", "Concert names of singers from France", "toy", [], passed=False,
                           score=0.0, final_sql=JOIN_SQL)]


def _proposals(onto: Ontology):
    view = OntologyView(onto)
    ctx = EditContext(view, IRIS)
    evolver = OfflineEvolver(kinds=("guessed_join",))
    return view, ctx, evolver.propose(_failed_join(), view, ctx)


def test_view_exposes_the_vocab_graph():
    view = OntologyView(_ontology(drop_association=True))
    assert isinstance(view.vocab, rdflib.Graph)
    assert (EVO.Derivation, RDF.type, EVO.RelationType) in view.vocab
    assert (EVO.Association, RDF.type, EVO.RelationType) not in view.vocab


def test_guessed_join_goes_to_schema_when_the_relation_type_is_gone():
    onto = _ontology(drop_association=True)
    view = OntologyView(onto)
    signatures = diagnose(_failed_join(), view, kinds=("guessed_join",))
    assert [s.kind for s in signatures] == ["guessed_join"]
    assert attribute(signatures[0], view).level == "schema"
    # with the type declared, the same signature is a Content matter
    assert attribute(signatures[0], OntologyView(_ontology(drop_association=False))).level == "content"


def test_offline_evolver_proposes_a_valid_schema_candidate():
    onto = _ontology(drop_association=True)
    _view, ctx, proposals = _proposals(onto)
    levels = {c.level for alternatives in proposals for c in alternatives}
    assert "schema" in levels
    schema = next(c for alternatives in proposals for c in alternatives if c.level == "schema")
    patch = to_patch(schema, ctx)
    assert patch.level == "schema"
    assert (EVO.Association, RDF.type, EVO.RelationType) in set(patch.additions["vocab"])
    candidate, reason = validate_candidate(onto, patch)
    assert reason is None, reason
    assert candidate.query("ASK { evo:Association a evo:RelationType }", graphs=["vocab"]) is True


def test_with_the_type_declared_the_offline_evolver_stays_at_content():
    _view, _ctx, proposals = _proposals(_ontology(drop_association=False))
    levels = {c.level for alternatives in proposals for c in alternatives}
    assert levels == {"content"}
