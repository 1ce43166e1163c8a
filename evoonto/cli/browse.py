"""``evoonto browse QUERY``: ranked ontology records for a phrase, identifier or data value."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option
from evoonto.tools.browse import KIND_CHOICES
from evoonto.tools.settings import ANSWER_FORMATS, BrowseSettings

HELP = "search the ontology: ranked Terms, Mappings, Constraints, Evidence or Relations"

DESCRIPTION = """\
Rank the records of the workspace's active ontology version for QUERY, exactly as the agent's
browse tool does (BM25 over labels, synonyms, definitions, column names and evidence values, fused
with fuzzy label matching).

Examples (on the workspace `evoonto demo` creates):
  evoonto browse -w evoonto-demo "average singer age"
  evoonto browse -w evoonto-demo France --kind any -n 10
  evoonto browse -w evoonto-demo Singer_ID --json
  evoonto browse -w evoonto-demo "names of singers from France" --format compact --budget 2000

--format compact prints one line per candidate, '"table"."column" TYPE = matched values -- meaning'
(ready to paste into SQL), the matching tables first, then their columns, as many as --budget
characters hold (default: the version's evo:answerBudget, 6000).
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``browse`` sub-parser."""
    parser = subparsers.add_parser(
        "browse", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_workspace_option(parser)
    parser.add_argument("query", metavar="QUERY", help="words, an identifier or a data value")
    parser.add_argument("--kind", "-k", default=KIND_CHOICES[0],
                        help=f"{KIND_CHOICES[0]} (default), {', '.join(KIND_CHOICES[1:-1])} or {KIND_CHOICES[-1]}")
    parser.add_argument("-n", type=int, default=None, metavar="N",
                        help="number of results (default: the version's browse setting evo:defaultResults, "
                             f"{BrowseSettings().default_results} unless a Tool patch changed it)")
    parser.add_argument("--format", choices=ANSWER_FORMATS, default=None,
                        help="verbose hits or compact pasteable lines (default: the version's evo:answerFormat, "
                             f"{BrowseSettings().answer_format})")
    parser.add_argument("--budget", type=int, default=None, metavar="CHARS",
                        help="characters of the answer (compact JSON); decides how many candidates fit")
    parser.add_argument("--context", default=None, metavar="TEXT",
                        help="text given with the question that explains it (a hint, evidence, a glossary "
                             "note): searched too, its words weighted below the query's")
    parser.add_argument("--json", action="store_true", help="print the hits as JSON")
    parser.set_defaults(func=run)


def open_tools(args: argparse.Namespace):
    """The :class:`~evoonto.tools.OntologyTools` of the chosen workspace's active version (its
    browse index read from the workspace cache when this version was indexed before).

    In the ``evoonto`` program itself (:func:`~evoonto.cli.owns_process`) the cyclic garbage
    collector is switched off first: the command loads the version once and exits, and a loaded
    70,000-column index is millions of containers that the collector's first pass after the load
    would rescan for nothing (4 CPU s of a 9 s ``evoonto browse``); reference counting still frees
    everything that is not in a cycle.

    Raises:
        WorkspaceError: no workspace at the path.
    """
    import gc

    from evoonto.cli import owns_process, workspace_path
    from evoonto.tools.toolkit import OntologyTools
    from evoonto.workspace import Workspace

    if owns_process():
        gc.disable()

    ws = Workspace.open(workspace_path(args))
    return OntologyTools.for_workspace(ws)


def run(args: argparse.Namespace) -> int:
    """Print the hits (a table, or JSON with --json); returns 0 (1 when nothing matched)."""
    import json

    hits = open_tools(args).browse(args.query, kind=args.kind, n=args.n, format=args.format, budget=args.budget,
                                     context=args.context)
    if args.json:
        print(json.dumps(hits, ensure_ascii=False, indent=2))
    elif not hits:
        print("no match")
    elif "score" not in hits[0]:  # the compact format
        for hit in hits:
            print(f"{hit['label']}  [{hit['id']}]")
    else:
        for hit in hits:
            print(f"{hit['score']:.3f}  {hit['kind']:<10} {hit['id']}  {hit['label']}")
            if hit["snippet"]:
                print(f"       {hit['snippet']}")
    return 0 if hits else 1
