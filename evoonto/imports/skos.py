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
from rdflib.util import guess_format

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


def read_glossary(path: Path | str) -> rdflib.Graph:
    """Parse a SKOS file (Turtle, RDF/XML, N-Triples, JSON-LD, … by extension) with rdflib.

    Raises:
        GlossaryImportError: missing or unparseable file (the message names it).
    """
    path = Path(path)
    if not path.is_file():
        raise GlossaryImportError(f"no such glossary file: {path}")
    graph = rdflib.Graph()
    try:
        graph.parse(path, format=guess_format(str(path)) or "turtle")
    except Exception as exc:  # rdflib raises parser-specific exception types
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise GlossaryImportError(f"cannot parse {path}: {reason}") from exc
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
