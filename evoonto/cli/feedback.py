"""``evoonto feedback TASK pass|fail [--note TEXT]``: record whether a served task's answer was right."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "record whether a served task passed or failed (an outcome evolve learns from)"

DESCRIPTION = """\
Record a person's verdict on one task an agent did through `evoonto serve`. A task is the id a client
sent in the `_meta` of its tool calls ("evoonto/task"), else the MCP session id (the name of the
file under <workspace>/trajectories/). The verdict is appended to <workspace>/feedback.jsonl with
source "feedback"; the latest verdict about a task wins. `evoonto evolve --trajectories` uses it
when no verified query with the task's question decides the task (verified > feedback > judge).
It changes no ontology version. A task no trajectory of the workspace records is stored too, with a
warning that names some recorded tasks (a mistyped id is never used by evolve).

Examples:
  evoonto feedback 2f1c0a9e pass
  evoonto feedback monthly-revenue fail --note "summed UnitPrice without Quantity"
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``feedback`` sub-parser."""
    parser = subparsers.add_parser("feedback", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("task", metavar="TASK", help="the task id (or MCP session id)")
    parser.add_argument("verdict", choices=("pass", "fail"), help="pass or fail")
    parser.add_argument("--note", default="", metavar="TEXT", help="why (kept with the verdict)")
    parser.set_defaults(func=run)


#: Task ids a warning about an unknown task lists at most.
KNOWN_SHOWN = 5


def run(args: argparse.Namespace) -> int:
    """Store the verdict and print one line; returns 0. A task no trajectory of the workspace
    records (a mistyped id, or a session from elsewhere) is stored too, with a warning on stderr
    naming some recorded tasks: evolve can use the verdict only once a trajectory has that task."""
    import sys

    from evoonto.cli import workspace_path
    from evoonto.evolution.outcomes import record_feedback
    from evoonto.evolution.trajectories import recorded_tasks
    from evoonto.workspace import Workspace

    ws = Workspace.open(workspace_path(args))  # a missing workspace fails with its one-line error
    stored = record_feedback(ws.path, args.task, args.verdict == "pass", note=args.note)
    print(f"recorded {args.verdict} for task {stored.task} in {ws.path / 'feedback.jsonl'}")
    known = recorded_tasks(ws.path / "trajectories")
    if stored.task not in known:
        if known:
            shown = sorted(known)[:KNOWN_SHOWN]
            more = f" and {len(known) - len(shown)} more" if len(known) > len(shown) else ""
            seen = f"; recorded tasks include {', '.join(shown)}{more}"
        else:
            seen = "; there are no trajectories yet"
        print(f"warning: no trajectory under {ws.path / 'trajectories'} has task {stored.task!r}{seen}. "
              "evolve uses this verdict only for a task it has a trajectory of", file=sys.stderr)
    return 0
