"""A proposer driven by Claude (Anthropic Messages API through the official ``anthropic`` SDK).

Claude sees the catalog (tables, columns, kinds, a few sample values) and the workload questions —
never a gold answer — and answers with JSON: synonyms for existing columns, question phrases that
denote column values (``"French"`` → ``singer.Country = 'France'``), extra business Terms, and
concepts for phrases that name no column (``"revenue"`` → ``SUM(price * quantity)``, ``"late"`` →
``shipped > required``, ``"monthly"`` → a date grain; probed by :mod:`evoonto.builder.concepts`). The JSON
is parsed into the same typed candidates as the offline proposer's and goes through the same
probe → verify → construct path, so an invented column or value is rejected by a probe like any other
candidate. The schema-driven candidates of :class:`~evoonto.builder.propose.OfflineProposer` are
always included, so nothing is lost when Claude omits something.

The API key is read from ``ANTHROPIC_API_KEY`` by the SDK client and is never written to disk, logs
or the ontology.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from evoonto.builder.labels import LabelSet, normalize
from evoonto.builder.probe import ColumnProfile
from evoonto.builder.propose import (
    ConceptCandidate, OfflineProposer, Proposal, SynonymCandidate, TermCandidate, ValueCandidate,
    term_slug,
)
from evoonto.builder.workload import Question
from evoonto.catalog import SourceSchema
from evoonto.errors import ConfigurationError, EvoontoError, first_line
from evoonto.iris import slugify
from evoonto.optional import require
from evoonto.records import TERM_KINDS

__all__ = ["ClaudeProposer", "build_prompt", "parse_response", "SYSTEM_PROMPT", "DEFAULT_MAX_QUESTIONS"]

#: Questions sent to Claude per source (the rest are still used by the offline proposer).
DEFAULT_MAX_QUESTIONS = 300
#: Sample values shown per column.
PROMPT_SAMPLES = 8
_AGGREGATIONS = ("SUM", "AVG", "COUNT", "COUNT DISTINCT", "MIN", "MAX", "NONE")

SYSTEM_PROMPT = """\
You help build a business ontology over a relational database so that a data agent can find the
right tables, columns and values for natural-language questions. You are given the schema (with
sample values) and example questions. Reply with ONE JSON object and nothing else:
{
 "synonyms": [{"table": T, "column": C or null, "phrase": "words a question uses for it"}],
 "values":   [{"table": T, "column": C, "value": "exact stored value", "phrase": "question wording"}],
 "terms":    [{"label": "business concept", "kind": "Metric|Dimension|Category|TimeDimension|Identifier|Entity",
               "table": T, "column": C or null, "value": "stored value or null",
               "aggregation": "SUM|AVG|COUNT|COUNT DISTINCT|MIN|MAX|NONE or null",
               "synonyms": ["..."], "definition": "one sentence"}],
 "concepts": [{"phrase": "question words that name no table, column or value (e.g. revenue, late, monthly)",
               "kind": "metric|filter|grain", "table": T,
               "expression": "metric: an aggregate over T's columns, e.g. SUM(T.price * T.quantity);
                              filter: a condition, e.g. T.shipped_date > T.required_date;
                              grain: the date column T.c",
               "unit": "day|week|month|quarter|year (grain only)"}]
}
Use only tables and columns that exist. Values must be spelled exactly as stored. Prefer phrases that
the questions actually use (plural forms, demonyms such as French -> France, paraphrases such as
"founded" -> independence year). Do not write SQL."""


def build_prompt(schema: SourceSchema, profiles: Mapping[tuple[str, str], ColumnProfile],
                 questions: Sequence[Question], *, max_questions: int = DEFAULT_MAX_QUESTIONS) -> str:
    """The user message: the schema with sample values, then the questions (text only).

    Args:
        schema: the source's catalog view.
        profiles: column profiles (for sample values and patterns).
        questions: workload questions; the first ``max_questions`` are included.

    Returns:
        The prompt text (deterministic for the same inputs).
    """
    lines = [f"Database {schema.id}:"]
    for table in schema.tables:
        lines.append(f"TABLE {table.name} ({table.row_count if table.row_count is not None else '?'} rows)")
        for col in table.columns:
            profile = profiles.get((table.name, col.name))
            bits = [col.declared_type or "?"]
            if col.primary_key:
                bits.append("primary key")
            bits += [f"references {t}.{c}" for t, c in col.references]
            if profile is not None:
                samples = [str(v) for v, _ in profile.top_values[:PROMPT_SAMPLES]]
                bits.append(f"{profile.distinct_count} distinct" if not profile.sampled
                            else f"{profile.distinct_count} distinct in a sample of {profile.rows} rows")
                if samples:
                    bits.append("e.g. " + json.dumps(samples, ensure_ascii=False))
            lines.append(f"  {col.name}: " + "; ".join(bits))
    lines.append("")
    lines.append("Questions:")
    lines += [f"- {q.text}" for q in questions[:max_questions]]
    return "\n".join(lines)


def _json_object(text: str) -> dict:
    start = text.find("{")
    while start != -1:
        try:
            obj, _ = json.JSONDecoder().raw_decode(text[start:])
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(obj, dict):
            return obj
        start = text.find("{", start + 1)
    raise EvoontoError("the proposer's reply holds no JSON object")


def _str(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def parse_response(text: str, schema: SourceSchema) -> Proposal:
    """Parse Claude's JSON reply into typed candidates (origin ``llm``).

    Items that are not well-formed (missing fields, wrong types, unknown kind or aggregation) are
    skipped; items naming tables, columns or values that do not exist are kept and rejected later
    by verification, with the reason logged.

    Args:
        text: the reply text (may wrap the JSON in prose or a code fence).
        schema: the source's catalog view (table and column names are matched case-insensitively).

    Returns:
        A :class:`~evoonto.builder.propose.Proposal`.

    Raises:
        EvoontoError: the reply holds no JSON object.
    """
    data = _json_object(text)
    proposal = Proposal()

    def canonical(table: str | None, column: str | None) -> tuple[str | None, str | None]:
        t = schema.table(table) if table else None
        if t is None:
            return table, column
        c = t.column(column) if column else None
        return t.name, (c.name if c is not None else column)

    for item in data.get("synonyms", []) if isinstance(data.get("synonyms"), list) else []:
        if not isinstance(item, dict):
            continue
        table, column = canonical(_str(item.get("table")), _str(item.get("column")))
        phrase = _str(item.get("phrase"))
        if table and phrase:
            proposal.synonyms.append(SynonymCandidate(term_slug(table, column), phrase, origin="llm"))
    for item in data.get("values", []) if isinstance(data.get("values"), list) else []:
        if not isinstance(item, dict):
            continue
        table, column = canonical(_str(item.get("table")), _str(item.get("column")))
        value, phrase = item.get("value"), _str(item.get("phrase"))
        if table and column and isinstance(value, (str, int, float)) and not isinstance(value, bool):
            proposal.values.append(ValueCandidate(table, column, str(value), phrase or str(value), origin="llm"))
            if phrase and normalize(phrase) != normalize(str(value)):
                proposal.synonyms.append(SynonymCandidate(term_slug(table, column, str(value)), phrase, origin="llm"))
    for item in data.get("terms", []) if isinstance(data.get("terms"), list) else []:
        if not isinstance(item, dict):
            continue
        label, kind = _str(item.get("label")), _str(item.get("kind"))
        table, column = canonical(_str(item.get("table")), _str(item.get("column")))
        aggregation = _str(item.get("aggregation"))
        aggregation = aggregation.upper() if aggregation else None
        if not label or kind not in TERM_KINDS or not table or (aggregation and aggregation not in _AGGREGATIONS):
            continue
        value = item.get("value")
        value = str(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None
        raw_synonyms = item.get("synonyms")
        synonyms = [s for s in raw_synonyms if isinstance(s, str)] if isinstance(raw_synonyms, list) else []
        definition = _str(item.get("definition")) or f"{label} (proposed from the workload)."
        proposal.terms.append(TermCandidate(
            slug=f"{term_slug(table, column)}~{slugify(label, max_length=40)}", kind=kind, table=table,
            column=column, labels=LabelSet.make(label, synonyms), definition=definition, value=value,
            aggregation=aggregation if aggregation != "NONE" else None, origin="llm", confidence=0.7,
        ))
    for item in data.get("concepts", []) if isinstance(data.get("concepts"), list) else []:
        concept = _concept(item, canonical)
        if concept is not None:
            proposal.concepts.append(concept)
    return proposal


_GRAIN_UNITS = ("hour", "day", "week", "month", "quarter", "year")


def _concept(item: Any, canonical: Any) -> ConceptCandidate | None:
    """A :class:`ConceptCandidate` from one ``concepts`` item (origin ``llm``), or None when it is
    malformed: unknown kind, no table or phrase, an expression sqlglot cannot read or that names
    no column. Columns without a table qualifier belong to the item's table; whether they exist is
    left to the probe (:mod:`evoonto.builder.concepts`)."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    if not isinstance(item, dict):
        return None
    kind, phrase, table, text = (_str(item.get(k)) for k in ("kind", "phrase", "table", "expression"))
    unit = (_str(item.get("unit")) or "").lower() or None
    if kind not in ("metric", "filter", "grain") or not phrase or not table or not text:
        return None
    if kind == "grain" and unit not in _GRAIN_UNITS:
        return None
    table = canonical(table, None)[0] or table
    try:
        node = sqlglot.parse_one(text)
    except SqlglotError:
        return None
    columns = []
    for col in node.find_all(exp.Column):
        t, c = canonical(col.table or table, col.name)
        columns.append((t or table, c or col.name))
    if not columns or (kind == "grain" and not isinstance(node, exp.Column)):
        return None
    aggregation = None
    if kind == "metric":
        outer = next(iter(node.find_all(exp.AggFunc)), None)
        aggregation = {"Sum": "SUM", "Avg": "AVG", "Count": "COUNT", "Min": "MIN", "Max": "MAX"}.get(
            type(outer).__name__) if outer is not None else None
        if aggregation is None:
            return None
    return ConceptCandidate(kind, phrase, table, tuple(dict.fromkeys(columns)), expression=node.sql(),
                            alt_labels=(phrase,), aggregation=aggregation, unit=unit if kind == "grain" else None,
                            phrases=(phrase.lower(),), origin="llm")


class ClaudeProposer:
    """Proposer backed by Claude: offline schema-driven candidates + Claude's suggestions.

    Args:
        client: an ``anthropic.Anthropic`` client (or any object with ``messages.create``).
        model: the model name, e.g. ``"claude-sonnet-5-5"``.
        max_tokens: reply budget in tokens.
        max_questions: questions included in the prompt per source.
    """

    def __init__(self, client: Any, model: str, *, max_tokens: int = 8192,
                 max_questions: int = DEFAULT_MAX_QUESTIONS):
        self.client = client
        self.model = model
        self.max_tokens = max_tokens
        self.max_questions = max_questions
        self.name = f"anthropic:{model}"
        self._offline = OfflineProposer()

    @classmethod
    def from_environment(cls, model: str, **kwargs) -> ClaudeProposer:
        """A proposer whose client takes the API key from ``ANTHROPIC_API_KEY``.

        Raises:
            ConfigurationError: ``ANTHROPIC_API_KEY`` is not set.
        """
        if not os.environ.get("ANTHROPIC_API_KEY"):
            raise ConfigurationError(f"ANTHROPIC_API_KEY is not set; it is required by the proposer anthropic:{model}")
        anthropic = require("anthropic")

        return cls(anthropic.Anthropic(), model, **kwargs)

    def propose(self, schema: SourceSchema, profiles: Mapping[tuple[str, str], ColumnProfile],
                questions: Sequence[Question]) -> Proposal:
        """Offline candidates plus the parsed reply of one Messages API call.

        Raises:
            EvoontoError: the API call failed (message names the model and the SDK's reason) or the
                reply holds no JSON object.
        """
        proposal = self._offline.propose(schema, profiles, questions)
        prompt = build_prompt(schema, profiles, questions, max_questions=self.max_questions)
        try:
            message = self.client.messages.create(
                model=self.model, max_tokens=self.max_tokens, system=SYSTEM_PROMPT,
                messages=[{"role": "user", "content": prompt}],
            )
        except Exception as exc:  # the SDK raises anthropic.APIError subclasses
            if type(exc).__module__.startswith("anthropic"):
                reason = first_line(exc)
                raise EvoontoError(f"Claude proposer ({self.model}) failed: {reason}") from None
            raise
        text = "".join(block.text for block in message.content if block.type == "text")
        return proposal.extend(parse_response(text, schema))
