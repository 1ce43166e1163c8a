"""Schema-linking recall: the offline, deterministic backbone (DESIGN.md §7).

A fixed retrieval policy stands in for an agent: it browses the question text, resolves the top hits
within a size budget, and the scorer checks which gold tables, columns and values the agent would now
have seen. Nothing here calls an LLM; the same inputs give the same numbers.

**Policy** (:class:`LinkingPolicy`). The default, :data:`DEFAULT_POLICY` (what an agent gets from
``browse(q)`` by default, :data:`evoonto.tools.settings.DEFAULT_ANSWER_POLICY`), ``format="compact"``: one
``browse(question, kind, format="compact", budget=budget_chars)``; the tool ranks tables, then their
columns, and returns one pasteable line per candidate (``"table"."column" TYPE = values -- meaning``)
while the answer fits the budget, so the budget, not a fixed number of hits, decides the depth; no
resolve call. With ``evidence=True`` the question's external knowledge (BIRD's ``evidence``, given to
the model as input in the official BIRD protocol) is passed as browse's ``context``: searched too,
below the question's own words.

``format="verbose"`` (the earlier policy): ``browse(question, kind, n)`` → the hit ids, then resolve them.
``budget_chars`` bounds everything the policy reads from the tools per question — the browse answer
*and* the resolve answers (compact JSON) — so a version that returns more browse hits pays for them
with fewer resolved records, and parent and candidate versions are compared under the same budget
(DESIGN.md §6, "same budgets"). The browse answer is cut to the longest rank-order prefix that fits
(at least one hit); the rest of the budget goes to resolve:

* ``resolve="batch"``: one ``resolve(ids)``; while browse + resolve answers exceed ``budget_chars``,
  the lowest-ranked id is dropped and resolve is called again (the tool also shrinks its own answer to
  its response budget, e.g. by shortening sample-value lists);
* ``resolve="each"``: ``resolve([id])`` per hit in rank order, keeping answers while the total stays
  within ``budget_chars`` (the first is always kept; each record keeps its full detail, so fewer
  records fit).

The surfaced text is the condition's prompt (the manifest, or
the whole pasted schema for the full-schema condition) + the browse answer + the resolve answer, each
as compact JSON (``ensure_ascii=False``).

**Recognition** — how a gold item counts as surfaced:

* a column ``(t, c)``: a resolved Mapping shows ``"table": t`` and ``"column": c`` (the catalog
  ``csvw:name`` values the resolver prints), or the text names it table-qualified (``t.c``,
  ``"t"."c"``, as in join paths, join conditions, filters), or in a quoted table listing
  ``"t"("a", "c" = 'v', …)`` (browse's compact answer, like a ``CREATE TABLE`` head; a listed column
  may carry the value the question named), or a catalog column IRI/id
  ``…/table/t/column/c`` appears; for the full-schema condition every column of the schema is shown
  (recall 1 by construction);
* a table: one of its columns is surfaced, a Mapping or id names it, or the prompt lists it;
* a value: the literal occurs in the surfaced text, case-insensitively, not inside a longer word
  (``'F'`` matches ``"F"`` in a sample list, not the F of ``France``), as written or in the
  escaped form an SQL literal or a JSON string gives it (``'Ancestor''s Chosen'``).

**Scores** per question: table recall, column recall, value recall (None when the gold has no string
value), strict = every gold column surfaced; surfaced characters and estimated tokens
(:func:`estimate_tokens`: characters / 4, the usual rule of thumb for English and JSON with the
Claude/GPT tokenizers; a stated estimate, not a tokenizer count).
"""

from __future__ import annotations

import json
import math
import re
import time
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence
from urllib.parse import unquote

from evoonto.errors import EvoontoError
from evoonto.tools.settings import DEFAULT_ANSWER_POLICY, AnswerPolicy
from evoonto.tools.trajectory import ToolEvent
from evoonto.evaluation.gold import Column, GoldAnalysis

CHARS_PER_TOKEN = 4


def estimate_tokens(chars: int) -> int:
    """Estimated tokens of ``chars`` characters: ``ceil(chars / 4)`` (see the module docstring)."""
    return math.ceil(chars / CHARS_PER_TOKEN)


def compact_json(obj: Any) -> str:
    """The JSON text an agent would receive: compact separators, non-ASCII kept."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class LinkingPolicy:
    """The deterministic retrieval policy.

    Attributes:
        n: browse hits requested, or None (the default) for the browse tool's own default
            (``evo:defaultResults`` of the version's tools graph, 8 when unset), so a Tool-level patch
            that changes the default changes what the policy sees, as it would for an agent that
            calls browse without ``n``.
        kind: browse kind filter (``term``, ``any``, …).
        budget_chars: maximum characters the policy reads per question: the browse answer plus the
            resolve answers (compact JSON). 6,000 by default, so that with a manifest of up to 2,000
            characters a question costs at most 2,000 tokens (characters / 4). The verbose policy's
            earlier numbers were measured at 8,000.
        expand: resolve expansions, or None for the tool's default.
        depth: resolve depth.
        resolve: ``"each"`` (one call per hit, the default) or ``"batch"`` (one call for all hits);
            verbose format only.
        format: ``"compact"`` (the default: one budgeted compact browse answer, no resolve) or
            ``"verbose"`` (browse ``n`` hits, then resolve them within the budget).
        evidence: pass the question's evidence text (BIRD ``evidence``, given to the model as input
            in the official protocol) as browse's ``context`` when the benchmark has one.
        coverage: also ask the coverage tool (:meth:`~evoonto.tools.toolkit.OntologyTools.coverage`)
            what the ontology covers of the question, and report its status (``supported``,
            ``partial``, ``unavailable``) per question; the call is logged but its answer is not
            added to what the policy surfaced (so recall does not change).

    The defaults were chosen on the gate validation sets V of Spider's two folds (not on the held-out
    folds): per-hit resolve gave higher strict and value recall than one batched call at a smaller
    size (on Spider: strict 0.928 vs 0.902), because a batched answer must fit the tool's one
    response budget, so its lower-ranked records are trimmed (join paths, then value lists).
    """

    n: int | None = None
    kind: str = DEFAULT_ANSWER_POLICY.kind
    budget_chars: int = DEFAULT_ANSWER_POLICY.budget
    expand: tuple[str, ...] | None = None
    depth: int = 1
    resolve: str = "each"
    coverage: bool = False
    format: str = DEFAULT_ANSWER_POLICY.format
    evidence: bool = False

    def __post_init__(self):
        if self.resolve not in ("batch", "each"):
            raise ValueError(f"resolve mode must be 'batch' or 'each', got {self.resolve!r}")
        if self.format not in ("compact", "verbose"):
            raise ValueError(f"format must be 'compact' or 'verbose', got {self.format!r}")

    @classmethod
    def of(cls, answer: AnswerPolicy, **changes: Any) -> "LinkingPolicy":
        """The policy that reads exactly ``answer`` (one browse call with its kind, format and
        budget), with ``changes`` (e.g. ``evidence=True``) applied."""
        return cls(kind=answer.kind, format=answer.format, budget_chars=answer.budget, **changes)

    def is_default(self) -> bool:
        """True when this policy reads what an agent gets by default (:data:`DEFAULT_POLICY`,
        evidence aside)."""
        return self.to_json() == DEFAULT_POLICY.to_json() or (
            self.evidence and self.to_json() == {**DEFAULT_POLICY.to_json(), "evidence": True})

    def describe(self) -> str:
        """One line naming the policy and its budget, e.g. ``default (compact, 6,000 characters)``."""
        shown = f"{self.format}, {self.budget_chars:,} characters" + (
            "" if self.format == "compact" else f", n={'tool default' if self.n is None else self.n}, "
                                                f"resolve {self.resolve}")
        return f"{'default' if self.is_default() else 'policy'} ({shown})"

    def to_json(self) -> dict:
        """Plain dict (stored with every run so results say which policy made them)."""
        return {"n": "tool default" if self.n is None else self.n, "kind": self.kind, "budget_chars": self.budget_chars,
                "expand": list(self.expand) if self.expand else None, "depth": self.depth,
                "resolve": self.resolve, "format": self.format, **({"coverage": True} if self.coverage else {}),
                **({"evidence": True} if self.evidence else {})}


#: THE default policy: what an agent gets from ``browse(q)`` when it names no format or budget
#: (:data:`evoonto.tools.settings.DEFAULT_ANSWER_POLICY`, which the builder writes into the tools
#: graph and the MCP server serves). ``evoonto eval``, ``benchmarks/linking_bench.py`` and the
#: README's linking rows score this policy unless told otherwise.
DEFAULT_POLICY = LinkingPolicy.of(DEFAULT_ANSWER_POLICY)


#: The earlier policy (browse ``n`` hits, then resolve them within 8,000 characters): the evolution
#: gate's and the demo's default, because on small schemas the compact answer lists the whole schema
#: and leaves the loop no failure to learn from, and the Tool settings the loop edits
#: (``evo:defaultResults``, ``evo:hitsPerColumn``) act on this format.
VERBOSE_POLICY = LinkingPolicy(format="verbose", budget_chars=8000)


@dataclass(frozen=True)
class Surfaced:
    """What one question's retrieval put in front of the agent.

    Attributes:
        text: everything shown (prompt + tool answers), for value matching.
        chars: ``len(text)``.
        prompt_chars: the part of ``chars`` that is the condition's fixed prompt.
        tables, columns: recognised schema items (lower-case).
        events: the tool calls made, as :class:`evoonto.tools.trajectory.ToolEvent` records
            (``ToolEvent.to_dict()``: ``tool``, ``arguments``, ``result``, ``result_ids``, ``latency_ms``,
            ``error`` …), the shape the MCP trajectory log holds.
        coverage: the coverage status of the question (``supported`` / ``partial`` /
            ``unavailable``) when the policy asked for it, else None.
    """

    text: str
    chars: int
    prompt_chars: int
    tables: frozenset[str]
    columns: frozenset[Column]
    events: tuple[dict, ...] = ()
    coverage: str | None = None


@dataclass(frozen=True)
class LinkingResult:
    """Schema-linking outcome of one question (recalls in [0, 1]).

    ``value_recall`` is None when the gold query has no string value; ``missing_*`` name what was
    not surfaced (useful for failure analysis; they come from gold, so they go to reports only);
    ``coverage`` is the question's coverage status when the policy asked for it (else None).
    """

    question_id: str
    table_recall: float
    column_recall: float
    value_recall: float | None
    strict: bool
    chars: int
    tokens: int
    missing_columns: tuple[str, ...] = ()
    missing_values: tuple[str, ...] = ()
    coverage: str | None = None

    def to_json(self) -> dict:
        """Plain dict for the JSON Lines results file (``coverage`` only when known)."""
        return {"table_recall": round(self.table_recall, 6), "column_recall": round(self.column_recall, 6),
                "value_recall": None if self.value_recall is None else round(self.value_recall, 6),
                "strict": int(self.strict), "chars": self.chars, "tokens": self.tokens,
                "missing_columns": list(self.missing_columns), "missing_values": list(self.missing_values),
                **({"coverage": self.coverage} if self.coverage is not None else {})}


# -- recognition -------------------------------------------------------------------------------

_IDENT = r'(?:"([^"\n]{1,128})"|`([^`\n]{1,128})`|\[([^\]\n]{1,128})\]|([A-Za-z_][A-Za-z0-9_$]*))'
_QUALIFIED = re.compile(_IDENT + r"\s*\.\s*" + _IDENT)
#: an SQL string literal (a quote inside doubled), as compact lines print a value
_LITERAL = r"'(?:[^']|'')*'"
#: a listed column's value: ``= 'v'`` (named by the question) or ``holds 'v'`` (sharing some words)
_VALUE = r'(?: (?:=|holds) ' + _LITERAL + r')?'
_TABLE_LIST = re.compile(r'"([^"\n]{1,128})"\(((?:"[^"\n]{1,128}"' + _VALUE + r'(?:, )?)+)\)')
_LISTED = re.compile(r'"([^"\n]{1,128})"' + _VALUE)
_CATALOG_ID = re.compile(r"table/([^/\"\s,]+)(?:/column/([^/\"\s,]+))?")


def _pick(groups: Sequence[str | None]) -> str:
    return next(g for g in groups if g is not None)


def recognise(payload: Any, schema: Mapping[str, Iterable[str]]) -> tuple[frozenset[str], frozenset[Column]]:
    """Schema tables and columns an agent can read off ``payload`` (see the module docstring).

    Args:
        payload: browse/resolve answers (nested dicts/lists/strings).
        schema: ``{table: [columns]}`` of the question's database (any case).

    Returns:
        ``(tables, columns)``, lower-cased, restricted to items that exist in ``schema``.
    """
    known = {t.lower(): {c.lower() for c in cols} for t, cols in schema.items()}
    tables: set[str] = set()
    columns: set[Column] = set()

    def add(table: str, column: str | None) -> None:
        t = table.lower()
        if t not in known:
            return
        if column is None:
            tables.add(t)
        elif column.lower() in known[t]:
            columns.add((t, column.lower()))
            tables.add(t)

    def scan(text: str) -> None:
        for match in _QUALIFIED.finditer(text):
            add(_pick(match.groups()[:4]), _pick(match.groups()[4:]))
        for match in _TABLE_LIST.finditer(text):
            for column in _LISTED.findall(match.group(2)):
                add(match.group(1), column)
        for match in _CATALOG_ID.finditer(text):
            add(unquote(match.group(1)), unquote(match.group(2)) if match.group(2) else None)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            table, column = node.get("table"), node.get("column")
            if isinstance(table, str):
                add(table, column if isinstance(column, str) else None)
            for value in node.values():
                walk(value)
        elif isinstance(node, (list, tuple)):
            for value in node:
                walk(value)
        elif isinstance(node, str):
            scan(node)

    walk(payload)
    return frozenset(tables), frozenset(columns)


def value_surfaced(value: str, text: str) -> bool:
    """True when ``value`` occurs in ``text`` case-insensitively and not inside a longer word, as
    written or as the answers write it: inside an SQL string literal (``'Ancestor''s Chosen'``, a
    quote doubled, as compact lines print values to paste) or inside a JSON string (``\"``)."""
    lowered = text.lower()
    sql = value.replace("'", "''")
    forms = {value, sql, json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(sql, ensure_ascii=False)[1:-1]}
    return any(re.search(r"(?<![0-9A-Za-z])" + re.escape(form.lower()) + r"(?![0-9A-Za-z])", lowered)
               for form in forms)


# -- the policy and the scorer -----------------------------------------------------------------

def _within_budget(hits: list, budget: int) -> list:
    """The longest rank-order prefix of ``hits`` whose compact JSON fits ``budget`` characters
    (at least the first hit)."""
    size = 1  # "[" ... "]": each kept hit adds its own length plus one separator or the closing bracket
    for count, hit in enumerate(hits):
        size += len(compact_json(hit)) + 1
        if count and size > budget:
            return hits[:count]
    return hits


def run_policy(tools: Any, question: str, policy: LinkingPolicy,
               context: str | None = None) -> tuple[list[dict], dict, list[dict]]:
    """Browse then resolve within the budget.

    Args:
        tools: an object with ``browse(q, kind=, n=)`` and ``resolve(ids, expand=, depth=)``
            (:class:`evoonto.tools.toolkit.OntologyTools`).
        question: the question text.
        policy: the :class:`LinkingPolicy`.
        context: text given with the question (BIRD evidence), passed to browse as its
            ``context`` (searched below the question), or None.

    Returns:
        ``(hits, resolved, events)``: the browse hits, the final resolve answer (``{}`` when nothing was
        found) and the trajectory events of the calls made.
    """
    from evoonto.tools.toolkit import OntologyTools

    events: list[dict] = []
    version = tools.version if isinstance(tools, OntologyTools) else None  # test doubles serve no version

    def call(name: str, fn, shown=None, **arguments):
        """Run one tool call and record it as a ToolEvent record (what was read: ``shown(result)``)."""
        start = time.perf_counter()
        error, result = None, None
        try:
            result = fn(**arguments)
        except EvoontoError as exc:  # a tool error is part of the trajectory, not a crash of the run
            error = str(exc)
        read = shown(result) if shown is not None and result is not None else result
        events.append(ToolEvent.from_call(name, dict(arguments), read, error=error,
                                          version=version,
                                          latency_ms=(time.perf_counter() - start) * 1000).to_dict())
        return read

    depth: dict[str, Any] = {} if policy.n is None else {"n": policy.n}
    if context:
        depth["context"] = context
    if policy.format == "compact":
        # one budgeted compact answer: the tool fits it to the budget (tables first, then columns)
        hits = call("browse", lambda q, kind, **kw: tools.browse(q, kind=kind, **kw),
                    shown=lambda found: _within_budget(found, policy.budget_chars),
                    q=question, kind=policy.kind, format="compact", budget=max(policy.budget_chars, 200),
                    **depth) or []
        return hits, {}, events
    # the trajectory records what was read: the hits that fit the budget
    hits = call("browse", lambda q, kind, **n: tools.browse(q, kind=kind, **n),
                shown=lambda found: _within_budget(found, policy.budget_chars),
                q=question, kind=policy.kind, format="verbose", **depth) or []
    ids = [h["id"] for h in hits]
    browsed = len(compact_json(hits))  # the browse answer is read too: it counts against the budget
    resolved: dict = {}
    kwargs: dict[str, int | list[str]] = {"depth": policy.depth}
    if policy.expand is not None:
        kwargs["expand"] = list(policy.expand)
    if policy.resolve == "each":
        records: list[dict] = []
        used = 0
        for ident in ids:
            answer = call("resolve", lambda ids, **kw: tools.resolve(ids, **kw), ids=[ident], **kwargs) or {}
            size = len(compact_json(answer.get("records", [])))
            if records and browsed + used + size > policy.budget_chars:
                events.pop()  # over budget: not shown, so not part of the trajectory either
                break
            records.extend(answer.get("records", []))
            used += size
        return hits, ({"records": records} if records else {}), events
    while ids:
        resolved = call("resolve", lambda ids, **kw: tools.resolve(ids, **kw), ids=list(ids), **kwargs) or {}
        if browsed + len(compact_json(resolved)) <= policy.budget_chars or len(ids) == 1:
            break
        events.pop()  # over budget: not shown, so not part of the trajectory either
        ids.pop()
    return hits, resolved, events


def surface_with_tools(tools: Any, prompt: str, question: str, policy: LinkingPolicy,
                       schema: Mapping[str, Iterable[str]], context: str | None = None) -> Surfaced:
    """Run the policy and recognise what it surfaced (prompt included); ``context``: text given
    with the question (BIRD evidence), browsed as browse's ``context``."""
    from evoonto.tools.toolkit import OntologyTools

    hits, resolved, events = run_policy(tools, question, policy, context)
    shown = [compact_json(hits), compact_json(resolved)] if hits else [compact_json(hits)]
    text = "\n".join([prompt, *shown])
    tables, columns = recognise([prompt, hits, resolved], schema)
    status = None
    if policy.coverage and hasattr(tools, "coverage"):
        start = time.perf_counter()
        asked = f"{question} {context}" if context else question
        covered = tools.coverage(asked)
        status = covered["status"]
        version = tools.version if isinstance(tools, OntologyTools) else None  # test doubles serve no version
        events.append(ToolEvent.from_call("coverage", {"q": asked}, covered, version=version,
                                          latency_ms=(time.perf_counter() - start) * 1000).to_dict())
    return Surfaced(text, len(text), len(prompt), tables, columns, tuple(events), status)


def surface_list(prompt: str, lines: list[str], schema: Mapping[str, Iterable[str]]) -> Surfaced:
    """A list condition (e.g. BM25-ranked ``"table"."column"`` names): the prompt plus the list as
    compact JSON, recognised like a tool answer."""
    text = "\n".join([prompt, compact_json(lines)]) if prompt else compact_json(lines)
    tables, columns = recognise([prompt, lines], schema)
    return Surfaced(text, len(text), len(prompt), tables, columns)


def surface_prompt_only(prompt: str, schema: Mapping[str, Iterable[str]]) -> Surfaced:
    """A condition that pastes the whole schema: every table and column is surfaced by construction."""
    columns = frozenset((t.lower(), c.lower()) for t, cols in schema.items() for c in cols)
    return Surfaced(prompt, len(prompt), len(prompt), frozenset(t.lower() for t in schema), columns)


def score_linking(question_id: str, surfaced: Surfaced, gold: GoldAnalysis) -> LinkingResult:
    """Compare what was surfaced with the gold analysis of one question.

    Args:
        question_id: the question.
        surfaced: output of :func:`surface_with_tools` / :func:`surface_prompt_only`.
        gold: :func:`~evoonto.evaluation.gold.analyze_sql` of its gold SQL (scorers only).

    Returns:
        a :class:`LinkingResult`; a gold query with no tables/columns counts as fully recalled.
    """
    def recall(found: int, total: int) -> float:
        return 1.0 if total == 0 else found / total

    missing_columns = sorted(f"{t}.{c}" for t, c in gold.columns - surfaced.columns)
    missing_values = sorted(v for v in gold.values if not value_surfaced(v, surfaced.text))
    return LinkingResult(
        question_id=question_id,
        table_recall=recall(len(gold.tables & surfaced.tables), len(gold.tables)),
        column_recall=recall(len(gold.columns) - len(missing_columns), len(gold.columns)),
        value_recall=None if not gold.values else recall(len(gold.values) - len(missing_values), len(gold.values)),
        strict=not missing_columns,
        chars=surfaced.chars,
        tokens=estimate_tokens(surfaced.chars),
        missing_columns=tuple(missing_columns),
        missing_values=tuple(missing_values),
        coverage=surfaced.coverage,
    )


@dataclass(frozen=True)
class LinkingSummary:
    """Means over questions (value recall over questions that have gold values)."""

    questions: int
    strict_recall: float
    table_recall: float
    column_recall: float
    value_recall: float | None
    value_questions: int
    avg_chars: float
    avg_tokens: float
    #: questions per coverage status and their strict recall (only when the policy reported coverage)
    coverage: dict | None = None

    def to_json(self) -> dict:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


def summarize_linking(results: Sequence[LinkingResult]) -> LinkingSummary:
    """Aggregate per-question results (empty input gives zeros)."""
    n = len(results)

    def mean(values: list[float]) -> float:
        return sum(values) / len(values) if values else 0.0

    with_values = [r.value_recall for r in results if r.value_recall is not None]
    return LinkingSummary(
        questions=n,
        strict_recall=mean([float(r.strict) for r in results]),
        table_recall=mean([r.table_recall for r in results]),
        column_recall=mean([r.column_recall for r in results]),
        value_recall=mean(with_values) if with_values else None,
        value_questions=len(with_values),
        avg_chars=mean([r.chars for r in results]),
        avg_tokens=mean([r.tokens for r in results]),
        coverage=_coverage_summary(results),
    )


def _coverage_summary(results: Sequence[LinkingResult]) -> dict | None:
    """``{status: {"questions": n, "strict_recall": r}}`` over results with a coverage status, or None."""
    by_status: dict[str, list[LinkingResult]] = {}
    for r in results:
        if r.coverage is not None:
            by_status.setdefault(r.coverage, []).append(r)
    if not by_status:
        return None
    return {status: {"questions": len(rs), "strict_recall": round(sum(r.strict for r in rs) / len(rs), 4)}
            for status, rs in sorted(by_status.items())}
