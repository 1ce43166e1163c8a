"""``evoonto query --semantic JSON``: compile a semantic query to SQL (and optionally run it)."""

from __future__ import annotations

import argparse
import sys

from evoonto.cli import add_workspace_option

HELP = "compile a semantic query (metrics, dimensions, filters) to SQL along known joins"

DESCRIPTION = """\
Compile a semantic query over ontology record ids to the SQL of its source: joins only along known
paths (each hop's cardinality and evidence are listed), required Constraints applied, each measure
aggregated at its own grain (no double counting across one-to-many joins). An ambiguous query gets
a question back, an inexpressible one says what is missing (then write SQL and use check-sql).

The query (JSON; `-` reads it from standard input):
  {"metrics": [{"term": ID, "aggregate": "sum"} | {"aggregate": "count", "of": ID} | METRIC_ID],
   "dimensions": [ID | {"term": ID, "grain": "year|month|day"}],
   "filters": [{"term": ID, "op": "=", "value": "France"} | {"term": VALUE_TERM_ID} | {"any": [...]}],
   "order": [{"metric": ... | "term": ID, "desc": true}], "limit": 10}

Exit status: 0 when it compiled, 1 on a question or unavailable, 2 on usage errors.

Examples (on the workspace `evoonto demo` creates):
  evoonto query -w evoonto-demo --semantic '{"metrics": [{"aggregate": "count", "of": "term/concert_singer/singer"}],
      "dimensions": ["term/concert_singer/singer.Country"]}' --run
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``query`` sub-parser."""
    parser = subparsers.add_parser(
        "query", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_workspace_option(parser)
    parser.add_argument("--semantic", required=True, metavar="JSON",
                        help="the semantic query as JSON ('-' reads it from standard input)")
    parser.add_argument("--run", action="store_true",
                        help="also run the SQL read-only on the workspace's recorded source")
    parser.add_argument("--limit", type=int, default=50, metavar="N", help="rows shown by --run (1-200, default 50)")
    parser.add_argument("--source", "-s", action="append", default=[], metavar="URL_OR_PATH",
                        help="a data source to probe and run on (default: the sources recorded in the workspace)")
    parser.add_argument("--json", action="store_true", help="print the whole answer as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the SQL (or the question / the missing piece); returns 0 when it compiled, else 1.

    Raises:
        ToolArgumentError: a malformed query (exit 2 through the CLI).
        WorkspaceError: no workspace at the path (exit 2).
        SourceError: --run without a reachable source (exit 2).
    """
    import json

    from evoonto.cli import workspace_path
    from evoonto.tools.toolkit import OntologyTools
    from evoonto.workspace import Workspace, source_locations

    text = sys.stdin.read() if args.semantic == "-" else args.semantic
    ws = Workspace.open(workspace_path(args))
    sources: dict = {k: v for k, v in source_locations(ws).items() if v}
    if args.source:
        from evoonto.server import open_source_pools

        sources.update(open_source_pools(list(args.source)))
    tools = OntologyTools.for_workspace(ws, sources=sources, data_tools=bool(args.run))
    try:
        answer = tools.semantic_query(text, run=args.run, limit=args.limit)
    finally:
        tools.close()
    if args.json:
        print(json.dumps(answer, ensure_ascii=False, indent=2, default=str))
    elif answer["status"] == "ok":
        print(answer["sql"])
        for hop in answer["joins"]:
            print(f"-- join {hop['condition']} ({hop['cardinality']}, {hop['origin']})")
        for item in answer["grain"]:
            if item["fan_out"]:
                print(f"-- {item['measure']}: {item['method']}")
        for constraint in answer["constraints"]:
            print(f"-- constraint applied: {constraint['condition']}")
        for check in answer["value_checks"]:
            print(f"-- value {check['value']!r}: {check['observed']}")
        if "result" in answer:
            result = answer["result"]
            print("\t".join(result["columns"]))
            for row in result["rows"]:
                print("\t".join("" if v is None else str(v) for v in row))
    elif answer["status"] == "question":
        print(f"question: {answer['question']}")
        for choice in answer["choices"]:
            print(f"  - {choice}")
    else:
        print(f"unavailable: {answer['missing']}" + (f" ({answer['detail']})" if answer.get("detail") else ""))
    return 0 if answer["status"] == "ok" else 1
