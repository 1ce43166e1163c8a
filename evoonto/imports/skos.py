"""Import a SKOS glossary as a Content patch.

Every ``skos:Concept`` of the file (typed, or used with ``skos:inScheme``/``skos:broader``/
``skos:narrower``) is grounded against the active ontology by its labels (compared after
:func:`evoonto.text.normalize`, first tier that finds any Term: its prefLabel = a Term's prefLabel;
any of its labels = a Term's prefLabel; any of its labels = any Term label). A concept that fits
exactly one Term is **matched**: that Term gains the concept's other labels as ``skos:altLabel`` and
the concept's ``skos:definition`` in place of the one the builder generated (a person wrote the
glossary's), and keeps the Mappings and probe Evidence the builder gave it. A concept that matches
no Term (or several) becomes a **new Term** ``B term/glossary/{slug}`` without Mappings, so browse finds it
and says the data does not hold it yet; a later ``evoonto build`` or evolution can ground it.
``skos:broader`` between two imported concepts becomes a Hierarchy Relation (direct
``skos:broader`` triple and qualified node) between their Terms.

Example::

    patch, summary = skos_patch(ws.ontology, "glossary.ttl")
    ws.commit(patch, metadata={"import": "skos", "file": "glossary.ttl"})
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import rdflib
from rdflib import Literal, URIRef
from rdflib.namespace import RDF, SKOS

from evoonto.errors import EvoontoError
from evoonto.iris import IriFactory
from evoonto.patch import Patch
from evoonto.records import Relation, Term
from evoonto.text import normalize

if TYPE_CHECKING:
    from evoonto.ontology import Ontology


class GlossaryImportError(EvoontoError):
    """The glossary file is missing, unparseable or holds no concepts."""


@dataclass
class ImportSummary:
    """What an import would change: ``matched`` ``{concept IRI: Term IRI}``, ``new`` ``{concept IRI:
    new Term IRI}``, ``ambiguous`` concept IRIs whose label fits several Terms (imported as new Terms),
    the number of hierarchy ``relations`` and of matched Terms whose ``definitions`` the glossary's replace."""

    matched: dict[str, str] = field(default_factory=dict)
    new: dict[str, str] = field(default_factory=dict)
    ambiguous: list[str] = field(default_factory=list)
    relations: int = 0
    definitions: int = 0

    def line(self) -> str:
        """One line for the CLI."""
        return (f"{len(self.matched) + len(self.new)} concept(s): {len(self.matched)} matched existing Terms, "
                f"{len(self.new)} new Terms not grounded in a source ({len(self.ambiguous)} ambiguous), "
                f"{self.relations} hierarchy relation(s), {self.definitions} definition(s) replaced")


def _labels(graph: rdflib.Graph, node, predicate) -> list[Literal]:
    return sorted((o for o in graph.objects(node, predicate) if isinstance(o, Literal)), key=str)


def _pref_label(graph: rdflib.Graph, concept) -> str | None:
    labels = _labels(graph, concept, SKOS.prefLabel)
    english = [lab for lab in labels if (lab.language or "").lower().startswith("en")]
    chosen = english or [lab for lab in labels if not lab.language] or labels
    return str(chosen[0]) if chosen else None


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", normalize(text)).strip("-") or "concept"


def _candidates(pref: str, labels: list[str], by_pref: dict[str, set[URIRef]],
                by_label: dict[str, set[URIRef]]) -> set[URIRef]:
    """Terms a concept may be, by the first tier that finds any: its prefLabel = a Term's prefLabel;
    any of its labels = a Term's prefLabel; any of its labels = any label of a Term."""
    tiers = ([pref], by_pref), (labels, by_pref), (labels, by_label)
    for texts, index in tiers:
        found: set[URIRef] = set()
        for text in texts:
            found |= index.get(normalize(text), set())
        if found:
            return found
    return set()


#: Most SKOS triples (labels, definitions, hierarchy, concept types) a glossary may hold; a larger
#: file is refused (25,000 concepts with labels, definitions and broader links fit: 67 s CPU, 930 MiB
#: peak RSS in ``evoonto import skos``; twice as many peaked at 1.8 GB).
MAX_GLOSSARY_TRIPLES = 100_000
#: Longest time spent reading a glossary, in seconds (checked while streaming it).
MAX_GLOSSARY_SECONDS = 60.0
#: Most characters XML entity references may expand to in an RDF/XML glossary (declarations such as
#: ``<!ENTITY skos "http://www.w3.org/2004/02/skos/core#">`` are common; nested or external ones are refused).
MAX_ENTITY_EXPANSION = 10_000_000
#: Largest RDF/XML file with entity declarations that is read (its entity references are counted).
MAX_ENTITY_FILE_BYTES = 64 * 1024 * 1024
#: The predicates a glossary import reads; every other triple of the file is streamed past.
_GLOSSARY_PREDICATES = frozenset(str(p) for p in (
    RDF.type, SKOS.prefLabel, SKOS.altLabel, SKOS.hiddenLabel, SKOS.definition, SKOS.broader, SKOS.narrower,
    SKOS.inScheme))
_EXTENSIONS = {".owl": "rdf", ".skos": "rdf", ".rdfs": "rdf"}
_DOCTYPE = re.compile(rb"<!DOCTYPE\b[^\[>]*(?:\[(.*?)\])?\s*>", re.DOTALL)
_ENTITY = re.compile(rb"<!ENTITY\s+(%\s+)?([^\s%]+)\s+(?:(SYSTEM|PUBLIC)\b|\"([^\"]*)\"|'([^']*)')")


def _rdf_format(path: Path):
    """The pyoxigraph format of a glossary file, by extension (Turtle when it has none).

    Raises:
        GlossaryImportError: an extension no supported RDF format uses.
    """
    import pyoxigraph as ox

    suffix = path.suffix.lower()
    if not suffix:
        return ox.RdfFormat.TURTLE
    fmt = ox.RdfFormat.from_extension(_EXTENSIONS.get(suffix, suffix[1:]))
    if fmt is None:
        raise GlossaryImportError(f"{path}: unsupported glossary format {suffix!r} (use .ttl, .rdf/.owl/.xml, "
                                  f".jsonld, .nt, .n3, .trig or .nq)")
    return fmt


def _check_xml_entities(path: Path) -> None:
    """Refuse an RDF/XML file whose entity declarations could expand without bound or reach outside:
    a parameter, external (``SYSTEM``/``PUBLIC``) or nested entity (a value naming another), or
    references that together expand past :data:`MAX_ENTITY_EXPANSION` characters.

    Raises:
        GlossaryImportError: naming the file and the limit.
    """
    with path.open("rb") as handle:
        head = handle.read(1024 * 1024)
    if b"<!ENTITY" not in head and b"<!entity" not in head:
        return
    if path.stat().st_size > MAX_ENTITY_FILE_BYTES:
        raise GlossaryImportError(f"{path}: an RDF/XML file with entity declarations is read up to "
                                  f"{MAX_ENTITY_FILE_BYTES // (1024 * 1024)} MB; this one is larger")
    data = path.read_bytes()
    doctype = _DOCTYPE.search(data)
    subset = (doctype.group(1) or b"") if doctype else b""
    declared = _ENTITY.findall(subset)
    if subset.count(b"<!ENTITY") != len(declared):
        raise GlossaryImportError(f"{path}: an XML entity declaration could not be read (entity expansion "
                                  f"is limited to plain quoted values)")
    expansion = 0
    for parameter, name, external, double, single in declared:
        shown = name.decode("utf-8", "replace")[:60]
        value = double or single
        if parameter or external:
            raise GlossaryImportError(f"{path}: {'parameter' if parameter else 'external'} XML entity {shown!r} "
                                      f"refused (only plain quoted entity values are expanded; nothing is fetched)")
        if b"&" in value or b"%" in value:
            raise GlossaryImportError(f"{path}: nested XML entity {shown!r} refused (an entity value may not "
                                      f"name another entity)")
        expansion += data.count(b"&" + name + b";") * len(value)
        if expansion > MAX_ENTITY_EXPANSION:
            raise GlossaryImportError(f"{path}: XML entity references would expand past "
                                      f"{MAX_ENTITY_EXPANSION:,} characters")


def read_glossary(path: Path | str, *, max_triples: int = MAX_GLOSSARY_TRIPLES,
                  max_seconds: float = MAX_GLOSSARY_SECONDS) -> rdflib.Graph:
    """The SKOS triples of a glossary file (Turtle, RDF/XML, JSON-LD, N-Triples, N3, TriG, N-Quads, by
    extension), streamed with pyoxigraph: only the triples an import reads (``rdf:type`` and the
    SKOS labels, definition, broader/narrower, inScheme) are kept.

    Nothing is fetched: JSON-LD remote contexts (``"@context": "https://…"``, ``@import``) are
    refused by the parser (it has no document loader), RDF/XML entities are expanded only when
    declared as plain quoted values (see :func:`_check_xml_entities`), and nesting deeper than the
    parser's stack is a parse error.

    Args:
        path: the glossary file.
        max_triples: most SKOS triples kept (:data:`MAX_GLOSSARY_TRIPLES`).
        max_seconds: time budget of the read, in seconds.

    Raises:
        GlossaryImportError: missing, unreadable or unparsable file, an unsupported extension, or a
            limit passed (the message names the file and the limit).
    """
    import time

    import pyoxigraph as ox

    from evoonto.store import from_ox

    path = Path(path)
    if not path.is_file():
        raise GlossaryImportError(f"no such glossary file: {path}")
    fmt = _rdf_format(path)
    if fmt == ox.RdfFormat.RDF_XML:
        _check_xml_entities(path)
    graph = rdflib.Graph()
    started = time.monotonic()
    kept: list = []  # pyoxigraph quads, converted to rdflib only once the whole file is within the limits
    try:
        for n, quad in enumerate(ox.parse(path=path, format=fmt, base_iri=path.resolve().as_uri()), start=1):
            if n % 10_000 == 0 and time.monotonic() - started > max_seconds:
                raise GlossaryImportError(f"{path}: reading stopped after {max_seconds:g} s ({n:,} triples read)")
            if quad.predicate.value not in _GLOSSARY_PREDICATES or not isinstance(
                    quad.subject, (ox.NamedNode, ox.BlankNode)):
                continue
            kept.append(quad)
            if len(kept) > max_triples:
                raise GlossaryImportError(f"{path}: more than {max_triples:,} SKOS triples; the limit of a "
                                          f"glossary import is {max_triples:,}")
        for quad in kept:
            subject, predicate, obj = from_ox(quad.subject), from_ox(quad.predicate), from_ox(quad.object)
            if subject is not None and predicate is not None and obj is not None:
                graph.add((subject, predicate, obj))
    except (SyntaxError, ValueError, TypeError) as exc:
        line = exc.lineno if isinstance(exc, SyntaxError) else None  # pyoxigraph's parse errors
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "LoadDocumentCallback" in reason:  # pyoxigraph was asked for a remote JSON-LD context
            reason = "a remote JSON-LD @context is not loaded (glossary imports make no outbound request)"
        raise GlossaryImportError(f"cannot parse {path}{f':{line}' if line else ''}: {reason[:300]}") from None
    except OSError as exc:
        raise GlossaryImportError(f"cannot read {path}: {exc.strerror or exc}") from None
    return graph


def concepts_of(graph: rdflib.Graph) -> list[URIRef]:
    """IRIs of the SKOS concepts in ``graph``: typed ``skos:Concept`` or used in the hierarchy, sorted."""
    found = {s for s in graph.subjects(RDF.type, SKOS.Concept)}
    found |= {s for s in graph.subjects(SKOS.inScheme, None)}
    for p in (SKOS.broader, SKOS.narrower):
        for s, o in graph.subject_objects(p):
            found |= {s, o}
    return sorted(c for c in found if isinstance(c, URIRef) and _pref_label(graph, c))


def skos_patch(ontology: Ontology, path: Path | str) -> tuple[Patch, ImportSummary]:
    """The content patch importing the SKOS glossary at ``path`` into ``ontology`` (not committed).

    Raises:
        GlossaryImportError: unreadable file, or no concept with a ``skos:prefLabel``.
    """
    glossary = read_glossary(path)
    concepts = concepts_of(glossary)
    if not concepts:
        raise GlossaryImportError(f"{path} holds no skos:Concept with a skos:prefLabel")
    iris = IriFactory(ontology.base_iri)
    by_pref: dict[str, set[URIRef]] = {}
    by_label: dict[str, set[URIRef]] = {}
    existing_labels: dict[URIRef, set[str]] = {}
    definitions: dict[URIRef, set[rdflib.term.Node]] = {}
    for row in ontology.query("SELECT ?t ?p ?l ?d WHERE { ?t a evo:Term ; ?p ?l . "
                              "VALUES ?p { skos:prefLabel skos:altLabel skos:hiddenLabel } "
                              "OPTIONAL { ?t skos:definition ?d } FILTER NOT EXISTS { ?t owl:deprecated true } }"):
        term, label = URIRef(row["t"]), normalize(str(row["l"]))
        by_label.setdefault(label, set()).add(term)
        if row["p"] == SKOS.prefLabel:
            by_pref.setdefault(label, set()).add(term)
        existing_labels.setdefault(term, set()).add(label)
        if row.get("d") is not None:
            definitions.setdefault(term, set()).add(row["d"])
    additions, removals = rdflib.Graph(), rdflib.Graph()
    summary = ImportSummary()
    term_of: dict[URIRef, URIRef] = {}
    for concept in concepts:
        pref = _pref_label(glossary, concept) or ""
        labels = [pref] + [str(lab) for p in (SKOS.altLabel, SKOS.hiddenLabel) for lab in _labels(glossary, concept, p)]
        definition = next((str(d) for d in _labels(glossary, concept, SKOS.definition)), None)
        candidates = _candidates(pref, labels, by_pref, by_label)
        if len(candidates) == 1:
            term = next(iter(candidates))
            summary.matched[str(concept)] = str(term)
            known = existing_labels.get(term, set())
            for label in dict.fromkeys(labels):
                if normalize(label) not in known:
                    additions.add((term, SKOS.altLabel, Literal(label, lang="en")))
                    known.add(normalize(label))
            if definition and Literal(definition, lang="en") not in definitions.get(term, set()):
                for old in definitions.get(term, set()):  # the glossary's definition replaces the builder's
                    removals.add((term, SKOS.definition, old))
                additions.add((term, SKOS.definition, Literal(definition, lang="en")))
                summary.definitions += 1
        else:
            if candidates:
                summary.ambiguous.append(str(concept))
            term = iris.term("glossary", _slug(pref))
            summary.new[str(concept)] = str(term)
            alt = [lab for lab in dict.fromkeys(labels[1:]) if normalize(lab) != normalize(pref)]
            Term(term, pref, alt_labels=alt, definition=definition, scheme=iris.scheme()).to_graph(additions)
        term_of[concept] = term
    pairs = {(s, o) for s, o in glossary.subject_objects(SKOS.broader)}
    pairs |= {(o, s) for s, o in glossary.subject_objects(SKOS.narrower)}
    for narrower, broader in sorted(pairs):
        a, b = term_of.get(URIRef(str(narrower))), term_of.get(URIRef(str(broader)))
        if a is None or b is None or a == b:
            continue
        Relation(iris.relation("Hierarchy", str(a), str(b)), "Hierarchy", a, b).to_graph(additions)
        summary.relations += 1
    patch = Patch.from_graphs("content", {"content": additions}, {"content": removals},
                              signature=f"import skos {Path(path).name}", intervention=summary.line())
    return patch, summary


__all__ = ["GlossaryImportError", "ImportSummary", "concepts_of", "read_glossary", "skos_patch"]
