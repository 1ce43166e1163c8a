"""``evoonto import``: knowledge a team already has, committed as one Content patch."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "import a SKOS glossary or dbt MetricFlow semantic models as a Content patch"

DESCRIPTION = """\
Import knowledge a team already has into the workspace as one Content patch (validated with the
shapes, then committed; `evoonto log` shows it, `evoonto rollback` undoes it).

  skos FILE   a SKOS glossary (Turtle, RDF/XML, N-Triples, JSON-LD; format from the extension).
              A concept whose label equals a label of exactly one Term enriches that Term (other
              labels as skos:altLabel, its definition replacing the generated one), so the Term keeps the
              Mappings and probe Evidence the builder gave it; any other concept becomes a new Term
              (term/glossary/<slug>) with no Mapping yet; skos:broader/narrower become Hierarchy
              relations. Each Term keeps skos:exactMatch <concept IRI>, so importing the file again
              updates those Terms (a renamed concept renames the Term the import made) instead of
              adding duplicates; the scheme, scheme membership, notes (scopeNote, note, example, …),
              Dublin Core source/creator/created … and language tags are kept.
  dbt DIR     dbt MetricFlow semantic models and metrics (YAML files under DIR), parsed by
              dbt-semantic-interfaces as dbt parses them: primary entities enrich the table's
              entity Term, foreign entities become Association relations with a join condition,
              dimensions enrich (or add) column Terms (an expression dimension gets its own Term),
              measures and metrics become Metric Terms whose Mapping is a (column, aggregation,
              filter) or the aggregate SQL expression (expr, CASE, percentile, filters,
              fill_nulls_with, ratio and derived formulas over one table). What evoonto cannot
              carry (cumulative windows, grain-to-date, offsets, conversion metrics,
              join_to_timespine, inputs on two tables ...) is refused, one line per metric, never
              changed silently. Needs pip install 'evoonto[dbt]'.

Examples:
  evoonto import skos glossary.ttl
  evoonto import skos glossary.rdf --dry-run     # print what would change, commit nothing
  evoonto import dbt ./jaffle_shop
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
    dbt = kinds.add_parser("dbt", help="dbt MetricFlow semantic models and metrics", description=DESCRIPTION,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(dbt)
    dbt.add_argument("folder", metavar="DIR", help="the dbt project folder")
    dbt.add_argument("--dry-run", action="store_true", help="print what would change; commit nothing")
    dbt.set_defaults(func=run_dbt)


def run_skos(args: argparse.Namespace) -> int:
    """Import a SKOS file; returns 0 (errors exit 2 via the CLI)."""
    from evoonto.imports.skos import skos_patch

    return _commit(args, "skos", args.file, skos_patch)


def run_dbt(args: argparse.Namespace) -> int:
    """Import a dbt project; returns 0 (errors exit 2 via the CLI)."""
    from evoonto.imports.dbt import dbt_patch

    return _commit(args, "dbt", args.folder, dbt_patch)


def _commit(args: argparse.Namespace, kind: str, location: str, make) -> int:
    """Make the patch, print the summary, commit it unless --dry-run or empty; returns 0."""
    from evoonto.cli import workspace_path
    from evoonto.imports.dbt import DbtSummary
    from evoonto.workspace import Workspace

    workspace = Workspace.open(workspace_path(args))
    patch, summary = make(workspace.ontology, location)
    for note in summary.skipped if isinstance(summary, DbtSummary) else []:  # a SKOS import skips nothing
        print(f"skipped: {note}")
    if patch.normalized(workspace.store.contains).is_empty():
        print(f"nothing new to import from {location}: everything it says is already there")
        return 0
    if args.dry_run:
        print(f"would import {summary.line()} (dry run: nothing committed)")
        return 0
    version = workspace.commit(patch, metadata={"import": kind, "file": str(location)})
    print(f"imported {summary.line()}; patch {patch.id} -> version {version}")
    return 0
