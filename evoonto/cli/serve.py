"""``evoonto serve``: the MCP server for a data agent (stdio or streamable HTTP)."""

from __future__ import annotations

import argparse

from evoonto.cli import add_workspace_option

HELP = "serve the ontology tools to an agent over MCP (stdio or streamable HTTP)"

DESCRIPTION = """\
Serve the workspace's active ontology version over the Model Context Protocol: the manifest as the
server instructions (and the resource evoonto://manifest), the tools browse, resolve, join_path,
coverage and check_sql, the tools declared in the tools graph, and with --data-tools read-only
list_tables / describe_table / run_sql.
No admin operation is exposed. The server reloads when the active version changes. Every call is
appended to <workspace>/trajectories/<session>.jsonl (or --trajectory FILE) with its arguments and
result; when the log cannot be written (read-only or full disk) one warning goes to stderr and the
tools keep answering.

Over HTTP the Host and Origin headers are always checked. On a loopback address (127.0.0.1,
localhost, ::1) the loopback names are allowed. Any other --host (e.g. 0.0.0.0) needs BOTH an
explicit --allow-host (the Host name clients use; repeatable; --allow-origin for browser origins)
AND a bearer token (--token-file FILE, first line, or $EVOONTO_MCP_TOKEN; at least 16 characters);
otherwise serve refuses to start, saying what is missing. With a token, every request must send
"Authorization: Bearer <token>" or gets 401. On stdio, a line that is not JSON-RPC is answered
with a JSON-RPC error (-32700 parse error / -32600 invalid request), never left unanswered.

With --check-drift, `evoonto drift` runs first (the stored probe queries are re-run against the
sources and changed Evidence is marked stale, so resolve shows it as "stale since ..."); its report
goes to stderr. If the check cannot run (no source reachable), a warning says so and serving starts.

Examples:
  evoonto serve --workspace .evoonto                      # stdio, for a local agent
  evoonto serve --check-drift                             # mark drifted Evidence, then serve
  evoonto serve --transport http --port 8765 --data-tools # http://127.0.0.1:8765/mcp
  EVOONTO_MCP_TOKEN=$(cat ~/.evoonto-token) evoonto serve --transport http --host 0.0.0.0 \\
      --allow-host mcp.example.org                        # reachable from other machines
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``serve`` sub-parser."""
    parser = subparsers.add_parser(
        "serve", help=HELP, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_workspace_option(parser)
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                        help="stdio (default) or http (streamable HTTP at /mcp)")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP bind address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME[:PORT]",
                        help="accept this Host header (repeatable; a name without port: any port); "
                             "required with a non-loopback --host")
    parser.add_argument("--allow-origin", action="append", default=[], metavar="ORIGIN",
                        help="accept this browser Origin, e.g. https://app.example.org (repeatable)")
    parser.add_argument("--token-file", default=None, metavar="FILE",
                        help="bearer token (first line) every HTTP request must send; default "
                             "$EVOONTO_MCP_TOKEN; required with a non-loopback --host")
    parser.add_argument("--data-tools", action="store_true",
                        help="also serve read-only list_tables, describe_table and run_sql")
    parser.add_argument("--source", "-s", action="append", default=[], metavar="URL_OR_PATH",
                        help="a data source for --data-tools and declared SQL tools (repeatable; "
                             "default: the sources recorded in the workspace)")
    parser.add_argument("--session", default=None, metavar="ID",
                        help="session id written into the trajectory (default: random)")
    parser.add_argument("--check-drift", action="store_true",
                        help="first run `evoonto drift` (re-run the stored probe queries, mark changed "
                             "Evidence stale; report on stderr), then serve")
    parser.add_argument("--trajectory", default=None, metavar="FILE",
                        help="append calls to this JSON Lines file instead of <workspace>/trajectories/")
    parser.add_argument("--accept-feedback", action="store_true",
                        help="also serve report_outcome: a client records whether a task passed or failed "
                             "(kept in <workspace>/feedback.jsonl for evoonto evolve; it changes no ontology)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; returns 0."""
    from evoonto.cli import workspace_path
    from evoonto.errors import ConfigurationError
    from evoonto.server import serve

    if not 0 < args.port < 65536:
        raise ConfigurationError(f"--port must be from 1 to 65535, got {args.port}")
    if args.check_drift:
        _check_drift(args)
    try:
        serve(workspace_path(args), transport=args.transport, host=args.host, port=args.port,
              data_tools=args.data_tools, session=args.session, trajectory_file=args.trajectory,
              sources=args.source, allow_hosts=args.allow_host, allow_origins=args.allow_origin,
              token_file=args.token_file, accept_feedback=args.accept_feedback)
    except ValueError as exc:  # malformed --session
        raise ConfigurationError(str(exc)) from None
    return 0


def _check_drift(args: argparse.Namespace) -> None:
    """``--check-drift``: mark stale records before serving; the report goes to stderr (stdout is
    the MCP channel on stdio). When the check cannot run (no source reachable, another writer),
    one warning goes to stderr and the server starts anyway."""
    import sys

    from evoonto.cli import workspace_path
    from evoonto.drift import run_drift
    from evoonto.errors import EvoontoError, first_line

    try:
        report = run_drift(workspace_path(args), sources=args.source, mark=True)
    except EvoontoError as exc:  # sources down or workspace busy: serve what there is, say so
        print(f"evoonto: warning: drift check not done ({first_line(exc)}); serving anyway", file=sys.stderr)
        return
    print(report.format(), file=sys.stderr)
