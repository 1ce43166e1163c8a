"""Typed shapes of the Tool layer's answers (what an agent receives as JSON).

:class:`ResolveAnswer` is what :meth:`evoonto.tools.resolve.Resolver.resolve` and
:meth:`evoonto.tools.toolkit.OntologyTools.resolve` return. They are ``TypedDict`` s: at run time
plain dicts (JSON-ready, as the MCP server sends them), to the type checker their keys and types.
"""

# no ``from __future__ import annotations``: TypedDict reads ``NotRequired`` at class creation
# (Python 3.11 counts a postponed ``NotRequired[...]`` key as required)
from typing import Any, NotRequired, TypedDict

__all__ = ["ResolveAnswer", "ResolveError"]


class ResolveError(TypedDict):
    """An id that could not be resolved: the ``id`` as given (cut to 200 characters) and why."""

    id: str
    error: str


class ResolveAnswer(TypedDict):
    """The answer of ``resolve``.

    Keys:
        records: one dict per resolved record (``id``, ``kind``, its properties and, by the
            expansion asked, ``mappings``, ``relations``, ``constraints``, ``evidence``).
        errors: the ids that are malformed or unknown.
        truncated: True when records were trimmed to the response budget (characters of compact JSON).
        omitted: ids left out whole to respect the budget (only when some were).
        joins: the join tree between the tables of the records, one dict per join (only for records on
            two or more tables).
    """

    records: list[dict[str, Any]]
    errors: list[ResolveError]
    truncated: bool
    omitted: NotRequired[list[str]]
    joins: NotRequired[list[dict[str, Any]]]
