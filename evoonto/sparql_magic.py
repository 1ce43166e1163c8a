"""``%%sparql``: an IPython/Jupyter cell magic that runs SPARQL on an evoonto ontology.

Load it in a notebook and query the active version of a workspace (SPARQL 1.1 Query,
https://www.w3.org/TR/sparql11-query/), run by the library's own store (Oxigraph, union of the
named graphs as the default graph)::

    %load_ext evoonto.sparql_magic

    %%sparql --workspace demo-workspace
    SELECT ?term ?label WHERE { ?term a evo:Term ; skos:prefLabel ?label } LIMIT 5

Options of the magic (all optional):

``--workspace PATH`` / ``-w PATH``
    the workspace whose active version is queried; remembered for the following cells. Without it
    (and without ``--ontology``) the magic uses the last workspace given, else ``$EVOONTO_WORKSPACE``,
    else ``./.evoonto``.
``--ontology NAME`` / ``-o NAME``
    the name of a notebook variable holding an :class:`~evoonto.ontology.Ontology` (or a
    :class:`~evoonto.workspace.Workspace`, or anything with a ``query(sparql)`` method) to query
    instead of a workspace on disk.
``--out NAME``
    also store the result in the notebook variable ``NAME``.
``--limit N``
    show at most ``N`` rows in the rendered table (default 50; the returned result keeps every row).

The standard prefixes (``evo:``, ``evog:``, ``skos:``, ``prov:``, ``dcat:``, ``dcterms:``, ``csvw:``,
``owl:``, ``rdfs:``, ``rdf:``, ``sh:``, ``xsd:``, ``sssom:``) are declared automatically unless the
query declares them itself.

The cell's value is a :class:`SparqlResult` for SELECT: a ``list`` of ``dict`` rows (variable name →
rdflib term, as :meth:`Ontology.query <evoonto.ontology.Ontology.query>` returns them) that renders
as an HTML table in Jupyter and as a plain-text table in a terminal (pandas is not needed); a
:class:`GraphResult` (shown as Turtle) for CONSTRUCT/DESCRIBE; ``True``/``False`` for ASK.

Errors (unknown workspace, malformed query, unknown variable) are shown as one line
``sparql: error: …`` instead of a traceback.
"""

from __future__ import annotations

import html
import os
import re
import shlex
from pathlib import Path
from typing import Any, Iterable, Mapping

from evoonto.errors import EvoontoError

#: Rows shown by default when a result is rendered (the result object keeps every row).
DEFAULT_DISPLAY_LIMIT = 50

#: Longest cell text (characters) in a rendered table; longer values are cut with "…".
MAX_CELL_CHARS = 120

#: Prefixes declared for every query unless the query declares the same prefix itself.
STANDARD_PREFIXES: dict[str, str] = {
    "evo": "https://w3id.org/evoonto/ns#",
    "evog": "https://w3id.org/evoonto/graph/",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "prov": "http://www.w3.org/ns/prov#",
    "dcat": "http://www.w3.org/ns/dcat#",
    "dcterms": "http://purl.org/dc/terms/",
    "csvw": "http://www.w3.org/ns/csvw#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "sh": "http://www.w3.org/ns/shacl#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "sssom": "https://w3id.org/sssom/",
}

_PREFIX_DECL = re.compile(r"(?im)^\s*PREFIX\s+([A-Za-z][\w.-]*)?\s*:")


class SparqlMagicError(EvoontoError):
    """The ``%%sparql`` magic got bad options, an unknown variable or an empty query."""


def with_standard_prefixes(query: str) -> str:
    """Return ``query`` preceded by ``PREFIX`` lines for the standard prefixes it does not declare.

    Args:
        query: SPARQL 1.1 query text.
    Returns:
        The query text, with missing standard prefix declarations prepended (unchanged if none).
    """
    declared = {m.group(1) or "" for m in _PREFIX_DECL.finditer(query)}
    lines = [f"PREFIX {p}: <{iri}>" for p, iri in STANDARD_PREFIXES.items() if p not in declared]
    return "\n".join(lines + [query]) if lines else query


def compact(node: Any, prefixes: Mapping[str, str] = STANDARD_PREFIXES) -> str:
    """Short display text of one RDF term: ``prefix:local`` for IRIs under a known prefix.

    Args:
        node: an rdflib term (URIRef, Literal, BNode), ``None`` (unbound) or any other value.
        prefixes: prefix → namespace IRI used to shorten IRIs.
    Returns:
        ``""`` for unbound values, ``prefix:local`` or ``<iri>`` for IRIs, the lexical form of
        literals (with ``@lang`` when tagged), ``str(value)`` otherwise.
    """
    if node is None:
        return ""
    from rdflib.term import BNode, Literal, URIRef

    if isinstance(node, URIRef):
        iri = str(node)
        best = max(
            ((p, ns) for p, ns in prefixes.items() if iri.startswith(ns)),
            key=lambda item: len(item[1]), default=None,
        )
        if best is not None:
            local = iri[len(best[1]):]
            if re.fullmatch(r"[\w.-]*", local):
                return f"{best[0]}:{local}"
        return f"<{iri}>"
    if isinstance(node, Literal):
        return f"{node}@{node.language}" if node.language else str(node)
    if isinstance(node, BNode):
        return f"_:{node}"
    return str(node)


def _cut(text: str, width: int = MAX_CELL_CHARS) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


class SparqlResult(list):
    """Rows of a SPARQL SELECT result: a ``list`` of ``{variable: rdflib term}`` dicts.

    Attributes:
        variables: the column names, in query order when known, else first-seen order.
        display_limit: rows shown by :meth:`_repr_html_` and :meth:`to_text`.

    ``str(result)`` / ``repr(result)`` give a plain-text table; Jupyter calls :meth:`_repr_html_`.
    ``result.values("label")`` gives one column as display strings.
    """

    def __init__(self, rows: Iterable[Mapping[str, Any]], variables: list[str] | None = None,
                 display_limit: int = DEFAULT_DISPLAY_LIMIT):
        super().__init__(dict(row) for row in rows)
        seen: list[str] = list(variables or [])
        for row in self:
            seen.extend(k for k in row if k not in seen)
        self.variables = seen
        self.display_limit = display_limit

    def values(self, variable: str) -> list[str]:
        """Display strings (see :func:`compact`) of one variable over all rows; ``KeyError`` if unknown."""
        if variable not in self.variables:
            raise KeyError(f"no variable {variable!r} in the result (have: {', '.join(self.variables)})")
        return [compact(row.get(variable)) for row in self]

    def _cells(self) -> list[list[str]]:
        return [[_cut(compact(row.get(v))) for v in self.variables] for row in self[: self.display_limit]]

    def _footer(self) -> str:
        more = len(self) - self.display_limit
        rows = f"{len(self)} row{'s' if len(self) != 1 else ''}"
        return f"{rows} (first {self.display_limit} shown)" if more > 0 else rows

    def to_text(self) -> str:
        """Plain-text table (fixed-width columns) with a row-count footer."""
        if not self.variables:
            return self._footer()
        cells = self._cells()
        widths = [max([len(v)] + [len(r[i]) for r in cells]) for i, v in enumerate(self.variables)]
        line = lambda values: " | ".join(s.ljust(w) for s, w in zip(values, widths, strict=True)).rstrip()  # noqa: E731
        out = [line(self.variables), "-+-".join("-" * w for w in widths)]
        out += [line(r) for r in cells]
        out.append(self._footer())
        return "\n".join(out)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(v)}</th>" for v in self.variables)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in self._cells()
        )
        return (f"<table class=\"evoonto-sparql\"><thead><tr>{head}</tr></thead>"
                f"<tbody>{body}</tbody></table><p>{html.escape(self._footer())}</p>")

    def __repr__(self) -> str:
        return self.to_text()

    __str__ = __repr__


class GraphResult:
    """The graph of a CONSTRUCT/DESCRIBE query, shown as Turtle (standard prefixes bound).

    Attributes:
        graph: the ``rdflib.Graph`` the ontology returned.
    """

    def __init__(self, graph: Any):
        self.graph = graph

    def __len__(self) -> int:
        return len(self.graph)

    def to_turtle(self) -> str:
        """The graph as Turtle text."""
        for prefix, iri in STANDARD_PREFIXES.items():
            self.graph.bind(prefix, iri, override=False)
        return self.graph.serialize(format="turtle")

    def _repr_html_(self) -> str:
        return f"<pre>{html.escape(self.to_turtle())}</pre><p>{len(self)} triples</p>"

    def __repr__(self) -> str:
        return f"{self.to_turtle().rstrip()}\n# {len(self)} triples"


def run_query(target: Any, query: str) -> Any:
    """Run ``query`` (standard prefixes added) on ``target`` and wrap SELECT rows as a :class:`SparqlResult`.

    Args:
        target: an ``Ontology``, a ``Workspace`` (its active ``ontology`` is used) or any object with a
            ``query(sparql) -> list[dict]`` method.
        query: SPARQL 1.1 query text.
    Returns:
        A :class:`SparqlResult` for SELECT, a :class:`GraphResult` for CONSTRUCT/DESCRIBE, a bool
        for ASK.
    Raises:
        SparqlMagicError: empty query or a target without a ``query`` method.
        EvoontoError: whatever the store raises for a malformed query.
    """
    if not query.strip():
        raise SparqlMagicError("the cell holds no SPARQL query")
    ontology = getattr(target, "ontology", target)
    if not callable(getattr(ontology, "query", None)):
        raise SparqlMagicError(f"{type(target).__name__} has no query() method; pass an Ontology or Workspace")
    result = ontology.query(with_standard_prefixes(query))
    if isinstance(result, list):
        return SparqlResult(result, variables=_select_variables(query))
    if callable(getattr(result, "serialize", None)) and callable(getattr(result, "bind", None)):
        return GraphResult(result)
    return result


def _select_variables(query: str) -> list[str] | None:
    """Projected variable names of a SELECT query, in order (rdflib's SPARQL algebra); None otherwise."""
    try:
        from rdflib.plugins.sparql import prepareQuery

        algebra = prepareQuery(query).algebra
    except Exception:  # not parseable by rdflib: let the store report it, keep first-seen order
        return None
    if algebra.name != "SelectQuery":
        return None
    # CompValue.get(key) has no default argument (its second parameter is ``variables``, and a missing
    # key returns the key itself); attribute access returns None for a missing key.
    projected = algebra.PV or []
    return [str(v) for v in projected] or None


def _parse_options(line: str) -> dict[str, Any]:
    """Parse the magic's option line; raises :class:`SparqlMagicError` on unknown or incomplete options."""
    try:
        tokens = shlex.split(line)
    except ValueError as exc:
        raise SparqlMagicError(f"cannot parse the options {line!r}: {exc}") from None
    names = {"--workspace": "workspace", "-w": "workspace", "--ontology": "ontology", "-o": "ontology",
             "--out": "out", "--limit": "limit"}
    options: dict[str, Any] = {}
    it = iter(tokens)
    for token in it:
        key, equals, value = token.partition("=")
        if key not in names:
            raise SparqlMagicError(f"unknown option {token!r} (use --workspace, --ontology, --out, --limit)")
        if not equals:
            following = next(it, None)
            if following is None:
                raise SparqlMagicError(f"option {key} needs a value")
            value = following
        options[names[key]] = value
    if "limit" in options:
        try:
            options["limit"] = int(options["limit"])
            if options["limit"] < 1:
                raise ValueError
        except ValueError:
            raise SparqlMagicError(f"--limit needs a positive integer, not {options['limit']!r}") from None
    if "workspace" in options and "ontology" in options:
        raise SparqlMagicError("give either --workspace or --ontology, not both")
    return options


class SparqlMagic:
    """State of the ``%%sparql`` magic in one IPython shell (the remembered default workspace)."""

    def __init__(self, shell: Any):
        self.shell = shell
        self.workspace: Path | None = None

    def default_workspace(self) -> Path:
        """The workspace used when a cell names none: last given, ``$EVOONTO_WORKSPACE`` or ``./.evoonto``."""
        return self.workspace or Path(os.environ.get("EVOONTO_WORKSPACE") or ".evoonto")

    def _target(self, options: Mapping[str, Any]) -> Any:
        if "ontology" in options:
            namespace = getattr(self.shell, "user_ns", {}) or {}
            name = options["ontology"]
            if name not in namespace:
                raise SparqlMagicError(f"no notebook variable named {name!r}")
            return namespace[name]
        if "workspace" in options:
            self.workspace = Path(options["workspace"])
        from evoonto.workspace import Workspace

        return Workspace.open(self.default_workspace())

    def cell(self, line: str, cell: str) -> Any:
        """Run one ``%%sparql`` cell; returns the :class:`SparqlResult` (or None after printing an error)."""
        try:
            options = _parse_options(line)
            result = run_query(self._target(options), cell)
        except EvoontoError as exc:
            print(f"sparql: error: {exc}")
            return None
        if isinstance(result, SparqlResult) and "limit" in options:
            result.display_limit = options["limit"]
        if "out" in options:
            self.shell.user_ns[options["out"]] = result
        return result


def load_ipython_extension(ipython: Any) -> None:
    """Register ``%%sparql`` in an IPython shell (called by ``%load_ext evoonto.sparql_magic``)."""
    magic = SparqlMagic(ipython)
    ipython.register_magic_function(magic.cell, magic_kind="cell", magic_name="sparql")
