"""Concepts for workload phrases that name nothing (issue 18.3): probe, keep, construct.

The proposers suggest :class:`~evoonto.builder.propose.ConceptCandidate` objects (the offline
:func:`~evoonto.builder.propose.phrase_concepts`, or Claude with ``--proposer anthropic:MODEL``):
a metric (an aggregate expression over numeric columns), a filter (e.g. a comparison of two date
columns) or a date grain. Each is checked by one read-only probe through the builder's
:class:`~evoonto.builder.probe.Prober` (the one probe path), and only what the data supports enters,
as a computed Term (:func:`evoonto.builder.verified.computed_term`) citing the probe's Evidence:

- metric: ``SELECT <expression> FROM table`` runs and gives a number;
- filter: ``0 < COUNT(rows where condition) < COUNT(rows where the columns are not NULL)`` (a
  condition that holds for no row or for every row names nothing);
- grain: the truncated column takes at least two distinct values.

A failed candidate is a :class:`~evoonto.builder.verify.Rejection` (family ``concept``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from rdflib import Graph, URIRef

from evoonto.builder.probe import Prober, ProbeResult
from evoonto.builder.propose import ConceptCandidate, term_slug
from evoonto.builder.verify import Rejection
from evoonto.builder.verified import computed_term, grain_expression
from evoonto.catalog import SourceSchema
from evoonto.iris import IriFactory, slugify
from evoonto.namespaces import bind_prefixes
from evoonto.records import Evidence, ProbeActivity

__all__ = ["ConceptBuild", "build_concepts"]


@dataclass
class ConceptBuild:
    """The records of the kept concepts (``graph``), how many (``count``) and the ``rejected`` ones."""

    graph: Graph
    count: int = 0
    rejected: list[Rejection] = field(default_factory=list)


def _number(run: ProbeResult, index: int = 0) -> float | None:
    row = run.rows[0] if run.rows else ()
    value = row[index] if len(row) > index else None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _check(candidate: ConceptCandidate, schema: SourceSchema, prober: Prober,
           dialect: str | None) -> tuple[ProbeResult | None, str, str | None]:
    """``(probe, reason, expression)``: the probe that backs the candidate (None when refused), why
    not when it fails, and the SQL expression to record."""
    table = schema.table(candidate.table)
    if table is None:
        return None, f"no table {candidate.table!r}", None
    for t, c in candidate.columns:
        info = schema.table(t)
        if info is None or info.column(c) is None or t != table.name:
            return None, f"no column {t}.{c} in table {table.name}", None
    source = prober.quote(table.name)
    if candidate.kind == "metric":
        run = prober.run(f"SELECT {candidate.expression} FROM {source}", limit=1)
        if not run.ok or _number(run) is None:
            return None, f"{candidate.expression} gives no number ({run.error or 'NULL'})", None
        return run, "", candidate.expression
    if candidate.kind == "filter":
        not_null = " AND ".join(f"{prober.quote(c)} IS NOT NULL" for _t, c in candidate.columns)
        run = prober.run(f"SELECT COUNT(*), COUNT(CASE WHEN {candidate.expression} THEN 1 END) FROM {source} "
                         f"WHERE {not_null}", limit=1)
        total, hits = _number(run, 0), _number(run, 1)
        if not run.ok or total is None or hits is None or not 0 < hits < total:
            shown = [None if x is None else int(x) for x in (hits, total)]
            return None, f"{candidate.expression} holds for {shown[0]} of {shown[1]} rows", None
        return run, "", candidate.expression
    if candidate.kind == "grain" and candidate.unit:
        expression = grain_expression(candidate.unit, candidate.expression, dialect)
        if expression is None:
            return None, f"no {candidate.unit} truncation in the dialect {dialect}", None
        run = prober.run(f"SELECT COUNT(DISTINCT {expression}) FROM {source}", limit=1)
        distinct = _number(run)
        if not run.ok or distinct is None or distinct < 2:
            return None, f"{expression} takes {None if distinct is None else int(distinct)} distinct values", None
        return run, "", expression
    return None, f"unknown concept kind {candidate.kind!r}", None


def build_concepts(candidates: Sequence[ConceptCandidate], schema: SourceSchema, prober: Prober,
                   content: Graph, iris: IriFactory, at: datetime) -> ConceptBuild:
    """Probe each candidate and write the kept ones (see the module docstring).

    Args:
        candidates: from the proposal (``Proposal.concepts``).
        schema: the source's catalog view; prober: the build's prober for the source.
        content: the content graph built so far (read: which column Terms exist).
        iris: the IRI factory; at: the build's logical time (the probes' time).

    Returns:
        A :class:`ConceptBuild` whose ``graph`` is to be added to the content graph.
    """
    out = ConceptBuild(bind_prefixes(Graph()))
    dialect = prober.dialect or ("sqlite" if prober.source.kind == "sqlite" else None)
    seen: set[URIRef] = set()
    for candidate in candidates:
        run, reason, expression = _check(candidate, schema, prober, dialect)
        subject = f"{candidate.kind} {candidate.label}"
        if run is None or expression is None:
            out.rejected.append(Rejection("concept", subject, reason))
            continue
        if candidate.kind == "grain":
            slug = f"{term_slug(candidate.table, candidate.columns[0][1])}.grain-{candidate.unit}"
        else:  # named by the workload phrase; the table qualifies a second concept of that name
            slug = f"{candidate.kind}.{slugify(candidate.phrases[0] if candidate.phrases else candidate.label)}"
            if iris.term(schema.id, slug) in seen:
                slug += "." + slugify(candidate.table, max_length=40)
        term = iris.term(schema.id, slug)
        if term in seen or (term, None, None) in content:
            continue
        seen.add(term)
        evidence, activity = iris.evidence(run.key), iris.probe(run.key)
        ProbeActivity(activity, query=run.sql, used=schema.iri, started_at=at, ended_at=at).to_graph(out.graph)
        summary = "; ".join(", ".join(str(v) for v in row) for row in run.rows[:1]) or "no rows"
        Evidence(evidence, probe=activity, generated_at=at, summary=f"{run.sql} -> {summary}").to_graph(out.graph)
        asked = f" (asked as {', '.join(repr(p) for p in candidate.phrases)})" if candidate.phrases else ""
        qualified = ", ".join(f"{t}.{c}" for t, c in candidate.columns)
        if candidate.kind == "grain" and candidate.unit:
            from evoonto.builder.verified import grain_term

            grain_term(out.graph, content, iris, schema.id, candidate.table, candidate.columns[0][1], candidate.unit,
                       expression, [evidence])
        else:
            label = candidate.phrases[0] if candidate.phrases else candidate.label
            computed_term(
                out.graph, content, iris, schema.id, slug, kind="Metric" if candidate.kind == "metric" else "Category",
                label=label[:1].upper() + label[1:], alt_labels=[candidate.label, *candidate.alt_labels],
                columns=candidate.columns, evidence=[evidence],
                confidence=0.6 if candidate.origin == "workload" else 0.7,
                expression=expression if candidate.kind == "metric" else None,
                aggregation=candidate.aggregation if candidate.kind == "metric" else "COUNT",
                filter=expression if candidate.kind == "filter" else None,
                definition=f"{candidate.label}: {expression} over {qualified}{asked}; proposed by the "
                           f"{candidate.origin} proposer and verified by a probe.")
        out.count += 1
    return out
