"""Import a SKOS glossary as a Content patch.

Every ``skos:Concept`` of the file (typed, or used with ``skos:inScheme``/``skos:broader``/
``skos:narrower``) is grounded against the active ontology by its labels (compared after
:func:`evoonto.text.normalize`, first tier that finds any Term: its prefLabel = a Term's prefLabel;
any of its labels = a Term's prefLabel; any of its labels = any Term label). A concept that fits
exactly one Term is **matched**: that Term gains the concept's other labels as ``skos:altLabel`` (a
prefLabel in a language the Term has no prefLabel in stays a prefLabel) and the concept's
``skos:definition`` in place of the one the builder generated in that language (a person wrote the
glossary's), and keeps the Mappings and probe Evidence the builder gave it. A concept that matches
no Term (or several) becomes a **new Term** ``B term/glossary/{slug}`` without Mappings, so browse finds it
and says the data does not hold it yet; a later ``evoonto build`` or evolution can ground it.
``skos:broader`` between two imported concepts becomes a Hierarchy Relation (direct
``skos:broader`` triple and qualified node) between their Terms.

Identity and re-import: every imported Term carries ``skos:exactMatch <concept IRI>`` back to the
source, and a concept is looked up by it before its labels, so importing the same (or a changed)
file again updates the Terms instead of adding new ones (see :func:`skos_patch`). The concept scheme
itself, scheme membership, SKOS notes and Dublin Core provenance (:data:`NOTE_PREDICATES`) and
language tags are kept.

Example::

    patch, summary = skos_patch(ws.ontology, "glossary.ttl")
    ws.commit(patch, metadata={"import": "skos", "file": "glossary.ttl"})
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

import rdflib
from rdflib import Literal, URIRef
from rdflib.namespace import DC, DCTERMS, RDF, SKOS

from evoonto.errors import EvoontoError
from evoonto.iris import IriFactory
from evoonto.patch import Patch
from evoonto.records import Relation, Term, xml_safe
from evoonto.text import normalize

if TYPE_CHECKING:
    from evoonto.ontology import Ontology


class GlossaryImportError(EvoontoError):
    """The glossary file is missing, unparseable or holds no concepts."""


@dataclass
class ImportSummary:
    """What an import would change: ``known`` ``{concept IRI: Term IRI}`` found by ``skos:exactMatch``
    (imported before), ``matched`` ``{concept IRI: Term IRI}`` found by label, ``new`` ``{concept IRI:
    new Term IRI}``, ``ambiguous`` concept IRIs whose label fits several Terms (imported as new Terms) or
    that several Terms claim by ``skos:exactMatch`` (one of them updated),
    the number of hierarchy ``relations`` and of linked Terms whose ``definitions`` the glossary's replace,
    and ``skipped``: one line per value left out (printed by the CLI)."""

    matched: dict[str, str] = field(default_factory=dict)
    new: dict[str, str] = field(default_factory=dict)
    ambiguous: list[str] = field(default_factory=list)
    relations: int = 0
    definitions: int = 0
    known: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)

    def line(self) -> str:
        """One line for the CLI."""
        total = len(self.known) + len(self.matched) + len(self.new)
        return (f"{total} concept(s): {len(self.matched)} matched existing Terms, "
                f"{len(self.new)} new Terms not grounded in a source ({len(self.ambiguous)} ambiguous), "
                f"{len(self.known)} imported before (found by skos:exactMatch), "
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
#: file is refused (25,000 concepts with a type, prefLabel, definition and broader link each, 99,990
#: triples, fit: 69 s CPU, 979 MiB peak RSS in ``evoonto import skos`` on a built Chinook workspace; the
#: re-import, which changes nothing, 36 s CPU, 907 MiB; twice as many peaked at 1.8 GB).
MAX_GLOSSARY_TRIPLES = 100_000
#: Longest time spent reading a glossary, in seconds (checked while streaming it).
MAX_GLOSSARY_SECONDS = 60.0
#: Most characters XML entity references may expand to in an RDF/XML glossary (declarations such as
#: ``<!ENTITY skos "http://www.w3.org/2004/02/skos/core#">`` are common; nested or external ones are refused).
MAX_ENTITY_EXPANSION = 10_000_000
#: Largest RDF/XML file with entity declarations that is read (its entity references are counted).
MAX_ENTITY_FILE_BYTES = 64 * 1024 * 1024
#: What a glossary says about a concept or scheme besides labels and hierarchy, copied onto its Term
#: (objects that are imported concepts become their Terms): SKOS documentation properties and notation,
#: ``skos:related``, and Dublin Core provenance (``dcterms:`` and ``dc:`` 1.1). Top concepts are not
#: copied: the workspace keeps ``skos:hasTopConcept``/``skos:topConceptOf`` by its own rule
#: (:meth:`evoonto.patch.Patch.with_top_concepts`, applied on commit).
NOTE_PREDICATES: tuple[URIRef, ...] = (
    SKOS.definition, SKOS.scopeNote, SKOS.note, SKOS.example, SKOS.historyNote, SKOS.editorialNote,
    SKOS.changeNote, SKOS.notation, SKOS.related,
    *(DCTERMS[n] for n in ("source", "creator", "contributor", "publisher", "created", "modified", "issued",
                           "description", "title", "license", "rights")),
    *(DC[n] for n in ("source", "creator", "contributor", "publisher", "date", "description", "title", "rights")),
)
_NOTE_SET = frozenset(NOTE_PREDICATES)
_LABELS = (SKOS.prefLabel, SKOS.altLabel, SKOS.hiddenLabel)
#: The predicates a glossary import reads; every other triple of the file is streamed past.
_GLOSSARY_PREDICATES = frozenset(str(p) for p in (
    RDF.type, *_LABELS, SKOS.broader, SKOS.narrower, SKOS.inScheme, SKOS.hasTopConcept, SKOS.topConceptOf,
    *NOTE_PREDICATES))
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
    found |= {s for s in graph.subjects(SKOS.topConceptOf, None)}
    found |= {o for o in graph.objects(None, SKOS.hasTopConcept)}
    for p in (SKOS.broader, SKOS.narrower):
        for s, o in graph.subject_objects(p):
            found |= {s, o}
    return sorted(c for c in found if isinstance(c, URIRef) and _pref_label(graph, c))


def schemes_of(graph: rdflib.Graph, concepts: list[URIRef]) -> list[URIRef]:
    """IRIs of the concept schemes in ``graph`` (``skos:ConceptScheme``): typed so, or named by a concept's
    ``skos:inScheme``/``skos:topConceptOf``, sorted."""
    found = {s for s in graph.subjects(RDF.type, SKOS.ConceptScheme)}
    for concept in concepts:
        found |= set(graph.objects(concept, SKOS.inScheme)) | set(graph.objects(concept, SKOS.topConceptOf))
    return sorted(s for s in found if isinstance(s, URIRef))


def _lang_key(node: rdflib.term.Node) -> str:
    """The language a value counts under when the glossary replaces a Term's values: the literal's
    language tag (lower case), ``""`` for an untagged literal or an IRI."""
    return (node.language or "").lower() if isinstance(node, Literal) else ""


def _first_per_language(values: list[Literal]) -> tuple[list[Literal], list[Literal]]:
    """``(kept, extra)``: the first value (sorted by text) of each language, and the others."""
    kept: dict[str, Literal] = {}
    extra: list[Literal] = []
    for value in values:
        if _lang_key(value) in kept:
            extra.append(value)
        else:
            kept[_lang_key(value)] = value
    return list(kept.values()), extra


_N = TypeVar("_N", bound=rdflib.term.Node)


def _safe(node: _N) -> _N:
    """A literal with the characters XML 1.0 refuses replaced (:func:`evoonto.records.xml_safe`), language
    and datatype kept; other nodes unchanged."""
    if not isinstance(node, Literal):
        return node
    text, replaced = xml_safe(str(node))
    if not replaced:
        return node
    safe = Literal(text, lang=node.language) if node.language else Literal(text, datatype=node.datatype)
    return cast(_N, safe)


def _glossary_values(glossary: rdflib.Graph, concept: URIRef, translate: dict[URIRef, URIRef],
                     summary: ImportSummary) -> dict[URIRef, list[rdflib.term.Node]]:
    """``{predicate: values}`` the glossary gives ``concept`` among :data:`NOTE_PREDICATES` (objects that are
    imported concepts translated to their Terms; one ``skos:definition`` per language, the others
    named in ``summary.skipped``)."""
    said: dict[URIRef, list[rdflib.term.Node]] = {}
    for predicate, obj in glossary.predicate_objects(concept):
        if predicate in _NOTE_SET:
            said.setdefault(URIRef(str(predicate)), []).append(obj)
    values: dict[URIRef, list[rdflib.term.Node]] = {}
    for predicate in NOTE_PREDICATES:
        if predicate not in said:
            continue
        found = sorted((_safe(translate.get(o, o) if isinstance(o, URIRef) else o)
                        for o in said[predicate]), key=lambda n: (str(n), n.n3()))
        if predicate == SKOS.definition:
            literals = [o for o in found if isinstance(o, Literal)]
            kept, extra = _first_per_language(literals)
            found = list(kept)
            for value in extra:
                summary.skipped.append(f"{concept}: a second skos:definition in language "
                                       f"{_lang_key(value) or '(none)'!r} left out (one per language)")
        if found:
            values[predicate] = found
    return values


def _existing(ontology: Ontology) -> tuple[dict[str, set[URIRef]], dict[str, set[URIRef]],
                                           dict[URIRef, set[tuple[URIRef, rdflib.term.Node]]], set[URIRef]]:
    """``(by_pref, by_label, statements, mapped)`` of the active ontology's live Terms: normalized
    prefLabel / any label -> Terms, each Term's ``(predicate, object)`` among the labels,
    :data:`NOTE_PREDICATES`, ``skos:exactMatch`` and ``skos:inScheme``, and the Terms with a Mapping."""
    by_pref: dict[str, set[URIRef]] = {}
    by_label: dict[str, set[URIRef]] = {}
    statements: dict[URIRef, set[tuple[URIRef, rdflib.term.Node]]] = {}
    predicates = " ".join(p.n3() for p in (*_LABELS, *NOTE_PREDICATES, SKOS.exactMatch, SKOS.inScheme))
    for row in ontology.query(f"SELECT ?t ?p ?o WHERE {{ ?t a evo:Term ; ?p ?o . VALUES ?p {{ {predicates} }} "
                              "FILTER NOT EXISTS { ?t owl:deprecated true } }"):
        term, predicate, obj = URIRef(row["t"]), URIRef(row["p"]), row["o"]
        statements.setdefault(term, set()).add((predicate, obj))
        if predicate in _LABELS:
            label = normalize(str(obj))
            by_label.setdefault(label, set()).add(term)
            if predicate == SKOS.prefLabel:
                by_pref.setdefault(label, set()).add(term)
    mapped = {URIRef(row["t"]) for row in ontology.query("SELECT DISTINCT ?t WHERE { ?t a evo:Term ; "
                                                          "evo:hasMapping ?m }")}
    return by_pref, by_label, statements, mapped


def _drop_unstated_hierarchy(ontology: Ontology, iris: IriFactory, owned: set[URIRef], imported: set[URIRef],
                             stated: set[tuple[URIRef, URIRef]], removals: rdflib.Graph) -> None:
    """Add to ``removals`` the Hierarchy links (direct ``skos:broader`` and the qualified Relation node
    ``iris.relation("Hierarchy", a, b)`` with all its triples) from a Term the glossary owns (``owned``) to
    another Term of this import (``imported``) that the glossary no longer states (not in ``stated``)."""
    if not owned:
        return
    values = " ".join(f"<{t}>" for t in sorted(owned))
    for row in ontology.query(f"SELECT ?a ?b WHERE {{ VALUES ?a {{ {values} }} ?a skos:broader ?b }}"):
        a, b = URIRef(row["a"]), URIRef(row["b"])
        if b not in imported or (a, b) in stated:
            continue
        removals.add((a, SKOS.broader, b))
        node = iris.relation("Hierarchy", str(a), str(b))
        for r in ontology.query(f"SELECT ?p ?o WHERE {{ <{node}> ?p ?o }}"):
            removals.add((node, URIRef(r["p"]), r["o"]))


def skos_patch(ontology: Ontology, path: Path | str) -> tuple[Patch, ImportSummary]:
    """The content patch importing the SKOS glossary at ``path`` into ``ontology`` (not committed).

    Identity: every imported Term carries ``skos:exactMatch <concept IRI>`` (the source IRI; the Term's
    own IRI stays under the workspace base). A concept is found again by it first, then by its labels
    (see the module docstring), else it becomes a new Term ``term/glossary/{slug}`` (a slug another
    concept or Term holds gets ``-2``, ``-3`` …). So importing a file again updates: a Term the import
    minted whose only ``skos:exactMatch`` is the concept (and that has no Mapping) follows the source:
    its labels and :data:`NOTE_PREDICATES` values become the glossary's (a renamed concept renames its
    Term). A Term the import linked by label (the builder's, or another glossary's) gains the labels it
    lacks (labels are never removed from it: the import cannot tell its own from the builder's), and for
    each note predicate and language the glossary states, the glossary's values replace the Term's (so
    its ``skos:definition`` replaces the generated one). Labels and notes keep their language tags (an
    untagged literal stays untagged); a concept's ``skos:prefLabel`` in a language the Term has none in
    becomes a prefLabel, a different one in a language it has becomes an ``skos:altLabel``. The
    scheme(s) are kept: ``<scheme> a skos:ConceptScheme`` with its labels and notes, and
    ``skos:inScheme <scheme>`` on the Terms of its concepts (only ever added). A ``skos:broader`` the
    glossary no longer states between a Term it owns and another Term of the import is removed with
    its Hierarchy Relation; other hierarchy links are only added. When several Terms carry
    ``skos:exactMatch`` to one concept, the one its labels pick (else the first IRI) is updated and the
    concept is listed as ambiguous.

    Raises:
        GlossaryImportError: unreadable file, or no concept with a ``skos:prefLabel``.
    """
    glossary = read_glossary(path)
    concepts = concepts_of(glossary)
    if not concepts:
        raise GlossaryImportError(f"{path} holds no skos:Concept with a skos:prefLabel")
    iris = IriFactory(ontology.base_iri)
    minted_prefix = str(iris.term("glossary", "x"))[:-1]
    by_pref, by_label, statements, mapped = _existing(ontology)
    by_match: dict[URIRef, set[URIRef]] = {}
    for term, said in statements.items():
        for predicate, obj in said:
            if predicate == SKOS.exactMatch and isinstance(obj, URIRef):
                by_match.setdefault(obj, set()).add(term)
    taken = set(statements) | {URIRef(str(r["s"])) for r in ontology.query(
        f"SELECT DISTINCT ?s WHERE {{ ?s ?p ?o FILTER(STRSTARTS(STR(?s), \"{minted_prefix}\")) }}")}
    summary = ImportSummary()
    term_of: dict[URIRef, URIRef] = {}
    created: set[URIRef] = set()
    for concept in concepts:  # identity first: which Term each concept is (or a new IRI)
        pref = _pref_label(glossary, concept) or ""
        labels = [pref] + [str(lab) for p in _LABELS for lab in _labels(glossary, concept, p)]
        found = by_match.get(concept, set())
        if len(found) > 1:  # several Terms claim the concept: the one its labels pick, else the first IRI
            narrowed = _candidates(pref, labels, by_pref, by_label) & found
            summary.ambiguous.append(str(concept))
            found = narrowed if len(narrowed) == 1 else {min(found)}
        if found:
            term_of[concept] = next(iter(found))
            summary.known[str(concept)] = str(term_of[concept])
            continue
        candidates = _candidates(pref, labels, by_pref, by_label)
        if len(candidates) == 1:
            term_of[concept] = next(iter(candidates))
            summary.matched[str(concept)] = str(term_of[concept])
            continue
        if candidates:
            summary.ambiguous.append(str(concept))
        term, n = iris.term("glossary", _slug(pref)), 1
        while term in taken:
            n += 1
            term = iris.term("glossary", f"{_slug(pref)}-{n}")
        taken.add(term)
        created.add(term)
        term_of[concept] = term
        summary.new[str(concept)] = str(term)

    additions, removals = rdflib.Graph(), rdflib.Graph()
    owned_terms: set[URIRef] = set()
    schemes = schemes_of(glossary, concepts)
    for scheme in schemes:
        additions.add((scheme, RDF.type, SKOS.ConceptScheme))
        for predicate in (*_LABELS, *NOTE_PREDICATES):
            for obj in glossary.objects(scheme, predicate):
                if not (isinstance(obj, URIRef) and obj in term_of):
                    additions.add((scheme, predicate, _safe(obj)))
    for concept in concepts:
        term = term_of[concept]
        current = statements.get(term, set())
        matches = {o for p, o in current if p == SKOS.exactMatch}
        owned = term in created or (str(term).startswith(minted_prefix) and term not in mapped
                                    and matches == {concept})
        prefs, extra_prefs = _first_per_language(
            [_safe(lab) for lab in _labels(glossary, concept, SKOS.prefLabel)])
        others = [_safe(lab) for p in (SKOS.altLabel, SKOS.hiddenLabel) for lab in _labels(glossary, concept, p)]
        notes = _glossary_values(glossary, concept, term_of, summary)
        wanted: set[tuple[URIRef, rdflib.term.Node]] = {(SKOS.exactMatch, concept)}
        wanted |= {(SKOS.inScheme, s) for s in glossary.objects(concept, SKOS.inScheme) if s in schemes}
        if owned:
            owned_terms.add(term)
            if term in created:
                Term(term, str(prefs[0]) if prefs else _pref_label(glossary, concept) or "",
                     scheme=iris.scheme()).to_graph(additions)
                additions.remove((term, SKOS.prefLabel, None))
            wanted |= {(SKOS.prefLabel, lab) for lab in prefs}
            wanted |= {(SKOS.altLabel, lab) for lab in extra_prefs}
            wanted |= {(SKOS.altLabel if (concept, SKOS.altLabel, lab) in glossary else SKOS.hiddenLabel, lab)
                       for lab in others}
            wanted |= {(p, o) for p, objs in notes.items() for o in objs}
            for predicate, obj in current:  # the glossary's Term follows the glossary
                if (predicate in _LABELS or predicate in NOTE_PREDICATES) and (predicate, obj) not in wanted:
                    removals.add((term, predicate, obj))
        else:
            known = {normalize(str(o)) for p, o in current if p in _LABELS}
            pref_langs = {_lang_key(o) for p, o in current if p == SKOS.prefLabel}
            for lab in [*prefs, *extra_prefs, *others]:
                if normalize(str(lab)) in known:
                    continue
                known.add(normalize(str(lab)))
                if lab in prefs and _lang_key(lab) not in pref_langs:
                    wanted.add((SKOS.prefLabel, lab))
                    pref_langs.add(_lang_key(lab))
                else:
                    hidden = (concept, SKOS.hiddenLabel, lab) in glossary
                    wanted.add((SKOS.hiddenLabel if hidden else SKOS.altLabel, lab))
            for predicate, objs in notes.items():  # per language the glossary states, its values win
                langs = {_lang_key(o) for o in objs}
                for p, old in current:
                    if p == predicate and _lang_key(old) in langs and old not in objs:
                        removals.add((term, p, old))
                wanted |= {(predicate, o) for o in objs}
                if predicate == SKOS.definition and {o for p, o in current if p == predicate} != set(objs):
                    summary.definitions += 1
        for predicate, obj in wanted:
            if (predicate, obj) not in current:
                additions.add((term, predicate, obj))
    pairs = {(s, o) for s, o in glossary.subject_objects(SKOS.broader)}
    pairs |= {(o, s) for s, o in glossary.subject_objects(SKOS.narrower)}
    stated: set[tuple[URIRef, URIRef]] = set()
    for narrower, broader in sorted(pairs):
        a, b = term_of.get(URIRef(str(narrower))), term_of.get(URIRef(str(broader)))
        if a is None or b is None or a == b:
            continue
        stated.add((a, b))
        Relation(iris.relation("Hierarchy", str(a), str(b)), "Hierarchy", a, b).to_graph(additions)
        summary.relations += 1
    _drop_unstated_hierarchy(ontology, iris, owned_terms, set(term_of.values()), stated, removals)
    patch = Patch.from_graphs("content", {"content": additions}, {"content": removals},
                              signature=f"import skos {Path(path).name}", intervention=summary.line())
    return patch, summary


__all__ = ["NOTE_PREDICATES", "GlossaryImportError", "ImportSummary", "concepts_of", "read_glossary", "schemes_of",
           "skos_patch"]
