"""The LLM judge (``evoonto evolve --judge anthropic:MODEL``) with recorded responses through the real
``anthropic`` SDK types (no network): it sees question, final SQL and rows, never a verified answer."""

from __future__ import annotations

import pytest

pytest.importorskip("anthropic")
from anthropic.types import Message, TextBlock, Usage  # noqa: E402

from evoonto.errors import ConfigurationError  # noqa: E402
from evoonto.evolution.judge import ClaudeJudge, parse_verdict  # noqa: E402
from evoonto.evolution.trajectories import TaskTrajectory  # noqa: E402
from evoonto.tools.trajectory import ToolEvent  # noqa: E402


def _message(text: str) -> Message:
    return Message(id="msg_rec", type="message", role="assistant", model="claude-test",
                   content=[TextBlock(type="text", text=text)], stop_reason="end_turn", stop_sequence=None,
                   usage=Usage(input_tokens=90, output_tokens=20))


class RecordedClient:
    """Stands in for ``anthropic.Anthropic``: ``messages.create`` returns recorded Message objects."""

    def __init__(self, texts):
        self.texts = list(texts)
        self.requests: list[dict] = []
        self.messages = self

    def create(self, **kwargs):
        self.requests.append(kwargs)
        return _message(self.texts[len(self.requests) - 1])


def _task(task_id, question, sql=None):
    events = [ToolEvent(tool="browse", arguments={"q": question})]
    if sql:
        events.append(ToolEvent(tool="run_sql", arguments={"sql": sql},
                                result={"columns": ["n"], "rows": [[i] for i in range(30)]}))
    return TaskTrajectory(task_id, question, events=events)


def test_parse_verdict():
    assert parse_verdict('Sure. {"verdict": "fail", "reason": "sums price without quantity"}') == (
        "fail", "sums price without quantity")
    assert parse_verdict('{"verdict": "maybe"}') is None and parse_verdict("no json") is None
    assert parse_verdict("{broken") is None


def test_judge_decides_tasks_with_sql_and_skips_unsure_answers():
    client = RecordedClient(['{"verdict": "pass", "reason": "counts customers"}',
                             '```json\n{"verdict": "fail", "reason": "wrong grain"}\n```',
                             '{"verdict": "unsure", "reason": "cannot tell"}'])
    judge = ClaudeJudge(client, "claude-test")
    tasks = [_task("a", "How many customers?", "SELECT COUNT(*) FROM customer"),
             _task("b", "Revenue per month?", "SELECT SUM(total) FROM invoice"),
             _task("c", "Odd one?", "SELECT 1"),
             _task("d", "No SQL at all?")]
    got = judge.judge(tasks)
    assert set(got) == {"a", "b"} and len(client.requests) == 3  # no request for a task without SQL
    assert got["a"].passed and got["a"].source == "judge" and got["a"].reference == "anthropic:claude-test"
    assert not got["b"].passed and got["b"].note == "wrong grain"
    assert judge.unparsed and judge.unparsed[0].startswith("c:")
    brief = client.requests[0]["messages"][0]["content"]
    assert "How many customers?" in brief and "SELECT COUNT(*) FROM customer" in brief
    assert "[9]" in brief and "[10]" not in brief  # rows are capped
    assert client.requests[0]["model"] == "claude-test" and "verdict" in client.requests[0]["system"]
    with pytest.raises(ConfigurationError, match="model id"):
        ClaudeJudge(client, "")
