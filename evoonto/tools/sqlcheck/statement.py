"""Rules on the statement as a whole: ``self_comparison``, ``view_for_base``, ``missing_constraint``
(each one function over the shared :class:`~evoonto.tools.sqlcheck.context.CheckContext`)."""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, SqlglotError

from evoonto.tools.sqlcheck.context import CheckContext

__all__ = ["check_self_comparisons", "check_repeated_conditions", "check_views", "check_constraints"]


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


def check_repeated_conditions(ctx: CheckContext) -> None:
    """``repeated_condition`` (Warning): one ``ON`` or ``WHERE`` clause states the same comparison
    twice among its ``AND``-ed conditions (``ON T1.hair_colour_id = T2.id AND T1.hair_colour_id =
    T2.id``; sides of ``=``/``<>`` in either order, columns compared by the table and column they
    resolve to): the copy adds nothing, and usually another column was meant (a second role of a
    key). No suggestion: which column was meant, the statement does not say."""
    clauses = [j.args.get("on") for j in ctx.statement.find_all(exp.Join)]
    clauses += [w.this for w in ctx.statement.find_all(exp.Where)]
    for clause in clauses:
        if not isinstance(clause, exp.And):
            continue
        seen: set[tuple[str, ...]] = set()
        for cmp in clause.flatten():
            if not isinstance(cmp, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)):
                continue
            sides = [_comparable(ctx, cmp.this), _comparable(ctx, cmp.expression)]
            key = (type(cmp).__name__, *(sorted(sides) if isinstance(cmp, (exp.EQ, exp.NEQ)) else sides))
            if key in seen:
                text = cmp.sql(dialect=ctx.dialect)
                ctx.add("repeated_condition", "Warning",
                        f"{text} is stated twice in one clause: the copy adds nothing (was another column meant?)",
                        None, cmp, text)
            seen.add(key)


def _comparable(ctx: CheckContext, node: exp.Expression) -> str:
    """A comparison side as text, a column as the ``table.column`` it resolves to (aliases differ)."""
    if isinstance(node, exp.Column):
        place = ctx._resolve(node)
        if place is not None:
            return f"{place[0].casefold()}.{place[1].casefold()}@{(node.table or '').casefold()}"
    return node.sql(dialect=ctx.dialect)


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
