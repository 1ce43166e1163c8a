"""``evoonto sparql QUERY``: run a SPARQL query on the active version (Oxigraph)."""

from __future__ import annotations

import argparse
import sys

from evoonto.cli import add_workspace_option

HELP = "run a SPARQL query on the active version"

DESCRIPTION = """\
Run SPARQL 1.1 on the workspace's active version. The default graph is the union of the six named
graphs (vocab, shapes, catalog, content, tools, history); use GRAPH evog:content { … } for one.
Prefixes evo: evog: skos: prov: dcat: dcterms: csvw: owl: rdf: rdfs: sh: xsd: sssom: are predeclared.
QUERY may be '-' to read it from stdin, or @FILE. Read-only: SPARQL updates (INSERT, DELETE, LOAD,
CLEAR …) are refused; change the ontology with patches (evoonto evolve) or evoonto rollback.
Output: the table abbreviates the workspace base IRI as <B> (a legend line names it); tsv and json
print full IRIs.

Examples:
  evoonto sparql "SELECT ?t ?label WHERE { ?t a evo:Metric ; skos:prefLabel ?label }"
  evoonto sparql @queries/terms.rq --format json
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``sparql`` sub-parser."""
    parser = subparsers.add_parser("sparql", help=HELP, description=DESCRIPTION,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workspace_option(parser)
    parser.add_argument("query", metavar="QUERY", help="the query text, '-' for stdin, or @FILE")
    parser.add_argument("--format", choices=("table", "json", "tsv"), default="table",
                        help="SELECT output format (default table); CONSTRUCT prints Turtle")
    parser.add_argument("--limit", type=int, default=None, metavar="N", help="print at most N rows")
    parser.set_defaults(func=run)


def _read_query(text: str) -> str:
    from pathlib import Path

    from evoonto.errors import EvoontoError

    if text == "-":
        return sys.stdin.read()
    if text.startswith("@"):
        try:
            return Path(text[1:]).read_text(encoding="utf-8")
        except OSError as exc:
            raise EvoontoError(f"cannot read query file {text[1:]}: {exc.strerror}") from None
    return text


def run(args: argparse.Namespace) -> int:
    """Print the result; returns 0."""
    import json

    import rdflib

    from evoonto.cli import workspace_path
    from evoonto.errors import EvoontoError
    from evoonto.store import SelectRows, refuse_update
    from evoonto.workspace import Workspace

    ws = Workspace.open(workspace_path(args))
    text = _read_query(args.query)
    try:
        result = ws.ontology.query(text)
    except EvoontoError:
        refuse_update(text, where="`evoonto sparql`")
        raise
    if isinstance(result, bool):
        print("true" if result else "false")
        return 0
    if isinstance(result, rdflib.Graph):
        from evoonto.namespaces import bind_prefixes

        print(bind_prefixes(result).serialize(format="turtle"))
        return 0
    rows = result[: args.limit] if args.limit else result
    projected = result.variables if isinstance(result, SelectRows) else ()  # a remote store's rows carry none
    names = list(projected) or list(dict.fromkeys(k for row in rows for k in row))
    if args.format == "json":
        print(json.dumps([{k: str(v) for k, v in row.items()} for row in rows], ensure_ascii=False, indent=2))
        return 0
    table = args.format == "table"
    sep = " | " if table else "\t"
    cells = [[_show(row.get(n), ws.base_iri if table else None) for n in names] for row in rows]
    print(sep.join(names))
    for line in cells:
        print(sep.join(line))
    if table:
        if any(c.startswith("<B>") for line in cells for c in line):
            print(f"<B> = <{ws.base_iri}>")
        shown = f"{len(rows)} of {len(result)}" if len(rows) < len(result) else f"{len(result)}"
        print(f"({shown} row{'s' if len(result) != 1 else ''})")
    return 0


def _show(value: object, base_iri: str | None) -> str:
    """The cell text of ``value``; IRIs under ``base_iri`` (when given) abbreviated as ``<B>``."""
    if value is None:
        return ""
    text = str(value)
    return "<B>" + text[len(base_iri):] if base_iri and text.startswith(base_iri) else text
