"""``evoonto rollback VERSION``: restore an old version's state as a new version."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "restore the state of an earlier version (as a new version; history is kept)"

DESCRIPTION = """\
Compute the difference between the active version and VERSION over the evolvable graphs and commit
it as a new 'restore' patch (validated like any commit). Nothing is deleted from the history.

Example:
  evoonto rollback 2
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``rollback`` sub-parser."""
    parser = subparsers.add_parser("rollback", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("version", type=int, metavar="VERSION", help="the version whose state to restore")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Roll back and print the new version; returns 0."""
    from evoonto.cli import workspace_path
    from evoonto.workspace import Workspace

    ws = Workspace.open(workspace_path(args))
    parent = ws.version
    version = ws.rollback(args.version)
    print(f"restored the state of version {args.version}: version {parent} -> {version}")
    return 0
