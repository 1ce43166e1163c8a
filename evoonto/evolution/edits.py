"""Typed edits: the smallest changes evolution can make, each on exactly one level.

Paper §"Evolution loop", step *patch*: an intervention is a typed edit of the ontology, not free text.
Every edit compiles to triples to add and remove per target named graph (docs/architecture.md §2:
content/catalog = level ``content``, tools = level ``tool``, vocab/shapes = level ``schema``); a
:class:`~evoonto.evolution.candidates.Candidate` bundles edits of one level into one Patch.

Lifecycle follows the contract: evolution never deletes a Term, it deprecates it (``owl:deprecated
true`` + ``dcterms:isReplacedBy``). Every minted node has an IRI (no blank nodes).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import ClassVar

from rdflib import OWL, RDF, RDFS, XSD, Literal, URIRef
from rdflib.namespace import DCTERMS, SKOS

from evoonto.errors import EvoontoError
from evoonto.iris import IriFactory, slugify, stable_key
from evoonto.namespaces import EVO
from evoonto.evolution.view import OntologyView
from evoonto.records import Constraint, Evidence, Mapping, ProbeActivity, Relation, Term


class EditError(EvoontoError):
    """An edit cannot be compiled against this ontology (unknown Term, column, setting …)."""


#: Target named graphs of each level.
LEVEL_TARGETS = {"content": ("content", "catalog"), "tool": ("tools",), "schema": ("vocab", "shapes")}


@dataclass
class Compiled:
    """Triples to add / remove, per target graph name."""

    additions: dict[str, list[tuple]] = field(default_factory=dict)
    removals: dict[str, list[tuple]] = field(default_factory=dict)

    def add(self, target: str, *triples) -> None:
        self.additions.setdefault(target, []).extend(triples)

    def remove(self, target: str, *triples) -> None:
        self.removals.setdefault(target, []).extend(triples)

    def extend(self, other: "Compiled") -> None:
        for t, ts in other.additions.items():
            self.add(t, *ts)
        for t, ts in other.removals.items():
            self.remove(t, *ts)


@dataclass
class EditContext:
    """What edits compile against: the parent's :class:`~evoonto.evolution.view.OntologyView` and the
    workspace's :class:`~evoonto.iris.IriFactory`; ``now`` stamps new Evidence (UTC).

    One context serves one parent version (one loop round), so it also memoises what is derived
    from it: :meth:`compile` compiles each edit once per context (screening, fingerprinting, the
    round's patch and batch checks all reuse it), and ``derived`` holds per-candidate results
    (graphs, fingerprints) keyed by the candidate. The cached :class:`Compiled` objects are shared:
    callers must not modify them.
    """

    view: OntologyView
    iris: IriFactory
    now: _dt.datetime = field(default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0))
    compiled: dict = field(default_factory=dict, repr=False, compare=False)
    derived: dict = field(default_factory=dict, repr=False, compare=False)

    def compile(self, edit: "Edit") -> "Compiled":
        """``edit.compile(self)``, computed once per context (an EditError is remembered and
        raised again). Raises EditError (or CandidateError) as the edit does."""
        try:
            hit = self.compiled.get(edit)
        except TypeError:  # an unhashable edit (not a frozen dataclass): no memo
            return edit.compile(self)
        if hit is None:
            try:
                hit = edit.compile(self)
            except EvoontoError as exc:
                hit = exc
            self.compiled[edit] = hit
        if isinstance(hit, Exception):
            raise hit
        return hit

    def column(self, source_id: str, table: str, column: str | None):
        """The catalog ColumnInfo (or the table's IRI triple when column is None); EditError if absent."""
        for c in self.view.columns:
            if c.source_id == source_id and c.table == table and (column is None or c.column == column):
                return c
        raise EditError(f"no catalog column {source_id}.{table}.{column or '*'}")

    def require_term(self, iri) -> URIRef:
        if self.view.term(iri) is None:
            raise EditError(f"no Term <{iri}> in the parent version")
        return URIRef(str(iri))


class Edit:
    """Base of typed edits. Subclasses set ``level`` and implement ``compile(ctx) -> Compiled`` and
    ``describe() -> str`` (one line, recorded as the patch's intervention)."""

    level: ClassVar[str] = "content"
    op: ClassVar[str] = "edit"

    def compile(self, ctx: EditContext) -> Compiled:  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError


# ---------------------------------------------------------------- content level

@dataclass(frozen=True)
class AddSynonym(Edit):
    """Add ``skos:altLabel`` (or ``skos:hiddenLabel`` with ``hidden=True``) ``label`` to Term ``term``."""

    term: str
    label: str
    hidden: bool = False
    op: ClassVar[str] = "add_synonym"

    def compile(self, ctx):
        t = ctx.require_term(self.term)
        out = Compiled()
        if self.hidden:
            out.add("content", (t, SKOS.hiddenLabel, Literal(self.label)))
        else:
            out.add("content", (t, SKOS.altLabel, Literal(self.label, lang="en")))
        return out

    def describe(self):
        kind = "hidden label" if self.hidden else "synonym"
        return f"add {kind} {self.label!r} to <{self.term}>"


@dataclass(frozen=True)
class AddTerm(Edit):
    """A new Term of ``kind`` labelled ``label``, mapped to ``source_id.table[.column]``, backed by
    ``evidence`` (an Evidence IRI that must exist or be added in the same patch)."""

    label: str
    kind: str
    source_id: str
    table: str
    column: str | None = None
    alt_labels: tuple[str, ...] = ()
    evidence: str | None = None
    op: ClassVar[str] = "add_term"

    def compile(self, ctx):
        col = ctx.column(self.source_id, self.table, self.column)
        iri = ctx.iris.term(self.source_id, slugify(f"{self.table} {self.column or ''} {self.label}"))
        if ctx.view.term(iri) is not None:
            raise EditError(f"Term <{iri}> already exists")
        ev = [URIRef(self.evidence)] if self.evidence else []
        m_iri = ctx.iris.mapping(self.source_id, self.table, self.column)
        if any(m_iri in t.mappings for t in ctx.view.terms):
            suffix = int(stable_key(iri, length=6), 16) % 997 + 2
            m_iri = ctx.iris.mapping(self.source_id, self.table, self.column, suffix)
        term = Term(iri, self.label, kinds=[self.kind], alt_labels=list(self.alt_labels),
                    scheme=ctx.iris.scheme(), mappings=[m_iri], evidence=ev)
        mapping = Mapping(m_iri, iri, col.source_iri, col.table_iri,
                          col.iri if self.column else None, confidence=0.7, evidence=ev)
        out = Compiled()
        out.add("content", *term.to_triples(), *mapping.to_triples())
        return out

    def describe(self):
        where = f"{self.source_id}.{self.table}" + (f".{self.column}" if self.column else "")
        return f"add {self.kind} Term {self.label!r} mapped to {where}"


@dataclass(frozen=True)
class AddValueTerm(Edit):
    """A value Term for the rows where ``table.column = value``, as the builder writes one
    (:func:`evoonto.builder.propose.value_term`: Category, label the value, hidden label
    ``table.column = value``; its Mapping filters the column on the value), with ``alt_labels`` too
    (other names of the value) and ``hidden_labels`` (``skos:hiddenLabel``: words that point at the
    value without naming it, found by search but never shown as its name, such as a cue word:
    *fastest* for the attribute 'Speed'), backed by ``evidence`` (an Evidence IRI that must exist or
    be added in the same patch: the probe that found the value stored). For a column whose every row
    holds another value (a lookup table's names), which the builder gives no value Terms."""

    source_id: str
    table: str
    column: str
    value: str
    alt_labels: tuple[str, ...] = ()
    evidence: str | None = None
    hidden_labels: tuple[str, ...] = ()
    op: ClassVar[str] = "add_value_term"

    def compile(self, ctx):
        from evoonto.builder.propose import value_term
        from evoonto.sources.quoting import quote_identifier, quote_literal

        col = ctx.column(self.source_id, self.table, self.column)
        cand = value_term(self.table, self.column, self.value, origin="evolution", confidence=0.7)
        iri = ctx.iris.term(self.source_id, cand.slug)
        if ctx.view.term(iri) is not None:
            raise EditError(f"Term <{iri}> already exists")
        ev = [URIRef(self.evidence)] if self.evidence else []
        n = int(stable_key(iri, length=6), 16) % 9973 + 2
        m_iri = ctx.iris.mapping(self.source_id, self.table, self.column, n)
        alts = list(dict.fromkeys([*cand.labels.alt, *self.alt_labels]))
        hidden = list(dict.fromkeys([*cand.labels.hidden, *self.hidden_labels]))
        term = Term(iri, cand.labels.pref, kinds=[cand.kind], alt_labels=alts, hidden_labels=hidden,
                    definition=cand.definition, scheme=ctx.iris.scheme(), mappings=[m_iri], evidence=ev)
        mapping = Mapping(m_iri, iri, col.source_iri, col.table_iri, col.iri, aggregation="COUNT",
                          filter=f"{quote_identifier(self.column)} = {quote_literal(self.value)}",
                          confidence=0.7, evidence=ev)
        out = Compiled()
        out.add("content", *term.to_triples(), *mapping.to_triples())
        return out

    def describe(self):
        names = f" named {', '.join(map(repr, self.alt_labels))}" if self.alt_labels else ""
        if self.hidden_labels:
            names += f" found by {', '.join(map(repr, self.hidden_labels))}"
        return f"add value Term {self.source_id}.{self.table}.{self.column} = {self.value!r}{names}"


@dataclass(frozen=True)
class ModifyTerm(Edit):
    """Replace a Term's ``skos:prefLabel`` and/or set its ``skos:definition``."""

    term: str
    label: str | None = None
    definition: str | None = None
    op: ClassVar[str] = "modify_term"

    def compile(self, ctx):
        t = ctx.require_term(self.term)
        out = Compiled()
        g = ctx.view.content
        if self.label is not None:
            out.remove("content", *[(t, SKOS.prefLabel, o) for o in g.objects(t, SKOS.prefLabel)])
            out.add("content", (t, SKOS.prefLabel, Literal(self.label, lang="en")))
        if self.definition is not None:
            out.remove("content", *[(t, SKOS.definition, o) for o in g.objects(t, SKOS.definition)])
            out.add("content", (t, SKOS.definition, Literal(self.definition, lang="en")))
        return out

    def describe(self):
        return f"modify <{self.term}>" + (f" label={self.label!r}" if self.label else "") + \
            (" definition" if self.definition else "")


@dataclass(frozen=True)
class DeprecateTerm(Edit):
    """Mark a Term ``owl:deprecated true`` (optionally ``dcterms:isReplacedBy`` another Term)."""

    term: str
    replaced_by: str | None = None
    op: ClassVar[str] = "deprecate_term"

    def compile(self, ctx):
        t = ctx.require_term(self.term)
        out = Compiled()
        out.add("content", (t, OWL.deprecated, Literal(True)))
        if self.replaced_by:
            out.add("content", (t, DCTERMS.isReplacedBy, ctx.require_term(self.replaced_by)))
        return out

    def describe(self):
        return f"deprecate <{self.term}>" + (f" (replaced by <{self.replaced_by}>)" if self.replaced_by else "")


@dataclass(frozen=True)
class AddMapping(Edit):
    """A further Mapping of Term ``term`` to ``source_id.table[.column]`` (filter/aggregation optional)."""

    term: str
    source_id: str
    table: str
    column: str | None = None
    filter: str | None = None
    aggregation: str | None = None
    confidence: float = 0.6
    evidence: str | None = None
    op: ClassVar[str] = "add_mapping"

    def compile(self, ctx):
        t = ctx.require_term(self.term)
        col = ctx.column(self.source_id, self.table, self.column)
        n = int(stable_key(t, self.table, self.column, self.filter, length=6), 16) % 9973 + 2
        m_iri = ctx.iris.mapping(self.source_id, self.table, self.column, n)
        ev = [URIRef(self.evidence)] if self.evidence else []
        mapping = Mapping(m_iri, t, col.source_iri, col.table_iri, col.iri if self.column else None,
                          filter=self.filter, aggregation=self.aggregation, confidence=self.confidence,
                          evidence=ev)
        out = Compiled()
        out.add("content", *mapping.to_triples())
        return out

    def describe(self):
        return f"map <{self.term}> to {self.source_id}.{self.table}" + (f".{self.column}" if self.column else "")


@dataclass(frozen=True)
class AddEvidence(Edit):
    """Evidence from a new read-only probe (``query`` on ``source_id``) observing ``sample_values``,
    attached with ``prov:wasDerivedFrom`` to ``supports`` (Term or Mapping IRIs)."""

    source_id: str
    query: str
    sample_values: tuple[str, ...]
    supports: tuple[str, ...]
    rows_observed: int | None = None
    op: ClassVar[str] = "add_evidence"

    def iri(self, iris: IriFactory) -> URIRef:
        return iris.evidence(stable_key(self.source_id, self.query))

    def compile(self, ctx):
        key = stable_key(self.source_id, self.query)
        src = ctx.view.sources.get(self.source_id)
        if src is None:
            raise EditError(f"no source {self.source_id!r} in the catalog")
        probe = ProbeActivity(ctx.iris.probe(key), self.query, used=src, started_at=ctx.now, ended_at=ctx.now)
        ev = Evidence(ctx.iris.evidence(key), probe=probe.iri, generated_at=ctx.now,
                      summary=f"probe found {', '.join(self.sample_values)}"[:200],
                      rows_observed=self.rows_observed, sample_values=list(self.sample_values))
        out = Compiled()
        if (ev.iri, None, None) not in ctx.view.content:  # the same probe ran before: reuse its Evidence
            out.add("content", *probe.to_triples(), *ev.to_triples())
        for target in self.supports:
            out.add("content", (URIRef(target), URIRef("http://www.w3.org/ns/prov#wasDerivedFrom"), ev.iri))
        return out

    def describe(self):
        return f"add Evidence of {', '.join(map(repr, self.sample_values))} ({self.source_id})"


@dataclass(frozen=True)
class AddConstraint(Edit):
    """A Constraint on ``target`` with an SQL ``condition``, trigger keywords and prose comment."""

    target: str
    condition: str
    trigger_keywords: tuple[str, ...] = ()
    comment: str | None = None
    severity: str = "Warning"
    evidence: str | None = None
    op: ClassVar[str] = "add_constraint"

    def compile(self, ctx):
        iri = ctx.iris.constraint(
            slugify(f"{self.condition}") + "-" + stable_key(self.target, self.condition, length=6))
        c = Constraint(iri, [URIRef(self.target)], self.condition, list(self.trigger_keywords),
                       self.severity, self.comment, [URIRef(self.evidence)] if self.evidence else [])
        out = Compiled()
        out.add("content", *c.to_triples())
        return out

    def describe(self):
        return f"add Constraint {self.condition!r} on <{self.target}>"


@dataclass(frozen=True)
class AddRelation(Edit):
    """A semantic relation (direct triple + qualified node) of ``type`` between two Terms."""

    type: str
    source: str
    target: str
    join_condition: str | None = None
    formula: str | None = None
    op: ClassVar[str] = "add_relation"

    def compile(self, ctx):
        a, b = ctx.require_term(self.source), ctx.require_term(self.target)
        rel = Relation(ctx.iris.relation(self.type, a, b), self.type, a, b,
                       join_condition=self.join_condition, formula=self.formula)
        out = Compiled()
        out.add("content", *rel.to_triples())
        return out

    def describe(self):
        return f"add {self.type} <{self.source}> → <{self.target}>" + \
            (f" on {self.join_condition}" if self.join_condition else "")


@dataclass(frozen=True)
class AddMinedRecords(Edit):
    """Records the builder's verified-query miner wrote (:func:`evoonto.builder.verified.mine_verified`):
    a metric Term with its Mapping (``evo:expression``) and Derivations, or a named-filter Constraint,
    together with the ``evo:VerifiedQuery`` they cite and the Evidence of its read-only run.

    ``summary``: one line (the intervention); ``records``: IRIs of the new records that must not exist
    in the parent (the Term or Constraint); ``triples``: every triple to add to the content graph (IRIs
    only, no blank nodes, as the miner mints them). It is not offered to the LLM evolver (not in
    :data:`EDIT_TYPES`): its triples come from the miner, not from a model.

    Raises (compile):
        EditError: a record of ``records`` already exists in the parent version.
    """

    summary: str
    records: tuple[str, ...]
    triples: tuple[tuple, ...] = field(repr=False)
    op: ClassVar[str] = "add_mined_records"

    def compile(self, ctx):
        for record in self.records:
            if (URIRef(record), RDF.type, None) in ctx.view.content:
                raise EditError(f"<{record}> exists already in the parent version")
        out = Compiled()
        out.add("content", *self.triples)
        return out

    def describe(self):
        return self.summary


# ---------------------------------------------------------------- tool level

#: Scalar tool settings: name -> (settings node name, class, property, kind). ``count`` values are
#: integers ≥ 1; ``limit`` values integers ≥ 0 (0 = no limit); ``fraction`` values numbers in [0, 1];
#: ``flag`` values 0 or 1, written as ``xsd:boolean``.
_SETTINGS = {
    "browse.defaultResults": ("browse", EVO.BrowseSettings, EVO.defaultResults, "count"),
    "browse.maxResults": ("browse", EVO.BrowseSettings, EVO.maxResults, "count"),
    "browse.fuzzyWeight": ("browse", EVO.BrowseSettings, EVO.fuzzyWeight, "fraction"),
    "browse.hitsPerColumn": ("browse", EVO.BrowseSettings, EVO.hitsPerColumn, "limit"),
    # the compact answer's character budget (evo:answerBudget; the vocabulary may not declare it yet,
    # so the IRI is built from the namespace rather than the generated DefinedNamespace)
    "browse.answerBudget": ("browse", EVO.BrowseSettings, EVO._NS["answerBudget"], "budget"),
    "browse.fullLinesMatchedOnly": ("browse", EVO.BrowseSettings, EVO.fullLinesMatchedOnly, "flag"),
    "resolve.responseBudget": ("resolve", EVO.ResolveSettings, EVO.responseBudget, "count"),
    "resolve.evidenceBudget": ("resolve", EVO.ResolveSettings, EVO.evidenceBudget, "count"),
}


def settings_node(view, name: str, cls) -> URIRef | None:
    """The existing settings node of class ``cls`` in the tools graph, or None."""
    nodes = sorted(view.tools.subjects(RDF.type, cls))
    return nodes[0] if nodes else None


@dataclass(frozen=True)
class SetToolSetting(Edit):
    """Set one browse/resolve setting: the counts ``browse.defaultResults``, ``browse.maxResults``,
    ``resolve.responseBudget`` (characters), ``resolve.evidenceBudget`` (integers ≥ 1), the limit
    ``browse.hitsPerColumn`` (integer ≥ 0, 0 = no collapsing), the compact answer's budget
    ``browse.answerBudget`` (characters, integer ≥ 200), the fraction ``browse.fuzzyWeight``
    (a number in [0, 1]) or the flag ``browse.fullLinesMatchedOnly`` (0 or 1, written as
    ``xsd:boolean``; see :class:`evoonto.tools.settings.BrowseSettings`)."""

    setting: str
    value: float
    level: ClassVar[str] = "tool"
    op: ClassVar[str] = "set_tool_setting"

    def compile(self, ctx):
        if self.setting not in _SETTINGS:
            raise EditError(f"unknown tool setting {self.setting!r}; known: {', '.join(_SETTINGS)}")
        name, cls, pred, kind = _SETTINGS[self.setting]
        try:
            number = float(self.value)
        except (TypeError, ValueError):
            raise EditError(f"tool setting {self.setting} needs a number, got {self.value!r}") from None
        if kind == "count" and (number < 1 or number != int(number)):
            raise EditError(f"tool setting {self.setting} must be an integer ≥ 1")
        if kind == "limit" and (number < 0 or number != int(number)):
            raise EditError(f"tool setting {self.setting} must be an integer ≥ 0 (0 = no limit)")
        if kind == "budget" and (number < 200 or number != int(number)):
            raise EditError(f"tool setting {self.setting} must be an integer ≥ 200 (characters)")
        if kind == "fraction" and not 0 <= number <= 1:
            raise EditError(f"tool setting {self.setting} must be a number from 0 to 1")
        if kind == "flag" and number not in (0, 1):
            raise EditError(f"tool setting {self.setting} must be 0 (false) or 1 (true)")
        node = settings_node(ctx.view, name, cls)
        out = Compiled()
        if node is None:
            node = ctx.iris.tools(name)
            out.add("tools", (node, RDF.type, cls))
        out.remove("tools", *[(node, pred, o) for o in ctx.view.tools.objects(node, pred)])
        value = bool(number) if kind == "flag" else number if kind == "fraction" else int(number)
        out.add("tools", (node, pred, Literal(value)))
        return out

    def describe(self):
        return f"set {self.setting} = {self.value}"


@dataclass(frozen=True)
class SetFieldWeight(Edit):
    """Set the BM25 weight of one browse field (``prefLabel``, ``altLabel``, ``hiddenLabel``,
    ``keyword``, ``column``, ``definition``, ``value``, ``expression``) to ``weight`` > 0."""

    field: str
    weight: float
    level: ClassVar[str] = "tool"
    op: ClassVar[str] = "set_field_weight"

    FIELDS: ClassVar[tuple[str, ...]] = ("prefLabel", "altLabel", "hiddenLabel", "keyword", "column",
                                         "definition", "value", "expression")

    def compile(self, ctx):
        if self.field not in self.FIELDS:
            raise EditError(f"unknown browse field {self.field!r}; known: {', '.join(self.FIELDS)}")
        if not float(self.weight) > 0:
            raise EditError("a browse field weight must be > 0")
        tools = ctx.view.tools
        out = Compiled()
        node = settings_node(ctx.view, "browse", EVO.BrowseSettings)
        if node is None:
            node = ctx.iris.tools("browse")
            out.add("tools", (node, RDF.type, EVO.BrowseSettings))
        weight_node = next((w for w in tools.objects(node, EVO.fieldWeight)
                            if str(tools.value(w, EVO.field)) == self.field), None)
        if weight_node is None:
            weight_node = URIRef(f"{node}/weight/{self.field}")
            out.add("tools", (node, EVO.fieldWeight, weight_node), (weight_node, RDF.type, EVO.FieldWeight),
                    (weight_node, EVO.field, Literal(self.field)))
        out.remove("tools", *[(weight_node, EVO.weight, o) for o in tools.objects(weight_node, EVO.weight)])
        out.add("tools", (weight_node, EVO.weight, Literal(float(self.weight))))
        return out

    def describe(self):
        return f"set browse weight of {self.field} = {self.weight:g}"


@dataclass(frozen=True)
class AddManifestNote(Edit):
    """A manifest paragraph (``evo:ManifestNote``, ``rdfs:comment``, ``evo:order``)."""

    text: str
    order: int = 100
    level: ClassVar[str] = "tool"
    op: ClassVar[str] = "add_manifest_note"

    def compile(self, ctx):
        node = ctx.iris.tools("note-" + stable_key(self.text, length=10))
        out = Compiled()
        out.add("tools", (node, RDF.type, EVO.ManifestNote), (node, RDFS.comment, Literal(self.text, lang="en")),
                (node, EVO.order, Literal(int(self.order))))
        return out

    def describe(self):
        return f"add manifest note {self.text[:60]!r}"


@dataclass(frozen=True)
class DeclareTool(Edit):
    """A declared SQL-template tool: ``name``, description, template, parameters ((name, type), …)."""

    name: str
    description: str
    sql_template: str
    parameters: tuple[tuple[str, str], ...] = ()
    level: ClassVar[str] = "tool"
    op: ClassVar[str] = "declare_tool"

    def compile(self, ctx):
        node = ctx.iris.tools(slugify(self.name))
        out = Compiled()
        out.add("tools", (node, RDF.type, EVO.DeclaredTool), (node, EVO.toolName, Literal(self.name)),
                (node, RDFS.comment, Literal(self.description, lang="en")),
                (node, EVO.sqlTemplate, Literal(self.sql_template)))
        for pname, ptype in self.parameters:
            p = URIRef(f"{node}/parameter/{slugify(pname)}")
            out.add("tools", (node, EVO.parameter, p), (p, RDF.type, EVO.Parameter),
                    (p, EVO.parameterName, Literal(pname)), (p, EVO.parameterType, Literal(ptype)))
        return out

    def describe(self):
        return f"declare tool {self.name!r}"


# ---------------------------------------------------------------- schema level

@dataclass(frozen=True)
class AddRelationType(Edit):
    """A relation type (``evo:RelationType`` with its ``evo:directProperty``) declared in the vocab
    graph; existing content is untouched (DESIGN.md §2).

    ``iri`` None mints a new type ``<base>schema/<slug of name>`` and a new direct property (a
    sub-property of ``skos:related``); an ``iri`` (e.g. ``evo:Association`` after it was dropped from
    the vocab) declares that type, with ``direct_property`` (an existing property IRI) when given.
    """

    name: str
    comment: str
    iri: str | None = None
    direct_property: str | None = None
    level: ClassVar[str] = "schema"
    op: ClassVar[str] = "add_relation_type"

    def compile(self, ctx):
        t = URIRef(self.iri) if self.iri else URIRef(f"{ctx.iris.base}schema/{slugify(self.name)}")
        out = Compiled()
        if self.direct_property:
            p = URIRef(self.direct_property)
        else:
            p = URIRef(f"{t}-property") if self.iri else URIRef(f"{ctx.iris.base}schema/{slugify(self.name)}-property")
            out.add("vocab", (p, RDF.type, OWL.ObjectProperty), (p, RDFS.subPropertyOf, SKOS.related),
                    (p, RDFS.label, Literal(self.name, lang="en")))
        out.add("vocab", (t, RDF.type, EVO.RelationType), (t, RDFS.label, Literal(self.name, lang="en")),
                (t, RDFS.comment, Literal(self.comment, lang="en")), (t, EVO.directProperty, p))
        return out

    def describe(self):
        return f"add relation type {self.name!r}" + (f" <{self.iri}>" if self.iri else "")


@dataclass(frozen=True)
class AddSchemaField(Edit):
    """A new datatype property ``name`` on node family ``domain`` (an ``evo:`` class local name)."""

    name: str
    domain: str
    comment: str
    level: ClassVar[str] = "schema"
    op: ClassVar[str] = "add_schema_field"

    def compile(self, ctx):
        p = URIRef(f"{ctx.iris.base}schema/{slugify(self.name)}")
        out = Compiled()
        out.add("vocab", (p, RDF.type, OWL.DatatypeProperty), (p, RDFS.domain, EVO[self.domain]),
                (p, RDFS.range, XSD.string), (p, RDFS.label, Literal(self.name, lang="en")),
                (p, RDFS.comment, Literal(self.comment, lang="en")))
        return out

    def describe(self):
        return f"add field {self.name!r} to evo:{self.domain}"


#: Every edit type by its ``op`` name (used by the LLM evolver's JSON parser).
EDIT_TYPES: dict[str, type] = {cls.op: cls for cls in (
    AddSynonym, AddTerm, AddValueTerm, ModifyTerm, DeprecateTerm, AddMapping, AddEvidence, AddConstraint, AddRelation,
    SetToolSetting, SetFieldWeight, AddManifestNote, DeclareTool, AddRelationType, AddSchemaField)}
