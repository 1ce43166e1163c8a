"""``evoonto migrate``: rewrite an older workspace's files in the current format."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "rewrite an older workspace's files in the current format (graph names under its base IRI)"

DESCRIPTION = """\
Workspace format 2 names its graphs under the workspace's base IRI (<base>graph/content, ...)
instead of the shared https://w3id.org/evoonto/graph/content, so two workspaces pushed to one
SPARQL endpoint stay separate. A format-1 workspace opens as it is (both namings are read) and is
upgraded on its first write; this command rewrites base.trig and every patch file at once (same
triples, new graph names; history, rejected patches and the active version are kept). Running it
again on a migrated workspace changes nothing.

Example:
  evoonto migrate -w path/to/workspace
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``migrate`` sub-parser."""
    parser = subparsers.add_parser("migrate", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Migrate the workspace and say whether files were rewritten; returns 0."""
    from evoonto.cli import workspace_path
    from evoonto.workspace import FORMAT_VERSION, Workspace

    ws = Workspace.open(workspace_path(args))
    if ws.migrate():
        print(f"migrated {ws.path} to workspace format {FORMAT_VERSION} (graph names under {ws.base_iri}graph/)")
    else:
        print(f"{ws.path} is already in workspace format {FORMAT_VERSION}; nothing to do")
    return 0
