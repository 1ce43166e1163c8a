"""Regression: ``evoonto approve N`` after a decision approved another proposal than the one listed as N.

Proposals were numbered by their position among the *open* ones. ``evoonto review`` listed [1] 3000,
[2] 4500, [3] 5400 (answer budgets); after ``evoonto reject 1``, ``evoonto approve 2`` committed 5400,
the proposal then second among the open ones, and printed only "approved 2". Numbers are now
stable (the position among every proposal recorded), a decided number says so, approve and reject
name the patch they decided, and a proposal the active version no longer takes says which version
it was gated against instead of a bare SHACL message.
"""

from __future__ import annotations

import pytest
import rdflib
from rdflib.namespace import OWL

from evoonto.cli import main
from evoonto.errors import ShapeViolationError, WorkspaceError
from evoonto.evolution import approval
from evoonto.patch import Patch
from evoonto.workspace import Workspace
from fixtures.core_support import finance_workspace


def _propose(ws: Workspace, label: str, triples) -> Patch:
    patch = Patch.from_graphs("content", {"content": triples}, signature=f"sig {label}", intervention=f"add {label}")
    ws.record_rejected(patch, metadata={"decision": "proposed", "parent_score": 0.5, "candidate_score": 0.6,
                                        "ups": ["q1"], "downs": [], "wins": 1, "losses": 0})
    return patch


def _label(ws: Workspace, name: str):
    return [(ws.iris.term("finance", name), rdflib.RDFS.comment, rdflib.Literal(name))]


def test_approve_n_after_a_decision_approves_another_proposal(tmp_path, capsys):
    ws = finance_workspace(tmp_path / "ws")
    ws.set_setting("approval", "manual")
    first, second, third = (_propose(ws, n, _label(ws, n)) for n in ("a", "b", "c"))
    assert [(p.number, p.id) for p in approval.proposals(ws)] == [(1, first.id), (2, second.id), (3, third.id)]

    assert main(["reject", "1", "--why", "not ours", "--workspace", str(ws.path)]) == 0
    assert f"rejected proposal 1 ({first.id}: add a)" in capsys.readouterr().out
    assert main(["approve", "2", "--workspace", str(ws.path)]) == 0
    assert f"approved proposal 2 ({second.id}: add b): version 0 -> 1" in capsys.readouterr().out
    reopened = Workspace.open(ws.path)
    assert reopened.log()[-1].metadata["proposal"] == second.id  # the one listed as 2, not the third
    assert [(p.number, p.id) for p in approval.proposals(reopened)] == [(3, third.id)]
    with pytest.raises(WorkspaceError, match=rf"proposal 1 \({first.id}\) was rejected already; open proposals: 3"):
        approval.approve(reopened, "1")
    with pytest.raises(WorkspaceError, match=rf"proposal 2 \({second.id}\) was approved already"):
        approval.reject(reopened, second.id, why="late")
    with pytest.raises(WorkspaceError, match="no open proposal '7'"):
        approval.approve(reopened, "7")


def test_outdated_proposal_names_the_version_it_was_gated_against(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    ws.set_setting("approval", "manual")
    revenue = ws.iris.term("finance", "revenue")
    yes = _propose(ws, "deprecated", [(revenue, OWL.deprecated, rdflib.Literal(True))])
    no = _propose(ws, "kept", [(revenue, OWL.deprecated, rdflib.Literal(False))])  # each valid alone
    assert approval.approve(ws, yes.id) == 1
    with pytest.raises(ShapeViolationError, match=rf"proposal 2 \({no.id}\) was gated against version 0, and the "
                                                  r"active version 1 no longer takes it") as caught:
        approval.approve(ws, "2")
    assert caught.value.report is not None and "evoonto reject 2" in str(caught.value)
    assert Workspace.open(ws.path).version == 1  # nothing committed
