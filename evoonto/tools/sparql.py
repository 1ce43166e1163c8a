"""Safe SPARQL building blocks for the Tool layer.

Every SPARQL text that the Tool layer sends to the store is built here or from constant templates:
agent-provided values enter a query only as an escaped literal (:func:`literal`, SPARQL 1.1 §19.7
``STRING_LITERAL_QUOTE`` with ``ECHAR`` escapes) or as a validated IRI reference (:func:`iri_ref`,
§19.5 ``IRIREF``), never spliced raw. :func:`select` runs a SELECT through the ontology's
``query()`` (Oxigraph, union of the active named graphs) and returns plain Python strings.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox
from rdflib import Literal

from evoonto.errors import ToolArgumentError
from evoonto.ontology import Ontology
from evoonto.store import OxigraphStore

if TYPE_CHECKING:
    from evoonto.catalog import Queryable

EVO = "https://w3id.org/evoonto/ns#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
PROV = "http://www.w3.org/ns/prov#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
CSVW = "http://www.w3.org/ns/csvw#"
DCAT = "http://www.w3.org/ns/dcat#"
DCTERMS = "http://purl.org/dc/terms/"
SH = "http://www.w3.org/ns/shacl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
SSSOM = "https://w3id.org/sssom/"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"

PREFIXES = "".join(
    f"PREFIX {p}: <{iri}>\n"
    for p, iri in (
        ("evo", EVO), ("skos", SKOS), ("prov", PROV), ("rdfs", RDFS), ("owl", OWL), ("csvw", CSVW),
        ("dcat", DCAT), ("dcterms", DCTERMS), ("sh", SH), ("xsd", XSD), ("sssom", SSSOM),
        ("rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"),
    )
)

#: Record kinds served by browse/resolve and the class IRI of each (architecture.md §3).
KIND_CLASSES = {
    "term": EVO + "Term",
    "mapping": EVO + "Mapping",
    "constraint": EVO + "Constraint",
    "evidence": EVO + "Evidence",
    "relation": EVO + "Relation",
    "verified": EVO + "VerifiedQuery",
}

# Characters that may not appear in an IRIREF (SPARQL 1.1 grammar rule [139]).
_IRI_FORBIDDEN = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_ECHAR = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_ECHAR_RE = re.compile(r'[\\"\n\r\t\b\f]')
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")

MAX_IRI_CHARS = 2000


def literal(value: Any) -> str:
    """The SPARQL literal for ``value``: a typed literal for bool/int/float, else an escaped string.

    Args:
        value: str, int, float or bool (other objects are converted with ``str``).
    Returns:
        e.g. ``"O'Brien \\"x\\""`` or ``"3"^^xsd:integer`` (full datatype IRIs, no prefix needed).
    """
    if isinstance(value, bool):
        return f'"{str(value).lower()}"^^<{XSD}boolean>'
    if isinstance(value, int):
        return f'"{value}"^^<{XSD}integer>'
    if isinstance(value, float):
        return f'"{value!r}"^^<{XSD}double>'
    text = _ECHAR_RE.sub(lambda m: _ECHAR[m.group()], str(value))
    text = _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04X}", text)
    return f'"{text}"'


def check_iri(iri: str) -> str:
    """Return ``iri`` if it is a usable absolute IRI reference, else raise.

    Raises:
        ToolArgumentError: empty, longer than 2,000 characters, no ``scheme:``, or containing a
            character forbidden in a SPARQL IRIREF (space, ``<>"{}|^`\\``, control characters).
    """
    if not iri or len(iri) > MAX_IRI_CHARS:
        raise ToolArgumentError(f"malformed id (empty or longer than {MAX_IRI_CHARS} characters)")
    if _IRI_FORBIDDEN.search(iri) or not re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", iri):
        raise ToolArgumentError(f"malformed id {iri[:80]!r}")
    return iri


def iri_ref(iri: str) -> str:
    """``<iri>`` for a validated IRI (see :func:`check_iri`)."""
    return f"<{check_iri(iri)}>"


def value_of(node: Any) -> str | None:
    """The lexical form of an rdflib / pyoxigraph node (IRI string or literal value), or None."""
    return None if node is None else _lexical(node)


def _lexical(node: object) -> str:
    """The lexical form of a (non-None) rdflib / pyoxigraph node."""
    if isinstance(node, (ox.NamedNode, ox.BlankNode, ox.Literal)):
        return node.value
    if isinstance(node, Literal) and isinstance(node.value, str):  # a string literal, as rdflib reads it
        return node.value
    return str(node)


def select(ontology: Queryable, body: str) -> list[dict[str, str]]:
    """Run a SPARQL SELECT (``body`` without prefixes) and return rows of plain strings.

    Args:
        ontology: an :class:`evoonto.ontology.Ontology` (anything with ``query(sparql)`` returning
            rows as mappings from variable name to an RDF term or None).
        body: the query; the standard prefixes of :data:`PREFIXES` are prepended.
    Returns:
        One dict per solution, unbound variables left out.
    """
    store = ontology.store if isinstance(ontology, Ontology) else None
    if isinstance(store, OxigraphStore):  # embedded Oxigraph: skip rdflib conversion
        return _select_oxigraph(store.ox, PREFIXES + body)
    rows = ontology.query(PREFIXES + body)
    out = []
    for row in rows:
        items = row.items() if hasattr(row, "items") else row.asdict().items()
        out.append({str(k): _lexical(v) for k, v in items if v is not None})
    return out


def _select_oxigraph(engine: Any, sparql: str) -> list[dict[str, str]]:
    from evoonto.errors import EvoontoError
    from evoonto.store import solution_rows, sparql_error

    try:
        solutions = engine.query(sparql, use_default_graph_as_union=True)
    except (SyntaxError, OSError, ValueError, TypeError) as exc:
        raise EvoontoError(f"SPARQL query failed: {sparql_error(exc, sparql)}") from exc
    return solution_rows(solutions, lambda term: term.value)


def local_name(iri: str) -> str:
    """The part of an IRI after its last ``#`` or ``/`` (``evo:Metric`` -> ``Metric``; trailing
    ``#`` and ``/`` ignored; the whole text when it has neither)."""
    text = iri.rstrip("/#")
    return text[max(text.rfind("#"), text.rfind("/")) + 1:]
