"""``evoonto init``: create an empty workspace (packaged vocabulary and shapes, version 0)."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "create a new workspace (vocabulary + shapes, empty content)"

DESCRIPTION = """\
Create a workspace directory: config.json, base.trig (the OWL vocabulary and SHACL shapes shipped
with evoonto, an empty catalog/content/tools layer and version 0 of the history), patches/,
trajectories/ and runs/. Fails if the directory exists and is not empty.

Examples:
  evoonto init
  evoonto init -w ./finance --base-iri https://data.example.com/finance/
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``init`` sub-parser."""
    parser = subparsers.add_parser("init", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("--base-iri", default=None, metavar="IRI",
                        help="base of instance IRIs, ending in / or # (default https://example.org/evoonto/<name>/)")
    parser.add_argument("--name", default=None, help="workspace name (default: the directory name)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Create the workspace and print where; returns 0."""
    from evoonto.cli import workspace_path
    from evoonto.workspace import Workspace

    ws = Workspace.init(workspace_path(args), base_iri=args.base_iri, name=args.name)
    counts = ws.ontology.counts()
    print(f"created workspace {ws.path} (name {ws.name}, base {ws.base_iri}); version 0 with "
          f"{counts['vocab']} vocabulary and {counts['shapes']} shape triples")
    return 0
