"""``evoonto drift``: re-run the recorded probe queries and mark the Evidence the data no longer supports."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "re-run the stored probe queries against the sources and mark changed Evidence stale"

DESCRIPTION = """\
Every Evidence keeps the exact probe query that produced it (its PROV activity). drift re-runs those
queries read-only against the sources and compares what they see now with what was recorded: missing
tables and columns, row counts, null fractions, distinct counts, ranges, value sets (values that
appeared or disappeared) and, for columns read whole, a digest of every value's count. New tables and
columns are reported too (a new table with exactly a missing table's columns is named as a possible
rename). Evidence of a sample is not sampled again (another sample sees other rows): the whole table
is checked for what the sample can support (its values still occur, its range lies within the
table's). Verified queries are compared on their results; documentation statements are read again
from their documents (data dictionary, dbt files, tables.json, the database's comments).

Each change is printed with the Evidence it invalidates and the Mappings, Relations and Constraints
derived from that Evidence (or pointing at a missing column). Unless --dry-run is given, they are
marked in one Content patch (prov:wasInvalidatedBy a drift-check activity, prov:invalidatedAtTime,
skos:changeNote): resolve then shows them as "stale since ...", evolution can diagnose them, and
`evoonto rollback` undoes the marking. With `approval: manual` (evoonto review --approval manual) the
patch is recorded as a proposal: nothing is marked until `evoonto approve`. Unchanged records stay
valid. Records already marked by an earlier check are counted, not marked again.

Sources: the ones recorded in the workspace (as `evoonto build` records them); --source ID=PATH
replaces the one with that id (e.g. a copy of the database; a plain PATH gets the file stem as id).

Exit status: 0, or 1 with --exit-code when some record turned or stays stale; 2 on errors and when no
probe query could be re-run (nothing was checked, so there is no verdict).

Examples:
  evoonto drift                                   # check and mark
  evoonto drift --dry-run --json                  # report only, as JSON
  evoonto drift --source shop=/backups/shop-copy.sqlite --dry-run
  evoonto drift --row-tolerance 0.05              # growth of up to 5% in row counts is not drift
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``drift`` sub-parser."""
    parser = subparsers.add_parser("drift", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("--source", "-s", action="append", default=[], metavar="URL_OR_PATH",
                        help="a source to check instead of the recorded one with the same id, "
                             "ID=PATH_OR_URL to name the id (repeatable)")
    parser.add_argument("--dry-run", action="store_true", help="report only; mark nothing")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--row-tolerance", type=float, default=0.0, metavar="FRACTION",
                        help="relative change of a row count that is not drift (default 0: any change)")
    parser.add_argument("--timeout-ms", type=int, default=5000, metavar="MS",
                        help="time limit of each re-run query in milliseconds (default 5000)")
    parser.add_argument("--exit-code", action="store_true", help="exit with 1 when some record is stale")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check, print the report and (unless ``--dry-run``) commit the marking; returns the exit status."""
    import json

    from evoonto.cli import workspace_path
    from evoonto.drift import run_drift
    from evoonto.errors import ConfigurationError

    if args.row_tolerance < 0:
        raise ConfigurationError(f"--row-tolerance must be >= 0, got {args.row_tolerance}")
    if args.timeout_ms < 1:
        raise ConfigurationError(f"--timeout-ms must be positive, got {args.timeout_ms}")
    path = workspace_path(args)
    report = run_drift(path, sources=args.source, mark=not args.dry_run, timeout_ms=args.timeout_ms,
                       row_tolerance=args.row_tolerance, progress=not args.no_progress and not args.json)
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        print(report.format(short=_shortener(path)))
    if not report.checked and report.unchecked:
        return 2  # nothing could be checked: no verdict either way
    return 1 if args.exit_code and (report.stale or report.already_stale) else 0


def _shortener(path):
    """IRI -> the workspace-relative id resolve accepts (the IRI when it is not under the base)."""
    from evoonto.workspace import Workspace

    base = Workspace.open(path).iris.base
    return lambda iri: iri[len(base):] if iri.startswith(base) else iri
