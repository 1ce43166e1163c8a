"""A ReAct data agent on Claude (the online backbone, DESIGN.md §7), through the ``anthropic`` SDK.

The agent answers one question by alternating model turns and tool calls (ReAct, Yao et al. 2023)
until it calls ``submit_sql`` with its final SQL, or a budget runs out:

* tools: read-only raw-data tools (``list_tables``, ``describe_table``, ``run_sql`` from
  :class:`evoonto.tools.data.DataTools`) ± the ontology tools (``browse``, ``resolve``), called
  in-process (:class:`InProcessToolbox`) or through an MCP client (:class:`McpToolbox`);
* the system prompt carries the condition's prompt text (manifest, or the pasted full schema);
* budgets: ``max_turns`` model calls, ``max_tokens`` input + output tokens summed over the calls
  (as reported by the API's ``usage``), ``max_tokens_per_turn`` per response; ``temperature`` 0;
* every tool call is appended to a :class:`evoonto.tools.trajectory.TrajectoryLog` (the Tool layer's
  event schema, ``task`` = question id), and the final answer as a ``final_answer`` event.

When the model stops without calling ``submit_sql`` the last SQL in a ```sql block of its text, or
else the last successful ``run_sql`` statement, is the prediction (``finish`` says which).

The API key comes from ``ANTHROPIC_API_KEY`` (never written anywhere); :func:`make_client` raises a
one-line :class:`~evoonto.errors.ConfigurationError` when it is missing. Tests pass a client whose
HTTP transport replays recorded responses.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from evoonto.errors import ConfigurationError, EvoontoError, ToolArgumentError, first_line
from evoonto.optional import require
from evoonto.tools.trajectory import ToolEvent

if TYPE_CHECKING:
    from evoonto.builder.workload import Question
    from evoonto.tools.data import DataTools
    from evoonto.tools.registry import ToolSpec
    from evoonto.tools.toolkit import OntologyTools
    from evoonto.tools.trajectory import TrajectoryLog

DEFAULT_MODEL = "claude-sonnet-5-5"
TOOL_RESULT_CHARS = 8000
"""Tool answers longer than this many characters are cut before they go back to the model."""

SYSTEM_PROMPT = """\
You are a data analyst answering a question with one SQLite query over a read-only database.
Work step by step: inspect what you need with the tools, test your query with run_sql, then call
submit_sql exactly once with the final query. Return only the columns the question asks for.
{ontology_hint}
{context}"""

ONTOLOGY_HINT = ("An ontology layer describes the data: browse(q) finds business terms, columns, values "
                 "and constraints; resolve(ids) shows where they live (table, column, filter, join path) "
                 "with evidence. Use them before writing SQL.")

SUBMIT_TOOL = {
    "name": "submit_sql",
    "description": ("Submit the final SQL query that answers the question. Call it once, at the end. "
                    "When the data does not cover the question, submit abstain: true (and no SQL) instead "
                    "of guessing."),
    "input_schema": {"type": "object", "properties": {
        "sql": {"type": "string", "description": "one SQLite SELECT"},
        "abstain": {"type": "boolean", "description": "true: the data does not answer the question"}}},
}

class Toolbox(Protocol):
    """What the agent calls: tool definitions (Anthropic ``tools`` params) and a synchronous call."""

    version: int | None

    def definitions(self) -> list[dict]: ...

    def call(self, name: str, arguments: dict) -> Any: ...


class InProcessToolbox:
    """The tools an MCP server would serve, called in process: the raw data tools (list_tables,
    describe_table, run_sql) ± every listed tool of the ontology's one registry
    (:meth:`evoonto.tools.toolkit.OntologyTools.registry`: browse, resolve, join_path, coverage,
    check_sql and the version's declared tools), with the same names, descriptions and schemas.

    Args:
        data_tools: a :class:`evoonto.tools.data.DataTools` (read-only SQL on the question's database),
            or None (no data tools).
        ontology_tools: an :class:`evoonto.tools.toolkit.OntologyTools` (anything with a
            ``registry()`` of :class:`~evoonto.tools.registry.ToolSpec` and ``check_sql``), or None.
        version: ontology version served (recorded in the trajectory).
    """

    def __init__(self, data_tools: DataTools | None, ontology_tools: OntologyTools | None = None,
                 version: int | None = None):
        self.data_tools = data_tools
        self.ontology_tools = ontology_tools
        self.version = version

    def specs(self) -> dict[str, ToolSpec]:
        """The tools offered, by name: the ontology's listed tools, then the data tools."""
        from evoonto.tools.toolkit import DATA_TOOLS, OntologyTools, data_tool_specs

        specs: dict[str, ToolSpec] = {}
        if self.ontology_tools is not None:
            specs.update({name: spec for name, spec in self.ontology_tools.registry().items()
                          if spec.listed and name not in DATA_TOOLS})
        data = self.data_tools
        if data is not None:
            check = self.ontology_tools.check_sql if isinstance(self.ontology_tools, OntologyTools) else None
            specs.update({spec.name: spec for spec in data_tool_specs(lambda: data, check)})
        return specs

    def definitions(self) -> list[dict]:
        """Anthropic ``tools`` params: ``[{name, description, input_schema}]``."""
        return [{"name": spec.name, "description": spec.description, "input_schema": spec.input_schema}
                for spec in self.specs().values()]

    def call(self, name: str, arguments: dict) -> Any:
        """Run one tool with its arguments checked against its schema.

        Raises:
            ToolArgumentError: an unknown tool or bad arguments; other EvoontoError from the tool.
        """
        spec = self.specs().get(name)
        if spec is None:
            raise ToolArgumentError(f"unknown tool {str(name)[:60]!r}")
        return spec.handler(**spec.check_arguments(dict(arguments or {})))


def _with_real_errlog(server: Any) -> Any:
    """``server`` for ``mcp.client.client.Client``; stdio parameters become the SDK's ``stdio_client``
    transport with an ``errlog`` that has a file descriptor (the server's stderr must go to a real
    file). The SDK's default ``errlog`` is ``sys.stderr`` as it was when ``mcp.client.stdio`` was
    first imported: in a notebook (ipykernel's stream) or under a test's output capture that object
    has no file descriptor and starting the server fails with ``UnsupportedOperation: fileno``."""
    import io
    import sys

    from mcp.client.stdio import StdioServerParameters, stdio_client

    if not isinstance(server, StdioServerParameters):
        return server
    errlog: Any = sys.stderr
    try:
        errlog.fileno()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        errlog = sys.__stderr__
    return stdio_client(server, errlog=errlog)


class McpToolbox:
    """The tools of an MCP server, called through the official ``mcp`` client.

    The client lives in one task on a private event loop in a background thread (the SDK requires
    entering and leaving the session in the same task), so the agent loop stays synchronous. Use as
    a context manager (or call :meth:`close`).

    Args:
        server: what ``mcp.client.client.Client`` accepts (an in-process server object such as
            :func:`evoonto.server.create_server`'s, stdio parameters, or a streamable-HTTP URL).
        version: ontology version served, when known.
        timeout_s: seconds to wait for connection and for each call.

    Attributes:
        instructions: the server's instructions (the evoonto manifest).
    """

    def __init__(self, server: Any, version: int | None = None, timeout_s: float = 60.0):
        import asyncio
        import concurrent.futures
        import threading

        self.version = version
        self.timeout_s = timeout_s
        self._loop = asyncio.new_event_loop()
        self._queue: Any = None
        ready: concurrent.futures.Future = concurrent.futures.Future()
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._serve(server, ready),),
                                        daemon=True)
        self._thread.start()
        self._tools, self.instructions = ready.result(timeout=timeout_s)

    async def _serve(self, server: Any, ready) -> None:
        import asyncio

        from mcp.client.client import Client

        self._queue = asyncio.Queue()
        try:
            async with Client(_with_real_errlog(server)) as client:
                ready.set_result(((await client.list_tools()).tools, client.instructions))
                while (item := await self._queue.get()) is not None:
                    name, arguments, answer = item
                    try:
                        answer.set_result(await client.call_tool(name, arguments))
                    except Exception as exc:  # handed to the calling thread
                        answer.set_exception(exc)
        except Exception as exc:
            if not ready.done():
                ready.set_exception(exc)

    def definitions(self) -> list[dict]:
        return [{"name": t.name, "description": t.description or t.name, "input_schema": t.input_schema}
                for t in self._tools]

    def call(self, name: str, arguments: dict) -> Any:
        """Call one tool; a tool error becomes ToolArgumentError with the server's message."""
        import concurrent.futures

        from mcp_types import CallToolResult, TextContent

        answer: concurrent.futures.Future[CallToolResult] = concurrent.futures.Future()
        self._loop.call_soon_threadsafe(self._queue.put_nowait, (name, arguments, answer))
        result = answer.result(timeout=self.timeout_s)
        text = "\n".join(c.text if isinstance(c, TextContent) else "" for c in result.content)
        if result.is_error:
            message = (text.splitlines() or [f"{name} failed"])[0]
            message = message.removeprefix(f"Error executing tool {name}: ").split("Tool '")[0]
            raise ToolArgumentError(message)
        if result.structured_content is not None:
            return result.structured_content
        try:
            return json.loads(text)
        except ValueError:
            return text

    def close(self) -> None:
        """Disconnect and stop the background loop."""
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._queue.put_nowait, None)
            self._thread.join(timeout=self.timeout_s)

    def __enter__(self) -> "McpToolbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass(frozen=True)
class AgentConfig:
    """Backbone settings; the gate compares versions only under identical configs.

    Attributes:
        model: Claude model id.
        max_turns: model calls per question.
        max_tokens: input + output tokens per question (summed API usage); the run stops when reached.
        max_tokens_per_turn: ``max_tokens`` of each API call.
    """

    model: str = DEFAULT_MODEL
    max_turns: int = 12
    max_tokens: int = 100_000
    max_tokens_per_turn: int = 2048

    def __post_init__(self):
        if self.max_turns < 1 or self.max_tokens < 1 or self.max_tokens_per_turn < 1:
            raise ConfigurationError("agent budgets (turns, tokens) must be positive")

    def to_json(self) -> dict:
        return dict(self.__dict__)


def parse_agent_spec(spec: str) -> AgentConfig:
    """``anthropic:MODEL`` → :class:`AgentConfig`; ConfigurationError for other providers."""
    provider, _, model = spec.partition(":")
    if provider != "anthropic" or not model.strip():
        raise ConfigurationError(f"unknown agent {spec!r}; use anthropic:MODEL (e.g. anthropic:{DEFAULT_MODEL})")
    return AgentConfig(model=model.strip())


def make_client(**kwargs: object) -> Any:
    """An ``anthropic.Anthropic`` client using ``$ANTHROPIC_API_KEY``.

    Raises:
        ConfigurationError: the environment variable is missing or empty.
    """
    if not os.environ.get("ANTHROPIC_API_KEY", "").strip():
        raise ConfigurationError("ANTHROPIC_API_KEY is not set; export it to use an anthropic: agent")
    anthropic = require("anthropic")

    return anthropic.Anthropic(**kwargs)


@dataclass
class AgentResult:
    """One question's run.

    Attributes:
        question_id: the task.
        final_sql: predicted SQL, or None.
        finish: ``submitted`` | ``abstained`` (submit_sql with ``abstain: true``: the agent says the
            data does not cover the question; no SQL) | ``text`` (SQL taken from the final text) |
            ``last_run_sql`` | ``max_turns`` | ``max_tokens`` | ``error`` (API failure, message in ``error``).
        turns: model calls made; input_tokens/output_tokens: summed usage.
        tool_calls: number of tool calls; error: one-line API error, if any.
    """

    question_id: str
    final_sql: str | None
    finish: str
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    tool_calls: int = 0
    error: str | None = None
    events: list[dict] = field(default_factory=list, repr=False)

    def to_json(self) -> dict:
        return {"final_sql": self.final_sql, "finish": self.finish, "turns": self.turns,
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "tool_calls": self.tool_calls, "agent_error": self.error}


_SQL_BLOCK = re.compile(r"```(?:sql|sqlite)?\s*(.+?)```", re.S | re.I)


class ReactAgent:
    """The ReAct loop.

    Args:
        client: an ``anthropic.Anthropic`` client (see :func:`make_client`).
        config: :class:`AgentConfig`.
    """

    def __init__(self, client: Any, config: AgentConfig):
        self.client = client
        self.config = config

    def run(self, question: Question, toolbox: Toolbox, *, context: str = "", hint: str | None = None,
            trajectory: TrajectoryLog | None = None) -> AgentResult:
        """Answer one question.

        Args:
            question: a :class:`~evoonto.builder.workload.Question` (never gold).
            toolbox: the tools offered.
            context: the condition's prompt text (manifest / pasted schema), placed in the system prompt.
            hint: BIRD evidence for this question, given as input knowledge, or None.
            trajectory: a :class:`~evoonto.tools.trajectory.TrajectoryLog` to append events to, or None.

        Returns:
            an :class:`AgentResult` (API errors end the run with ``finish="error"``; they do not raise).
        """
        anthropic = require("anthropic")

        cfg = self.config
        tools = toolbox.definitions() + [SUBMIT_TOOL]
        has_ontology = any(t["name"] == "browse" for t in tools)
        system = SYSTEM_PROMPT.format(ontology_hint=ONTOLOGY_HINT if has_ontology else "",
                                      context=context).strip()
        user = f"Question: {question.text}" + (f"\nEvidence: {hint}" if hint else "")
        messages: list[dict] = [{"role": "user", "content": user}]
        result = AgentResult(question.id, None, "max_turns")
        last_sql: str | None = None
        if trajectory is not None:
            trajectory.task = question.id

        while result.turns < cfg.max_turns:
            if result.input_tokens + result.output_tokens >= cfg.max_tokens:
                result.finish = "max_tokens"
                break
            try:
                response = self.client.messages.create(
                    model=cfg.model, system=system, messages=messages, tools=tools,
                    max_tokens=cfg.max_tokens_per_turn)
            except anthropic.APIError as exc:
                result.finish, result.error = "error", first_line(exc, 300)
                break
            result.turns += 1
            result.input_tokens += response.usage.input_tokens
            result.output_tokens += response.usage.output_tokens
            messages.append({"role": "assistant", "content": response.content})
            uses = [b for b in response.content if b.type == "tool_use"]
            if not uses:
                text = "\n".join(b.text for b in response.content if b.type == "text")
                blocks = _SQL_BLOCK.findall(text)
                result.final_sql, result.finish = ((blocks[-1].strip(), "text") if blocks
                                                   else (last_sql, "last_run_sql"))
                break
            tool_results = []
            submitted = None
            abstained = False
            for use in uses:
                result.tool_calls += 1
                if use.name == "submit_sql":
                    abstained = (use.input or {}).get("abstain") is True
                    submitted = str((use.input or {}).get("sql", "") or "").strip()
                    tool_results.append({"type": "tool_result", "tool_use_id": use.id, "content": "submitted"})
                    continue
                content, is_error = self._call(toolbox, use.name, dict(use.input or {}), trajectory, result)
                if use.name == "run_sql" and not is_error:
                    last_sql = str(use.input.get("sql"))
                tool_results.append({"type": "tool_result", "tool_use_id": use.id, "content": content,
                                     **({"is_error": True} if is_error else {})})
            messages.append({"role": "user", "content": tool_results})
            if abstained:
                result.final_sql, result.finish = None, "abstained"
                break
            if submitted is not None:
                result.final_sql, result.finish = submitted or None, "submitted"
                break
        else:
            result.finish = "max_turns"
        if result.finish in ("max_turns", "max_tokens") and result.final_sql is None:
            result.final_sql = last_sql
        self._record(trajectory, result, "final_answer", {"sql": result.final_sql, "finish": result.finish},
                     0, 0.0, None, toolbox.version)
        return result

    def _call(self, toolbox: Toolbox, name: str, arguments: dict, trajectory: TrajectoryLog | None, result: AgentResult
              ) -> tuple[str, bool]:
        start = time.perf_counter()
        error = None
        try:
            answer = toolbox.call(name, arguments)
            text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False, default=str)
        except EvoontoError as exc:
            error = first_line(exc)
            text = f"error: {error}"
        if len(text) > TOOL_RESULT_CHARS:
            text = text[: TOOL_RESULT_CHARS - 1] + "…"
        latency = (time.perf_counter() - start) * 1000
        self._record(trajectory, result, name, arguments, 0 if error else len(text), latency, error, toolbox.version,
                     None if error else answer)
        return text, error is not None

    @staticmethod
    def _record(trajectory: TrajectoryLog | None, result: AgentResult, tool: str, arguments: dict, size: int,
                latency: float, error: str | None, version: int | None, answer: Any = None) -> None:
        # the Tool layer's one event type (evoonto.tools.trajectory.ToolEvent), with what the agent read
        if isinstance(answer, str):  # an MCP toolbox answers with the JSON text
            try:
                answer = json.loads(answer)
            except ValueError:
                pass
        event = ToolEvent.from_call(tool, arguments, answer, error=error, version=version, latency_ms=latency)
        event = dataclasses.replace(event, result_size=size)
        if trajectory is not None:
            event = trajectory.append(event)
        result.events.append(event.to_dict())
