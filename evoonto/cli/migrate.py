"""``evoonto migrate``: rewrite an older workspace's files in the current format."""

from __future__ import annotations

import argparse
import sys

from evoonto.cli import add_workspace_option

HELP = "upgrade an older workspace: graph names under its base IRI, vocabulary, shapes and content"

DESCRIPTION = """\
Workspace format 2 names its graphs under the workspace's base IRI (<base>graph/content, ...)
instead of the shared https://w3id.org/evoonto/graph/content, so two workspaces pushed to one
SPARQL endpoint stay separate. A format-1 workspace opens as it is (both namings are read) and is
upgraded on its first write; this command rewrites base.trig and every patch file at once (same
triples, new graph names; history, rejected patches and the active version are kept). Running it
again on a migrated workspace changes nothing.

It then brings the content of an older release up to the current model, as ordinary patches (shown
by `evoonto log`, undone by `evoonto rollback`): a schema patch for the vocabulary and shapes (only
statements the packaged vocabulary and shapes make are changed; what evolution or a team added stays)
and a content patch asserting skos:Concept on Terms, owl:Axiom on relation nodes and the SKOS concept
scheme with its top concepts.

With --endpoint it also moves the workspace's graphs at a SPARQL endpoint that an older `evoonto
push` filled under the shared names (https://w3id.org/evoonto/graph/content, ...) to the workspace's
own names, with one SPARQL 1.1 MOVE per graph, then checks each graph's triple count. Shared graphs
that hold another workspace are left alone; if the workspace's own graphs there already hold triples,
nothing is moved (exit 2). Afterwards `evoonto push` sends the patches the endpoint lacks.

Examples:
  evoonto migrate -w path/to/workspace
  evoonto migrate -w path/to/workspace --endpoint http://localhost:8890/sparql
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``migrate`` sub-parser."""
    parser = subparsers.add_parser("migrate", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("--endpoint", default=None, metavar="QUERY_URL",
                        help="also move the workspace's graphs at this SPARQL endpoint to its own graph names")
    parser.add_argument("--update-endpoint", default=None, metavar="URL",
                        help="the SPARQL update endpoint (default: the --endpoint URL)")
    parser.add_argument("--timeout", type=int, default=60, metavar="SECONDS",
                        help="HTTP timeout per request (default 60)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Migrate the workspace (and its graphs at ``--endpoint``) and say what changed; returns 0, or 2
    for a --timeout below 1 (other errors exit 2 via the CLI)."""
    from evoonto.cli import workspace_path
    from evoonto.workspace import FORMAT_VERSION, Workspace

    if args.timeout < 1:
        print("evoonto migrate: error: --timeout must be at least 1", file=sys.stderr)
        return 2
    from evoonto.builder.upgrade import upgrade_patches

    ws = Workspace.open(workspace_path(args))
    if ws.migrate():
        print(f"migrated {ws.path} to workspace format {FORMAT_VERSION} (graph names under {ws.base_iri}graph/)")
    else:
        print(f"{ws.path} is already in workspace format {FORMAT_VERSION}; graph names unchanged")
    if args.endpoint:
        from evoonto.remote import RemoteSparqlStore, migrate_remote

        remote = RemoteSparqlStore(args.endpoint, args.update_endpoint or args.endpoint, timeout_s=args.timeout)
        moved = migrate_remote(ws, remote)
        if moved:
            print(f"moved at {args.endpoint}: " + ", ".join(f"{n} {c:,}" for n, c in moved.items())
                  + f" triples, now in {ws.base_iri}graph/…")
        else:
            print(f"{args.endpoint} holds no graph of {ws.path} under the shared names; nothing to move")
    upgrades = upgrade_patches(ws.ontology, ws.iris)
    for patch in upgrades:
        version = ws.commit(patch, metadata={"migration": True})
        print(f"version {version}: {patch.level} patch {patch.id}: {patch.intervention} "
              f"(+{sum(map(len, patch.additions.values())):,} / -{sum(map(len, patch.removals.values())):,} triples)")
    if not upgrades:
        print("content, vocabulary and shapes are current; nothing to upgrade")
    return 0
