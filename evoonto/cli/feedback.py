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
It changes no ontology version.

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


def run(args: argparse.Namespace) -> int:
    """Store the verdict and print one line; returns 0."""
    from evoonto.cli import workspace_path
    from evoonto.evolution.outcomes import record_feedback
    from evoonto.workspace import Workspace

    ws = Workspace.open(workspace_path(args))  # a missing workspace fails with its one-line error
    stored = record_feedback(ws.path, args.task, args.verdict == "pass", note=args.note)
    print(f"recorded {args.verdict} for task {stored.task} in {ws.path / 'feedback.jsonl'}")
    return 0
