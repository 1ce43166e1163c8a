"""``%sparql`` / ``%%sparql``: IPython/Jupyter magics that run SPARQL on an evoonto ontology.

Load them in a notebook and query the active version of a workspace (SPARQL 1.1 Query,
https://www.w3.org/TR/sparql11-query/), run by the library's own store (Oxigraph, union of the
named graphs as the default graph)::

    %load_ext evoonto.sparql_magic

    %%sparql --workspace demo-workspace
    SELECT ?term ?label WHERE { ?term a evo:Term ; skos:prefLabel ?label } LIMIT 5

    %sparql ASK { ?t skos:prefLabel "Invoice total"@en }
    %sparql --label "invoice total"

The line magic ``%sparql [options] [QUERY]`` takes the options first and the query as the rest of
the line; ``%sparql --workspace PATH`` alone selects a workspace for the following cells.

Options of the magics (all optional):

``--workspace PATH`` / ``-w PATH``
    the workspace whose active version is queried; remembered for the following cells once it has
    opened (a workspace that fails to open is not remembered). Without it (and without
    ``--ontology``) the magic uses the last workspace given, else ``$EVOONTO_WORKSPACE``, else
    ``./.evoonto``.
``--ontology NAME`` / ``-o NAME``
    the name of a notebook variable holding an :class:`~evoonto.ontology.Ontology` (or a
    :class:`~evoonto.workspace.Workspace`, or anything with a ``query(sparql)`` method) to query
    instead of a workspace on disk.
``--label TEXT``
    instead of a query: the nodes having a label (``skos:prefLabel``, ``skos:altLabel``,
    ``skos:hiddenLabel``, ``rdfs:label``) equal to ``TEXT``, ignoring case and language tag
    (:func:`find_label`).
``--out NAME``
    also store the result in the notebook variable ``NAME``.
``--limit N``
    show at most ``N`` rows in the rendered table (default 50; the returned result keeps every row).

The standard prefixes (``evo:``, ``evog:``, ``skos:``, ``prov:``, ``dcat:``, ``dcterms:``, ``csvw:``,
``owl:``, ``rdfs:``, ``rdf:``, ``sh:``, ``xsd:``, ``sssom:``, ``evosh:``;
:data:`evoonto.namespaces.PREFIXES`) are predeclared by the store, so error positions
(``at line LINE, column COLUMN``) refer to the lines of the cell as written.

**Labels are language-tagged.** ``skos:prefLabel`` and ``skos:altLabel`` values carry ``@en``, and
in SPARQL a plain literal never equals a tagged one: ``ASK { ?t skos:prefLabel "Invoice total" }``
is false while ``ASK { ?t skos:prefLabel "Invoice total"@en }`` is true. Write the tag, compare
``FILTER(STR(?label) = "Invoice total")``, or use ``%sparql --label "Invoice total"`` /
:func:`find_label` (case- and language-insensitive). When a query compares a label with a plain
literal and finds nothing, the magic prints a one-line note saying so.

Read-only: SPARQL updates (INSERT, DELETE, LOAD, CLEAR …) are refused with the same message as
``evoonto sparql`` (:func:`evoonto.store.refuse_update`).

The cell's value is a :class:`SparqlResult` for SELECT: a ``list`` of ``dict`` rows (variable name →
rdflib term, as :meth:`Ontology.query <evoonto.ontology.Ontology.query>` returns them) that renders
as an HTML table in Jupyter and as a plain-text table in a terminal (pandas is not needed); a
:class:`GraphResult` (shown as Turtle) for CONSTRUCT/DESCRIBE; ``True``/``False`` for ASK.

Errors (unknown workspace, malformed query, refused update, unknown variable) are shown as one line
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
from evoonto.namespaces import PREFIXES

#: Rows shown by default when a result is rendered (the result object keeps every row).
DEFAULT_DISPLAY_LIMIT = 50

#: Longest cell text (characters) in a rendered table; longer values are cut with "…".
MAX_CELL_CHARS = 120

#: The standard prefixes (one table for the whole package: :data:`evoonto.namespaces.PREFIXES`).
STANDARD_PREFIXES: Mapping[str, str] = PREFIXES

_PREFIX_DECL = re.compile(r"(?im)^\s*PREFIX\s+([A-Za-z][\w.-]*)?\s*:")

#: Label properties searched by :func:`find_label` (SKOS labels and ``rdfs:label``).
LABEL_PROPERTIES: tuple[str, ...] = ("skos:prefLabel", "skos:altLabel", "skos:hiddenLabel", "rdfs:label")

# A label property compared with a plain (untagged, untyped) string literal in a triple pattern.
_PLAIN_LABEL_LITERAL = re.compile(
    r"""(?:skos:(?:pref|alt)Label|rdfs:label|<http://www\.w3\.org/2004/02/skos/core#(?:pref|alt)Label>)\s+"""
    r"""("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')(?!\s*(?:@|\^\^))""")


class SparqlMagicError(EvoontoError):
    """The ``%sparql`` magic got bad options, an unknown variable or an empty query."""


def with_standard_prefixes(query: str) -> str:
    """Return ``query`` with ``PREFIX`` declarations for the standard prefixes it does not declare.

    The declarations are put on the query's first line (no newline is added), so the line numbers
    of a parser error still match the text the user wrote. Only needed for targets that do not
    predeclare the prefixes themselves (an :class:`~evoonto.ontology.Ontology` does).

    Args:
        query: SPARQL 1.1 query text.
    Returns:
        The query text, preceded by the missing standard prefix declarations (unchanged if none).
    """
    declared = {m.group(1) or "" for m in _PREFIX_DECL.finditer(query)}
    decls = [f"PREFIX {p}: <{iri}>" for p, iri in STANDARD_PREFIXES.items() if p not in declared]
    return " ".join(decls + [query]) if decls else query


def plain_label_literals(query: str) -> list[str]:
    """The plain string literals that ``query`` compares with a language-tagged label property.

    ``skos:prefLabel``/``skos:altLabel``/``rdfs:label`` followed by ``"text"`` without ``@lang`` or
    ``^^type`` matches no evoonto label (they are ``@en``); this lists those literals (with quotes),
    so the magic can say why a query found nothing.

    Args:
        query: SPARQL query text.
    Returns:
        The quoted literals, in order of appearance (empty when there are none).
    """
    return [m.group(1) for m in _PLAIN_LABEL_LITERAL.finditer(query)]


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
    """Run ``query`` on ``target`` and wrap SELECT rows as a :class:`SparqlResult`.

    An :class:`~evoonto.ontology.Ontology` (or a ``Workspace``'s) gets the text unchanged: its store
    predeclares the standard prefixes, so error positions match the user's lines. Any other target
    gets the missing declarations from :func:`with_standard_prefixes`.

    Args:
        target: an ``Ontology``, a ``Workspace`` (its active ``ontology`` is used) or any object with a
            ``query(sparql) -> list[dict]`` method.
        query: SPARQL 1.1 query text.
    Returns:
        A :class:`SparqlResult` for SELECT, a :class:`GraphResult` for CONSTRUCT/DESCRIBE, a bool
        for ASK.
    Raises:
        SparqlMagicError: empty query or a target without a ``query`` method.
        evoonto.store.QueryError: ``query`` is a SPARQL Update ("SPARQL updates are refused …").
        EvoontoError: whatever the store raises for a malformed query.
    """
    import rdflib

    from evoonto.ontology import Ontology
    from evoonto.store import refuse_update

    if not query.strip():
        raise SparqlMagicError("the cell holds no SPARQL query")
    # a notebook variable of any type: a Workspace (or anything else with an ``ontology``) is read
    # through it, any object with a ``query`` method is queried (the dynamic contract of the magic)
    ontology = getattr(target, "ontology", target)
    if not callable(getattr(ontology, "query", None)):
        raise SparqlMagicError(f"{type(target).__name__} has no query() method; pass an Ontology or Workspace")
    text = query if isinstance(ontology, Ontology) else with_standard_prefixes(query)
    try:
        result = ontology.query(text)
    except Exception:
        refuse_update(query, where="%sparql")
        raise
    if isinstance(result, list):
        return SparqlResult(result, variables=_select_variables(query))
    if isinstance(result, rdflib.Graph):
        return GraphResult(result)
    return result


def find_label(target: Any, text: str) -> SparqlResult:
    """The nodes whose label equals ``text``, ignoring case and language tag.

    evoonto labels are language-tagged (``"Invoice total"@en``), so an exact SPARQL match needs the
    tag; this helper compares ``LCASE(STR(?label))`` instead, over :data:`LABEL_PROPERTIES`.
    The data model is unchanged.

    Args:
        target: as for :func:`run_query`.
        text: the label to look for (surrounding white space is ignored).
    Returns:
        A :class:`SparqlResult` with variables ``node``, ``property``, ``label``, ordered by node and
        property (empty when nothing matches).
    Raises:
        SparqlMagicError: ``text`` is empty, or ``target`` has no ``query`` method.
        EvoontoError: the store failed.
    """
    from rdflib import Literal

    wanted = text.strip()
    if not wanted:
        raise SparqlMagicError("--label needs a non-empty text")
    properties = " ".join(LABEL_PROPERTIES)
    query = ("SELECT ?node ?property ?label WHERE {\n"
             f"  VALUES ?property {{ {properties} }}\n"
             "  ?node ?property ?label .\n"
             f"  FILTER(isLiteral(?label) && LCASE(STR(?label)) = LCASE({Literal(wanted).n3()}))\n"
             "} ORDER BY ?node ?property")
    result = run_query(target, query)
    assert isinstance(result, SparqlResult)
    return result


def label_hint(query: str, result: Any) -> str | None:
    """A one-line note when ``query`` found nothing and compares a label with a plain literal.

    Args:
        query: the query as written.
        result: what :func:`run_query` returned for it.
    Returns:
        The note text, or None when the result is not empty/false or no plain label literal occurs.
    """
    empty = result is False or (isinstance(result, SparqlResult) and not result)
    literals = plain_label_literals(query) if empty else []
    if not literals:
        return None
    first = literals[0]
    return (f"note: evoonto labels are language-tagged, so {first} matches no skos:prefLabel/altLabel; "
            f"write {first}@en, FILTER(STR(?label) = {first}), or %sparql --label {first}")


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


_OPTION_NAMES = {"--workspace": "workspace", "-w": "workspace", "--ontology": "ontology", "-o": "ontology",
                 "--out": "out", "--limit": "limit", "--label": "label"}
# One leading option of a line magic: name, then "=value" or white space and a (possibly quoted) value.
_LEADING_OPTION = re.compile(r"""\s*(?:--[\w-]+|-\w)(?:=|\s+)(?:"(?:[^"\\]|\\.)*"|'[^']*'|\S+)""")


def split_line(line: str) -> tuple[str, str]:
    """Split a ``%sparql`` line into its leading options and the query text after them.

    Args:
        line: everything after ``%sparql``.
    Returns:
        ``(options, query)``: the option text (parse it with the magic's option parser) and the rest
        of the line, stripped. Text starting with ``-`` that is not a known option stays in ``options``
        so that it is reported as unknown.
    """
    end = 0
    while True:
        match = _LEADING_OPTION.match(line, end)
        if match is None or match.group(0).split("=")[0].split()[0] not in _OPTION_NAMES:
            break
        end = match.end()
    rest = line[end:].strip()
    if rest.startswith("-"):  # an unknown or incomplete option: let the option parser name it
        return line, ""
    return line[:end], rest


def _parse_options(line: str) -> dict[str, Any]:
    """Parse the magic's option line; raises :class:`SparqlMagicError` on unknown or incomplete options."""
    try:
        tokens = shlex.split(line)
    except ValueError as exc:
        raise SparqlMagicError(f"cannot parse the options {line!r}: {exc}") from None
    options: dict[str, Any] = {}
    it = iter(tokens)
    for token in it:
        key, equals, value = token.partition("=")
        if key not in _OPTION_NAMES:
            raise SparqlMagicError(f"unknown option {token!r} (use --workspace, --ontology, --label, --out, --limit)")
        if not equals:
            following = next(it, None)
            if following is None:
                raise SparqlMagicError(f"option {key} needs a value")
            value = following
        options[_OPTION_NAMES[key]] = value
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
    """State of the ``%sparql``/``%%sparql`` magics in one IPython shell (the remembered workspace)."""

    def __init__(self, shell: Any):
        self.shell = shell
        self.workspace: Path | None = None

    def default_workspace(self) -> Path:
        """The workspace used when a cell names none: last opened, ``$EVOONTO_WORKSPACE`` or ``./.evoonto``."""
        return self.workspace or Path(os.environ.get("EVOONTO_WORKSPACE") or ".evoonto")

    def _target(self, options: Mapping[str, Any]) -> Any:
        if "ontology" in options:
            namespace = getattr(self.shell, "user_ns", {}) or {}  # IPython's shell (a stand-in in tests)
            name = options["ontology"]
            if name not in namespace:
                raise SparqlMagicError(f"no notebook variable named {name!r}")
            return namespace[name]
        from evoonto.workspace import Workspace

        if "workspace" in options:
            path = Path(options["workspace"])
            workspace = Workspace.open(path)  # raises: a workspace that does not open is not remembered
            self.workspace = path
            return workspace
        return Workspace.open(self.default_workspace())

    def run(self, line: str, cell: str | None = None) -> Any:
        """Run ``%sparql [options] [QUERY]`` (``cell`` None) or a ``%%sparql [options]`` cell.

        Returns the :class:`SparqlResult` / :class:`GraphResult` / bool, or None after printing a
        one-line ``sparql: error: …`` (or after ``%sparql --workspace PATH`` alone selected a
        workspace).
        """
        try:
            if cell is None:
                option_text, query = split_line(line)
            else:
                option_text, query = line, cell
            options = _parse_options(option_text)
            if "label" in options and query.strip():
                raise SparqlMagicError("give either a query or --label, not both")
            target = self._target(options)
            if "label" in options:
                result = find_label(target, options["label"])
            elif cell is None and not query.strip() and "workspace" in options:
                from evoonto.ontology import Ontology
                from evoonto.workspace import Workspace

                version = target.version if isinstance(target, (Workspace, Ontology)) else None
                shown = f" (version {version})" if version is not None else ""
                print(f"sparql: using workspace {self.workspace}{shown}")
                return None
            else:
                result = run_query(target, query)
        except EvoontoError as exc:
            print(f"sparql: error: {exc}")
            return None
        hint = None if "label" in options else label_hint(query, result)
        if hint:
            print(f"sparql: {hint}")
        if isinstance(result, SparqlResult) and "limit" in options:
            result.display_limit = options["limit"]
        if "out" in options:
            self.shell.user_ns[options["out"]] = result
        return result

    def cell(self, line: str, cell: str) -> Any:
        """Run one ``%%sparql`` cell (see :meth:`run`)."""
        return self.run(line, cell)


def load_ipython_extension(ipython: Any) -> None:
    """Register ``%sparql`` (line) and ``%%sparql`` (cell) in an IPython shell
    (called by ``%load_ext evoonto.sparql_magic``); ``%sparql?`` shows the module help."""
    magic = SparqlMagic(ipython)

    def sparql(line: str, cell: str | None = None) -> Any:
        return magic.run(line, cell)

    sparql.__doc__ = __doc__
    ipython.register_magic_function(sparql, magic_kind="line_cell", magic_name="sparql")
