"""Regression: ``evoonto log`` showed a decided proposal as if it were still waiting.

Under ``approval: manual`` a gate-accepted patch is logged ``proposed``; approving or rejecting it adds
a later row, and the proposal's own row kept reading ``proposed`` with nothing more, so a reader of
the log could not tell which proposals were still open. Each proposal row now ends with what became of
it: ``[open: evoonto review]``, ``[approved at row N]`` or ``[rejected at row N]``.
"""

from __future__ import annotations

import rdflib

from evoonto.cli import main
from evoonto.patch import Patch
from fixtures.core_support import finance_workspace


def _propose(ws, name: str) -> Patch:
    triples = [(ws.iris.term("finance", name), rdflib.RDFS.comment, rdflib.Literal(name))]
    patch = Patch.from_graphs("content", {"content": triples}, signature=f"sig {name}", intervention=f"add {name}")
    ws.record_rejected(patch, metadata={"decision": "proposed", "parent_score": 0.5, "candidate_score": 0.6})
    return patch


def test_log_shows_a_decided_proposal_as_open(tmp_path, capsys):
    ws = finance_workspace(tmp_path / "ws")
    ws.set_setting("approval", "manual")
    for name in ("a", "b", "c"):
        _propose(ws, name)
    assert main(["reject", "1", "--why", "not ours", "--workspace", str(ws.path)]) == 0
    assert main(["approve", "2", "--workspace", str(ws.path)]) == 0
    capsys.readouterr()
    assert main(["log", "--workspace", str(ws.path)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if " proposed " in line]
    assert len(lines) == 3, lines
    a, b, c = lines
    assert a.endswith("add a [rejected at row 4]"), a
    assert b.endswith("add b [approved at row 5]"), b
    assert c.endswith("add c [open: evoonto review]"), c
