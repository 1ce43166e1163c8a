"""``evoonto verified add FILE`` / ``evoonto verified list``: verified queries of a workspace."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "add or list verified queries (question + SQL a person vouches for)"

DESCRIPTION = """\
Verified queries are questions with the SQL a person vouches for. Each becomes an evo:VerifiedQuery
(who verified it and when, the Terms, Mappings and Relations it uses) and is mined into the ontology:
metric Terms with their expression (e.g. revenue = SUM(InvoiceLine.UnitPrice * InvoiceLine.Quantity)),
named filters, date grains (monthly, yearly), joins and synonyms, each citing the query as evidence.
browse finds them by their question; resolve of a Term lists them as examples.

FILE is JSON Lines, one object per line:
  {"question": "...", "sql": "SELECT ...", "id": "...", "db_id": "...", "verified_by": "...",
   "verified_at": "2026-11-02"}
(question and sql required). `add` checks every query against the ontology (it must parse and name
only known tables and columns) and runs it once, read-only, on its source (the sources recorded by
`evoonto build`); a bad line is reported as FILE:LINE and left out. The rest is committed as ONE
Content patch: it shows in `evoonto log` and `evoonto rollback` undoes it.
`evoonto build --verified FILE` does the same while building.

Examples:
  evoonto verified add examples/chinook/verified.jsonl -w ./onto
  evoonto verified list -w ./onto
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``verified`` sub-parser with its ``add`` and ``list`` actions."""
    parser = subparsers.add_parser(
        "verified", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    add = actions.add_parser("add", help="add verified queries from a JSON Lines file (one Content patch)",
                             description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    add.add_argument("file", metavar="FILE", help="JSON Lines: question, sql[, id, db_id, verified_by, verified_at]")
    add_workspace_option(add)
    add.set_defaults(func=run_add)
    listing = actions.add_parser("list", help="list the verified queries of the active version")
    listing.add_argument("--json", action="store_true", help="print them as JSON")
    add_workspace_option(listing)
    listing.set_defaults(func=run_list)
    parser.set_defaults(func=lambda args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_usage()
    print("evoonto verified: error: choose an action: add FILE or list")
    return 2


def _every_source_warning():
    """A context (entered) in which every SourceWarning is shown, not only the first from each line
    of code (each query's doubts are their own); the command line shows them as one
    ``evoonto: warning: …`` line each (:func:`evoonto.cli._warning_line`)."""
    import warnings

    from evoonto.sources.base import SourceWarning

    context = warnings.catch_warnings()
    context.__enter__()
    warnings.simplefilter("always", SourceWarning)
    return context


def run_add(args: argparse.Namespace) -> int:
    """Mine the file's verified queries and commit them as one Content patch. Returns 0, or 1 when
    no query could be added (nothing is written then).

    Raises:
        WorkspaceError: no workspace; WorkloadError: the file cannot be read; SourceError: a
            recorded source cannot be opened.
    """
    from datetime import datetime, timezone
    from pathlib import Path

    from rdflib import Graph

    from evoonto.builder.verified import items_for_source, load_verified, mine_verified
    from evoonto.catalog import read_catalog
    from evoonto.cli import workspace_path
    from evoonto.errors import WorkspaceError
    from evoonto.namespaces import bind_prefixes
    from evoonto.patch import Patch
    from evoonto.sources import open_source
    from evoonto.sources.base import warn
    from evoonto.workspace import Workspace

    ws = Workspace.open(workspace_path(args))
    context = _every_source_warning()
    try:
        items = load_verified(args.file, skip_malformed=True)  # a bad line is warned about and left out
        locations = ws.settings.get("sources") or {}
        if not isinstance(locations, dict) or not locations:
            raise WorkspaceError(f"{ws.path}: the workspace records no sources (build it with `evoonto build` "
                                 f"so the verified queries can be run)")
        onto = ws.ontology
        catalog, content = onto.graph("catalog"), onto.graph("content")
        known = {s.id: s for s in read_catalog(onto).sources}
        additions = bind_prefixes(Graph())
        taken: set[int] = set()
        totals: dict[str, int] = {}
        at = datetime.now(timezone.utc).replace(microsecond=0)
        for source_id in sorted(locations):
            if source_id not in known:
                continue
            mine = items_for_source(items, source_id, [t.name for t in known[source_id].tables], taken)
            if not mine:
                continue
            src = open_source(str(locations[source_id]))
            try:
                mined = mine_verified(mine, source=src, catalog=catalog, content=content, iris=onto.iris, at=at,
                                      ontology=onto)
            finally:
                src.close()
            additions += mined.graph
            for key, value in mined.counts.items():
                totals[key] = totals.get(key, 0) + value
        for n, item in enumerate(items):
            if n not in taken:
                warn(f"{item.where}: verified query {item.key!r} skipped: "
                     + (f"db_id {item.db_id!r} is no source's id" if item.db_id else "its tables are in no source"))
    finally:
        context.__exit__(None, None, None)
    added = totals.get("verified_queries", 0)
    if not added:
        print(f"no verified query added from {args.file}; the workspace is unchanged")
        return 1
    name = Path(args.file).name
    patch = Patch.from_graphs("content", additions={"content": additions}, signature="verified queries",
                              intervention=f"add {added} verified queries from {name}")
    version = ws.commit(patch, metadata={"origin": "evoonto verified add", "file": str(args.file), **totals})
    print(f"added {added} verified quer{'y' if added == 1 else 'ies'} from {args.file} as patch {patch.id} "
          f"(version {version}): {totals.get('metrics', 0)} metrics, {totals.get('filters', 0)} named filters, "
          f"{totals.get('grains', 0)} date grains, {totals.get('synonyms', 0)} synonyms, "
          f"{totals.get('joins', 0)} new joins; `evoonto rollback {version - 1}` undoes it")
    return 0


def run_list(args: argparse.Namespace) -> int:
    """Print the verified queries (id, source, who/when, question). Returns 0 (1 when there are none)."""
    import json

    from evoonto.builder.verified import recorded_verified
    from evoonto.cli import workspace_path
    from evoonto.workspace import Workspace

    ws = Workspace.open(workspace_path(args))
    items = [{"id": v.id, "source": v.db_id, "question": v.question, "sql": v.sql,
              "verified_by": v.verified_by, "verified_at": v.verified_at} for v in recorded_verified(ws.ontology)]
    if args.json:
        print(json.dumps(items, ensure_ascii=False, indent=2))
    elif not items:
        print("no verified queries (add some with `evoonto verified add FILE`)")
    else:
        for item in items:
            who = " ".join(x for x in (item["verified_by"] or "", (item["verified_at"] or "")[:10]) if x)
            print(f"{item['source'] or '?'}/{item['id']}  {item['question']}" + (f"  [{who}]" if who else ""))
    return 0 if items else 1
