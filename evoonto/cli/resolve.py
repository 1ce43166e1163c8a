"""``evoonto resolve ID...``: records with their mappings, relations, constraints and evidence (JSON)."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "show records by id with their mappings, relations, constraints and evidence (JSON)"

DESCRIPTION = """\
Resolve record ids (as printed by `evoonto browse`, or full IRIs) on the workspace's active ontology
version, exactly as the agent's resolve tool does, and print the JSON answer.

Ids of value Terms may be given percent-encoded, as browse prints them, or not:
term/concert_singer/singer.Country%3DFrance and 'term/concert_singer/singer.Country=France' are the same.

Examples (on the workspace `evoonto demo` creates):
  evoonto resolve -w evoonto-demo term/concert_singer/singer.Age
  evoonto resolve -w evoonto-demo 'term/concert_singer/singer.Country=France' --depth 0
  evoonto resolve -w evoonto-demo term/concert_singer/singer mapping/concert_singer/singer --expand mappings --depth 0
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``resolve`` sub-parser."""
    parser = subparsers.add_parser(
        "resolve", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_workspace_option(parser)
    parser.add_argument("ids", nargs="+", metavar="ID", help="record ids or IRIs")
    parser.add_argument("--expand", action="append", default=None, metavar="PART",
                        help="mappings, relations, constraints or evidence (repeatable; default all)")
    parser.add_argument("--depth", type=int, default=1, help="0, 1 (default) or 2")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the resolve answer as JSON; returns 0, or 1 when some id was unknown or malformed."""
    import json

    from evoonto.cli.browse import open_tools
    from evoonto.tools.resolve import EXPANSIONS

    answer = open_tools(args).resolve(args.ids, expand=args.expand or EXPANSIONS, depth=args.depth)
    print(json.dumps(answer, ensure_ascii=False, indent=2))
    return 1 if answer["errors"] else 0
