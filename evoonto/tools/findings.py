"""Findings: what a deterministic check of an agent's SQL against the ontology reports.

One record type shared by every check (:mod:`evoonto.tools.sqlcheck` for tables, columns, values and
Constraints; :mod:`evoonto.tools.joinpaths` for joins and fan traps), so the tool, the CLI
(``evoonto check-sql``), the trajectory log and diagnosis all read the same fields.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

#: SHACL-style severities (``sh:Violation``, ``sh:Warning``, ``sh:Info``); a Violation means the SQL
#: is very likely wrong, and ``evoonto check-sql`` exits 1 when there is one.
Severity = Literal["Violation", "Warning", "Info"]
SEVERITIES: tuple[str, ...] = ("Violation", "Warning", "Info")


@dataclass(frozen=True)
class Finding:
    """One problem found in a SQL statement.

    Attributes:
        kind: what is wrong, a short snake_case name (e.g. ``unknown_column``, ``unseen_value``,
            ``unknown_join``, ``mismatched_join_keys``, ``fan_trap``, ``missing_constraint``,
            ``view_for_base``).
        severity: ``Violation``, ``Warning`` or ``Info``.
        message: one line for a person or an agent.
        suggestion: what to write instead (nearest column, observed value, join condition), or None.
        start, end: character offsets of the offending part in the SQL text (``sql[start:end]``), or
            None when the finding is about the statement as a whole (e.g. a missing filter).
        subject: the table, column or ontology id the finding is about, or None.
    """

    kind: str
    severity: Severity
    message: str
    suggestion: str | None = None
    start: int | None = None
    end: int | None = None
    subject: str | None = None

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {', '.join(SEVERITIES)}, not {self.severity!r}")

    def to_dict(self) -> dict[str, Any]:
        """The finding as a JSON-ready dict (the tool's and ``check-sql --json``'s answer format)."""
        return asdict(self)


def node_span(node: Any) -> tuple[int | None, int | None]:
    """Character offsets ``[start, end)`` of a sqlglot node in the SQL it was parsed from, from the
    token positions sqlglot records on the node and its leaves; ``(None, None)`` when none is known.
    Closing parentheses carry no position: :func:`balanced_span` completes a span over them."""
    if node is None:
        return None, None
    starts, ends = [], []
    for leaf in node.walk():
        meta = leaf.meta  # sqlglot's token positions (a dict, empty when none were recorded)
        if "start" in meta and "end" in meta:
            starts.append(meta["start"])
            ends.append(meta["end"] + 1)
    return (min(starts), max(ends)) if starts else (None, None)


def balanced_span(sql: str, start: int | None, end: int | None) -> tuple[int | None, int | None]:
    """``(start, end)`` with ``end`` moved over the closing parentheses (and spaces before them) that
    ``sql[start:end]`` leaves open, e.g. ``SUM(i.Total`` -> ``SUM(i.Total)``."""
    if start is None or end is None:
        return start, end
    open_parens = sql[start:end].count("(") - sql[start:end].count(")")
    while open_parens > 0:
        rest = sql[end:]
        stripped = rest.lstrip()
        if not stripped.startswith(")"):
            break
        end += len(rest) - len(stripped) + 1
        open_parens -= 1
    return start, end


def has_violation(findings: list[Finding]) -> bool:
    """True when any finding has severity ``Violation``."""
    return any(f.severity == "Violation" for f in findings)


__all__ = ["Finding", "Severity", "SEVERITIES", "balanced_span", "has_violation", "node_span"]
