"""The tool registry: one description of every agent-facing tool (DESIGN.md §5).

A :class:`ToolSpec` holds a tool's name, its description, the JSON Schema of its arguments (types,
enums, bounds, ``maxItems``, a description per property, ``additionalProperties: false``), the JSON
Schema of its structured result, the handler and a read-only flag. :class:`~evoonto.tools.toolkit.OntologyTools`
builds the specs of one version (:meth:`~evoonto.tools.toolkit.OntologyTools.registry`) and
dispatches :meth:`~evoonto.tools.toolkit.OntologyTools.call` through them; the MCP server
(:mod:`evoonto.server`) lists and calls the same specs. So the schema an MCP client sees is the one
every call is checked against, in-process or over MCP, and texts that state defaults (browse's
number of results) are generated from the version's settings.

Argument checking is in two steps, both giving one-line :class:`~evoonto.errors.ToolArgumentError`
messages that start with the tool name: :meth:`ToolSpec.check_arguments` refuses unknown and missing
arguments and JSON type mismatches; the handler checks values (enums, bounds, lengths).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from evoonto.errors import ToolArgumentError

_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}
_ARTICLE = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
            "array": "a list", "object": "an object", "null": "null"}


def _json_type(value: Any) -> str:
    for name in ("boolean", "integer", "number", "string", "array", "object", "null"):
        if _JSON_TYPES[name](value):
            return name
    return type(value).__name__


@dataclass(frozen=True)
class ToolSpec:
    """One agent-facing tool.

    Attributes:
        name: the tool name (``[a-z][a-z0-9_]*``).
        description: the text an agent reads (MCP ``description``).
        input_schema: JSON Schema of the arguments: an object with ``properties`` (each with a
            ``description``), ``required`` and ``additionalProperties: false``.
        handler: called with the checked arguments as keyword arguments; returns a JSON value.
        output_schema: JSON Schema of the structured result (an object; see ``result_key``), or None.
        read_only: the tool never changes the ontology or a source (all evoonto tools are).
        listed: offered as an MCP tool (False for ``manifest``, served as instructions and resource).
        result_key: when the handler returns a non-object (a list), the structured result is
            ``{result_key: value}``.
        empty_hint: what to try next when the result is empty (an empty list); sent beside the
            empty answer (a second text block and ``hint`` in the structured result), or None.
    """

    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Callable[..., Any] = field(compare=False)
    output_schema: dict[str, Any] | None = None
    read_only: bool = True
    listed: bool = True
    result_key: str | None = None
    empty_hint: str | None = None

    def check_arguments(self, arguments: Any) -> dict[str, Any]:
        """The arguments as a new dict, after checking names and JSON types against ``input_schema``.

        Raises:
            ToolArgumentError: not an object; an unknown argument (names the accepted ones); a
                missing required argument; a value of the wrong JSON type (or a list item of the
                wrong type).
        """
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise ToolArgumentError(f"{self.name}: arguments must be a JSON object")
        props: dict[str, Any] = self.input_schema.get("properties", {})
        unknown = sorted(str(k)[:40] for k in arguments if k not in props)
        if unknown:
            accepted = ", ".join(props) or "none"
            raise ToolArgumentError(f"{self.name}: unknown argument(s) {', '.join(map(repr, unknown))}; "
                                    f"accepted: {accepted}")
        missing = [k for k in self.input_schema.get("required", []) if k not in arguments]
        if missing:
            raise ToolArgumentError(f"{self.name}: missing argument(s) {', '.join(missing)}")
        for key, value in arguments.items():
            _check_type(self.name, key, value, props[key])
        return dict(arguments)

    def structured(self, result: Any) -> dict[str, Any] | None:
        """The ``structuredContent`` of a result (an object), or None when there is no output schema."""
        if self.output_schema is None:
            return None
        if isinstance(result, dict):
            return result
        structured = {self.result_key or "result": result}
        if self.hint(result):
            structured["hint"] = self.hint(result)
        return structured

    def hint(self, result: Any) -> str | None:
        """:attr:`empty_hint` when ``result`` is empty (``[]``), else None."""
        return self.empty_hint if isinstance(result, list) and not result else None

    def annotations(self) -> dict[str, bool]:
        """MCP tool annotations (``readOnlyHint`` …) as keyword arguments of ``ToolAnnotations``."""
        return {"read_only_hint": self.read_only, "destructive_hint": not self.read_only,
                "idempotent_hint": self.read_only, "open_world_hint": False}


def _check_type(tool: str, key: str, value: Any, schema: Mapping[str, Any]) -> None:
    types = schema.get("type")
    if types is None:
        return
    allowed = [types] if isinstance(types, str) else list(types)
    if not any(_JSON_TYPES[t](value) for t in allowed if t in _JSON_TYPES):
        wanted = " or ".join(_ARTICLE.get(t, t) for t in allowed if t != "null")
        raise ToolArgumentError(f"{tool}: {key} must be {wanted}, got {_json_type(value)}")
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, Mapping) and "type" in items:
        for item in value:
            if not _JSON_TYPES.get(items["type"], lambda v: True)(item):
                kind = _ARTICLE.get(items["type"], items["type"])
                raise ToolArgumentError(f"{tool}: every item of {key} must be {kind}, got {_json_type(item)}")


def error_text(tool: str, error: BaseException | str) -> str:
    """The one-line error an agent reads: the message prefixed once with ``<tool>: ``."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if text.startswith(f"{tool}: ") else f"{tool}: {text}"


def object_schema(properties: dict[str, dict[str, Any]], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """An input schema: an object with these properties, these required, nothing else accepted."""
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


#: Structured results (the client validates structuredContent against them: keep them truthful).
HIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "kind": {"type": "string"}, "label": {"type": "string"},
                   "snippet": {}, "score": {"type": "number"}},
    "required": ["id", "kind"],
}
BROWSE_OUTPUT: dict[str, Any] = {
    "type": "object", "properties": {"results": {"type": "array", "items": HIT_SCHEMA},
                                     "hint": {"type": "string"}}, "required": ["results"],
}
RESOLVE_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"records": {"type": "array", "items": {"type": "object"}},
                   "errors": {"type": "array", "items": {"type": "object"}},
                   "truncated": {"type": "boolean"}, "omitted": {"type": "array"},
                   "joins": {"type": "array", "items": {"type": "object"}}},
    "required": ["records", "errors"],
}
FINDING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"kind": {"type": "string"}, "severity": {"type": "string", "enum": ["Violation", "Warning", "Info"]},
                   "message": {"type": "string"}, "suggestion": {"type": ["string", "null"]},
                   "start": {"type": ["integer", "null"]}, "end": {"type": ["integer", "null"]},
                   "subject": {"type": ["string", "null"]}},
    "required": ["kind", "severity", "message"],
}
CHECK_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}, "findings": {"type": "array", "items": FINDING_SCHEMA},
                   "counts": {"type": "object"}},
    "required": ["ok", "findings"],
}
COVERAGE_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"status": {"type": "string", "enum": ["supported", "partial", "unavailable"]},
                   "phrases": {"type": "array", "items": {"type": "object"}}},
    "required": ["status", "phrases"],
}
ROWS_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"columns": {"type": "array"}, "rows": {"type": "array", "items": {"type": "array"}},
                   "truncated": {"type": "boolean"}, "findings": {"type": "array", "items": FINDING_SCHEMA},
                   "counts": {"type": "object"}},
    "required": ["columns", "rows"],
}
JOIN_PATH_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"from": {"type": "string"}, "to": {"type": "string"}, "tables": {"type": "array"},
                   "hops": {"type": "array", "items": {"type": "object"}}, "sql": {"type": "string"},
                   "warnings": {"type": "array"}, "error": {"type": "string"}},
    "required": ["from", "to", "hops"],
}
TABLES_OUTPUT: dict[str, Any] = {
    "type": "object", "properties": {"tables": {"type": "array", "items": {"type": "object"}}},
    "required": ["tables"],
}
TABLE_OUTPUT: dict[str, Any] = {
    "type": "object",
    "properties": {"source": {"type": "string"}, "table": {"type": "string"}, "columns": {"type": "array"},
                   "foreign_keys": {"type": "array"}},
    "required": ["table", "columns"],
}


__all__ = ["ToolSpec", "error_text", "object_schema", "BROWSE_OUTPUT", "RESOLVE_OUTPUT", "ROWS_OUTPUT",
           "JOIN_PATH_OUTPUT", "CHECK_OUTPUT", "COVERAGE_OUTPUT",
           "TABLES_OUTPUT", "TABLE_OUTPUT"]
