"""``evoonto log``: the version history (accepted, rejected and invalid patches)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from evoonto.cli import add_workspace_option

if TYPE_CHECKING:
    from evoonto.workspace import Workspace

HELP = "show the version history"

DESCRIPTION = """\
One line per patch in commit order: sequence number, decision, version produced, level, patch id,
gate scores and intervention. A proposal (approval: manual) says what became of it: [open: evoonto
review], [approved at row N] or [rejected at row N]. The first row is the base (version 0, the
build); --json prints the same rows, the base as {"seq": 0, "decision": "base", "level": "base",
"version": 0, ...} with the keys of a patch entry.

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
    from evoonto.evolution.approval import decisions
    from evoonto.workspace import Workspace

    ws = Workspace.open(workspace_path(args))
    entries = ws.log()
    if args.json:
        rows = [_base_row(ws)] + [e.as_dict() for e in entries]
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return 0
    decided = decisions(ws)
    print(f"{ws.path}: version {ws.version}, {len(entries)} patch(es)")
    print("   0  base       v0")
    for e in entries:
        version = f"v{e.version}" if e.version is not None else "-"
        scores = ""
        if e.scores:
            parent, candidate = (e.scores.get(k, float("nan")) for k in ("parent_score", "candidate_score"))
            scores = f" {parent:.3f}->{candidate:.3f}"
        text = e.intervention or e.signature
        if e.decision == "proposed":
            # a proposal's row stays; what became of it is a later row (approve/reject)
            later = decided.get(e.id)
            text += (" [open: evoonto review]" if later is None else
                     f" [approved at row {later.seq}]" if later.decision == "accepted" else
                     f" [rejected at row {later.seq}]")
        print(f"{e.seq:4d}  {e.decision:<9}  {version:<4} {e.level:<8} {e.id}{scores}  {text}")
    return 0


def _base_row(ws: Workspace) -> dict[str, object]:
    """The base version as a log row: the keys of :class:`evoonto.history.PatchEntry`, with
    ``decision`` and ``level`` ``"base"``, ``version`` 0 and ``created`` its prov:generatedAtTime."""
    from dataclasses import fields

    from evoonto.history import PatchEntry

    row: dict[str, object] = {f.name: None for f in fields(PatchEntry)}
    row.update(seq=0, id=None, level="base", decision="base", version=0, parent_version=None, signature="",
               intervention="", fingerprint="", created="", scores={}, metadata={}, file="")
    found = ws.ontology.query(f"SELECT ?t WHERE {{ GRAPH evog:history {{ <{ws.iris.version(0)}> "
                              "prov:generatedAtTime ?t } }")
    if found:
        row["created"] = str(found[0]["t"])
    return row
