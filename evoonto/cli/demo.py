"""``evoonto demo``: build, validate, browse, evaluate and evolve on the bundled Spider database."""

from __future__ import annotations

import argparse

HELP = "run the end-to-end demo on the bundled Spider database (offline; a few seconds)"

DESCRIPTION = """\
Run the whole evoonto loop on the bundled Spider 1.0 database `concert_singer` (CC BY-SA 4.0,
Yu et al. 2018), offline and deterministically:

  1. split the 45 questions into folds A and B (seeded): build and evolve on A, hold out B
  2. build the ontology from the database and fold A's construction questions (no gold SQL is read)
  3. validate it against the SHACL shapes
  4. show a few browse/resolve examples
  5. score schema-linking recall on the held-out fold: full schema, raw-schema baseline, evoonto
  6. evolve a few rounds (diagnose -> attribute -> patch -> gate) starting from the raw-schema
     baseline in PATH/evolution (the builder's ontology already passes the questions it was built
     from), and score the evolved version on the held-out fold
  7. print the version logs (accepted and rejected candidates) and the scores

The workspace it leaves (default ./evoonto-demo, so the demo never touches your own ./.evoonto or
$EVOONTO_WORKSPACE) can be served to an agent with `evoonto serve --workspace evoonto-demo`.
An existing workspace is replaced only if an earlier `evoonto demo` created it, or with --force.
"""

#: Workspace the demo writes when --workspace is not given.
DEFAULT_WORKSPACE = "evoonto-demo"


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``demo`` sub-parser."""
    parser = subparsers.add_parser(
        "demo", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # Same flags as evoonto.cli.add_workspace_option, but a default of its own (see DESCRIPTION).
    parser.add_argument("--workspace", "-w", default=DEFAULT_WORKSPACE, metavar="PATH",
                        help=f"workspace directory to create (default: ./{DEFAULT_WORKSPACE})")
    parser.add_argument(
        "--rounds", type=int, default=None, metavar="N",
        help="evolution rounds to run (0-20; default 3)",
    )
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the question split (default 0)")
    parser.add_argument(
        "--force", action="store_true",
        help="replace an existing evoonto workspace at PATH that was not created by the demo",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the demo into the chosen workspace; returns 0, or 1 when a step was unavailable."""
    from pathlib import Path

    from evoonto.demo import DEFAULT_ROUNDS, run_demo

    report = run_demo(
        Path(args.workspace),
        rounds=DEFAULT_ROUNDS if args.rounds is None else args.rounds,
        seed=args.seed,
        force=args.force,
    )
    return 0 if report.complete else 1
