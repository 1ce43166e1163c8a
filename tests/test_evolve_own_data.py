"""README "Evolving your own ontology", run end to end on Chinook (issue 14 must-hold).

build → serve (MCP over stdio, console script) → a scripted client replays recorded agent sessions
(tests/fixtures/evolve_chinook/sessions.json, task ids and questions in the request ``_meta``) →
outcomes from verified queries (EX) and from feedback (`evoonto feedback`, the opt-in
`report_outcome` tool) → `evolve` with `approval: manual` → nothing served changes → `review` →
`approve` → the served version changes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import anyio
import pytest

from evoonto.cli import main
from evoonto.evolution.outcomes import load_verified, read_feedback
from evoonto.tools.trajectory import read_events
from evoonto.workspace import Workspace

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures" / "evolve_chinook"
CHINOOK = Path(__file__).parents[1].parent / "shared" / "data" / "chinook" / "Chinook_Sqlite.sqlite"
EVOONTO = str(Path(sys.executable).parent / "evoonto")

pytestmark = pytest.mark.skipif(not CHINOOK.is_file(), reason=f"Chinook database not found at {CHINOOK}")


def _serve(ws: Path, session: str, sessions: list[dict] | None = None) -> dict:
    """Serve ``ws`` over stdio (the console script) and replay ``sessions`` through the SDK client;
    returns what the client saw: the instructions and the tools listed."""
    params = StdioServerParameters(command=EVOONTO, args=["serve", "--workspace", str(ws), "--session", session,
                                                          "--data-tools", "--accept-feedback"],
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
    seen: dict = {}

    async def main_():
        async with Client(params, read_timeout_seconds=120) as client:
            seen["instructions"] = client.instructions
            seen["tools"] = {t.name for t in (await client.list_tools()).tools}
            for task in sessions or []:
                meta = {"evoonto/task": task["task"], "evoonto/question": task["question"]}
                for tool, arguments in task["calls"]:
                    await client.call_tool(tool, arguments, meta=meta)
                if task.get("report_outcome"):
                    result = await client.call_tool("report_outcome", {"outcome": task["report_outcome"]}, meta=meta)
                    assert not result.is_error, result.content[0].text

    anyio.run(main_)
    return seen


def _serve_short_answers(ws_path: Path, budget: int) -> None:
    """Commit a Tool patch that sets the served compact answer to ``budget`` characters: a team that
    chose short answers. Under the default (6,000 characters) Chinook's 50 verified queries are all
    linked already, and the gate rightly has nothing to accept (see
    ``test_a_well_served_team_is_offered_no_larger_answer``)."""
    from evoonto.evolution.candidates import Candidate
    from evoonto.evolution.edits import EditContext, SetToolSetting
    from evoonto.evolution.loop import base_iri_of, to_patch
    from evoonto.evolution.view import OntologyView
    from evoonto.iris import IriFactory

    ws = Workspace.open(ws_path)
    view = OntologyView(ws.ontology)
    ctx = EditContext(view, IriFactory(base_iri_of(ws, view)))
    chosen = Candidate("team-choice", f"serve answers within {budget} characters", "tool",
                       (SetToolSetting("browse.answerBudget", budget),), "the team's choice")
    ws.commit(to_patch(chosen, ctx))


@pytest.mark.slow
def test_evolving_your_own_ontology_on_chinook(tmp_path, capsys):
    db = tmp_path / "chinook.sqlite"
    shutil.copy(CHINOOK, db)
    ws_path = tmp_path / "onto"
    verified = FIXTURES / "verified.jsonl"
    sessions = json.loads((FIXTURES / "sessions.json").read_text(encoding="utf-8"))

    # 1. build, and choose manual approval
    assert main(["build", "--source", str(db), "--workspace", str(ws_path), "--no-progress"]) == 0
    _serve_short_answers(ws_path, 500)
    assert main(["review", "--workspace", str(ws_path), "--approval", "manual"]) == 0
    capsys.readouterr()

    # 2. serve over stdio; a scripted client replays the recorded agent sessions
    first = _serve(ws_path, "replay", sessions)
    assert "report_outcome" in first["tools"] and "run_sql" in first["tools"]
    events = read_events(ws_path / "trajectories" / "replay.jsonl")
    assert {e.get("task") for e in events} == {s["task"] for s in sessions}
    assert all(e.get("question") for e in events)
    assert {e["version"] for e in events} == {1}

    # 3. outcomes: explicit feedback (CLI) beside the report_outcome call and the verified queries
    for task in sessions:
        if task.get("feedback"):
            verdict, note = task["feedback"]
            assert main(["feedback", "--workspace", str(ws_path), task["task"], verdict, "--note", note]) == 0
    feedback = read_feedback(ws_path)
    assert feedback["t-germany"].source == "report_outcome" and feedback["t-germany"].passed
    assert feedback["t-top-agent"].source == "feedback" and not feedback["t-top-agent"].passed

    # 4. evolve: a held-back share too small for --min-validation is refused; by default (issue 29)
    # every verified query is in V and judges the candidates it did not produce (leave-the-source-out)
    assert len(load_verified(verified)) == 50
    base = ["evolve", "--workspace", str(ws_path), "--verified", str(verified), "--no-progress", "--rounds", "4"]
    assert main(base + ["--validation-share", "0.3", "--min-validation", "20"]) == 2
    err = capsys.readouterr().err
    assert "needs at least 20" in err and "add about" in err
    assert main(base) == 0
    out, err = capsys.readouterr()
    assert "|V| = 50" in err and "0 asking a V question left out" in err, err
    assert "verified" in err and "feedback" in err and "report_outcome" in err, err
    assert "proposed" in out and "source question(s) of V left out" in out, out

    ws = Workspace.open(ws_path)
    assert ws.version == 1  # manual approval: nothing served changes until a person approves
    proposed = [e for e in ws.log() if e.decision == "proposed"]
    assert proposed, [e.decision for e in ws.log()]
    assert _serve(ws_path, "before-approval")["instructions"] == first["instructions"]

    # 5. review lists the proposal with its diff and per-question ups; approve serves it
    assert main(["review", "--workspace", str(ws_path)]) == 0
    listing = capsys.readouterr().out
    assert "[1] " + proposed[0].id in listing and "ups:" in listing and "meant to fix:" in listing
    assert "graph tools: +" in listing or "graph content: +" in listing
    keys = {vq.key for vq in load_verified(verified)}
    assert proposed[0].metadata["ups"] and set(proposed[0].metadata["ups"]) <= keys
    assert not set(proposed[0].metadata["ups"]) & set(proposed[0].metadata["tasks"])  # sources were left out
    assert main(["approve", "--workspace", str(ws_path), "1", "--by", "reviewer"]) == 0
    assert "version 1 -> 2" in capsys.readouterr().out
    ws = Workspace.open(ws_path)
    assert ws.version == 2 and ws.log()[-1].metadata["approved_by"] == "reviewer"
    after = _serve(ws_path, "after-approval")
    assert after["instructions"] != first["instructions"]
    assert "version 2" in after["instructions"] or "v2" in after["instructions"]


@pytest.mark.slow
def test_a_well_served_team_is_offered_no_larger_answer(tmp_path, capsys):
    """Under the default answer (compact, 6,000 characters) every verified Chinook query is linked
    already: the gate may keep a content edit that its screen shows fixes a task at no extra tokens,
    or a smaller answer that keeps every outcome (a saving: since the values a question names stay
    in the answer's table lines, smaller budgets keep them), but never a larger answer that scores
    no better (issue 29)."""
    from evoonto.evolution.gate import GateConfig

    db = tmp_path / "chinook.sqlite"
    shutil.copy(CHINOOK, db)
    ws_path = tmp_path / "onto"
    assert main(["build", "--source", str(db), "--workspace", str(ws_path), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["evolve", "--workspace", str(ws_path), "--verified", str(FIXTURES / "verified.jsonl"),
                 "--no-progress", "--rounds", "3"]) == 0
    out = capsys.readouterr().out
    accepted = [e for e in Workspace.open(ws_path).log() if e.decision == "accepted"]
    budget = re.compile(r"answers within (\d+) characters by default \(was (\d+)\)")
    for e in accepted:
        grew = e.metadata["candidate_tokens"] > e.metadata["parent_tokens"] * (1 + GateConfig().token_tolerance)
        assert not grew or e.scores["candidate_score"] > e.scores["parent_score"], e.metadata
    for line in out.splitlines():
        if ": accepted [" in line:
            for new, old in budget.findall(line):
                assert int(new) < int(old), out  # only smaller budgets, never a larger one
                assert "equal score, fewer tokens" in line, out
