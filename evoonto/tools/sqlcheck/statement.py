"""Rules on the statement as a whole: ``self_comparison``, ``view_for_base``, ``missing_constraint``
(each one function over the shared :class:`~evoonto.tools.sqlcheck.context.CheckContext`)."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError

from evoonto.tools.sqlcheck.context import CheckContext

__all__ = ["check_self_comparisons", "check_views", "check_constraints"]


def check_self_comparisons(ctx: CheckContext) -> None:
    """``self_comparison`` (Warning): a column compared with itself (``a <> a``, ``T1.a = T1.a``),
    which holds for every row or for none; one side usually meant another column."""
    for cmp in ctx.statement.find_all(exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE):
        left, right = cmp.this, cmp.expression
        if not isinstance(cmp, exp.Expression) or not isinstance(left, exp.Column) \
                or not isinstance(right, exp.Column):
            continue
        place = ctx._resolve(left)
        if place is None or place != ctx._resolve(right) \
                or (left.table or "").casefold() != (right.table or "").casefold():
            continue
        where = f"{place[0]}.{place[1]}"
        ctx.add("self_comparison", "Warning",
                 f"{cmp.sql(dialect=ctx.dialect)} compares {where} with itself: it holds for every row or none",
                 "compare it with the column meant", cmp, where)



def check_views(ctx: CheckContext) -> None:
    """``view_for_base`` (Warning): a view read only through columns it passes through unchanged from a
    base table (``evo:viewColumnOf``); the suggestion names the base columns."""
    by_table: dict[str, list[str]] = {}
    for table, column in sorted(ctx.used):
        by_table.setdefault(table, []).append(column)
    for table, columns in by_table.items():
        passes = ctx.facts.views.get((ctx.schema.id, table.casefold()))
        if not passes or not all(c.casefold() in passes for c in columns):
            continue
        bases = [passes[c.casefold()] for c in columns]
        node = next((t for t in ctx.statement.find_all(exp.Table) if t.name.casefold() == table.casefold()), None)
        ctx.add("view_for_base", "Warning",
                 f"{table!r} is a view; the columns used ({', '.join(columns)}) are passed through from "
                 f"{', '.join(sorted({b for b, _c in bases}))}",
                 ", ".join(f"{b}.{c}" for b, c in bases), node.this if node is not None else None, table)



def check_constraints(ctx: CheckContext) -> None:
    """``missing_constraint`` (the Constraint's severity): a Violation-level Constraint applies (a column
    of its target is used and, with trigger keywords, one occurs among the string literals) and the
    columns of its condition are restricted nowhere in the statement."""
    used = {(ctx.schema.id, t.casefold(), c.casefold()) for t, c in ctx.used}
    used_tables = {(ctx.schema.id, t.casefold()) for t, _c in ctx.used}
    for constraint in ctx.facts.constraints:
        applies = any((s, t.casefold(), c.casefold()) in used if c else (s, t.casefold()) in used_tables
                      for s, t, c in constraint.targets)
        if not applies:
            continue
        if constraint.triggers and not any(
                trigger in literal or literal in constraint.triggers for trigger in constraint.triggers
                for literal in ctx.literals):
            continue
        try:
            condition = sqlglot.parse_one(constraint.condition, read=ctx.dialect)
        except (ParseError, SqlglotError):
            continue
        needed = {c.name.casefold() for c in condition.find_all(exp.Column)}
        if needed and not needed <= ctx.restricted:
            missing = ", ".join(sorted(needed - ctx.restricted))
            ctx.add("missing_constraint", constraint.severity,
                     f"a required condition on {missing} is missing"
                     + (f": {constraint.comment}" if constraint.comment else ""),
                     f"add AND {constraint.condition}", None, constraint.iri)
