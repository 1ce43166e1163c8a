"""``evoonto log``: the version history (accepted, rejected and invalid patches)."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "show the version history"

DESCRIPTION = """\
One line per patch in commit order: sequence number, decision, version produced, level, patch id,
gate scores and intervention.

Examples:
  evoonto log
  evoonto log --json
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``log`` sub-parser."""
    parser = subparsers.add_parser("log", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("--json", action="store_true", help="print the entries as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the log; returns 0."""
    import json

    from evoonto.cli import workspace_path
    from evoonto.workspace import Workspace

    ws = Workspace.open(workspace_path(args))
    entries = ws.log()
    if args.json:
        print(json.dumps([e.as_dict() for e in entries], ensure_ascii=False, indent=2))
        return 0
    print(f"{ws.path}: version {ws.version}, {len(entries)} patch(es)")
    print("   0  base       v0")
    for e in entries:
        version = f"v{e.version}" if e.version is not None else "-"
        scores = ""
        if e.scores:
            scores = f" {e.scores.get('parent_score', float('nan')):.3f}->{e.scores.get('candidate_score', float('nan')):.3f}"
        text = e.intervention or e.signature
        print(f"{e.seq:4d}  {e.decision:<9}  {version:<4} {e.level:<8} {e.id}{scores}  {text}")
    return 0
