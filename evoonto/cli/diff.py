"""``evoonto diff A B``: triples added and removed between two versions."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "show the triples that differ between two versions"

DESCRIPTION = """\
Replay versions A and B from the workspace files and print, per graph, the removed (-) and added (+)
triples in N-Triples form. B defaults to the active version.

Examples:
  evoonto diff 0 3
  evoonto diff 2 --stat
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``diff`` sub-parser."""
    parser = subparsers.add_parser("diff", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("a", type=int, metavar="A", help="old version")
    parser.add_argument("b", type=int, nargs="?", default=None, metavar="B", help="new version (default: active)")
    parser.add_argument("--stat", action="store_true", help="only print counts per graph")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the diff; returns 0."""
    from evoonto.cli import workspace_path
    from evoonto.namespaces import GRAPH_NAMES
    from evoonto.workspace import Workspace

    ws = Workspace.open(workspace_path(args))
    b = ws.version if args.b is None else args.b
    patch = ws.diff(args.a, b)
    print(f"version {args.a} -> {b}: +{sum(len(t) for t in patch.additions.values())} "
          f"-{sum(len(t) for t in patch.removals.values())} triples")
    for name in GRAPH_NAMES:
        removed, added = patch.removals.get(name, ()), patch.additions.get(name, ())
        if not removed and not added:
            continue
        print(f"graph {name}: +{len(added)} -{len(removed)}")
        if args.stat:
            continue
        for sign, triples in (("-", removed), ("+", added)):
            for line in sorted(f"{s.n3()} {p.n3()} {o.n3()} ." for s, p, o in triples):
                print(f"  {sign} {line}")
    return 0
