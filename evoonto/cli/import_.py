"""``evoonto import``: knowledge a team already has, committed as one Content patch."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "import a SKOS glossary as a Content patch"

DESCRIPTION = """\
Import knowledge a team already has into the workspace as one Content patch (validated with the
shapes, then committed; `evoonto log` shows it, `evoonto rollback` undoes it).

  skos FILE   a SKOS glossary (Turtle, RDF/XML, N-Triples, JSON-LD; format from the extension).
              A concept whose label equals a label of exactly one Term enriches that Term (other
              labels as skos:altLabel, its definition replacing the generated one), so the Term keeps the
              Mappings and probe Evidence the builder gave it; any other concept becomes a new Term
              (term/glossary/<slug>) with no Mapping yet; skos:broader/narrower become Hierarchy
              relations.

Examples:
  evoonto import skos glossary.ttl
  evoonto import skos glossary.rdf --dry-run     # print what would change, commit nothing
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``import`` sub-parser and its ``skos`` subcommand."""
    parser = subparsers.add_parser("import", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    kinds = parser.add_subparsers(dest="kind", metavar="KIND", required=True)
    skos = kinds.add_parser("skos", help="a SKOS glossary file", description=DESCRIPTION,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(skos)
    skos.add_argument("file", metavar="FILE", help="the SKOS file")
    skos.add_argument("--dry-run", action="store_true", help="print what would change; commit nothing")
    skos.set_defaults(func=run_skos)


def run_skos(args: argparse.Namespace) -> int:
    """Import, print the summary and the new version; returns 0 (errors exit 2 via the CLI)."""
    from evoonto.cli import workspace_path
    from evoonto.imports.skos import skos_patch
    from evoonto.workspace import Workspace

    workspace = Workspace.open(workspace_path(args))
    patch, summary = skos_patch(workspace.ontology, args.file)
    if patch.normalized(workspace.store.contains).is_empty():
        print(f"nothing new to import from {args.file}: every label, definition and relation is already there")
        return 0
    if args.dry_run:
        print(f"would import {summary.line()} (dry run: nothing committed)")
        return 0
    version = workspace.commit(patch, metadata={"import": "skos", "file": str(args.file)})
    print(f"imported {summary.line()}; patch {patch.id} -> version {version}")
    return 0
