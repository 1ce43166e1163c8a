"""Rules on select lists and grouping: ``repeated_column``, ``selects_filter_value``,
``ungrouped_column``, ``grouped_aggregate``, ``group_by_unique`` (one function over the shared
:class:`~evoonto.tools.sqlcheck.context.CheckContext`)."""

from __future__ import annotations

from sqlglot import exp

from evoonto.tools.sqlcheck.context import CheckContext, _is_numeral

__all__ = ["check_grouping"]


def _check_fixed_selection(ctx: CheckContext, sel: exp.Select,
                           returned: dict[tuple[str, str], exp.Column]) -> None:
    """``selects_filter_value`` (Warning): the select list returns a column that the WHERE clause
    fixes to literals (``=``/``IN``, not alternated with a condition on another column), so the
    result shows back values the SQL already states; usually another column is asked for."""
    where = sel.args.get("where")
    if where is None or not returned:
        return
    for cmp in where.find_all(exp.EQ, exp.In):
        if cmp.find_ancestor(exp.Select) is not sel or cmp.find_ancestor(exp.Not) is not None:
            continue
        column = cmp.this if isinstance(cmp.this, exp.Column) else cmp.expression
        others = cmp.expressions if isinstance(cmp, exp.In) else \
            [cmp.expression if column is cmp.this else cmp.this]
        if not isinstance(column, exp.Column) or not others or not all(
                _is_numeral(o) or ctx._string(o) is not None for o in others):
            continue
        place = ctx._resolve(column)
        key = (place[0].casefold(), place[1].casefold()) if place is not None else None
        if place is None or key not in returned:
            continue
        alternatives = [o for o in (cmp.find_ancestor(exp.Or),) if o is not None]
        node = cmp
        while alternatives:
            branch_columns = {ctx._resolve(c) for c in alternatives[0].find_all(exp.Column)
                              if id(c) not in ctx.string_columns}
            if branch_columns - {place}:
                break  # alternated with a condition on another column: not fixed
            node = alternatives[0]
            alternatives = [o for o in (node.find_ancestor(exp.Or),) if o is not None]
        else:
            where_text = f"{place[0]}.{place[1]}"
            fixed = others[0].sql(dialect=ctx.dialect) + (" …" if len(others) > 1 or node is not cmp else "")
            ctx.add("selects_filter_value", "Warning",
                     f"{where_text} is returned, but the WHERE clause fixes it to {fixed}",
                     "return the column the question asks for", returned[key].this, where_text)
            del returned[key]


def check_grouping(ctx: CheckContext) -> None:
    """Per SELECT: ``repeated_column`` (Warning) when the select list shows one column of one table
    reference twice (the second is usually meant to be another; ``e.LastName, m.LastName`` of a
    self-join are not a repeat); with GROUP BY, ``ungrouped_column`` (Warning) for a
    select-list column outside any aggregate that the groups do not determine (not grouped, and
    its table's unique key is neither grouped nor equal to a grouped column: the database shows
    one arbitrary row's value, or refuses), and ``group_by_unique`` (Warning) when a one-table
    SELECT that aggregates groups by a unique key of the table (every group is one row)."""
    for sel in ctx.statement.find_all(exp.Select):
        bare: list[tuple[tuple[str, str], exp.Column]] = []
        seen: dict[tuple[str, str], exp.Column] = {}
        repeats: set[tuple[tuple[str, str], str]] = set()
        referenced = [t.name.casefold() for t in sel.find_all(exp.Table) if t.find_ancestor(exp.Select) is sel]
        for item in sel.expressions:
            target = item.this if isinstance(item, exp.Alias) else item
            if isinstance(target, exp.Column):
                place = ctx._resolve(target)
                if place is None:
                    continue
                # per table reference: e.LastName and m.LastName of a self-join are two columns' rows
                key = (place[0].casefold(), place[1].casefold())
                reference = target.table.casefold() if referenced.count(key[0]) > 1 else ""
                if (key, reference) in repeats:
                    where = f"{place[0]}.{place[1]}"
                    ctx.add("repeated_column", "Warning", f"the select list shows {where} twice",
                             "select another column, or drop the repeat", target.this, where)
                seen[key] = target
                repeats.add((key, reference))
            for column in ctx._own_columns(sel, [item]):
                agg = column.find_ancestor(exp.AggFunc)
                if agg is None or agg.find_ancestor(exp.Select) is not sel:
                    place = ctx._resolve(column)
                    if place is not None:
                        bare.append((place, column))
        _check_fixed_selection(ctx, sel, seen)
        group = sel.args.get("group")
        if group is None or not group.expressions:
            continue
        grouped_nodes = [g for g in group.expressions if isinstance(g, exp.Column)]
        if len(grouped_nodes) != len(group.expressions):
            continue  # grouped by an expression or position: not followed
        grouped = [place for place in (ctx._resolve(g) for g in grouped_nodes) if place is not None]
        if len(grouped) != len(grouped_nodes):
            continue
        keys = {(t.casefold(), c.casefold()) for t, c in grouped}
        # columns equal to a grouped column (join conditions, equality filters) are grouped too
        for eq in sel.find_all(exp.EQ):
            if eq.find_ancestor(exp.Select) is not sel:
                continue
            if isinstance(eq.this, exp.Column) and isinstance(eq.expression, exp.Column):
                a, b = ctx._resolve(eq.this), ctx._resolve(eq.expression)
                if a is not None and b is not None:
                    ka, kb = (a[0].casefold(), a[1].casefold()), (b[0].casefold(), b[1].casefold())
                    if ka in keys or kb in keys:
                        keys |= {ka, kb}
        by_table: dict[str, set[str]] = {}
        for t, c in keys:
            by_table.setdefault(t, set()).add(c)
        names = {t.casefold(): t for t, _c in ctx.used}
        determined = {t for t, cols in by_table.items() if ctx._unique(names.get(t, t), cols)}
        reported: set[tuple[str, str]] = set()
        for place, column in bare:
            key = (place[0].casefold(), place[1].casefold())
            if key in keys or key[0] in determined or key in reported:
                continue
            reported.add(key)
            where = f"{place[0]}.{place[1]}"
            shown = ", ".join(g.sql(dialect=ctx.dialect) for g in grouped_nodes)
            ctx.add("ungrouped_column", "Warning",
                     f"{where} is selected outside an aggregate but the groups ({shown}) do not determine it: "
                     "each group shows one arbitrary row's value",
                     f"GROUP BY {where}, or aggregate it", column.this, where)
        for agg in sel.find_all(exp.Min, exp.Max, exp.Avg):
            arg = agg.this
            if agg.find_ancestor(exp.Select) is not sel or not isinstance(arg, exp.Column):
                continue
            place = ctx._resolve(arg)
            if place is not None and (place[0].casefold(), place[1].casefold()) in keys:
                where = f"{place[0]}.{place[1]}"
                name = type(agg).__name__.upper()
                ctx.add("grouped_aggregate", "Warning",
                         f"{name}({where}) of a grouped column is the group's own value",
                         "aggregate another column", arg.this, where)
        tables = [t for t in sel.find_all(exp.Table) if t.find_ancestor(exp.Select) is sel]
        aggregates = any(a.find_ancestor(exp.Select) is sel for a in sel.find_all(exp.AggFunc))
        if len(tables) == 1 and not sel.args.get("joins") and aggregates and determined:
            where = ", ".join(g.sql(dialect=ctx.dialect) for g in grouped_nodes)
            ctx.add("group_by_unique", "Warning",
                     f"GROUP BY {where}: a unique key of {tables[0].name}, so every group is one row "
                     "and each aggregate sees one value", "group by the column the question groups by",
                     grouped_nodes[0].this, where)
