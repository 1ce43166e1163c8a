"""``evoonto export``: Turtle, TriG, RDF Patch, SPARQL Update or R2RML of a workspace."""

from __future__ import annotations

import argparse
import sys

from evoonto.cli import add_workspace_option

HELP = "export the ontology (ttl, trig, RDF Patch, SPARQL Update, R2RML)"

DESCRIPTION = """\
Formats:
  ttl     the active vocab, shapes, catalog, content and tools graphs as one Turtle document
  trig    the active dataset: the six graphs of the active version, safe to load with a union
          default graph; --history adds every patch's graphs (accepted, rejected, invalid), each
          described in its meta graph as an evo:PatchGraph with its evo:patchStatus
  patch   the accepted history as RDF Patch: base first, then one patch per accepted change, each
          with its own H id / H prev header; -o DIR/ writes one .rdfp file per patch
  update  the accepted history as SPARQL 1.1 Update (INSERT DATA / DELETE DATA), at most 1,000
          triples per request, requests separated by lines holding only ";": POST the whole file
          to a store that takes any size, or the parts one by one (Virtuoso; `evoonto push` does it)
  r2rml   a W3C R2RML mapping of the SQL sources (Ontop, morph-kgc, D2RQ serve the data as a virtual
          knowledge graph): one TriplesMap per entity Term (subject IRIs from the primary key, class
          the Term), one predicate-object map per attribute Mapping (datatype from the SQL type),
          joins from the join Relations; tables without a primary key are listed as # comments, and
          so are aggregate metrics (a Mapping with SUM/AVG/COUNT … or an SQL expression is not a row
          property; the column's values keep its Direct Mapping property <base>data/src/table#column)
          and binary (BLOB) columns, which are left out

Graph names are under the workspace's base IRI (<base>graph/content, ...), so exports of two
workspaces loaded into one store stay separate.

Examples:
  evoonto export --format ttl -o ontology.ttl
  evoonto export --format trig --history -o everything.trig
  evoonto export --format patch -o patches/      # patches/0000-base.rdfp, 0001-<id>.rdfp, ...
  evoonto export --format patch > history.rdfp   # one patch log
  evoonto export --format r2rml -o mapping.r2rml.ttl
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``export`` sub-parser."""
    parser = subparsers.add_parser("export", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("--format", "-f", choices=("ttl", "trig", "patch", "update", "r2rml"), default="ttl",
                        help="output format (default ttl)")
    parser.add_argument("--output", "-o", default=None, metavar="FILE",
                        help="write to FILE (default stdout); with --format patch, a folder (an existing "
                             "one, or a path ending in /) gets one .rdfp file per patch")
    parser.add_argument("--history", action="store_true",
                        help="trig only: add every patch's graphs (accepted, rejected, invalid), marked "
                             "with their status (default: the active dataset only)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write the export; returns 0."""
    from evoonto.cli import workspace_path
    from evoonto.export import export
    from evoonto.workspace import Workspace

    import os

    from evoonto.errors import EvoontoError

    if args.history and args.format != "trig":
        raise EvoontoError("--history needs --format trig")
    ws = Workspace.open(workspace_path(args))
    if args.format == "patch" and args.output and (args.output.endswith(("/", os.sep)) or os.path.isdir(args.output)):
        from evoonto.export import write_rdf_patches

        names = write_rdf_patches(ws, args.output)
        print(f"wrote {len(names)} RDF Patch file(s) to {args.output} (apply them in name order)", file=sys.stderr)
        return 0
    if args.format == "r2rml":
        from evoonto.r2rml import to_r2rml

        data = to_r2rml(ws.ontology)
    else:
        data = export(ws, args.format, history=args.history)
    if args.output:
        from pathlib import Path

        from evoonto.fileio import atomic_write

        atomic_write(Path(args.output), data)
        print(f"wrote {len(data):,} bytes to {args.output}", file=sys.stderr)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0
