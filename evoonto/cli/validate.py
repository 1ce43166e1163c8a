"""``evoonto validate``: SHACL-validate the active version (optionally OWL-check the vocabulary)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from evoonto.cli import add_workspace_option

if TYPE_CHECKING:
    from evoonto.ontology import Ontology

HELP = "SHACL-validate the active ontology version"

DESCRIPTION = """\
Validate the union of the vocab, catalog, content and tools graphs against the workspace's SHACL
shapes (pyshacl for SHACL Core, Oxigraph for the SPARQL-based checks). Prints one line per result
naming severity, focus node, shape and path. Exit status 1 when there is a violation.

Examples (on the workspace `evoonto demo` creates; its base IRI is
https://example.org/evoonto/evoonto-demo/):
  evoonto validate -w evoonto-demo
  evoonto validate -w evoonto-demo --node https://example.org/evoonto/evoonto-demo/term/concert_singer/singer.Age
  evoonto validate -w evoonto-demo --owl   # also run the HermiT consistency check of the vocabulary (Java)
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``validate`` sub-parser."""
    parser = subparsers.add_parser("validate", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("--node", action="append", default=None, metavar="ID",
                        help="validate only this focus node: an id as browse prints it (term/…) or an "
                             "absolute IRI, present in the active version (repeatable)")
    parser.add_argument("--limit", type=int, default=50, help="print at most this many results (default 50)")
    parser.add_argument("--owl", action="store_true",
                        help="also check OWL consistency of the vocabulary (HermiT, Java)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the report; returns 0 when it conforms (and the OWL check passes), else 1."""
    from evoonto.cli import workspace_path
    from evoonto.validation import validate
    from evoonto.workspace import Workspace

    ws = Workspace.open(workspace_path(args))
    nodes = [_check_node(ws.ontology, node) for node in args.node or ()]
    report = validate(ws.ontology, nodes or None)
    print(f"version {ws.version}: " + report.text(limit=args.limit))
    status = 0 if report.conforms else 1
    if args.owl:
        from evoonto.reasoning import check_consistency

        owl = check_consistency(ws.ontology.graph("vocab"))
        print("OWL: " + owl.text())
        status = status or (0 if owl.ok else 1)
    return status


def _check_node(ontology: Ontology, node: str) -> str:
    """The absolute IRI of ``node``, an id as browse and resolve print it (``term/…``, expanded under
    the workspace base by the tools' :class:`~evoonto.tools.resolve.IdCodec`) or an absolute IRI.

    Raises:
        EvoontoError: (one line) not an IRI once expanded (RFC 3987 scheme, no characters forbidden
            in IRIs), or absent from the active version.
    """
    from urllib.parse import urlsplit

    from evoonto.errors import EvoontoError, ToolArgumentError
    from evoonto.tools.resolve import IdCodec

    if not urlsplit(node).scheme:
        try:
            node = IdCodec(ontology.base_iri).to_iri(node)
        except ToolArgumentError:
            pass  # reported below as not an IRI
    parts = urlsplit(node)
    if (not parts.scheme or not (parts.netloc or parts.path)
            or any(c.isspace() or c in '<>"{}|\\^`' for c in node)):
        raise EvoontoError(f"not an absolute IRI: {node!r} (e.g. {ontology.base_iri}term/…)")
    if not ontology.query(f"ASK {{ {{ <{node}> ?p ?o }} UNION {{ ?s ?p <{node}> }} }}"):
        raise EvoontoError(f"no such node in the active version: {node}")
    return node
