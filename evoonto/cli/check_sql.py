"""``evoonto check-sql SQL``: check one SQL statement against the workspace's ontology."""

from __future__ import annotations

import argparse
import sys

from evoonto.cli import add_workspace_option

HELP = "check a SQL statement against the ontology (exit 1 on a Violation)"

DESCRIPTION = """\
Parse SQL in the dialect of its source and report what the ontology says is wrong with it:
unknown tables or columns (with the nearest ones), values the data does not hold (confirmed by a
one-row probe of the workspace's source, with the spellings it holds), required Constraints left
out, joins that follow no known join path, join half of a key or keys that share no value,
aggregates over a join that repeats rows (fan trap). A Violation is provably wrong; a Warning says
what was seen (without a reachable source, claims about values are Warnings).

Exit status: 0 when no finding has severity Violation, 1 when one has, 2 on usage errors.

Examples (on the workspace `evoonto demo` creates):
  evoonto check-sql -w evoonto-demo "SELECT name FROM singer WHERE country = 'france'"
  evoonto check-sql -w evoonto-demo --json "SELECT nme FROM singer"
  echo "SELECT * FROM singer" | evoonto check-sql -w evoonto-demo -
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``check-sql`` sub-parser."""
    parser = subparsers.add_parser(
        "check-sql", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_workspace_option(parser)
    parser.add_argument("sql", metavar="SQL", help="one SELECT statement ('-' reads it from standard input)")
    parser.add_argument("--source", default=None, metavar="ID",
                        help="source id the SQL is meant for (default: the only source, or the one it names)")
    parser.add_argument("--question", default=None, metavar="TEXT",
                        help="the question the SQL answers (read with --question-rules)")
    parser.add_argument("--question-rules", action="store_true",
                        help="with --question: also warn (question_mismatch) when a column the SQL uses is named "
                             "by no word of the question while another column of its table is (a wording heuristic)")
    parser.add_argument("--json", action="store_true",
                        help="print {ok, findings, counts} as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the findings; returns 1 when one is a Violation, else 0.

    Raises:
        ToolArgumentError: empty or oversized SQL, unknown source (exit 2 through the CLI).
        WorkspaceError: no workspace at the path (exit 2).
    """
    import json

    from evoonto.cli import workspace_path
    from evoonto.sources.guard import MAX_SQL_CHARS
    from evoonto.tools.findings import has_violation
    from evoonto.tools.sqlcheck import check_result
    from evoonto.tools.toolkit import OntologyTools
    from evoonto.workspace import Workspace, source_locations

    # standard input is read only up to the guard's limit (+1, so that longer text is still refused)
    sql = sys.stdin.read(MAX_SQL_CHARS + 1) if args.sql == "-" else args.sql
    ws = Workspace.open(workspace_path(args))
    # the workspace's recorded sources back point probes (one that cannot be opened: an offline check)
    tools = OntologyTools.for_workspace(ws, sources={k: v for k, v in source_locations(ws).items() if v})
    findings = tools.check_sql(sql, source=args.source, question=args.question,
                               question_rules=args.question_rules)
    if args.json:
        print(json.dumps(check_result(findings), ensure_ascii=False, indent=2))
    elif not findings:
        print("ok: no finding")
    else:
        for f in findings:
            where = f" [{f.start}:{f.end}] {sql[f.start:f.end]!r}" if f.start is not None and f.end is not None else ""
            print(f"{f.severity:<9} {f.kind}{where}: {f.message}")
            if f.suggestion:
                print(f"          suggestion: {f.suggestion}")
    tools.close()
    return 1 if has_violation(findings) else 0
