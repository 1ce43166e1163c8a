"""An LLM judge for served tasks nobody verified (``evoonto evolve --judge anthropic:MODEL``).

The least trusted outcome source (after verified queries and explicit feedback, see
:mod:`evoonto.evolution.outcomes`). Claude sees what the agent saw and did — the question, the
agent's final SQL and the first rows its ``run_sql`` returned — never a verified or gold answer, and
answers with JSON ``{"verdict": "pass" | "fail" | "unsure", "reason": "…"}``. ``unsure`` and any
unparseable answer decide nothing (the task stays without an outcome).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from evoonto.errors import ConfigurationError
from evoonto.evolution.outcomes import TaskOutcome, final_sql, task_question
from evoonto.evolution.trajectories import TaskTrajectory

SYSTEM = """You review one task a data agent did against a SQL database. You see the user's question, \
the agent's final SQL and the first rows it returned. Decide whether the SQL answers the question as \
asked (right tables, columns, filters, aggregation and grain). If you cannot tell, say unsure. Answer \
with JSON only: {"verdict": "pass" | "fail" | "unsure", "reason": "<one sentence>"}"""

#: Result rows shown to the judge per task.
MAX_ROWS = 10


def _rows_of(trajectory: TaskTrajectory, sql: str) -> str:
    for event in reversed(trajectory.events):
        if event.tool == "run_sql" and event.arguments.get("sql") == sql and event.result is not None:
            result = event.result
            if isinstance(result, dict) and isinstance(result.get("rows"), list):
                result = {**result, "rows": result["rows"][:MAX_ROWS]}
            return json.dumps(result, ensure_ascii=False, default=str)[:3000]
    return "(no rows recorded)"


def parse_verdict(text: str) -> tuple[str, str] | None:
    """``(verdict, reason)`` from the judge's answer (the first JSON object in it), or None when it
    has no ``verdict`` of pass/fail/unsure."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if not match:
        return None
    try:
        data = json.loads(match.group(0))
    except json.JSONDecodeError:
        return None
    verdict = data.get("verdict") if isinstance(data, dict) else None
    if verdict not in ("pass", "fail", "unsure"):
        return None
    return verdict, str(data.get("reason") or "")[:500]


@dataclass
class ClaudeJudge:
    """Claude judges served tasks from their question, final SQL and result rows.

    Args:
        client: an ``anthropic.Anthropic`` client (or any object with ``messages.create``).
        model: the Claude model id. max_tokens: answer budget (tokens).
    Raises:
        ConfigurationError: an empty model id.
    """

    client: Any
    model: str
    max_tokens: int = 300
    unparsed: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.model:
            raise ConfigurationError("the judge needs a model id (anthropic:MODEL)")

    def judge(self, trajectories: Sequence[TaskTrajectory]) -> dict[str, TaskOutcome]:
        """Task id → ``judge`` outcome for every task with a question and a final SQL that the judge
        answered pass or fail (one request per task; ``unsure``/unparseable answers are skipped and
        kept in :attr:`unparsed`)."""
        out: dict[str, TaskOutcome] = {}
        for trajectory in trajectories:
            question = trajectory.question or task_question(trajectory.events)
            sql = final_sql(trajectory.events)
            if not question or not sql:
                continue
            brief = f"Question: {question}\nFinal SQL: {sql}\nFirst rows: {_rows_of(trajectory, sql)}"
            response = self.client.messages.create(model=self.model, max_tokens=self.max_tokens, system=SYSTEM,
                                                    messages=[{"role": "user", "content": brief}])
            text = "".join(b.text for b in response.content if b.type == "text")
            parsed = parse_verdict(text)
            if parsed is None or parsed[0] == "unsure":
                self.unparsed.append(f"{trajectory.task_id}: {text[:200]}")
                continue
            out[trajectory.task_id] = TaskOutcome(trajectory.task_id, parsed[0] == "pass", "judge", parsed[1],
                                                  reference=f"anthropic:{self.model}")
        return out


__all__ = ["ClaudeJudge", "parse_verdict", "SYSTEM", "MAX_ROWS"]
