"""The packaged Schema layer: OWL vocabulary (``vocab/*.ttl``) and SHACL shapes (``shapes/*.ttl``).

Both folders ship inside the wheel as the packages :mod:`evoonto.vocab` and :mod:`evoonto.shapes`
and are read with :mod:`importlib.resources`, so they work from a source checkout, an editable
install and a wheel alike.

Shapes are written in readable Turtle with ``[]`` property shapes and ``( … )`` lists; since no
evolvable graph may contain blank nodes (SPARQL ``DELETE DATA`` forbids them and graph diffs break
under relabelling), :func:`shapes_graph` replaces every blank node with a deterministic IRI derived
from the RDF canonical form of the graph (``rdflib.compare.to_canonical_graph``), so the same files
always give the same IRIs. Canonicalising takes about half a second, so the result ships
pre-computed as ``shapes/skolemized.nt`` (:data:`SKOLEMIZED_SHAPES`), written by
``python -m evoonto.resources`` and stamped with the SHA-256 of the Turtle it was made from: it is
used only while that stamp matches the packaged Turtle (else the shapes are skolemized as before),
and a test checks that it equals a fresh skolemization.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources
from pathlib import Path

import rdflib
from rdflib.compare import to_canonical_graph

from evoonto.errors import RDFParseError

#: Base of the IRIs minted for the blank nodes of the packaged shapes (a stable, well-known path).
SHAPES_GENID = "https://w3id.org/evoonto/shapes/genid/"


def _ttl_files(package: str) -> list:
    """The ``*.ttl`` resources of ``package`` sorted by name (Traversable objects)."""
    root = resources.files(package)
    return sorted((f for f in root.iterdir() if f.name.endswith(".ttl")), key=lambda f: f.name)


def vocab_files() -> list[str]:
    """Names of the packaged vocabulary files, e.g. ``["catalog.ttl", "core.ttl", ...]``."""
    return [f.name for f in _ttl_files("evoonto.vocab")]


def shapes_files() -> list[str]:
    """Names of the packaged shapes files."""
    return [f.name for f in _ttl_files("evoonto.shapes")]


def _parse_package(package: str) -> rdflib.Graph:
    graph = rdflib.Graph()
    for res in _ttl_files(package):
        text = res.read_text(encoding="utf-8")
        try:
            graph.parse(data=text, format="turtle", publicID=f"file:///{package}/{res.name}")
        except Exception as exc:  # rdflib raises several parser exception types
            raise RDFParseError(f"{package.replace('.', '/')}/{res.name}: {exc}".replace("\n", " ")) from exc
    return graph


def skolemize_deterministically(graph: rdflib.Graph, base: str) -> rdflib.Graph:
    """Return a copy of ``graph`` whose blank nodes are replaced by IRIs ``base + <hash>``.

    The hash is taken from the blank node's label in the canonical form of the graph (RDF graph
    canonicalisation as implemented by ``rdflib.compare``), so it does not depend on parse order.
    Graphs without blank nodes are returned as a plain copy.
    """
    if not any(isinstance(t, rdflib.BNode) for triple in graph for t in triple):
        out = rdflib.Graph()
        for triple in graph:
            out.add(triple)
        return out
    canonical = to_canonical_graph(graph)
    mapping: dict[rdflib.BNode, rdflib.URIRef] = {}

    def conv(node):
        if isinstance(node, rdflib.BNode):
            if node not in mapping:
                mapping[node] = rdflib.URIRef(base + hashlib.sha1(str(node).encode()).hexdigest()[:16])
            return mapping[node]
        return node

    out = rdflib.Graph()
    for s, p, o in canonical:
        out.add((conv(s), p, conv(o)))
    return out


@lru_cache(maxsize=1)
def _vocab_cached() -> rdflib.Graph:
    return _parse_package("evoonto.vocab")


#: The pre-skolemized shapes (sorted N-Triples) inside the ``evoonto.shapes`` package.
SKOLEMIZED_SHAPES = "skolemized.nt"
_STAMP = "# evoonto skolemized shapes of sha256 "


def shapes_source_digest() -> str:
    """SHA-256 hex over the packaged shapes Turtle files (names and bytes, sorted by name)."""
    digest = hashlib.sha256()
    for res in _ttl_files("evoonto.shapes"):
        data = res.read_bytes()
        digest.update(f"{res.name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def skolemized_shapes_text() -> str:
    """The content of :data:`SKOLEMIZED_SHAPES` for the packaged Turtle: a stamp line (the
    :func:`shapes_source_digest`), then the skolemized shapes as sorted N-Triples lines."""
    graph = skolemize_deterministically(_parse_package("evoonto.shapes"), SHAPES_GENID)
    lines = sorted(line for line in graph.serialize(format="nt").splitlines() if line.strip())
    return f"{_STAMP}{shapes_source_digest()} (python -m evoonto.resources writes it; do not edit)\n" \
        + "\n".join(lines) + "\n"


def _skolemized_file() -> rdflib.Graph | None:
    """The shipped skolemized shapes, or None when the file is missing or its stamp is not the
    digest of the packaged Turtle (edited shapes are then skolemized afresh)."""
    try:
        text = resources.files("evoonto.shapes").joinpath(SKOLEMIZED_SHAPES).read_text(encoding="utf-8")
    except OSError:
        return None
    first = text.split("\n", 1)[0]
    if not first.startswith(_STAMP) or first[len(_STAMP):].split(" ", 1)[0] != shapes_source_digest():
        return None
    graph = rdflib.Graph()
    try:
        graph.parse(data=text, format="nt")
    except Exception:  # noqa: BLE001 - a damaged file: skolemize instead
        return None
    return graph


@lru_cache(maxsize=1)
def _shapes_cached() -> rdflib.Graph:
    shipped = _skolemized_file()
    if shipped is not None:
        return shipped
    return skolemize_deterministically(_parse_package("evoonto.shapes"), SHAPES_GENID)


def _copy(graph: rdflib.Graph) -> rdflib.Graph:
    out = rdflib.Graph()
    for triple in graph:
        out.add(triple)
    return out


def vocab_graph() -> rdflib.Graph:
    """A fresh copy of the packaged OWL vocabulary (all ``vocab/*.ttl`` merged), ~420 triples.

    Raises:
        RDFParseError: a packaged file is malformed (names the file and line).
    """
    return _copy(_vocab_cached())


def shapes_graph() -> rdflib.Graph:
    """A fresh copy of the packaged SHACL shapes, blank nodes replaced by stable IRIs.

    Raises:
        RDFParseError: a packaged file is malformed (names the file and line).
    """
    return _copy(_shapes_cached())


def _write_skolemized() -> Path:
    """Write :data:`SKOLEMIZED_SHAPES` next to the packaged shapes Turtle; returns its path."""
    target = Path(str(resources.files("evoonto.shapes").joinpath(SKOLEMIZED_SHAPES)))
    target.write_text(skolemized_shapes_text(), encoding="utf-8")
    return target


if __name__ == "__main__":  # python -m evoonto.resources: regenerate the shipped skolemized shapes
    print(f"wrote {_write_skolemized()}")
