"""``evoonto export``: Turtle, TriG, RDF Patch or SPARQL Update of a workspace."""

from __future__ import annotations

import argparse
import sys

from evoonto.cli import add_workspace_option

HELP = "export the ontology (ttl, trig, RDF Patch, SPARQL Update)"

DESCRIPTION = """\
Formats:
  ttl     the active vocab, shapes, catalog, content and tools graphs as one Turtle document
  trig    everything: the six active graphs plus every patch's additions/removals/meta graphs
  patch   the accepted history as RDF Patch (base first, then one TX..TC block per patch)
  update  the accepted history as SPARQL 1.1 Update (INSERT DATA / DELETE DATA), at most 1,000
          triples per request, requests separated by lines holding only ";": POST the whole file
          to a store that takes any size, or the parts one by one (Virtuoso; `evoonto push` does it)

Examples:
  evoonto export --format ttl -o ontology.ttl
  evoonto export --format patch > history.rdfp
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``export`` sub-parser."""
    parser = subparsers.add_parser("export", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("--format", "-f", choices=("ttl", "trig", "patch", "update"), default="ttl",
                        help="output format (default ttl)")
    parser.add_argument("--output", "-o", default=None, metavar="FILE", help="write to FILE (default stdout)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write the export; returns 0."""
    from evoonto.cli import workspace_path
    from evoonto.export import export
    from evoonto.workspace import Workspace

    data = export(Workspace.open(workspace_path(args)), args.format)
    if args.output:
        from pathlib import Path

        from evoonto.fileio import atomic_write

        atomic_write(Path(args.output), data)
        print(f"wrote {len(data):,} bytes to {args.output}", file=sys.stderr)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0
