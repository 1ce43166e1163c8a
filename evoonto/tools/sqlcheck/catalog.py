"""The rule that asks the source whether the catalog is still current (issue 28, "stale means out").

The catalog is harvested when a workspace is built; a drift check marks what changed
(``prov:invalidatedAtTime``, :mod:`evoonto.drift`) but does not rewrite the catalog. So after a
column is renamed, the catalog still names the old column and not the new one. With a source
reachable, :func:`check_catalog_currency` asks the data before it trusts the catalog:

- an ``unknown_column`` whose table in the source does have the column (added or renamed since the
  build) becomes a Warning saying the catalog is out of date;
- a column the statement uses whose Mappings or Evidence a drift patch marked stale, and which the
  source's table no longer has, is an ``unknown_column`` Violation (the database would refuse it).
"""

from __future__ import annotations

from dataclasses import replace

from evoonto.tools.sqlcheck.context import CheckContext

__all__ = ["check_catalog_currency"]


def check_catalog_currency(ctx: CheckContext) -> None:
    """Unknown columns the source has (a Warning), stale columns the source lost (a Violation); see
    the module docstring. Does nothing offline (no source)."""
    if ctx.probe is None:
        return
    for index, tables, name in ctx.missing_columns:
        holders = [t for t in tables if ctx.probe.has_column(t, name)]
        if holders:
            finding = ctx.findings[index]
            ctx.findings[index] = replace(
                finding, severity="Warning",
                message=f"{finding.message}; but the source's {holders[0]} has it now: the catalog is out of date "
                        "(rebuild the workspace to add it: `evoonto drift` marks what changed but adds no column)",
                suggestion=None)
    stale = ctx.facts.stale_columns
    if not stale:
        return
    for table, column in sorted(ctx.used):
        if (ctx.schema.id, table.casefold(), column.casefold()) not in stale:
            continue
        if ctx.probe.has_column(table, column) is False:
            node = next((n for t, c, n in ctx.places if (t, c) == (table, column)), None)
            ctx.add("unknown_column", "Violation",
                    f"{table}.{column} is gone from the source (a drift check marked its facts stale, and a probe "
                    "of the table does not find it)", None, node.this if node is not None else None,
                    f"{table}.{column}")
