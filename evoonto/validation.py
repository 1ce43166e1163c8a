"""SHACL validation of an ontology (W3C SHACL): full or restricted to touched (focus) nodes.

Two engines share one shapes graph (the workspace's ``shapes`` graph, or the packaged shapes):

- SHACL Core shapes run in ``pyshacl`` on an rdflib data graph. For focus-node validation the data
  graph is only the neighbourhood of the focus nodes (their triples, the ``rdf:type`` of the nodes
  they point at) plus the class/property hierarchy of the vocab graph, which is all that the
  packaged shapes (outgoing paths, ``sh:class`` on values) read; it keeps a commit-time check in the
  tens of milliseconds (DESIGN.md §9).
- SHACL-SPARQL constraints (``sh:sparql``/``sh:select``, shapes/checks.ttl) run on the Oxigraph
  store over the union of the vocab, catalog, content and tools graphs; with focus nodes the
  query gets ``VALUES ?this { … }`` appended. They are removed from the shapes graph given to
  pyshacl, so rdflib's slow SPARQL engine never runs them.

The data graph is the union of ``vocab`` (so ``sh:class evo:RelationType`` and subclass reasoning
see the schema), ``catalog``, ``content`` and ``tools``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import rdflib
from rdflib import URIRef
from rdflib.namespace import RDF, SH

from evoonto.memory import paused_cyclic_gc
from evoonto.namespaces import PREFIXES, bind_prefixes
from evoonto.ontology import Ontology

#: Graphs whose union is validated.
DATA_GRAPHS: tuple[str, ...] = ("vocab", "catalog", "content", "tools")
_SEVERITY_NAMES = {SH.Violation: "Violation", SH.Warning: "Warning", SH.Info: "Info"}


def _severity_name(severity: rdflib.term.Node | None) -> str:
    """``"Violation" | "Warning" | "Info"`` for a SHACL severity IRI; ``"Violation"`` for anything else."""
    return _SEVERITY_NAMES.get(severity, "Violation") if isinstance(severity, URIRef) else "Violation"


@dataclass(frozen=True)
class ValidationResult:
    """One SHACL result.

    Attributes: severity ``"Violation" | "Warning" | "Info"``; shape: the node shape (an IRI, or a
    blank node for an anonymous shape);
    focus_node; path (predicate IRI or None); value (offending node or None); message (text);
    component: the constraint component or SPARQL constraint IRI.
    """

    severity: str
    shape: rdflib.term.Node | None
    focus_node: rdflib.term.Node | None
    path: rdflib.term.Node | None
    value: rdflib.term.Node | None
    message: str
    component: rdflib.term.Node | None = None

    def text(self, nm: rdflib.namespace.NamespaceManager | None = None) -> str:
        """One readable line: ``Violation at <focus> [shape, path]: message (value …)``."""
        def short(node):
            if node is None:
                return "-"
            if nm is not None and isinstance(node, URIRef):
                try:
                    return node.n3(nm)
                except Exception:  # noqa: BLE001 - rdflib raises various errors for odd IRIs
                    pass
            return node.n3() if hasattr(node, "n3") else str(node)

        where = short(self.shape) + (f", path {short(self.path)}" if self.path is not None else "")
        value = f" (value {short(self.value)})" if self.value is not None else ""
        return f"{self.severity} at {short(self.focus_node)} [{where}]: {self.message}{value}"


@dataclass
class ValidationReport:
    """The outcome of a validation: ``conforms`` is False when any result is a Violation."""

    results: list[ValidationResult] = field(default_factory=list)
    focus_nodes: int | None = None  # number of focus nodes (None: full validation)

    @property
    def conforms(self) -> bool:
        """True when no result has severity Violation (warnings and infos do not block)."""
        return not self.violations

    @property
    def violations(self) -> list[ValidationResult]:
        """Results with severity Violation."""
        return [r for r in self.results if r.severity == "Violation"]

    @property
    def warnings(self) -> list[ValidationResult]:
        """Results with severity Warning."""
        return [r for r in self.results if r.severity == "Warning"]

    def text(self, *, limit: int = 50) -> str:
        """Readable multi-line report (at most ``limit`` results), naming shape, focus node, path."""
        nm = bind_prefixes(rdflib.Graph()).namespace_manager
        scope = "full" if self.focus_nodes is None else f"{self.focus_nodes} focus node(s)"
        head = (f"{'conforms' if self.conforms else 'does not conform'} ({scope}): "
                f"{len(self.violations)} violation(s), {len(self.warnings)} warning(s)")
        lines = [head] + ["  " + r.text(nm) for r in self.results[:limit]]
        if len(self.results) > limit:
            lines.append(f"  … {len(self.results) - limit} more")
        return "\n".join(lines)

    def summary(self) -> str:
        """One line: the head line plus the first violation (for error messages)."""
        nm = bind_prefixes(rdflib.Graph()).namespace_manager
        first = self.violations[0].text(nm) if self.violations else ""
        return f"{len(self.violations)} SHACL violation(s); first: {first}" if first else "conforms"


# --- shapes preparation -------------------------------------------------------------------------

@dataclass
class _SparqlCheck:
    shape: rdflib.term.Node
    constraint: rdflib.term.Node
    query: str
    message: str
    severity: str


class PreparedShapes:
    """A shapes graph split into its SHACL Core part (for pyshacl) and its SPARQL checks.

    With ``hoist`` (the default) the core part's property shapes get their node shape's targets
    (:func:`hoist_property_shapes`): same results, one pyshacl pass per property shape over all
    focus nodes instead of one per focus node.
    """

    def __init__(self, shapes: rdflib.Graph, *, hoist: bool = True):
        self.core = rdflib.Graph()
        sparql_nodes = set(shapes.objects(None, SH.sparql))
        for s, p, o in shapes:
            if p == SH.sparql or s in sparql_nodes:
                continue
            self.core.add((s, p, o))
        self.hoisted = hoist_property_shapes(self.core) if hoist else 0
        self.parent_of: dict = {ps: ns for ns, ps in shapes.subject_objects(SH.property)}
        self.checks: list[_SparqlCheck] = []
        for shape, node in shapes.subject_objects(SH.sparql):
            if shapes.value(node, SH.deactivated) == rdflib.Literal(True):
                continue
            select = shapes.value(node, SH.select)
            if select is None:
                continue
            sev = shapes.value(node, SH.severity) or shapes.value(shape, SH.severity) or SH.Violation
            self.checks.append(_SparqlCheck(shape, node, _prefix_block(shapes, node) + str(select),
                                            str(shapes.value(node, SH.message) or "SPARQL constraint violated"),
                                            _severity_name(sev)))
        self.checks.sort(key=lambda c: str(c.constraint))
        self._shapes_graph: Any = None  # pyshacl's ShapesGraph, built on first use

    def shapes_graph(self):
        """The pyshacl ShapesGraph of the core part, built once."""
        if self._shapes_graph is None:
            from pyshacl.monkey import rdflib_bool_patch, rdflib_bool_unpatch
            from pyshacl.shapes_graph import ShapesGraph

            rdflib_bool_patch()
            try:
                self._shapes_graph = ShapesGraph(self.core)
            finally:
                rdflib_bool_unpatch()
        return self._shapes_graph


#: Target predicates a node shape can pass on to its property shapes (SHACL §2.1.3).
_TARGETS = (SH.targetClass, SH.targetNode, SH.targetSubjectsOf, SH.targetObjectsOf)
_CLASSES = (rdflib.RDFS.Class, rdflib.OWL.Class)


def hoist_property_shapes(core: rdflib.Graph) -> int:
    """Give property shapes their node shape's targets, in place; returns how many were moved.

    SHACL §4.8.1 (``sh:property``): a focus node of node shape ``N`` conforms to ``N``'s property
    shape ``P`` exactly when ``P``, evaluated on that focus node, reports nothing, and ``P``'s
    results are ``N``'s results. So ``N sh:property P`` with ``N sh:targetClass C`` validates
    like ``P sh:targetClass C`` with the ``sh:property`` link removed (results keep
    ``sh:sourceShape P``, ``P``'s path, message and severity). pyshacl evaluates a nested property
    shape once per focus node, re-reading its parameters each time, but a targeted shape once for
    all of its focus nodes; on a build of 7,450 columns that is most of the validation time.

    Moved only where the rewrite is exact: ``N`` has explicit (or implicit class) targets and no
    SPARQL-based ``sh:target``, is not ``sh:deactivated`` and is not referenced from another
    shape (``sh:node``, ``sh:or``, … would evaluate ``N`` as a whole); ``P`` belongs to ``N``
    alone, has no targets of its own and is referenced from nothing else. Other shapes are left
    as they are.
    """
    moved = 0
    for node in sorted(set(core.subjects(SH.property, None)), key=str):
        targets = [(p, o) for p in _TARGETS for o in core.objects(node, p)]
        targets += [(SH.targetClass, node) for c in _CLASSES if (node, RDF.type, c) in core]
        if (not targets or core.value(node, SH.target) is not None
                or core.value(node, SH.deactivated) == rdflib.Literal(True)
                or next(iter(core.subject_predicates(node)), None) is not None):
            continue
        for prop in sorted(set(core.objects(node, SH.property)), key=str):
            if (sum(1 for _ in core.subject_predicates(prop)) != 1
                    or any(core.value(prop, p) is not None for p in (*_TARGETS, SH.target))):
                continue
            core.remove((node, SH.property, prop))
            for p, o in targets:
                core.add((prop, p, o))
            moved += 1
    return moved


def _prefix_block(shapes: rdflib.Graph, constraint) -> str:
    lines = []
    for ontology in shapes.objects(constraint, SH.prefixes):
        for decl in shapes.objects(ontology, SH.declare):
            prefix, ns = shapes.value(decl, SH.prefix), shapes.value(decl, SH.namespace)
            if prefix is not None and ns is not None:
                lines.append(f"PREFIX {prefix}: <{ns}>")
    return "\n".join(lines) + "\n"


_PREPARED: dict[int, tuple[frozenset, PreparedShapes]] = {}


def prepare_shapes(shapes: rdflib.Graph) -> PreparedShapes:
    """Split and cache a shapes graph (cached by content; schema patches get a fresh entry)."""
    key = frozenset(shapes)
    cache_key = hash(key)
    hit = _PREPARED.get(cache_key)
    if hit is not None and hit[0] == key:
        return hit[1]
    prepared = PreparedShapes(shapes)
    if len(_PREPARED) > 8:
        _PREPARED.clear()
    _PREPARED[cache_key] = (key, prepared)
    return prepared


# --- validation ---------------------------------------------------------------------------------

def validate(target, focus_nodes: Iterable | None = None, *,
             shapes: rdflib.Graph | None = None) -> ValidationReport:
    """Validate an ontology (or a plain rdflib graph) against SHACL shapes.

    Args:
        target: an :class:`~evoonto.ontology.Ontology` (validated: union of vocab, catalog,
            content, tools; shapes: its ``shapes`` graph) or an ``rdflib.Graph`` holding data
            (validated together with the packaged vocab; SPARQL checks run on a temporary store).
        focus_nodes: IRIs to validate (the touched nodes of a patch); None validates everything.
        shapes: a shapes graph overriding the ontology's / the packaged one.

    Returns:
        :class:`ValidationReport` (``conforms`` False when any Violation).

    Cost: focus validation of ~50 nodes takes tens of ms; full validation of 100k triples several
    seconds (pyshacl).
    """
    if isinstance(target, Ontology):
        onto = target
    elif isinstance(target, rdflib.Graph):
        from evoonto.resources import vocab_graph

        onto = Ontology.from_graphs({"content": target, "vocab": vocab_graph()})
    else:
        raise TypeError(f"validate() needs an Ontology or rdflib.Graph, got {type(target).__name__}")
    prepared = _prepared_shapes(onto, shapes)
    focus = None if focus_nodes is None else sorted({URIRef(str(n)) for n in focus_nodes}, key=str)
    report = ValidationReport(focus_nodes=None if focus is None else len(focus))
    if focus is not None and not focus:
        return report
    # the rdflib copy and pyshacl's run allocate about three containers per triple and free none of
    # them until the end: the cyclic collector would only rescan them (half the time of a copy of
    # 460k triples). The copy is a reference cycle (graph <-> store), freed on leaving the block.
    with paused_cyclic_gc(collect_young=True):
        graph = _data_graph(onto, focus)
        report.results.extend(_run_pyshacl(prepared, graph, focus))
        del graph
    report.results.extend(_run_sparql_checks(prepared, onto, focus))
    return report


#: Graphs whose change requires a full validation (the shapes themselves may change).
SCHEMA_GRAPHS = frozenset({"vocab", "shapes"})


def patch_focus_nodes(candidate, patch) -> set[URIRef] | None:
    """The nodes whose shapes ``patch`` can break, evaluated on ``candidate`` (the patched version).

    Rule: subjects of the patch's triples, plus the nodes that point at a subject that lost triples
    (a removed type or link can break the referrer). Objects of added/removed triples are not
    re-validated: every packaged shape constrains only outgoing paths of its focus node, and the
    SPARQL checks that read incoming links (Mapping/Term inverse link, relation direct triple) are
    covered by the referrer rule. Returns None (validate everything) for patches touching the
    vocab or shapes graphs.
    """
    if SCHEMA_GRAPHS & set(patch.targets):
        return None
    schema_terms = candidate.schema_cache()["terms"]
    nodes = patch.subjects() - schema_terms
    removed_subjects = patch.subjects(removals_only=True) - schema_terms
    if removed_subjects:
        values = " ".join(f"<{n}>" for n in removed_subjects)
        rows = candidate.store.query(
            f"SELECT DISTINCT ?s WHERE {{ VALUES ?o {{ {values} }} ?s ?p ?o FILTER(?p != rdf:type && isIRI(?s)) }}",
            default_graphs=DATA_GRAPHS)
        nodes |= {row["s"] for row in rows}
    return nodes


#: Checks a patch must pass besides SHACL, each ``check(candidate, patch) -> list[ValidationResult]``.
#: Higher layers register theirs at import (:func:`register_patch_check`); the package's import loads
#: them all (``evoonto/__init__.py`` imports the Tool layer, whose ``declared`` module registers the SQL
#: guard of declared-tool templates), so every commit and the evolution loop's pre-gate check run them.
PATCH_CHECKS: list[Callable[[Any, Any], list[ValidationResult]]] = []


def register_patch_check(check: Callable[[Any, Any], list[ValidationResult]]) -> None:
    """Add ``check`` to :data:`PATCH_CHECKS` (once; registering the same function again is a no-op)."""
    if check not in PATCH_CHECKS:
        PATCH_CHECKS.append(check)


def validate_patch(candidate, patch) -> ValidationReport:
    """SHACL-validate ``candidate`` (an Ontology with ``patch`` applied, e.g. ``parent.with_patch(patch)``)
    on the nodes the patch can break (:func:`patch_focus_nodes`); full validation for schema patches.
    The results of the registered :data:`PATCH_CHECKS` are added (a Violation among them rejects the
    patch as a SHACL violation does)."""
    report = validate(candidate, patch_focus_nodes(candidate, patch))
    for check in list(PATCH_CHECKS):
        report.results.extend(check(candidate, patch))
    return report


def _prepared_shapes(onto, shapes: rdflib.Graph | None) -> PreparedShapes:
    """Explicit shapes, else the ontology's shapes graph (packaged shapes when it is empty), prepared
    once per change of the Schema layer."""
    if shapes is not None:
        return prepare_shapes(shapes)
    cache = onto.schema_cache()
    if "prepared" not in cache:
        graph = cache["shapes"]
        if len(graph) == 0:
            from evoonto.resources import shapes_graph

            graph = shapes_graph()
        cache["prepared"] = prepare_shapes(graph)
    return cache["prepared"]


def _data_graph(onto, focus: list | None) -> rdflib.Graph:
    store = onto.store
    if focus is None:
        data = rdflib.Graph()
        for name in DATA_GRAPHS:  # the store's terms are valid RDF: straight into rdflib's store
            data.store.addN((s, p, o, data) for s, p, o in store.triples(name))
        return data
    data = rdflib.Graph()
    for triple in onto.schema_cache()["skeleton"]:  # rdf:type / subClassOf for sh:class checks
        data.add(triple)
    values = " ".join(f"<{n}>" for n in focus)
    rows = store.query(
        "SELECT ?s ?p ?o WHERE { { VALUES ?f { " + values + " } BIND(?f AS ?s) ?s ?p ?o } UNION "
        "{ VALUES ?f { " + values + " } ?f ?q ?s . FILTER(isIRI(?s)) ?s ?p ?o FILTER(?p = rdf:type) } }",
        default_graphs=DATA_GRAPHS[1:],
    )
    for row in rows:
        data.add((row["s"], row["p"], row["o"]))
    return data


def _run_pyshacl(prepared: PreparedShapes, data: rdflib.Graph, focus: list | None) -> list[ValidationResult]:
    from pyshacl.graph_abstraction import DataGraph
    from pyshacl.monkey import apply_patches
    from pyshacl.validator import assign_baked_in

    apply_patches()
    assign_baked_in()
    options = {"inference": "none", "inplace": True, "abort_on_first": False, "allow_infos": True,
               "allow_warnings": True, "focus_nodes": focus}
    validator = _validator_class()(DataGraph.from_rdflib(data), shacl_graph=prepared.core, options=options)
    validator.shacl_graph = prepared.shapes_graph()  # reuse the parsed shapes (built once per shapes graph)
    _conforms, graph, _text = validator.run()
    out = []
    for result in graph.subjects(RDF.type, SH.ValidationResult):
        shape = graph.value(result, SH.sourceShape)
        path = graph.value(result, SH.resultPath)
        parent = prepared.parent_of.get(shape)
        messages = sorted(str(m) for m in graph.objects(result, SH.resultMessage))
        out.append(ValidationResult(
            severity=_SEVERITY_NAMES.get(graph.value(result, SH.resultSeverity), "Violation"),
            shape=parent if parent is not None else shape,
            focus_node=graph.value(result, SH.focusNode),
            path=path if isinstance(path, URIRef) else None,
            value=graph.value(result, SH.value),
            message=messages[0] if messages else "constraint violated",
            component=graph.value(result, SH.sourceConstraintComponent),
        ))
    out.sort(key=lambda r: (r.severity != "Violation", str(r.focus_node), str(r.path), r.message))
    return out


_VALIDATOR_CLASS = None


def _validator_class():
    """pyshacl's Validator with the focus-node list turned into a set (pyshacl tests membership
    once per target node and shape; with a list that is quadratic in the number of focus nodes)."""
    global _VALIDATOR_CLASS
    if _VALIDATOR_CLASS is None:
        from pyshacl.validator import Validator

        class _SetFocusValidator(Validator):
            def make_executor(self):
                executor = super().make_executor()
                if executor.focus_nodes:
                    executor.focus_nodes = frozenset(executor.focus_nodes)  # type: ignore[assignment]
                return executor

        _VALIDATOR_CLASS = _SetFocusValidator
    return _VALIDATOR_CLASS


_TEMPLATE = re.compile(r"\{[?$](\w+)\}")


def _fill_template(message: str, row: dict) -> str:
    """``message`` with each ``{?var}`` / ``{$var}`` replaced by the row's value of ``var`` ("" when unbound)."""
    return _TEMPLATE.sub(lambda m: str(row.get(m.group(1), "")), message)


def _run_sparql_checks(prepared: PreparedShapes, onto, focus: list | None) -> list[ValidationResult]:
    out = []
    values = "" if focus is None else "\nVALUES ?this { " + " ".join(f"<{n}>" for n in focus) + " }"
    for check in prepared.checks:
        rows = onto.store.query(check.query + values, default_graphs=DATA_GRAPHS)
        for row in rows:
            message = _fill_template(check.message, row)
            out.append(ValidationResult(check.severity, check.shape, row.get("this"), row.get("path"),
                                        row.get("value"), message, check.constraint))
    return out


__all__ = ["validate", "validate_patch", "patch_focus_nodes", "SCHEMA_GRAPHS", "ValidationReport", "ValidationResult",
           "PreparedShapes", "prepare_shapes", "hoist_property_shapes", "DATA_GRAPHS", "PREFIXES"]
