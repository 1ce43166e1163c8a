"""Defect 3 (issue 13): the loop's pre-gate SHACL check used another focus rule than the commit.

The loop validated only the patch's touched nodes; the commit (``validate_patch``) also validates the
referrers of subjects that lost triples. A patch removing a Mapping that a Constraint still points at
passed the loop's check, was scored on V, and was then refused at commit. Both now use
:func:`evoonto.validation.validate_patch`: the patch is ``invalid`` and never scored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from evoonto.evolution.candidates import Candidate
from evoonto.evolution.edits import Compiled, Edit
from evoonto.evolution.gate import GateConfig
from evoonto.evolution.loop import LoopConfig, evolve, validate_candidate
from evoonto.namespaces import EVO
from evoonto.patch import Patch
from evoonto.records import Constraint
from evoonto.validation import validate_patch
from fixtures.evolution_toy import IRIS, FakeWorkspace, ToyBackbone, ToyQuestion, toy_ontology

MAPPING = IRIS.mapping("toy", "singer", "Country")
CONSTRAINT = IRIS.constraint("country-known")


def _ontology():
    constraint = Constraint(CONSTRAINT, [MAPPING], "Country IS NOT NULL", ["country"], "Warning")
    return toy_ontology(extra_content=constraint.to_triples())


@dataclass(frozen=True)
class RemoveMapping(Edit):
    """Removes every triple of one Mapping node and its Term's ``evo:hasMapping`` link (not the
    Constraint's ``evo:constrains`` link, which is what leaves the Constraint dangling)."""

    iri: str
    level: ClassVar[str] = "content"
    op: ClassVar[str] = "remove_mapping"

    def compile(self, ctx):
        out = Compiled()
        content = ctx.view.content
        out.remove("content", *content.triples((MAPPING, None, None)))
        out.remove("content", *content.triples((None, EVO.hasMapping, MAPPING)))
        return out

    def describe(self):
        return f"remove Mapping <{self.iri}>"


class _OneCandidate:
    name = "one-candidate"

    def propose(self, trajectories, view, ctx):
        return [[Candidate("remove-mapping", "remove the Country Mapping", "content",
                           (RemoveMapping(str(MAPPING)),))]]


class _CountingBackbone(ToyBackbone):
    """Records every ontology it is asked to score."""

    def __init__(self, gold):
        super().__init__(gold)
        self.scored: list = []

    def run(self, ontology, questions):
        self.scored.append(ontology)
        return super().run(ontology, questions)


def _removal_patch(onto) -> Patch:
    content = onto.graph("content")
    removed = list(content.triples((MAPPING, None, None))) + list(content.triples((None, EVO.hasMapping, MAPPING)))
    return Patch.from_graphs("content", removals={"content": removed}, signature="s", intervention="i")


def test_loop_check_and_commit_check_agree_on_a_referenced_mapping():
    parent = _ontology()
    patch = _removal_patch(parent)
    # the commit's rule refuses the patch (the Constraint now points at nothing typed)
    assert not validate_patch(parent.with_patch(patch), patch).conforms
    candidate, reason = validate_candidate(parent, patch)
    assert candidate is None
    assert reason is not None and "SHACL" in reason


def test_referenced_mapping_removal_is_invalid_and_never_scored():
    ws = FakeWorkspace(_ontology())
    backbone = _CountingBackbone({"q1": str(IRIS.term("toy", "singer-country")),
                                  "v1": str(IRIS.term("toy", "singer-age"))})
    result = evolve(ws, backbone=backbone, trajectory_questions=[ToyQuestion("q1", "singer country")],
                    validation_questions=[ToyQuestion("v1", "singer age")], evolver=_OneCandidate(),
                    config=LoopConfig(rounds=1, patience=1, screen=False, gate=GateConfig(enabled=False)))
    assert [r.decision for r in result.rounds] == ["invalid"]
    assert ws.accepted == [] and len(ws.rejected) == 1
    # the backbone ran only on the parent for the trajectories: never on V, never on the candidate
    assert len(backbone.scored) == 1 and backbone.scored[0] is ws.ontology
