"""``evoonto viz``: write the visual explorer of a workspace as one self-contained offline HTML file."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "write the visual explorer (Content graph, version history, score chart) as one HTML file"

DESCRIPTION = """\
Write ONE self-contained HTML file showing the workspace's active ontology version: the Content
graph (Terms coloured by kind; Mappings, Constraints and Evidence as satellites; the five relation
types as distinct edges; click a node for its record), the version history (select a row to
highlight its added/removed triples on the graph), a score-per-round chart and a label search.
The file loads nothing from the network; open it in any browser.

Past --max-visible nodes the page draws a neighbourhood (search or "Explore from here" to move).

Examples:
  evoonto viz                                  # writes ./evoonto-viz.html
  evoonto viz -w .evoonto --out explorer.html
  evoonto viz --max-visible 150
  evoonto viz --trig dataset.trig              # a TriG dataset (named graphs evog:content, ...)
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``viz`` sub-parser."""
    from evoonto.viz.data import DEFAULT_MAX_DIFF_TRIPLES, DEFAULT_MAX_VISIBLE

    parser = subparsers.add_parser(
        "viz", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_workspace_option(parser)
    parser.add_argument("--out", "-o", default="evoonto-viz.html", metavar="FILE.html",
                        help="HTML file to write (default: ./evoonto-viz.html; replaced atomically)")
    parser.add_argument("--max-visible", type=int, default=DEFAULT_MAX_VISIBLE, metavar="N",
                        help=f"nodes drawn at once before the page switches to a neighbourhood view "
                             f"(default {DEFAULT_MAX_VISIBLE}, at least 10)")
    parser.add_argument("--max-diff-triples", type=int, default=DEFAULT_MAX_DIFF_TRIPLES, metavar="N",
                        help=f"triples listed per version in the history (default {DEFAULT_MAX_DIFF_TRIPLES}; "
                             "counts are always complete)")
    parser.add_argument("--title", default=None, help="page title (default: the workspace name)")
    parser.add_argument("--trig", default=None, metavar="FILE",
                        help="draw a TriG dataset instead of a workspace (named graphs evog:content, "
                             "evog:catalog, evog:history and evog:patch/ID/additions|removals/TARGET)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Build the model from the workspace, write the page and print its path; returns 0.

    Raises:
        ConfigurationError: --max-visible < 10, --max-diff-triples < 0, or both --trig and --workspace.
        WorkspaceError: no workspace at the path, or no such TriG file.
        RDFParseError: the TriG file is malformed.
        VizOutputError: the output file cannot be written.
    """
    from evoonto.cli import workspace_path
    from evoonto.errors import ConfigurationError
    from evoonto.viz import build_model, load_trig, load_workspace_model, write_page

    if args.max_visible < 10:
        raise ConfigurationError(f"--max-visible must be at least 10, got {args.max_visible}")
    if args.max_diff_triples < 0:
        raise ConfigurationError(f"--max-diff-triples must be >= 0, got {args.max_diff_triples}")
    options = {"title": args.title, "max_visible": args.max_visible, "max_diff_triples": args.max_diff_triples}
    if args.trig:
        if args.workspace:
            raise ConfigurationError("give either --trig or --workspace, not both")
        graphs, patches = load_trig(args.trig)
        model = build_model(graphs, patches, **options)
    else:
        model = load_workspace_model(workspace_path(args), **options)
    path = write_page(model, args.out)
    counts = model["meta"]["counts"]
    print(f"wrote {path} ({counts['term']} Terms, {len(model['nodes'])} nodes, "
          f"{len(model['history'])} history rows)")
    return 0
