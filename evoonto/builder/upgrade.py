"""Bring a workspace built by an older evoonto up to what the current builder and vocabulary write.

``evoonto migrate`` first renames graphs (:meth:`evoonto.workspace.Workspace.migrate`); the content of
an older workspace can still lag behind the current model: Terms not asserted ``skos:Concept``,
relation nodes not typed ``owl:Axiom``, no ``skos:ConceptScheme`` with top concepts, a vocabulary
without its ontology header (license, version) or with properties declared as they were before (e.g.
``evo:relationType`` as an object property, now an annotation property), and shapes of an older
release. :func:`upgrade_patches` computes that difference as ordinary patches, one per level (a
``schema`` patch for vocab + shapes, a ``content`` patch for the Content layer), so the upgrade goes
through the history like any change: validated on commit, shown by ``evoonto log``, undone by
``evoonto rollback``. Nothing a team or evolution added is removed: the schema patch only changes what
the packaged vocabulary and shapes themselves state (a packaged subject's values of the predicates the
package gives it, and the package's own skolemized shape nodes).

Example::

    from evoonto.builder.upgrade import upgrade_patches
    for patch in upgrade_patches(ws.ontology, ws.iris):
        ws.commit(patch, metadata={"migration": True})
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import rdflib
from rdflib.namespace import DCAT, DCTERMS, OWL, RDF, SKOS

from evoonto.builder.construct import scheme_triples
from evoonto.namespaces import EVO
from evoonto.patch import Patch
from evoonto.resources import SHAPES_GENID, shapes_graph, vocab_graph

if TYPE_CHECKING:
    from evoonto.iris import IriFactory
    from evoonto.ontology import Ontology

__all__ = ["upgrade_patches", "schema_upgrade", "content_upgrade"]

Triple = tuple[rdflib.term.Node, rdflib.term.Node, rdflib.term.Node]


def _packaged_difference(current: rdflib.Graph, packaged: rdflib.Graph) -> tuple[set[Triple], set[Triple]]:
    """``(additions, removals)`` that make the packaged statements of ``current`` those of ``packaged``.

    Additions: every packaged triple ``current`` lacks. Removals: a triple of ``current`` not in the
    package whose subject and predicate the package states (an older value, e.g. a property's earlier
    ``rdf:type``), or whose subject is one of the package's own skolemized shape nodes
    (:data:`~evoonto.resources.SHAPES_GENID`) that the package no longer has. Triples on subjects, or
    with predicates, the package does not state are kept.
    """
    packaged_pairs = {(s, p) for s, p, _ in packaged}
    packaged_subjects = {s for s, _ in packaged_pairs}
    additions = {t for t in packaged if t not in current}
    removals: set[Triple] = set()
    for s, p, o in current:
        if (s, p, o) in packaged:
            continue
        if (s, p) in packaged_pairs:
            removals.add((s, p, o))
        elif str(s).startswith(SHAPES_GENID) and s not in packaged_subjects:
            removals.add((s, p, o))
    return additions, removals


def schema_upgrade(ontology: Ontology) -> Patch | None:
    """The ``schema`` patch bringing the vocab and shapes graphs to the packaged ones, or ``None``.

    Raises:
        PatchError: never for a workspace that opened (the rows come from valid graphs).
    """
    adds: dict[str, set[Triple]] = {}
    rems: dict[str, set[Triple]] = {}
    for name, packaged in (("vocab", vocab_graph()), ("shapes", shapes_graph())):
        a, r = _packaged_difference(ontology.graph(name), packaged)
        if a:
            adds[name] = a
        if r:
            rems[name] = r
    if not adds and not rems:
        return None
    return Patch.from_graphs("schema", adds, rems, signature="migrate: vocabulary and shapes of an older release",
                             intervention="bring vocab and shapes to the packaged ones "
                                          "(only packaged statements change)")


def content_upgrade(ontology: Ontology, iris: IriFactory) -> Patch | None:
    """The ``content`` patch giving older content what the current builder writes, or ``None``.

    Adds ``skos:Concept`` to every ``evo:Term``, ``owl:Axiom`` to every ``evo:Relation``, and, when the
    content has no ``skos:ConceptScheme``, the workspace scheme with every Term ``skos:inScheme`` it and
    the Terms without a broader one as its top concepts (:func:`~evoonto.builder.construct.scheme_triples`).
    """
    content = ontology.graph("content")
    adds: set[Triple] = set()
    for term in set(content.subjects(RDF.type, EVO.Term)):
        if (term, RDF.type, SKOS.Concept) not in content:
            adds.add((term, RDF.type, SKOS.Concept))
    for rel in set(content.subjects(RDF.type, EVO.Relation)):
        if (rel, RDF.type, OWL.Axiom) not in content:
            adds.add((rel, RDF.type, OWL.Axiom))
    if not any(True for _ in content.subjects(RDF.type, SKOS.ConceptScheme)):
        scheme = iris.scheme()
        for term in set(content.subjects(RDF.type, EVO.Term)):
            if not any(True for _ in content.objects(term, SKOS.inScheme)):
                adds.add((term, SKOS.inScheme, scheme))
        after = rdflib.Graph()
        for t in content:
            after.add(t)
        for t in adds:
            after.add(t)
        catalog = ontology.graph("catalog")
        sources = sorted(str(i) for d in catalog.subjects(RDF.type, DCAT.Dataset)
                         for i in catalog.objects(d, DCTERMS.identifier))
        title = "evoonto ontology of " + (", ".join(sources) or "its sources")
        adds.update(t for t in scheme_triples(iris, title, after) if t not in content)
    if not adds:
        return None
    return Patch.from_graphs("content", {"content": adds}, signature="migrate: content of an older release",
                             intervention="assert skos:Concept / owl:Axiom types and the SKOS concept scheme")


def upgrade_patches(ontology: Ontology, iris: IriFactory) -> list[Patch]:
    """The patches (schema first, then content) that bring ``ontology`` to the current model; ``[]`` when
    it is current. Commit them in order (each is validated by :meth:`Workspace.commit`)."""
    return [p for p in (schema_upgrade(ontology), content_upgrade(ontology, iris)) if p is not None]
