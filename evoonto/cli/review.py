"""``evoonto review`` / ``evoonto approve N`` / ``evoonto reject N --why TEXT``: manual approval."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "list patches the gate accepted that wait for approval (approval: manual)"

DESCRIPTION = """\
With the workspace setting `approval: manual`, `evoonto evolve` keeps every patch its gate accepts
as a *proposal*: the served version does not change until a person approves it. `evoonto review`
lists the open proposals with their diff, failure signature, gate scores and the questions of V each
one made better (ups) or worse (downs); `evoonto approve N` commits proposal N as the next version,
`evoonto reject N --why TEXT` records it rejected (it is never proposed again). The served version is
always the base plus the approved patches; no MCP tool can approve or change this setting.

Examples:
  evoonto review --approval manual     # from now on, gate-accepted patches wait for approval
  evoonto review                       # list open proposals with their diffs
  evoonto review --stat                # without the triples
  evoonto approve 1
  evoonto reject 2 --why "renames a Term our dashboards use"
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``review``, ``approve`` and ``reject`` sub-parsers."""
    parser = subparsers.add_parser("review", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("--approval", choices=("auto", "manual"), default=None,
                        help="set the workspace's approval policy first (manual: gate-accepted patches wait here)")
    parser.add_argument("--stat", action="store_true", help="counts per graph instead of the triples")
    parser.add_argument("--limit", type=int, default=40, metavar="N",
                        help="triples shown per graph and direction (default 40)")
    parser.set_defaults(func=run_review)

    approve = subparsers.add_parser("approve", help="commit a proposed patch as the next served version",
                                    description="Commit open proposal N (its number in `evoonto review`, or "
                                                "its patch id) as the next version.")
    add_workspace_option(approve)
    approve.add_argument("proposal", metavar="N", help="proposal number or patch id")
    approve.add_argument("--by", default=None, metavar="NAME", help="who approves (default: login name)")
    approve.set_defaults(func=run_approve)

    reject = subparsers.add_parser("reject", help="reject a proposed patch (it is never proposed again)",
                                   description="Record open proposal N as rejected, with the reason.")
    add_workspace_option(reject)
    reject.add_argument("proposal", metavar="N", help="proposal number or patch id")
    reject.add_argument("--why", required=True, metavar="TEXT", help="why it is rejected (kept in the history)")
    reject.add_argument("--by", default=None, metavar="NAME", help="who rejects (default: login name)")
    reject.set_defaults(func=run_reject)


def _open(args: argparse.Namespace):
    from evoonto.cli import workspace_path
    from evoonto.workspace import Workspace

    return Workspace.open(workspace_path(args))


def run_review(args: argparse.Namespace) -> int:
    """Print the open proposals; returns 0."""
    from evoonto.errors import ConfigurationError
    from evoonto.evolution.approval import proposals, set_approval
    from evoonto.evolution.loop import approval_mode
    from evoonto.namespaces import GRAPH_NAMES

    if args.limit < 0:
        raise ConfigurationError("--limit must be at least 0")
    ws = _open(args)
    if args.approval is not None:
        set_approval(ws, args.approval)
        print(f"approval: {args.approval}")
    found = proposals(ws)
    print(f"version {ws.version}, approval {approval_mode(ws)}: {len(found)} open proposal(s)")
    for p in found:
        e, meta = p.entry, p.entry.metadata
        scores = (f"V {e.scores.get('parent_score', 0):.3f} -> {e.scores.get('candidate_score', 0):.3f}"
                  if e.scores else "V not scored")
        print(f"\n[{p.number}] {e.id}  {e.level}  (gated against version {e.parent_version})")
        print(f"  signature:    {e.signature}")
        print(f"  intervention: {e.intervention}")
        print(f"  gate:         {scores}, {meta.get('wins', 0)} up / {meta.get('losses', 0)} down, "
              f"{meta.get('reason', '')}")
        tasks, fixed = meta.get("tasks") or [], meta.get("fixed_tasks") or []
        print(f"  meant to fix: {', '.join(tasks) or '-'}"
              + (f"  (its screen fixed {len(fixed)}: {', '.join(fixed)})" if fixed else ""))
        print(f"  ups:          {', '.join(p.ups) or '-'}")
        print(f"  downs:        {', '.join(p.downs) or '-'}")
        patch = ws.patch(e.id)
        for name in GRAPH_NAMES:
            removed, added = patch.removals.get(name, ()), patch.additions.get(name, ())
            if not removed and not added:
                continue
            print(f"  graph {name}: +{len(added)} -{len(removed)}")
            if args.stat:
                continue
            for sign, triples in (("-", removed), ("+", added)):
                lines = sorted(f"{s.n3()} {pr.n3()} {o.n3()} ." for s, pr, o in triples)
                for line in lines[:args.limit]:
                    print(f"    {sign} {line}")
                if len(lines) > args.limit:
                    print(f"    {sign} … {len(lines) - args.limit} more")
    if found:
        print("\ndecide with: evoonto approve N | evoonto reject N --why TEXT")
    return 0


def run_approve(args: argparse.Namespace) -> int:
    """Approve one proposal and print the new version; returns 0."""
    from evoonto.evolution.approval import approve, find_proposal

    ws = _open(args)
    parent = ws.version
    proposal = find_proposal(ws, args.proposal)
    version = approve(ws, args.proposal, by=args.by)
    print(f"approved proposal {proposal.number} ({proposal.id}: {proposal.entry.intervention}): "
          f"version {parent} -> {version}")
    return 0


def run_reject(args: argparse.Namespace) -> int:
    """Reject one proposal; returns 0."""
    from evoonto.evolution.approval import find_proposal, reject

    ws = _open(args)
    proposal = find_proposal(ws, args.proposal)
    reject(ws, args.proposal, why=args.why, by=args.by)
    print(f"rejected proposal {proposal.number} ({proposal.id}: {proposal.entry.intervention}); "
          f"version stays {ws.version}")
    return 0
