"""Verification: only candidates the data supports enter the ontology (paper §3.1, "verify").

Checks, each backed by a probe whose result becomes Evidence:

* **declared type** — a column Term needs a successful profile of its column; a column whose values
  contradict its declared type (numbers stored as text) keeps its Term but gets a Constraint;
* **filter** — a value Term or workload value must select at least one row (``COUNT(*) … WHERE
  column = value``);
* **value distribution** — a join must hold on the data (declared joins: the inclusion probe runs
  and its ratio is recorded; discovered joins: ≥ 90 % of child rows found in the parent), a
  derivation must hold on every row, a closed-vocabulary constraint must have no row outside it;
* **labels** — a synonym must not already name another Term (it would make browse ambiguous).

A failed candidate stays out and a :class:`Rejection` records why (the build log).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from evoonto.builder.labels import normalize
from evoonto.builder.probe import ColumnProfile, Prober, ProbeResult
from evoonto.builder.propose import (
    ConstraintCandidate, DerivationCandidate, Proposal, SynonymCandidate, TermCandidate,
    column_kind, term_slug, value_term,
)
from evoonto.catalog import SourceSchema
from evoonto.sources.joins import JoinCandidate

__all__ = ["Rejection", "VerifiedTerm", "VerifiedJoin", "VerifiedDerivation", "VerifiedConstraint",
           "Verified", "verify", "MIN_INCLUSION"]

#: Share of child rows whose key is found in the parent for an undeclared join (the source
#: layer's discovery uses the same 0.9 on distinct values).
MIN_INCLUSION = 0.9
#: Relative tolerance of derivation checks.
DERIVATION_TOLERANCE = 1e-6
_OPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: a / b if b else math.nan,
}


@dataclass(frozen=True)
class Rejection:
    """A candidate that stayed out: ``family`` (term, synonym, value, join, derivation, constraint),
    ``subject`` (readable id) and ``reason`` (one line)."""

    family: str
    subject: str
    reason: str


@dataclass(frozen=True)
class VerifiedTerm:
    """A Term candidate with the probe that backs it and, for column Terms, the column profile."""

    candidate: TermCandidate
    probe: ProbeResult
    profile: ColumnProfile | None = None


@dataclass(frozen=True)
class VerifiedJoin:
    """A join with its inclusion probe (``child_rows``, ``matched_rows``)."""

    candidate: JoinCandidate
    probe: ProbeResult
    child_rows: int
    matched_rows: int


@dataclass(frozen=True)
class VerifiedDerivation:
    """``table.target = left op right`` on every row (``probe`` counts violating rows: 0)."""

    table: str
    target: str
    left: str
    op: str
    right: str
    probe: ProbeResult

    @property
    def formula(self) -> str:
        """``"target = left op right"``."""
        return f"{self.target} = {self.left} {self.op} {self.right}"


@dataclass(frozen=True)
class VerifiedConstraint:
    """A constraint candidate with the probe that supports it."""

    candidate: ConstraintCandidate
    probe: ProbeResult


@dataclass
class Verified:
    """The outcome of :func:`verify` for one source (lists in stable order)."""

    terms: list[VerifiedTerm] = field(default_factory=list)
    synonyms: list[SynonymCandidate] = field(default_factory=list)
    joins: list[VerifiedJoin] = field(default_factory=list)
    derivations: list[VerifiedDerivation] = field(default_factory=list)
    constraints: list[VerifiedConstraint] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)


def _count(probe: ProbeResult) -> int:
    value = probe.scalar(0)
    return int(value) if isinstance(value, (int, float)) else 0


def verify(proposal: Proposal, schema: SourceSchema, profiles: Mapping[tuple[str, str], ColumnProfile],
           prober: Prober) -> Verified:
    """Probe and check every candidate of a (normalized) proposal.

    Args:
        proposal: candidates from a proposer (normalized here).
        schema: the source's catalog view (a candidate naming a missing table/column is rejected).
        profiles: column profiles already probed.
        prober: runs the extra probes (filters, inclusion, derivations).

    Returns:
        A :class:`Verified` with accepted items and the rejections.
    """
    proposal = proposal.normalized()
    out = Verified()
    synonyms = list(proposal.synonyms)
    term_slugs: set[str] = set()
    candidates = list(proposal.terms)
    known_values = {(t.table, t.column, t.value) for t in candidates if t.value is not None}
    for value in proposal.values:  # workload values become value Terms once a probe confirms them
        if (value.table, value.column, value.value) not in known_values:
            candidates.append(value_term(value.table, value.column, value.value, origin=value.origin, confidence=0.8))
            known_values.add((value.table, value.column, value.value))
        if normalize(value.phrase) != normalize(value.value):  # "European" for 'europe'
            synonyms.append(SynonymCandidate(term_slug(value.table, value.column, value.value), value.phrase,
                                             origin=value.origin, question_ids=value.question_ids))
    for cand in sorted(candidates, key=lambda t: t.slug):
        accepted = _verify_term(cand, schema, profiles, prober, out.rejected)
        if accepted is not None:
            out.terms.append(accepted)
            term_slugs.add(cand.slug)
    _verify_synonyms(Proposal(synonyms=synonyms).normalized().synonyms, out, term_slugs)
    for join in proposal.joins:
        _verify_join(join, schema, prober, out)
    for derivation in proposal.derivations:
        out.derivations.extend(_verify_derivations(derivation, prober, out.rejected))
    for constraint in proposal.constraints:
        _verify_constraint(constraint, schema, prober, out)
    return out


def _verify_term(cand: TermCandidate, schema: SourceSchema, profiles, prober: Prober,
                 rejected: list[Rejection]) -> VerifiedTerm | None:
    table = schema.table(cand.table)
    if table is None:
        rejected.append(Rejection("term", cand.slug, f"table {cand.table!r} is not in the catalog"))
        return None
    if cand.column is None:
        probe = prober.row_count(table.name)
        if not probe.ok:
            rejected.append(Rejection("term", cand.slug, f"row count probe failed: {probe.error}"))
            return None
        return VerifiedTerm(cand, probe)
    col = table.column(cand.column)
    if col is None:
        rejected.append(Rejection("term", cand.slug, f"column {cand.table}.{cand.column} is not in the catalog"))
        return None
    profile = profiles.get((table.name, col.name))
    if profile is None:  # the profiler skips (and warns about) a column whose probe failed
        rejected.append(Rejection("term", cand.slug, "profile probe failed: no profile"))
        return None
    if cand.value is None:
        if cand.origin != "schema":
            observed = column_kind(table, col, profile)
            wrong_metric = cand.kind == "Metric" and not profile.numeric
            if wrong_metric or cand.kind == "TimeDimension" and observed != "TimeDimension":
                rejected.append(Rejection("term", cand.slug, f"type check failed: {cand.table}.{cand.column} holds "
                                          f"{profile.pattern} values ({observed}), not a {cand.kind}"))
                return None
        return VerifiedTerm(cand, profile.run, profile)
    probe = prober.count_equal(table.name, col.name, cand.value)
    if not probe.ok or _count(probe) == 0:
        why = probe.error or f"no row has {cand.table}.{cand.column} = {prober.literal(cand.value)}"
        rejected.append(Rejection("value", cand.slug, f"filter check failed: {why}"))
        return None
    return VerifiedTerm(cand, probe, profile)


def _verify_synonyms(synonyms: Sequence[SynonymCandidate], out: Verified, term_slugs: set[str]) -> None:
    owners: dict[str, set[str]] = {}
    for vt in out.terms:
        for label in vt.candidate.labels.all():
            owners.setdefault(normalize(label), set()).add(vt.candidate.slug)
    for syn in synonyms:
        key = normalize(syn.label)
        if syn.slug not in term_slugs:
            out.rejected.append(Rejection("synonym", f"{syn.slug}: {syn.label}", "its Term was not accepted"))
        elif owners.get(key, set()) - {syn.slug}:
            other = sorted(owners[key] - {syn.slug})[0]
            out.rejected.append(Rejection("synonym", f"{syn.slug}: {syn.label}", f"already a label of {other}"))
        else:
            out.synonyms.append(syn)


def _verify_join(join: JoinCandidate, schema: SourceSchema, prober: Prober, out: Verified) -> None:
    subject = join.condition()
    child, parent = schema.table(join.child), schema.table(join.parent)
    if child is None or parent is None or any(child.column(c) is None for c in join.child_columns) \
            or any(parent.column(c) is None for c in join.parent_columns):
        out.rejected.append(Rejection("join", subject, "a table or column of the join is not in the catalog"))
        return
    probe = prober.inclusion(child.name, join.child_columns, parent.name, join.parent_columns)
    if not probe.ok:
        out.rejected.append(Rejection("join", subject, f"inclusion probe failed: {probe.error}"))
        return
    rows, matched = (int(x or 0) for x in probe.rows[0])
    if not join.declared:
        if rows == 0:
            out.rejected.append(Rejection("join", subject, "no child rows to support an undeclared join"))
            return
        if matched / rows < MIN_INCLUSION:
            out.rejected.append(Rejection("join", subject, f"only {matched}/{rows} child keys found in {join.parent}"))
            return
    out.joins.append(VerifiedJoin(join, probe, rows, matched))


def _numbers(rows: Sequence[tuple], i: int) -> list[float | None]:
    out = []
    for row in rows:
        v = row[i]
        out.append(float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None)
    return out


def _verify_derivations(cand: DerivationCandidate, prober: Prober,
                        rejected: list[Rejection]) -> list[VerifiedDerivation]:
    sample = prober.table_sample(cand.table, cand.columns)
    if not sample.ok:
        rejected.append(Rejection("derivation", cand.table, f"sample probe failed: {sample.error}"))
        return []
    cols = {name: _numbers(sample.rows, i) for i, name in enumerate(cand.columns)}
    found: list[VerifiedDerivation] = []
    explained: set[frozenset[str]] = set()
    # computed columns usually follow their inputs: try the last columns as targets first, and
    # record one equation per set of three columns (not its rearrangements)
    ordered = list(reversed(cand.columns))
    at: dict[str, int] = {}
    for i, name in enumerate(cand.columns):
        at.setdefault(name, i)  # the first position, as list.index gives it
    for target, left, right in itertools.permutations(ordered, 3):
        if max(at[left], at[right]) > at[target]:
            continue
        if frozenset((target, left, right)) in explained:
            continue
        for op, fn in _OPS.items():
            if op in "+*" and at[left] > at[right]:
                continue
            if _holds(cols[target], cols[left], cols[right], fn):
                # a template of the check's shape: the names fill its slots, quoted for the dialect
                expr = "CAST({l} AS REAL) / {r}" if op == "/" else f"{{l}} {op} {{r}}"
                predicate = ("{t} IS NOT NULL AND {l} IS NOT NULL AND {r} IS NOT NULL "
                             f"AND ABS({{t}} - ({expr})) > {DERIVATION_TOLERANCE} * (1 + ABS({{t}}))")
                check = prober.count_where(cand.table, predicate, t=target, l=left, r=right)
                if check.ok and _count(check) == 0:
                    found.append(VerifiedDerivation(cand.table, target, left, op, right, check))
                    explained.add(frozenset((target, left, right)))
                    break
                rejected.append(Rejection("derivation", f"{cand.table}.{target} = {left} {op} {right}",
                                          check.error or f"{_count(check)} rows violate it"))
    return found


def _holds(target, left, right, fn) -> bool:
    rows = 0
    for t, a, b in zip(target, left, right, strict=False):
        if t is None or a is None or b is None:
            continue
        value = fn(a, b)
        if isinstance(value, float) and math.isnan(value):
            return False
        if abs(t - value) > DERIVATION_TOLERANCE * (1 + abs(t)):
            return False
        rows += 1
    if rows < 3:
        return False
    # trivial identities (b always 0 for +/-, 1 for * and /) are not derivations
    return not (all(t == a for t, a in zip(target, left, strict=False) if t is not None and a is not None)
                or all(t == b for t, b in zip(target, right, strict=False) if t is not None and b is not None))


def _verify_constraint(cand: ConstraintCandidate, schema: SourceSchema, prober: Prober, out: Verified) -> None:
    table = schema.table(cand.table)
    if table is None or table.column(cand.column) is None:
        out.rejected.append(Rejection("constraint", cand.slug, "its column is not in the catalog"))
        return
    if cand.rule == "domain":
        probe = prober.count_where(table.name, f"{prober.quote(cand.column)} IS NOT NULL AND NOT ({cand.condition})")
        ok = probe.ok and _count(probe) == 0
    elif cand.rule == "numeric-text":
        probe = prober.count_not_null(table.name, cand.column)
        ok = probe.ok and _count(probe) > 0
    else:  # lookup: the join must resolve
        probe = prober.count_not_null(table.name, cand.column)
        ok = probe.ok
    if ok:
        out.constraints.append(VerifiedConstraint(cand, probe))
    else:
        out.rejected.append(Rejection("constraint", cand.slug, probe.error or "the data does not support it"))
