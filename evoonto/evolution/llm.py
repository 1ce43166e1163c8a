"""The Claude evolver (``--evolver anthropic:MODEL``): Claude proposes diagnoses and patches.

Same interface as :class:`~evoonto.evolution.offline.OfflineEvolver`; the loop, the SHACL check, the
gate and the history are shared, so a Claude-written patch is judged exactly like a heuristic one.

Claude receives a compact brief (no gold anywhere): the failed tasks (question text and what the tools
surfaced), the deterministic diagnosis's signatures with frequencies, and the Terms it may edit (ids,
labels, mapped columns). It answers with JSON::

    {"candidates": [
       {"signature": "unlinked_phrase:concert_singer:youngest", "level": "content",
        "reason": "…", "edits": [{"op": "add_synonym", "term": "<Term IRI>", "label": "youngest"}]}]}

Each edit's ``op`` names a typed edit of :data:`evoonto.evolution.edits.EDIT_TYPES` and its other keys
are that edit's fields. Malformed candidates (unknown op, missing fields, mixed levels) are dropped
with a reason in :attr:`ClaudeEvolver.rejected_output`; nothing free-form reaches the ontology.
The API key comes from the client (``$ANTHROPIC_API_KEY``); it is never written anywhere.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from evoonto.errors import ConfigurationError
from evoonto.evolution.candidates import Candidate, CandidateError
from evoonto.evolution.diagnose import KINDS, diagnose, surfaced_texts
from evoonto.evolution.edits import EDIT_TYPES, Edit, EditContext
from evoonto.evolution.probes import ValueProber
from evoonto.evolution.trajectories import TaskTrajectory
from evoonto.evolution.view import OntologyView

SYSTEM = """You improve a semantic layer (an RDF ontology of Terms, Mappings, Evidence, Constraints and \
relations over a SQL database) that a data agent browses to find the tables and columns a question needs. \
You see failed tasks and recurrent failure signatures. Propose small typed patches, each on ONE level \
(content, tool or schema), that would make the failing questions surface the right Terms without hurting \
others. Every patch is validated and then accepted only if it improves a held-out validation set. \
Answer with JSON only: {"candidates": [{"signature": str, "level": "content"|"tool"|"schema", \
"reason": str, "edits": [{"op": <op>, ...fields}]}]}. Allowed ops and fields:
""" + "\n".join(
    f"- {op}: " + ", ".join(f.name for f in dataclasses.fields(cls)) for op, cls in EDIT_TYPES.items())


def parse_edit(data: dict) -> Edit:
    """A typed edit from one JSON object ``{"op": name, **fields}``.

    Raises:
        ValueError: unknown op, unknown or missing fields, or wrong shapes.
    """
    if not isinstance(data, dict):
        raise ValueError("an edit must be a JSON object")
    op = data.get("op")
    cls = EDIT_TYPES.get(op) if isinstance(op, str) else None  # a list/dict op is unhashable
    if cls is None:
        raise ValueError(f"unknown edit op {op!r}")
    names = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in data.items():
        if key == "op":
            continue
        if key not in names:
            raise ValueError(f"{op}: unknown field {key!r}")
        if isinstance(value, list):
            value = tuple(tuple(v) if isinstance(v, list) else v for v in value)
        kwargs[key] = value
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ValueError(f"{op}: {exc}") from None


def parse_response(text: str) -> tuple[list[Candidate], list[str]]:
    """Candidates from Claude's answer text (JSON, possibly inside a fenced block).

    Returns:
        (candidates, problems): parsed candidates in answer order, and one line per dropped one.
    """
    match = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", text, re.S)
    body = match.group(1) if match else text[text.find("{"): text.rfind("}") + 1]
    try:
        data = json.loads(body)
    except ValueError as exc:
        return [], [f"answer is not JSON ({exc})"]
    out, problems = [], []
    for i, item in enumerate(data.get("candidates", []) if isinstance(data, dict) else []):
        try:
            edits = tuple(parse_edit(e) for e in item.get("edits", []))
            level = item.get("level") or (edits[0].level if edits else "content")
            intervention = "; ".join(e.describe() for e in edits)
            out.append(Candidate(str(item.get("signature", f"llm:{i}"))[:500], intervention, level, edits,
                                 str(item.get("reason", ""))[:500], int(item.get("frequency", 1) or 1)))
        except (ValueError, CandidateError, AttributeError) as exc:
            problems.append(f"candidate {i}: {exc}")
    return out, problems


@dataclass
class ClaudeEvolver:
    """Claude proposes candidates from trajectories.

    Args:
        client: an ``anthropic.Anthropic`` client (or any object with ``messages.create``).
        model: the Claude model id. max_tokens: answer budget (tokens). max_failed: failed tasks shown.
        max_terms: Terms listed in the brief. prober: read-only value prober for the diagnosis.
    Raises:
        ConfigurationError: empty model id.
    """

    client: Any
    model: str
    prober: ValueProber | None = None
    max_tokens: int = 4000
    max_failed: int = 25
    max_terms: int = 150
    name: str = "anthropic"
    rejected_output: list[str] = field(default_factory=list)
    last_brief: str = field(default="", repr=False)

    def __post_init__(self):
        if not self.model:
            raise ConfigurationError("the anthropic evolver needs a model id (anthropic:MODEL)")
        self.name = f"anthropic:{self.model}"

    def brief(self, trajectories: Sequence[TaskTrajectory], view: OntologyView) -> str:
        """The user message: failed tasks, signatures and editable Terms (no gold)."""
        failed = [t for t in trajectories if t.failed][: self.max_failed]
        sigs = diagnose(trajectories, view, prober=self.prober, kinds=KINDS)[:30]
        lines = ["Failed tasks (question → labels the tools surfaced):"]
        for t in failed:
            shown = " | ".join(s[:80] for s in surfaced_texts(t)[:5])
            lines.append(f"- [{t.task_id}] {t.question} → {shown or 'nothing'}")
        lines.append("\nRecurrent failure signatures (kind:source:key ×frequency):")
        lines += [f"- {s.id} ×{s.frequency}" + (f" details={dict(s.details)}" if s.details else "") for s in sigs]
        lines.append("\nTerms (IRI: labels @ table.column):")
        for term in view.terms[: self.max_terms]:
            where = ", ".join(f"{tb}.{c}" if c else tb for _, tb, c in term.locations[:2])
            lines.append(f"- {term.iri}: {' / '.join(term.labels[:4])} @ {where}")
        return "\n".join(lines)

    def propose(self, trajectories: Sequence[TaskTrajectory], view: OntologyView,
                ctx: EditContext) -> list[list[Candidate]]:
        """One single-alternative list per parsed candidate, in Claude's order."""
        self.last_brief = self.brief(trajectories, view)
        response = self.client.messages.create(
            model=self.model, max_tokens=self.max_tokens, system=SYSTEM,
            messages=[{"role": "user", "content": self.last_brief}])
        text = "".join(block.text for block in response.content if block.type == "text")
        candidates, problems = parse_response(text)
        self.rejected_output.extend(problems)
        return [[c] for c in candidates]
