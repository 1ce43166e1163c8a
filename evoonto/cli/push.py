"""``evoonto push``: send a workspace to a remote SPARQL 1.1 endpoint and verify it."""

from __future__ import annotations

import argparse
import sys

from evoonto.cli import add_workspace_option

HELP = "push the workspace to a SPARQL 1.1 endpoint (Oxigraph server, Fuseki, GraphDB, Virtuoso)"

DESCRIPTION = """\
Send the workspace to a remote SPARQL 1.1 endpoint, into graphs named under its base IRI
(<base>graph/content, ...; workspaces with different base IRIs stay separate): the base (version 0)
unless the endpoint already holds it, then every patch it does not hold yet, in commit order
(accepted patches change the graphs; every patch's metadata goes to the history graph). Afterwards
the triple count of each of the six graphs (vocab, shapes, catalog, content, tools, history) at the
endpoint must equal the workspace's;
any difference is an error (exit 2) naming the graph and both counts. Only these six graphs are
read or counted, never the endpoint's own system graphs.

Updates are sent as INSERT DATA / DELETE DATA requests of at most --max-triples triples; a request
the endpoint refuses is halved and re-sent. Both are idempotent, so a push that stopped half-way is
completed by running it again. A remote that holds patches this workspace does not know, or another
workspace built under the same base IRI, is refused; so is an endpoint that an older push filled under
the shared names https://w3id.org/evoonto/graph/... (move them first: evoonto migrate --endpoint URL).

Examples:
  evoonto push http://127.0.0.1:7878/query --update-endpoint http://127.0.0.1:7878/update
  evoonto push http://localhost:8890/sparql          # Virtuoso: one endpoint for both
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``push`` sub-parser."""
    parser = subparsers.add_parser("push", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("endpoint", metavar="QUERY_URL", help="the SPARQL query endpoint")
    parser.add_argument("--update-endpoint", default=None, metavar="URL",
                        help="the SPARQL update endpoint (default: the query endpoint)")
    parser.add_argument("--max-triples", type=int, default=None, metavar="N",
                        help="most triples per update request (default 1,000; lowered automatically when refused)")
    parser.add_argument("--timeout", type=int, default=60, metavar="SECONDS",
                        help="HTTP timeout per request (default 60)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Push and print what was sent and the verified counts; returns 0 (errors exit 2 via the CLI)."""
    from evoonto.cli import workspace_path
    from evoonto.remote import MAX_TRIPLES, RemoteSparqlStore, push_verified
    from evoonto.workspace import Workspace

    max_triples = MAX_TRIPLES if args.max_triples is None else args.max_triples
    if max_triples < 1 or args.timeout < 1:
        print("evoonto push: error: --max-triples and --timeout must be at least 1", file=sys.stderr)
        return 2
    workspace = Workspace.open(workspace_path(args))
    remote = RemoteSparqlStore(args.endpoint, args.update_endpoint or args.endpoint, timeout_s=args.timeout,
                               max_triples=max_triples)
    result = push_verified(workspace, remote)
    sent = ("the base and " if result.base else "") + f"{result.patches} patch(es)"
    print(f"pushed {sent} to {remote.update_endpoint} (version {workspace.version}, graphs "
          f"{workspace.base_iri}graph/…)")
    print("verified: " + ", ".join(f"{name} {n:,}" for name, n in result.counts.items()) + " triples")
    return 0
