"""The Claude evolver with recorded responses through the real ``anthropic`` SDK types (no network):
JSON parsed into typed candidates, bad output dropped, and the same gate and history as offline."""

from __future__ import annotations

import json

import pytest
from anthropic.types import Message, TextBlock, Usage

from evoonto.errors import ConfigurationError
from evoonto.evolution.edits import AddEvidence, AddSynonym, SetToolSetting
from evoonto.evolution.gate import GateConfig
from evoonto.evolution.llm import ClaudeEvolver, parse_edit, parse_response
from evoonto.evolution.loop import LoopConfig, evolve
from fixtures.evolution_toy import IRIS, FakeWorkspace, ToyBackbone, ToyQuestion, toy_ontology

AGE = str(IRIS.term("toy", "singer-age"))
NAME = str(IRIS.term("toy", "singer-name"))

RECORDED = {"candidates": [
    {"signature": "unlinked_phrase:toy:youngest", "level": "content", "reason": "youngest refers to age",
     "edits": [{"op": "add_synonym", "term": AGE, "label": "youngest"}]},
    {"signature": "unlinked_phrase:toy:youngest", "level": "content", "reason": "a wrong guess",
     "edits": [{"op": "add_synonym", "term": NAME, "label": "youngest singer"}]},
    {"signature": "bad", "level": "content", "edits": [{"op": "drop_table", "table": "singer"}]},
    {"signature": "mixed", "level": "content",
     "edits": [{"op": "add_synonym", "term": AGE, "label": "x"},
               {"op": "set_tool_setting", "setting": "browse.defaultResults", "value": 9}]},
]}


def _message(text: str) -> Message:
    return Message(id="msg_rec", type="message", role="assistant", model="claude-test",
                   content=[TextBlock(type="text", text=text)], stop_reason="end_turn", stop_sequence=None,
                   usage=Usage(input_tokens=120, output_tokens=80))


class RecordedClient:
    """Stands in for ``anthropic.Anthropic``: ``messages.create`` returns recorded Message objects."""

    def __init__(self, texts):
        self.texts = list(texts)
        self.requests = []
        self.messages = self

    def create(self, **kwargs):
        self.requests.append(kwargs)
        return _message(self.texts[min(len(self.requests), len(self.texts)) - 1])


def test_parse_edit_and_response():
    assert parse_edit({"op": "add_synonym", "term": AGE, "label": "old"}) == AddSynonym(AGE, "old")
    ev = parse_edit({"op": "add_evidence", "source_id": "toy", "query": "SELECT 1", "sample_values": ["a"],
                     "supports": [AGE]})
    assert isinstance(ev, AddEvidence) and ev.sample_values == ("a",)
    assert parse_edit({"op": "set_tool_setting", "setting": "browse.defaultResults", "value": 7}) == \
        SetToolSetting("browse.defaultResults", 7)
    for bad in ({"op": "nope"}, {"op": "add_synonym", "term": AGE}, {"op": "add_synonym", "x": 1}, []):
        with pytest.raises(ValueError):
            parse_edit(bad)
    cands, problems = parse_response("Here you go:\n```json\n" + json.dumps(RECORDED) + "\n```")
    assert [c.edits[0] for c in cands] == [AddSynonym(AGE, "youngest"), AddSynonym(NAME, "youngest singer")]
    assert len(problems) == 2 and "unknown edit op" in problems[0] and "one level" in problems[1]
    assert parse_response("no json at all")[0] == []


def test_claude_evolver_runs_through_the_same_gate_and_history():
    client = RecordedClient([json.dumps(RECORDED)])
    evolver = ClaudeEvolver(client, "claude-test")
    train = [ToyQuestion("t1", "Who is the youngest singer?")]
    valid = [ToyQuestion("v1", "Show the youngest singer."), ToyQuestion("v2", "Youngest singers first."),
             ToyQuestion("v3", "What is the singer name?")]
    gold = {"t1": AGE, "v1": AGE, "v2": AGE, "v3": NAME}
    ws = FakeWorkspace(toy_ontology())
    result = evolve(ws, backbone=ToyBackbone(gold, k=1), trajectory_questions=train, validation_questions=valid,
                    evolver=evolver, config=LoopConfig(rounds=4, patience=3, batch_size=1,
                                                       gate=GateConfig(tau=0.01, alpha=0.25)))
    assert result.evolver == "anthropic:claude-test"
    (patch, meta), = ws.accepted
    assert meta["evolver"] == "anthropic:claude-test" and meta["decision"] == "accepted"
    assert any(str(s) == AGE and str(o) == "youngest" for s, _, o in patch.additions["content"])
    request = client.requests[0]
    assert request["model"] == "claude-test" and "add_synonym" in request["system"]
    brief = request["messages"][0]["content"]
    assert "Who is the youngest singer?" in brief and "unlinked_phrase:toy:youngest" in brief
    assert "SELECT" not in brief  # no SQL, and never gold: the brief is built from trajectories only
    assert len(evolver.rejected_output) >= 2


def test_claude_evolver_needs_a_model():
    with pytest.raises(ConfigurationError):
        ClaudeEvolver(RecordedClient(["{}"]), "")
