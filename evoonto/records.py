"""Typed records of the Content layer and their RDF form (docs/architecture.md §3).

Content records: :class:`Term`, :class:`Mapping`, :class:`Constraint`, :class:`Evidence`,
:class:`ProbeActivity` and :class:`Relation` (paper: Content layer node families and semantic
relations). Catalog records (graph ``catalog``, W3C DCAT/CSVW): :class:`Source`, :class:`Table`,
:class:`Column`, :class:`Document` and :class:`Passage`. Each is a dataclass whose first field is its
IRI and converts both ways:

- ``record.to_triples() -> list[tuple]`` and ``record.to_graph(graph=None) -> rdflib.Graph``;
- ``Record.from_graph(graph, iri) -> Record`` (raises :class:`RecordError` when ``iri`` is not a node
  of that family in ``graph``).

Field <-> predicate correspondences (predicate, cardinality, datatype) are declared once per class in
``FIELDS``; the conversion code is shared, and :func:`evoonto.catalog.read_catalog` builds its one
SPARQL query and its records from the same declarations. A :class:`Relation` writes both its direct
navigation triple ``<source> p <target>`` and its qualified node (OWL annotation reification).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, Iterator

import pyoxigraph as ox
import rdflib
from rdflib import Literal, URIRef
from rdflib.namespace import DCAT, DCTERMS, OWL, PROV, RDF, RDFS, SH, SKOS, XSD

from evoonto.errors import EvoontoError
from evoonto.iris import distribution_of, table_schema_of
from evoonto.namespaces import CSVW, EVO, SSSOM, bind_prefixes
from evoonto.store import OxigraphStore, ox_named_node, to_ox


class RecordError(EvoontoError):
    """A record cannot be built from a graph (wrong family, missing required field, bad value)."""


@dataclass(frozen=True)
class _Field:
    attr: str
    predicate: URIRef
    kind: str  # iri | text | text_en | int | float | bool | datetime | json
    many: bool = False
    required: bool = False
    bulky: bool = False  # large text that catalog queries leave out (passage text)


#: How a profiled column Term's definition lists the column's values, at its end: ``…; values: a, b, c.``
#: (written by :mod:`evoonto.builder.propose` with :func:`definition_value_list`; read back with
#: :func:`definition_listed_values` by the documentation intake and by the browse index, which says
#: "values when built" once drift marked the column stale).
DEFINITION_VALUES_LEAD = "; values: "
#: The same list when the probe read a sample, not the whole table: ``…; values in a sample of 1000
#: rows: a, b.`` (the sample holds these; the table may hold others).
DEFINITION_SAMPLE_VALUES_LEAD = "; values in a sample of {rows} rows: "
#: How a table (entity) Term's definition names the table's key: ``A row of table t (N rows),
#: identified by t.a, t.b, named by …`` (:mod:`evoonto.builder.propose`; a compact line keeps it whole).
DEFINITION_KEY_LEAD = ", identified by "
#: How the definition of a table with no declared key names its foreign-key columns instead:
#: ``A row of table t (N rows), linked by t.a, t.b; …`` (a column that refers to another table does
#: not identify a row: the same order appears on many order lines).
DEFINITION_LINK_LEAD = ", linked by "
#: The value-list tail of a definition (group ``how``: "" or " in a sample of N rows"; group 1 and
#: ``values``: the listed values, see :func:`definition_listed_values`).
DEFINITION_VALUES_TAIL = re.compile(r"; values(?P<how>(?: in a sample of \d+ rows)?): (?P<values>[^\n]*)\.$")


def definition_value_list(values: Iterable[str]) -> str:
    """``"a, b, 'Berlin, Germany'"``: values joined by ", ", a value that holds a comma, starts with a
    quote or has outer spaces written as a quoted SQL literal (``''`` for a quote), so the list reads
    back the same with :func:`definition_listed_values`."""
    def one(value: str) -> str:
        if "," in value or value.startswith("'") or value != value.strip() or any(c in value for c in "\r\n"):
            return "'" + value.replace("'", "''") + "'"
        return value
    return ", ".join(one(v) for v in values)


def definition_listed_values(text: str) -> list[str]:
    """The values of a list written by :func:`definition_value_list` (``"a, 'b, c'"`` -> ``['a', 'b, c']``);
    a list it cannot read (a line break outside quotes, from another writer) is split at ``", "``."""
    import csv

    try:
        return [v for row in csv.reader([text], delimiter=",", quotechar="'", skipinitialspace=True) for v in row]
    except csv.Error:
        return text.split(", ")

#: Characters outside XML 1.0's ``Char`` production (C0 controls but tab/LF/CR, surrogates, U+FFFE/U+FFFF):
#: not valid in an ``xsd:string`` (HermiT refuses them, rapper truncates at U+0000).
_NOT_XML_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: What replaces such a character in a literal.
REPLACEMENT_CHARACTER = "\ufffd"


def xml_safe(text: str) -> tuple[str, int]:
    """``text`` with every character not allowed in XML 1.0 / ``xsd:string`` (U+0000, other C0
    controls but tab, LF and CR, lone surrogates, U+FFFE, U+FFFF) replaced by U+FFFD.

    Returns:
        ``(safe text, number of characters replaced)``.
    """
    return _NOT_XML_CHAR.subn(REPLACEMENT_CHARACTER, text)


def _literal(kind: str, value: Any, lang: str) -> rdflib.term.Node:
    """The rdflib term of a field value of ``kind`` (text kinds: made XML-safe, :func:`xml_safe`)."""
    if kind == "iri":
        return URIRef(str(value))
    if kind == "text_en":
        return Literal(xml_safe(str(value))[0], lang=lang)
    if kind == "text":
        return Literal(xml_safe(str(value))[0])
    if kind == "int":
        return Literal(int(value), datatype=XSD.integer)
    if kind == "float":
        return Literal(float(value), datatype=XSD.double)
    if kind == "bool":
        return Literal(bool(value), datatype=XSD.boolean)
    if kind == "datetime":
        if isinstance(value, str):
            return Literal(value, datatype=XSD.dateTime)
        return Literal(value.isoformat(), datatype=XSD.dateTime)
    if kind == "json":
        return Literal(value if isinstance(value, str) else json.dumps(value, sort_keys=False, ensure_ascii=False))
    raise AssertionError(kind)


_OX_INTEGER = ox.NamedNode(str(XSD.integer))
_OX_BOOLEAN = ox.NamedNode(str(XSD.boolean))


def _ox_literal(kind: str, value: Any, lang: str) -> Any:
    """The pyoxigraph term of a field value of ``kind``: the same term as :func:`_literal` gives,
    made without an rdflib term for the kinds whose lexical form is the value's text (IRIs, text,
    integers, booleans, JSON); ``float`` and ``datetime`` take rdflib's lexical form (converted)."""
    if kind == "iri":
        return ox_named_node(str(value))
    if kind == "text_en":
        return ox.Literal(xml_safe(str(value))[0], language=lang)
    if kind == "text":
        return ox.Literal(xml_safe(str(value))[0])
    if kind == "int":
        return ox.Literal(str(int(value)), datatype=_OX_INTEGER)
    if kind == "bool":
        return ox.Literal("true" if value else "false", datatype=_OX_BOOLEAN)
    if kind == "json":
        return ox.Literal(value if isinstance(value, str) else json.dumps(value, sort_keys=False, ensure_ascii=False))
    return _derived_ox_literal(kind, value, lang)


@functools.lru_cache(maxsize=100_000, typed=True)
def _derived_ox_literal(kind: str, value: Any, lang: str) -> Any:
    """:func:`_literal` converted to pyoxigraph, once per distinct value (a build stamps one time on
    every probe and Evidence)."""
    return to_ox(_literal(kind, value, lang))


@dataclass(frozen=True)
class _Terms:
    """How one RDF library spells the terms of the record walk (:meth:`_Record._walk`): ``iri(text)``,
    ``literal(kind, value, lang)`` for a field value, ``convert(term)`` for an rdflib term of a
    record's extra triples."""

    iri: Any
    literal: Any
    convert: Any


_RDFLIB_TERMS = _Terms(URIRef, _literal, lambda term: term)
_OX_TERMS = _Terms(ox_named_node, _ox_literal, to_ox)
_RDF_TYPE = str(RDF.type)
_REPLACED = str(EVO.replacedCharacters)


def _value(node: rdflib.term.Node) -> Any:
    """The Python value of a literal (``Literal.toPython``); the text of any other node."""
    return node.toPython() if isinstance(node, Literal) else str(node)


def boolean_text(text: str) -> bool:
    """Whether the lexical form ``text`` of a boolean reads as true: ``true`` or ``1``, any case and
    surrounding space (``xsd:boolean``'s true forms); anything else, ``"false"`` included, is false."""
    return text.strip().lower() in ("true", "1")


def _python(kind: str, node: rdflib.term.Node) -> Any:
    if kind == "iri":
        return node
    if kind in ("text", "text_en"):
        return str(node)
    if kind == "int":
        return int(node.toPython()) if isinstance(node, Literal) else int(str(node))
    if kind == "float":
        return float(node.toPython()) if isinstance(node, Literal) else float(str(node))
    if kind == "bool":
        value = _value(node)  # an untyped (or ill-typed) "false" or "0" is text: false, not a non-empty string
        return boolean_text(value) if isinstance(value, str) else bool(value)
    if kind == "datetime":
        value = _value(node)
        return value if isinstance(value, _dt.datetime) else str(node)
    if kind == "json":
        try:
            return json.loads(str(node))
        except ValueError:
            return str(node)
    raise AssertionError(kind)


def _local_name(value: Any, namespace) -> str:
    """``value`` as text, without the ``namespace`` prefix when it starts with it (``evo:Metric`` -> ``Metric``)."""
    text = str(value)
    return text[len(str(namespace)):] if text.startswith(str(namespace)) else text


def _evo_iri(name: Any) -> URIRef:
    """A class name of the evo: vocabulary (``"Metric"``) or a full IRI (from a schema patch), as an IRI."""
    text = str(name)
    return URIRef(text) if ":" in text else URIRef(str(EVO) + text)


class _Record:
    """Shared RDF conversion of the record dataclasses (not public)."""

    RDF_TYPE: ClassVar[URIRef]
    FIELDS: ClassVar[tuple[_Field, ...]]
    iri: URIRef
    #: language of the text literals; a record class without a ``lang`` field writes English
    lang: str = "en"

    def _extra_types(self) -> list[URIRef]:
        return []

    def _extra_triples(self) -> list[tuple]:
        return []

    def _walk(self, terms: _Terms) -> list[tuple]:
        """The record's triples with terms made by ``terms``: the one field walk behind
        :meth:`to_triples` (rdflib) and :meth:`to_ox_triples` (pyoxigraph)."""
        iri = terms.iri
        subject = iri(str(self.iri))
        rdf_type = iri(_RDF_TYPE)
        lang = self.lang
        triples: list[tuple] = [(subject, rdf_type, iri(str(self.RDF_TYPE)))]
        triples += [(subject, rdf_type, iri(str(t))) for t in self._extra_types()]
        replaced = 0
        for spec in self.FIELDS:
            value = getattr(self, spec.attr)
            values = value if spec.many else ([] if value is None else [value])
            if not values:
                continue
            predicate = iri(str(spec.predicate))
            for v in values:
                if spec.kind in ("text", "text_en"):
                    replaced += xml_safe(str(v))[1]
                triples.append((subject, predicate, terms.literal(spec.kind, v, lang)))
        if replaced:  # source data held characters RDF/XML tools refuse: sanitized, and recorded here
            triples.append((subject, iri(_REPLACED), terms.literal("int", replaced, lang)))
        convert = terms.convert
        return triples + [(convert(s), convert(p), convert(o)) for s, p, o in self._extra_triples()]

    def to_triples(self) -> list[tuple]:
        """The record as RDF triples ``(subject, predicate, object)`` (rdflib terms), no blank nodes."""
        return self._walk(_RDFLIB_TERMS)

    def to_ox_triples(self) -> list[tuple]:
        """The triples of :meth:`to_triples` as pyoxigraph terms, made directly (no rdflib term in
        between): what the builder writes into its Oxigraph store."""
        return self._walk(_OX_TERMS)

    def to_graph(self, graph: rdflib.Graph | None = None) -> rdflib.Graph:
        """Add :meth:`to_triples` to ``graph`` (a new prefixed Graph when None) and return it."""
        graph = bind_prefixes(rdflib.Graph()) if graph is None else graph
        for triple in self.to_triples():
            graph.add(triple)
        return graph

    @classmethod
    def _kwargs_from_graph(cls, graph: rdflib.Graph, iri) -> dict[str, Any]:
        subject = URIRef(str(iri))
        if (subject, RDF.type, cls.RDF_TYPE) not in graph:
            raise RecordError(f"<{subject}> is not an {cls.RDF_TYPE.n3(graph.namespace_manager)} in the given graph")
        kwargs: dict[str, Any] = {"iri": subject}
        for spec in cls.FIELDS:
            nodes = sorted(graph.objects(subject, spec.predicate), key=str)
            if spec.many:
                kwargs[spec.attr] = [_python(spec.kind, n) for n in nodes]
            elif nodes:
                if spec.kind == "text_en":
                    nodes.sort(key=lambda n: (isinstance(n, Literal) and n.language not in ("en", None), str(n)))
                kwargs[spec.attr] = _python(spec.kind, nodes[0])
            elif spec.required:
                raise RecordError(f"<{subject}> has no {spec.predicate.n3(graph.namespace_manager)} (required)")
        return kwargs

    @classmethod
    def from_graph(cls, graph: rdflib.Graph, iri):
        """Read the record with IRI ``iri`` from ``graph``.

        Raises:
            RecordError: ``iri`` is not typed with this record's class, or a required field is missing.
        """
        return cls(**cls._kwargs_from_graph(graph, iri))


def _f(attr, predicate, kind, many=False, required=False, bulky=False) -> _Field:
    return _Field(attr, predicate, kind, many, required, bulky)


#: The trailing fields of Term, Mapping, Constraint and Relation: evidence, then lifecycle.
_PROVENANCE = (
    _f("evidence", PROV.wasDerivedFrom, "iri", many=True),
    _f("deprecated", OWL.deprecated, "bool"),
    _f("replaced_by", DCTERMS.isReplacedBy, "iri"),
)

#: Kinds of Term (subclasses of evo:Term in the packaged vocabulary).
TERM_KINDS = ("Entity", "Identifier", "Metric", "Dimension", "Category", "TimeDimension")


@dataclass
class Term(_Record):
    """A business concept (``evo:Term ⊑ skos:Concept``; ``to_triples`` asserts ``a skos:Concept`` too).

    Attributes:
        iri: the Term's IRI (``IriFactory.term``).
        label: ``skos:prefLabel`` (language ``lang``).
        kinds: kind class names (``"Metric"``, ``"Dimension"``, …) or IRIs, added as ``rdf:type``.
        alt_labels: synonyms (``skos:altLabel``); hidden_labels: raw column names, misspellings.
        definition, scope_note: ``skos:definition`` / ``skos:scopeNote``.
        scheme: the ``skos:ConceptScheme`` IRI; mappings: ``evo:hasMapping`` IRIs;
        evidence: ``prov:wasDerivedFrom`` IRIs; deprecated / replaced_by: lifecycle.
    """

    iri: URIRef
    label: str
    kinds: list = field(default_factory=list)
    alt_labels: list[str] = field(default_factory=list)
    hidden_labels: list[str] = field(default_factory=list)
    definition: str | None = None
    scope_note: str | None = None
    scheme: URIRef | None = None
    mappings: list[URIRef] = field(default_factory=list)
    evidence: list[URIRef] = field(default_factory=list)
    deprecated: bool | None = None
    replaced_by: URIRef | None = None
    lang: str = "en"

    RDF_TYPE: ClassVar[URIRef] = EVO.Term
    FIELDS: ClassVar[tuple[_Field, ...]] = (
        _f("label", SKOS.prefLabel, "text_en", required=True),
        _f("alt_labels", SKOS.altLabel, "text_en", many=True),
        _f("hidden_labels", SKOS.hiddenLabel, "text", many=True),
        _f("definition", SKOS.definition, "text_en"),
        _f("scope_note", SKOS.scopeNote, "text_en"),
        _f("scheme", SKOS.inScheme, "iri"),
        _f("mappings", EVO.hasMapping, "iri", many=True),
    ) + _PROVENANCE

    def _extra_types(self) -> list[URIRef]:
        # skos:Concept asserted, not only inferred from evo:Term ⊑ skos:Concept: SKOS tools (Skosmos,
        # `SELECT ?t { ?t a skos:Concept }`) do no RDFS inference
        return [SKOS.Concept] + [_evo_iri(kind) for kind in self.kinds]  # kinds may come from a schema patch

    @classmethod
    def from_graph(cls, graph: rdflib.Graph, iri) -> "Term":
        kwargs = cls._kwargs_from_graph(graph, iri)
        kwargs["kinds"] = sorted(_local_name(t, EVO) for t in graph.objects(kwargs["iri"], RDF.type)
                                 if t not in (EVO.Term, SKOS.Concept))
        return cls(**kwargs)


@dataclass
class Mapping(_Record):
    """Where a Term lives (``evo:Mapping ⊑ prov:Entity``).

    Attributes:
        iri: ``IriFactory.mapping``; term: the Term IRI (``evo:mapsTerm``; ``to_triples`` also writes
        the inverse ``<term> evo:hasMapping <mapping>``); source/table/column: catalog node IRIs;
        filter: SQL predicate; aggregation: SUM | AVG | COUNT | COUNT DISTINCT | MIN | MAX | NONE;
        grain, join_path: text; confidence: ``sssom:confidence`` in [0, 1]; evidence: IRIs;
        expression: an SQL expression computing the Term (``evo:expression``, e.g. a metric's
        ``SUM(InvoiceLine.UnitPrice * InvoiceLine.Quantity)`` mined from verified queries).
    """

    iri: URIRef
    term: URIRef
    source: URIRef
    table: URIRef
    column: URIRef | None = None
    filter: str | None = None
    aggregation: str | None = None
    grain: str | None = None
    join_path: str | None = None
    confidence: float | None = None
    evidence: list[URIRef] = field(default_factory=list)
    deprecated: bool | None = None
    replaced_by: URIRef | None = None
    expression: str | None = None

    RDF_TYPE: ClassVar[URIRef] = EVO.Mapping
    FIELDS: ClassVar[tuple[_Field, ...]] = (
        _f("term", EVO.mapsTerm, "iri", required=True),
        _f("source", EVO.source, "iri", required=True),
        _f("table", EVO.table, "iri", required=True),
        _f("column", EVO.column, "iri"),
        _f("filter", EVO.filter, "text"),
        _f("aggregation", EVO.aggregation, "text"),
        _f("grain", EVO.grain, "text"),
        _f("join_path", EVO.joinPath, "text"),
        _f("confidence", SSSOM.confidence, "float"),
        _f("expression", EVO.expression, "text"),
    ) + _PROVENANCE

    def _extra_triples(self) -> list[tuple]:
        return [(URIRef(str(self.term)), EVO.hasMapping, URIRef(str(self.iri)))]


#: Constraint severities (SHACL severities, W3C SHACL §2.1.4).
SEVERITIES = {"Violation": SH.Violation, "Warning": SH.Warning, "Info": SH.Info}


@dataclass
class Constraint(_Record):
    """How to use a Term/Mapping/Relation correctly (``evo:Constraint``).

    Attributes:
        iri: ``IriFactory.constraint``; constrains: target IRIs (Term, Mapping or Relation);
        condition: executable SQL predicate or equation; trigger_keywords: question words;
        severity: ``"Violation" | "Warning" | "Info"`` (stored as ``sh:Violation`` …);
        comment: prose (``rdfs:comment``); evidence: IRIs.
    """

    iri: URIRef
    constrains: list[URIRef] = field(default_factory=list)
    condition: str | None = None
    trigger_keywords: list[str] = field(default_factory=list)
    severity: str = "Warning"
    comment: str | None = None
    evidence: list[URIRef] = field(default_factory=list)
    deprecated: bool | None = None
    replaced_by: URIRef | None = None
    lang: str = "en"

    RDF_TYPE: ClassVar[URIRef] = EVO.Constraint
    FIELDS: ClassVar[tuple[_Field, ...]] = (
        _f("constrains", EVO.constrains, "iri", many=True),
        _f("condition", EVO.condition, "text"),
        _f("trigger_keywords", EVO.triggerKeyword, "text", many=True),
        _f("comment", RDFS.comment, "text_en"),
    ) + _PROVENANCE

    def __post_init__(self) -> None:
        sev = _local_name(self.severity, SH)
        if sev not in SEVERITIES:
            raise RecordError(f"constraint severity must be one of {', '.join(SEVERITIES)}, got {self.severity!r}")
        self.severity = sev

    def _extra_triples(self) -> list[tuple]:
        return [(URIRef(str(self.iri)), EVO.severity, SEVERITIES[self.severity])]

    @classmethod
    def from_graph(cls, graph: rdflib.Graph, iri) -> "Constraint":
        kwargs = cls._kwargs_from_graph(graph, iri)
        sev = graph.value(kwargs["iri"], EVO.severity)
        if sev is not None:
            kwargs["severity"] = str(sev)
        return cls(**kwargs)


@dataclass
class Evidence(_Record):
    """A probe observation (``evo:Evidence ⊑ prov:Entity``), generated by a :class:`ProbeActivity`.

    Attributes:
        iri: ``IriFactory.evidence(stable_key(query))``; probe: the probe IRI (``prov:wasGeneratedBy``);
        generated_at: ``prov:generatedAtTime`` (datetime, timezone-aware preferred); summary: one line;
        rows_observed, distinct_count: integers; null_fraction: in [0, 1]; min_value, max_value: text;
        sample_values: observed values; value_distribution: ``{value: count}`` (stored as JSON);
        value_pattern: e.g. ``"date"``.
        sampling_method: how the probe read its table (``"whole table"``, ``"tablesample system"``,
            ``"rowid stride"``, ``"first rows"``, …; ``evo:samplingMethod``); table_rows: the table's
            row count when the probe ran (``evo:tableRows``); whole_table: ``True`` when every row
            was read (``evo:wholeTable``: only then are the distinct count, bounds and vocabulary
            facts of the table; see :func:`describes_whole_table`); value_digest: digest of every
            value and its count, or of a query's whole result (``evo:valueDigest``, for drift).
        refutes_join: the join condition (quoted SQL) of a name-suggested join candidate whose inclusion
            probe matched none of the values it read (``evo:refutesJoin``; see
            :class:`evoonto.sources.joins.JoinDiscovery`).
    """

    iri: URIRef
    probe: URIRef | None = None
    generated_at: _dt.datetime | str | None = None
    summary: str | None = None
    rows_observed: int | None = None
    null_fraction: float | None = None
    distinct_count: int | None = None
    min_value: str | None = None
    max_value: str | None = None
    sample_values: list[str] = field(default_factory=list)
    value_distribution: dict | None = None
    value_pattern: str | None = None
    sampling_method: str | None = None
    table_rows: int | None = None
    whole_table: bool | None = None
    value_digest: str | None = None
    refutes_join: str | None = None

    RDF_TYPE: ClassVar[URIRef] = EVO.Evidence
    FIELDS: ClassVar[tuple[_Field, ...]] = (
        _f("probe", PROV.wasGeneratedBy, "iri"),
        _f("generated_at", PROV.generatedAtTime, "datetime"),
        _f("summary", EVO.summary, "text"),
        _f("rows_observed", EVO.rowsObserved, "int"),
        _f("null_fraction", EVO.nullFraction, "float"),
        _f("distinct_count", EVO.distinctCount, "int"),
        _f("min_value", EVO.minValue, "text"),
        _f("max_value", EVO.maxValue, "text"),
        _f("sample_values", EVO.sampleValue, "text", many=True),
        _f("value_distribution", EVO.valueDistribution, "json"),
        _f("value_pattern", EVO.valuePattern, "text"),
        _f("sampling_method", EVO.samplingMethod, "text"),
        _f("table_rows", EVO.tableRows, "int"),
        _f("whole_table", EVO.wholeTable, "bool"),
        _f("value_digest", EVO.valueDigest, "text"),
        _f("refutes_join", EVO.refutesJoin, "text"),
    )


def describes_whole_table(evidence: Any, graph: Any = None) -> bool:
    """Whether an Evidence describes its whole table (``evo:wholeTable true``).

    Only such Evidence may be read as facts of the table: its distinct count, minimum..maximum and
    sample values as the whole vocabulary. Evidence of a sample (``evo:wholeTable false``, with
    ``evo:samplingMethod`` and ``evo:rowsObserved`` of ``evo:tableRows``) tells only what the sample
    held: a value it lists occurs in the table, a value it lacks may still occur, and the table's
    bounds may lie beyond its minimum and maximum. Evidence without the flag (other probe kinds,
    workspaces built before it was recorded) is not taken as whole-table.

    Args:
        evidence: an :class:`Evidence` record, or an Evidence IRI (``URIRef`` or text) read from ``graph``.
        graph: the graph holding the Evidence (an rdflib graph, e.g. the Content graph, or anything
            with ``value(subject, predicate)``); needed when ``evidence`` is an IRI.

    Returns:
        True only for ``evo:wholeTable true``.

    Raises:
        ValueError: ``evidence`` is an IRI and no ``graph`` was given.
    """
    if isinstance(evidence, Evidence):
        return evidence.whole_table is True
    if graph is None:
        raise ValueError("describes_whole_table needs the graph that holds the Evidence IRI")
    value = graph.value(URIRef(str(evidence)), EVO.wholeTable)
    return value is not None and value.toPython() is True


@dataclass
class ProbeActivity(_Record):
    """A read-only query run against a source (``evo:Probe ⊑ prov:Activity``).

    Attributes:
        iri: ``IriFactory.probe(key)``; query: the query text; used: source IRI (``prov:used``);
        started_at / ended_at: ``prov:startedAtTime`` / ``prov:endedAtTime``.
    """

    iri: URIRef
    query: str
    used: URIRef | None = None
    started_at: _dt.datetime | str | None = None
    ended_at: _dt.datetime | str | None = None

    RDF_TYPE: ClassVar[URIRef] = EVO.Probe
    FIELDS: ClassVar[tuple[_Field, ...]] = (
        _f("query", EVO.query, "text", required=True),
        _f("used", PROV.used, "iri"),
        _f("started_at", PROV.startedAtTime, "datetime"),
        _f("ended_at", PROV.endedAtTime, "datetime"),
    )


@dataclass
class VerifiedQuery(_Record):
    """A question and the SQL a person vouches for (``evo:VerifiedQuery ⊑ prov:Entity``).

    Attributes:
        iri: ``B verified/{src}/{id}``; question: the question text; sql: the SQL (source dialect);
        identifier: the id given in the verified-query file (``dcterms:identifier``);
        source: the source IRI (``evo:source``); verified_by: the agent IRI
        (``prov:wasAttributedTo``; ``verifier`` is its ``rdfs:label``, written on the agent node
        typed ``prov:Agent``); verified_at: ``prov:generatedAtTime``; exercises: IRIs of the Terms,
        Mappings and Relations the SQL uses (``evo:exercises``); joins_used: join conditions it
        writes (``evo:joinUsed``); evidence: the Evidence of its execution probe; deprecated.
    """

    iri: URIRef
    question: str
    sql: str
    identifier: str | None = None
    source: URIRef | None = None
    verified_by: URIRef | None = None
    verifier: str | None = None
    verified_at: _dt.datetime | str | None = None
    exercises: list[URIRef] = field(default_factory=list)
    joins_used: list[str] = field(default_factory=list)
    evidence: list[URIRef] = field(default_factory=list)
    deprecated: bool | None = None

    RDF_TYPE: ClassVar[URIRef] = EVO.VerifiedQuery
    FIELDS: ClassVar[tuple[_Field, ...]] = (
        _f("question", EVO.question, "text", required=True),
        _f("sql", EVO.sql, "text", required=True),
        _f("identifier", DCTERMS.identifier, "text"),
        _f("source", EVO.source, "iri"),
        _f("verified_by", PROV.wasAttributedTo, "iri"),
        _f("verified_at", PROV.generatedAtTime, "datetime"),
        _f("exercises", EVO.exercises, "iri", many=True),
        _f("joins_used", EVO.joinUsed, "text", many=True),
        _f("evidence", PROV.wasDerivedFrom, "iri", many=True),
        _f("deprecated", OWL.deprecated, "bool"),
    )

    def _extra_triples(self) -> list[tuple]:
        if self.verified_by is None:
            return []
        agent = URIRef(str(self.verified_by))
        out: list[tuple] = [(agent, RDF.type, PROV.Agent)]
        if self.verifier:
            out.append((agent, RDFS.label, Literal(self.verifier)))
        return out

    @classmethod
    def from_graph(cls, graph: rdflib.Graph, iri) -> "VerifiedQuery":
        kwargs = cls._kwargs_from_graph(graph, iri)
        agent = kwargs.get("verified_by")
        label = graph.value(agent, RDFS.label) if agent is not None else None
        if label is not None:
            kwargs["verifier"] = str(label)
        return cls(**kwargs)


#: Direct (navigation) property of each built-in relation type. Custom types added by a schema patch
#: declare theirs with ``evo:directProperty`` in the vocab graph; pass ``direct_property`` for them.
DIRECT_PROPERTIES: dict[str, URIRef] = {
    "Derivation": EVO.derivedFrom,
    "Association": SKOS.related,
    "Hierarchy": SKOS.broader,
    "Composition": EVO.partOf,
    "Equivalence": SKOS.exactMatch,
}


def direct_properties(vocab: rdflib.Graph) -> dict[URIRef, URIRef]:
    """``{relation type IRI: direct property IRI}`` as declared in a vocab graph (admissible types)."""
    return {
        URIRef(str(t)): URIRef(str(p))
        for t in vocab.subjects(RDF.type, EVO.RelationType)
        for p in vocab.objects(t, EVO.directProperty)
    }


@dataclass
class Relation(_Record):
    """A semantic relation between two Terms: direct triple + qualified node.

    Attributes:
        iri: the qualified node (``IriFactory.relation(type, source, target)``);
        type: ``"Derivation" | "Association" | "Hierarchy" | "Composition" | "Equivalence"`` or the IRI
        of a relation type declared in the vocab; source, target: Term IRIs;
        direct_property: defaults to the built-in type's property (:data:`DIRECT_PROPERTIES`);
        join_condition, formula: text; evidence: IRIs; deprecated / replaced_by: lifecycle.

    Raises:
        RecordError: an unknown type without ``direct_property``.
    """

    iri: URIRef
    type: Any
    source: URIRef
    target: URIRef
    direct_property: URIRef | None = None
    join_condition: str | None = None
    formula: str | None = None
    evidence: list[URIRef] = field(default_factory=list)
    deprecated: bool | None = None
    replaced_by: URIRef | None = None

    RDF_TYPE: ClassVar[URIRef] = EVO.Relation
    FIELDS: ClassVar[tuple[_Field, ...]] = (
        _f("source", OWL.annotatedSource, "iri", required=True),
        _f("target", OWL.annotatedTarget, "iri", required=True),
        _f("direct_property", OWL.annotatedProperty, "iri", required=True),
        _f("join_condition", EVO.joinCondition, "text"),
        _f("formula", EVO.formula, "text"),
    ) + _PROVENANCE

    def __post_init__(self) -> None:
        text = _local_name(self.type, EVO)
        if ":" not in text:
            self.type = text
        if self.direct_property is None:
            if text not in DIRECT_PROPERTIES:
                raise RecordError(f"relation type {self.type!r} is not built in; pass direct_property")
            self.direct_property = DIRECT_PROPERTIES[text]

    @property
    def type_iri(self) -> URIRef:
        """The relation type as an IRI (``evo:Derivation`` …)."""
        return _evo_iri(self.type)  # types may come from a schema patch

    def direct_triple(self) -> tuple:
        """The navigation triple ``(source, direct_property, target)``."""
        return (URIRef(str(self.source)), URIRef(str(self.direct_property)), URIRef(str(self.target)))

    def _extra_types(self) -> list[URIRef]:
        # OWL 2 annotation reification: the node carrying owl:annotatedSource/Property/Target is an
        # owl:Axiom (OWL 2 Mapping to RDF, table 16); without the type OWLAPI drops the node's triples
        return [OWL.Axiom]

    def _extra_triples(self) -> list[tuple]:
        return [(URIRef(str(self.iri)), EVO.relationType, self.type_iri), self.direct_triple()]

    @classmethod
    def from_graph(cls, graph: rdflib.Graph, iri) -> "Relation":
        kwargs = cls._kwargs_from_graph(graph, iri)
        rel_type = graph.value(kwargs["iri"], EVO.relationType)
        if rel_type is None:
            raise RecordError(f"<{kwargs['iri']}> has no evo:relationType (required)")
        kwargs["type"] = rel_type
        return cls(**kwargs)


#: Record class of each content family, by its rdf:type.
RECORD_TYPES: dict[URIRef, type[_Record]] = {
    cls.RDF_TYPE: cls for cls in (Term, Mapping, Constraint, Evidence, ProbeActivity, Relation, VerifiedQuery)
}


# --- catalog records (graph ``catalog``; docs/architecture.md §3) ---------------------------------


def distribution_triples(source: URIRef, identifier: str, kind: str) -> list[tuple]:
    """DCAT for a source: ``<source> dcat:distribution <source/distribution>``, the distribution typed
    ``dcat:Distribution`` with a title and ``dcterms:format`` (the source kind). No access URL: a
    connection URL may hold credentials; the workspace settings say where the source is."""
    dist = distribution_of(source)
    return [(source, DCAT.distribution, dist), (dist, RDF.type, DCAT.Distribution),
            (dist, DCTERMS.title, Literal(f"{identifier} ({kind})")), (dist, DCTERMS["format"], Literal(kind))]


def table_schema_triples(table: URIRef) -> list[tuple]:
    """CSVW for a table: ``<table> csvw:tableSchema <table/schema>``, ``<table/schema> a csvw:Schema``
    (each column adds ``<table/schema> csvw:column <column>``)."""
    schema = table_schema_of(table)
    return [(table, CSVW.tableSchema, schema), (schema, RDF.type, CSVW.Schema)]


@dataclass
class Source(_Record):
    """A data source (``dcat:Dataset``).

    Attributes:
        iri: ``IriFactory.source(id)``; identifier: ``dcterms:identifier`` (the source id);
        title: ``dcterms:title``; kind: ``evo:sourceKind`` (sqlite | sqlalchemy | files | documents).
    """

    iri: URIRef
    identifier: str | None = None
    title: str | None = None
    kind: str | None = None

    RDF_TYPE: ClassVar[URIRef] = DCAT.Dataset
    FIELDS: ClassVar[tuple[_Field, ...]] = (
        _f("identifier", DCTERMS.identifier, "text"),
        _f("title", DCTERMS.title, "text"),
        _f("kind", EVO.sourceKind, "text"),
    )

    def _extra_triples(self) -> list[tuple]:
        if self.identifier is None or self.kind is None:
            return []
        return distribution_triples(URIRef(str(self.iri)), self.identifier, self.kind)


@dataclass
class Table(_Record):
    """A table (or view, or file) of a source (``csvw:Table``).

    Attributes:
        iri: ``IriFactory.table(source, name)``; name: ``dcterms:title``, the name as in the source
        (not ``csvw:name``: CSVW gives that property the domain ``csvw:Column``, so RDFS inference
        would make every table a column; a table written with ``csvw:name`` by an older evoonto reads
        its name from its IRI);
        source: the Source IRI (``dcterms:isPartOf``); row_count: ``evo:rowCount`` or None;
        is_view: ``evo:isView`` (None when not stated: a base table); reads: Table IRIs a view reads
        (``evo:readsTable``).
    """

    iri: URIRef
    name: str
    source: URIRef
    row_count: int | None = None
    is_view: bool | None = None
    reads: list[URIRef] = field(default_factory=list)

    RDF_TYPE: ClassVar[URIRef] = CSVW.Table
    FIELDS: ClassVar[tuple[_Field, ...]] = (
        _f("name", DCTERMS.title, "text", required=True),
        _f("source", DCTERMS.isPartOf, "iri", required=True),
        _f("row_count", EVO.rowCount, "int"),
        _f("is_view", EVO.isView, "bool"),
        _f("reads", EVO.readsTable, "iri", many=True),
    )

    def _extra_triples(self) -> list[tuple]:
        return table_schema_triples(URIRef(str(self.iri)))


@dataclass
class Column(_Record):
    """A column of a table (``csvw:Column``).

    Attributes:
        iri: ``IriFactory.column(source, table, name)``; name: ``csvw:name`` as in the source;
        table: the Table IRI (``dcterms:isPartOf``); declared_type: ``evo:declaredType`` as declared
        (None when undeclared); primary_key: ``evo:primaryKey``; ordinal: ``evo:ordinal`` (0-based);
        references: Column IRIs this column points at (``evo:references``, declared or discovered keys);
        view_of: for a view column, the column it passes through unchanged (``evo:viewColumnOf``).
    """

    iri: URIRef
    name: str
    table: URIRef
    declared_type: str | None = None
    primary_key: bool | None = None
    ordinal: int | None = None
    references: list[URIRef] = field(default_factory=list)
    view_of: URIRef | None = None

    RDF_TYPE: ClassVar[URIRef] = CSVW.Column
    FIELDS: ClassVar[tuple[_Field, ...]] = (
        _f("name", CSVW.name, "text", required=True),
        _f("table", DCTERMS.isPartOf, "iri", required=True),
        _f("declared_type", EVO.declaredType, "text"),
        _f("primary_key", EVO.primaryKey, "bool"),
        _f("ordinal", EVO.ordinal, "int"),
        _f("references", EVO.references, "iri", many=True),
        _f("view_of", EVO.viewColumnOf, "iri"),
    )

    def _extra_triples(self) -> list[tuple]:
        return [(table_schema_of(self.table), CSVW.column, URIRef(str(self.iri)))]


@dataclass
class ForeignKeyDefinition(_Record):
    """A declared foreign key of a table (``csvw:ForeignKey``, linked from the table's ``csvw:Schema``
    by ``csvw:foreignKey``): which columns of the table form one key together. Each column's own
    ``evo:references`` names the column it points at; this record keeps a composite key whole where
    the references alone cannot (a table with two composite keys into the same table, such as an
    origin and a destination each keyed by code and country).

    Attributes:
        iri: ``IriFactory.foreign_key(source, table, referenced table, columns)``; table: the
        referencing Table IRI (``evo:foreignKeyOf``; not ``dcterms:isPartOf``, which names a table's
        columns); referenced_table: the Table IRI the key points
        at (``evo:referencedTable``); columns: the key's Column IRIs (``evo:keyColumn``, one or more);
        invalidated_at: when a drift check found the source no longer declares the key
        (``prov:invalidatedAtTime``, written by the drift patch), else None.
    """

    iri: URIRef
    table: URIRef
    referenced_table: URIRef
    columns: list[URIRef] = field(default_factory=list)
    invalidated_at: _dt.datetime | None = None

    RDF_TYPE: ClassVar[URIRef] = CSVW.ForeignKey
    FIELDS: ClassVar[tuple[_Field, ...]] = (
        _f("table", EVO.foreignKeyOf, "iri", required=True),
        _f("referenced_table", EVO.referencedTable, "iri", required=True),
        _f("columns", EVO.keyColumn, "iri", many=True, required=True),
        _f("invalidated_at", PROV.invalidatedAtTime, "datetime"),
    )

    def _extra_triples(self) -> list[tuple]:
        return [(table_schema_of(self.table), CSVW.foreignKey, URIRef(str(self.iri)))]


@dataclass
class Document(_Record):
    """A document of a documents source (``evo:Document``): ``source`` (``dcterms:isPartOf``), ``title``."""

    iri: URIRef
    source: URIRef
    title: str | None = None

    RDF_TYPE: ClassVar[URIRef] = EVO.Document
    FIELDS: ClassVar[tuple[_Field, ...]] = (
        _f("source", DCTERMS.isPartOf, "iri", required=True),
        _f("title", DCTERMS.title, "text"),
    )


@dataclass
class Passage(_Record):
    """A passage of a document (``evo:Passage``): ``document`` (``dcterms:isPartOf``), ``title`` (the
    heading path, ``dcterms:title``) and ``text`` (``evo:text``; left out by catalog queries)."""

    iri: URIRef
    document: URIRef
    title: str | None = None
    text: str | None = None

    RDF_TYPE: ClassVar[URIRef] = EVO.Passage
    FIELDS: ClassVar[tuple[_Field, ...]] = (
        _f("document", DCTERMS.isPartOf, "iri", required=True),
        _f("title", DCTERMS.title, "text"),
        _f("text", EVO.text, "text", bulky=True),
    )


#: Record class of each catalog node type, by its rdf:type (sources, tables, columns, documents, passages).
CATALOG_RECORD_TYPES: dict[URIRef, type[_Record]] = {
    cls.RDF_TYPE: cls for cls in (Source, Table, Column, ForeignKeyDefinition, Document, Passage)
}


def records_to_graph(records: Iterable[_Record], graph: rdflib.Graph | None = None) -> rdflib.Graph:
    """Add the triples of every record to ``graph`` (a new prefixed Graph when None); return it."""
    graph = bind_prefixes(rdflib.Graph()) if graph is None else graph
    for record in records:
        record.to_graph(graph)
    return graph


def records_to_store(records: Iterable[_Record], store: OxigraphStore, name: str) -> int:
    """Add the triples of every record to graph ``name`` of ``store`` (pyoxigraph terms made by
    :meth:`~_Record.to_ox_triples`, one transaction, no rdflib graph in between).

    Returns:
        The number of triples given (a triple already in the graph counts too).

    The triples are made record by record as the store reads them, so no list of every triple's
    Python objects is held (on a 10,000-column build that list alone was about 480 MiB).
    """
    count = 0

    def triples() -> Iterator[tuple]:
        nonlocal count
        for record in records:
            made = record.to_ox_triples()
            count += len(made)
            yield from made

    store.add_ox(triples(), name)
    return count


def replace(record, **changes):
    """A copy of ``record`` with ``changes`` applied (``dataclasses.replace``)."""
    return dataclasses.replace(record, **changes)


__all__ = [
    "Term", "Mapping", "Constraint", "Evidence", "describes_whole_table", "ProbeActivity", "Relation",
    "VerifiedQuery", "RecordError",
    "Source", "Table", "Column", "ForeignKeyDefinition", "Document", "Passage", "CATALOG_RECORD_TYPES",
    "TERM_KINDS", "SEVERITIES", "DIRECT_PROPERTIES", "RECORD_TYPES", "direct_properties",
    "records_to_graph", "records_to_store", "replace", "definition_value_list", "definition_listed_values",
]
