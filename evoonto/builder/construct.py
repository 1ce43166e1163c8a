"""Construction: verified candidates → Content-layer records (paper §3.1, "construct").

Instantiates, per docs/architecture.md §3: Terms (SKOS labels, kind classes, ``skos:inScheme``),
Mappings (table, column, filter, aggregation, grain, join path, ``sssom:confidence``), Evidence with
its ``evo:Probe`` activity (PROV-O; value distributions and complete low-cardinality value
vocabularies as ``evo:sampleValue``), Constraints, and Relations (direct triple + qualified node):
joins as ``evo:Association`` with ``evo:joinCondition``, columns as ``evo:Composition`` parts of
their table's Entity, computed columns as ``evo:Derivation`` with ``evo:formula``. Every Term,
Mapping, Constraint and Relation points at the Evidence that backs it (``prov:wasDerivedFrom``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from rdflib import Graph, Literal, URIRef
import re

from rdflib.namespace import DCTERMS, PROV, RDF, SKOS

from evoonto.builder.labels import LabelSet, column_labels, normalize, singularize, split_identifier
from evoonto.builder.probe import ColumnProfile, ProbeResult
from evoonto.builder.propose import TermCandidate, term_slug
from evoonto.builder.verify import Rejection, Verified, VerifiedTerm
from evoonto.catalog import SourceSchema, TableInfo
from evoonto.iris import IriFactory
from evoonto.namespaces import EVO, bind_prefixes
from evoonto.patch import NOT_TOP_CONCEPT, top_concept_triples
from evoonto.records import (
    Constraint, Evidence, Mapping, ProbeActivity, Relation, Term, records_to_graph, records_to_store,
)
from evoonto.store import OxigraphStore
from evoonto.sources.quoting import dialect_of_kind, quote_identifier, quote_literal

__all__ = ["Construction", "construct", "scheme_triples", "ground_in_documents", "distinct_pref_labels"]



@dataclass
class Construction:
    """The records built for one source, and their counts by family."""

    terms: list[Term] = field(default_factory=list)
    mappings: list[Mapping] = field(default_factory=list)
    evidence: dict[URIRef, Evidence] = field(default_factory=dict)
    probes: dict[URIRef, ProbeActivity] = field(default_factory=dict)
    constraints: list[Constraint] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    #: candidates left out because they would mint an IRI another record already holds with
    #: different single-valued fields (the first one, in the stable candidate order, is kept)
    rejected: list[Rejection] = field(default_factory=list)

    def records(self) -> list:
        """Every record, in a stable order."""
        return [*self.terms, *self.mappings, *(self.evidence[k] for k in sorted(self.evidence)),
                *(self.probes[k] for k in sorted(self.probes)), *self.constraints, *self.relations]

    def counts(self) -> dict[str, int]:
        """``{"terms", "mappings", "evidence", "probes", "constraints", "relations"}`` → count."""
        return {"terms": len(self.terms), "mappings": len(self.mappings), "evidence": len(self.evidence),
                "probes": len(self.probes), "constraints": len(self.constraints), "relations": len(self.relations)}

    def graph(self, graph: Graph | None = None) -> Graph:
        """The records as an rdflib graph (added to ``graph`` when given)."""
        return records_to_graph(self.records(), graph if graph is not None else bind_prefixes(Graph()))

    def add_to_store(self, store: OxigraphStore, name: str = "content") -> int:
        """Add the records to graph ``name`` of an Oxigraph store, as pyoxigraph terms made directly
        (:func:`~evoonto.records.records_to_store`; no rdflib graph in between). Returns the number of
        triples given."""
        return records_to_store(self.records(), store, name)


def scheme_triples(iris: IriFactory, title: str, content: Graph | OxigraphStore | None = None) -> list[tuple]:
    """The ``skos:ConceptScheme`` node every Term is ``skos:inScheme`` of, and its top concepts.

    Args:
        content: the built content graph (an rdflib graph, or an Oxigraph store whose ``content``
            graph is read): every Term ``skos:inScheme`` the scheme with no
            ``skos:broader`` (nor a sub-property of it, such as ``evo:partOf``) becomes a top concept
            (``<scheme> skos:hasTopConcept <term>`` and ``<term> skos:topConceptOf <scheme>``), so
            SKOS browsers have a hierarchy to start from.
    """
    scheme = iris.scheme()
    out: list[tuple] = [(scheme, RDF.type, SKOS.ConceptScheme), (scheme, SKOS.prefLabel, Literal(title, lang="en")),
                        (scheme, DCTERMS.title, Literal(title, lang="en"))]
    if isinstance(content, OxigraphStore):
        narrower = {s for p in NOT_TOP_CONCEPT for s in content.subjects(p, None, "content")}
        in_scheme = set(content.subjects(SKOS.inScheme, scheme, "content"))
    elif content is not None:
        narrower = {s for p in NOT_TOP_CONCEPT for s, _, _ in content.triples((None, p, None))}
        in_scheme = set(content.subjects(SKOS.inScheme, scheme))
    if content is not None:
        for term in sorted(in_scheme - narrower, key=str):
            out += top_concept_triples(scheme, term)
    return out


def _text(value) -> str | None:
    return None if value is None else str(value)


class _Builder:
    def __init__(self, schema: SourceSchema, iris: IriFactory, at: datetime):
        self.schema = schema
        self.iris = iris
        self.at = at
        self.src = schema.id
        self.out = Construction()
        self.term_iri: dict[str, URIRef] = {}
        #: every Term, Constraint and Relation IRI minted so far → what it was minted for
        self.minted: dict[URIRef, str] = {}

    def claim(self, iri: URIRef, what: str, family: str, subject: str) -> bool:
        """Mint ``iri`` for ``what``; ``False`` (and a :class:`Rejection` naming the holder) when a
        different candidate already minted it. Two records on one IRI would merge into one node
        with two values of single-valued fields (``evo:formula``, ``skos:prefLabel`` …), which the
        shapes refuse; the first candidate in the stable order keeps the IRI."""
        holder = self.minted.get(iri)
        if holder is None:
            self.minted[iri] = what
            return True
        if holder != what:
            self.out.rejected.append(Rejection(family, subject, f"its IRI <{iri}> is already minted for {holder}"))
        return False

    def evidence(self, probe: ProbeResult, profile: ColumnProfile | None = None, summary: str | None = None) -> URIRef:
        iri = self.iris.evidence(probe.key)
        if iri in self.out.evidence:
            return iri
        activity = self.iris.probe(probe.key)
        if profile is not None:
            # the one profiler's records (evoonto.sources.profiling), exactly as sources.profile
            # returns them (its probe is this ``probe``: same key, same IRIs)
            self.out.probes[activity] = profile.probe
            record = profile.evidence
        else:
            self.out.probes[activity] = ProbeActivity(activity, query=probe.sql, used=self.schema.iri,
                                                      started_at=self.at, ended_at=self.at)
            record = Evidence(iri, probe=activity, generated_at=self.at,
                              summary=summary or _probe_summary(probe), rows_observed=_rows_observed(probe))
        self.out.evidence[iri] = record
        return iri

    def add_terms(self, terms: Sequence[VerifiedTerm], synonyms_by_slug: dict[str, list[str]],
                  join_paths: dict[tuple[str, str | None], str]) -> None:
        per_location: dict[tuple[str, str | None], int] = defaultdict(int)
        prefs = distinct_pref_labels([vt.candidate for vt in terms])
        scheme = self.iris.scheme()
        grains: dict[str, str] = {}  # table name -> _grain(table): one per table, not one per Term
        for vt in terms:
            cand = vt.candidate
            table = self.schema.table(cand.table)
            if table is None:  # verify only passes Terms of catalog tables
                continue
            term = self.iris.term(self.src, cand.slug)
            if not self.claim(term, f"Term {cand.slug} ({cand.kind} {cand.labels.pref!r})", "term", cand.slug):
                continue
            self.term_iri[cand.slug] = term
            summary = None
            if cand.column is None:
                summary = f"{_count(vt.probe)} rows in {table.name}"
            elif cand.value is not None:
                summary = f"{_count(vt.probe)} rows of {table.name} have {cand.column} = {cand.value!r}"
            ev = self.evidence(vt.probe, vt.profile if cand.value is None else None, summary)
            column = None if cand.column is None else table.column(cand.column)
            if cand.column is not None and column is None:
                continue
            # the first Term of a location gets mapping/{src}/{table}[/{column}], later ones /{n}
            location = (table.name, None if column is None else column.name)
            n = per_location[location] or None
            per_location[location] += 1
            mapping = self.iris.mapping(self.src, table.name, None if column is None else column.name, n)
            filt = None
            if cand.value is not None and column is not None:
                filt = f"{_quote(column.name)} = {_literal(cand.value)}"
            self.out.mappings.append(Mapping(
                mapping, term=term, source=self.schema.iri, table=table.iri,
                column=None if column is None else column.iri, filter=filt,
                aggregation=cand.aggregation or ("COUNT" if cand.value is not None else None),
                grain=grains[table.name] if table.name in grains else grains.setdefault(table.name, _grain(table)),
                join_path=join_paths.get((table.name, None if column is None else column.name)),
                confidence=cand.confidence, evidence=[ev],
            ))
            labels = cand.labels.merged(synonyms_by_slug.get(cand.slug, ()))
            pref = prefs.get(cand.slug, labels.pref)
            if pref != labels.pref:  # the shared label stays an alternative one
                labels = LabelSet.make(pref, [labels.pref, *labels.alt], labels.hidden)
            self.out.terms.append(Term(
                term, label=labels.pref, kinds=[cand.kind], alt_labels=list(labels.alt),
                hidden_labels=list(labels.hidden), definition=cand.definition, scheme=scheme,
                mappings=[mapping], evidence=[ev],
            ))

    def relation(self, rel_type: str, source: URIRef, target: URIRef, evidence: URIRef, *,
                 join_condition: str | None = None, formula: str | None = None) -> bool:
        """Add a Relation unless its IRI is taken by one with another ``formula`` (see
        :meth:`claim`); one with the same single-valued fields adds its multi-valued ones (join
        conditions: alternatives; evidence) to the node. Returns whether it was added."""
        iri = self.iris.relation(rel_type, source, target)
        what = _relation_text(rel_type, source, target, formula)
        if not self.claim(iri, what, "relation", what) and self.minted[iri] != what:
            return False
        self.out.relations.append(Relation(iri, type=rel_type, source=source, target=target,
                                           evidence=[evidence], join_condition=join_condition, formula=formula))
        return True

    def conflict(self, rel_type: str, source: URIRef, target: URIRef, formula: str | None = None) -> str | None:
        """Why :meth:`relation` would refuse this relation (the holder of its IRI), or ``None``."""
        holder = self.minted.get(self.iris.relation(rel_type, source, target))
        what = _relation_text(rel_type, source, target, formula)
        return None if holder in (None, what) else f"its IRI is already minted for {holder}"


def _relation_text(rel_type: str, source: URIRef, target: URIRef, formula: str | None) -> str:
    """A relation's identity and single-valued fields as one readable line."""
    return f"{rel_type} <{source}> → <{target}>" + ("" if formula is None else f" ({formula})")


def distinct_pref_labels(candidates: Sequence[TermCandidate]) -> dict[str, str]:
    """Preferred labels that no two Terms of one source share: ``slug`` → new label, for the Terms
    whose label another Term has too (case-insensitive).

    A value Term is qualified by its column's label (``"Argentina"`` → ``"Argentina (Invoice billing
    country)"``, when Customer.Country has the value too); a Term still sharing its label after that
    by its table and column (``"… (invoice.total)"``). The shared label stays an ``skos:altLabel``.
    """
    def groups(labels: dict[str, str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = defaultdict(list)
        for slug, label in labels.items():
            out[normalize(label)].append(slug)
        return out

    by_slug = {c.slug: c for c in candidates}
    labels = {c.slug: c.labels.pref for c in candidates}
    for slugs in list(groups(labels).values()):
        for slug in slugs if len(slugs) > 1 else ():
            c = by_slug[slug]
            if c.value is not None and c.column is not None:
                labels[slug] = f"{c.labels.pref} ({column_labels(c.table, c.column).pref})"
    for slugs in list(groups(labels).values()):
        for slug in slugs if len(slugs) > 1 else ():
            c = by_slug[slug]
            where = c.table if c.column is None else f"{c.table}.{c.column}"
            labels[slug] = f"{labels[slug]} ({where})" if c.value is None else f"{labels[slug]} [{where} = {c.value}]"
    return {slug: label for slug, label in labels.items() if label != by_slug[slug].labels.pref}


def _quote(name: str) -> str:
    return quote_identifier(name)


def _literal(value: str) -> str:
    return quote_literal(value)


def _count(probe: ProbeResult) -> int:
    value = probe.scalar(0)
    return int(value) if isinstance(value, (int, float)) else 0


def _rows_observed(probe: ProbeResult) -> int | None:
    value = probe.scalar(None)
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _probe_summary(probe: ProbeResult) -> str:
    return "; ".join(", ".join(str(v) for v in row) for row in probe.rows[:3]) or "no rows"


#: Join conditions recorded on one Mapping (its own foreign keys first).
MAX_JOIN_PATHS = 4


def _join_paths(verified: Verified, dialect: str | None = None) -> dict[tuple[str, str | None], str]:
    """``(table, column)`` → the join conditions that connect the column's table to related tables,
    quoted for ``dialect`` (executable SQL).

    A column's Mapping gets the joins that keep its table's rows: its own foreign keys first, then the
    table's other many-to-one joins (the table as child; the parent side is a key). Joins to the
    table's children (one-to-many) are left out, since an aggregate of the column over them would
    count each row once per child (a fan trap); they stay in the Association Relations and the
    ``join_path`` tool, which report their cardinality. The Entity (``column`` None) gets all its
    table's joins, as child, then as parent. At most :data:`MAX_JOIN_PATHS`, separated by ``"; "``
    (alternatives, not a conjunction).
    """
    by_table: dict[str, list[str]] = defaultdict(list)
    as_parent: dict[str, list[str]] = defaultdict(list)
    own: dict[tuple[str, str | None], list[str]] = defaultdict(list)
    for vj in verified.joins:
        j = vj.candidate
        condition = j.condition(dialect, quoted=True)
        by_table[j.child].append(condition)
        for col in j.child_columns:
            own[(j.child, col)].append(condition)
        if j.parent != j.child:
            as_parent[j.parent].append(condition)
    out: dict[tuple[str, str | None], str] = {}
    tables = {vt.candidate.table for vt in verified.terms}
    columns = {(vt.candidate.table, vt.candidate.column) for vt in verified.terms}
    for table, column in columns | {(t, None) for t in tables}:
        children = as_parent.get(table, []) if column is None else []
        conditions = list(dict.fromkeys([*own.get((table, column), []), *by_table.get(table, []), *children]))
        if conditions:
            out[(table, column)] = "; ".join(conditions[:MAX_JOIN_PATHS])
    return out


def _grain(table: TableInfo) -> str:
    """What one row stands for, naming the key columns table-qualified (``one row per singer
    (singer.Singer_ID)``); a table without a declared key is described by its foreign keys."""
    noun = " ".join(singularize(w.lower()) for w in split_identifier(table.name)) or table.name
    key = table.primary_key
    if len(key) == 1:
        return f"one row per {noun} ({table.name}.{key[0]})"
    if key:
        return f"one row per combination of {', '.join(f'{table.name}.{k}' for k in key)}"
    refs = [f"{table.name}.{c.name}" for c in table.columns if c.references]
    if refs:
        return f"one row per link of {', '.join(refs)} (no declared key)"
    return f"one row per {noun} record in {table.name} (no declared key)"


def construct(verified: Verified, schema: SourceSchema, iris: IriFactory, at: datetime) -> Construction:
    """Build the Content-layer records of one source from its verified candidates.

    Args:
        verified: the output of :func:`evoonto.builder.verify.verify`.
        schema: the source's catalog view (catalog IRIs of tables and columns come from it).
        iris: the workspace's IRI factory.
        at: the build's logical time (``prov:generatedAtTime``, probe start/end).

    Returns:
        A :class:`Construction` (records in a stable order).
    """
    b = _Builder(schema, iris, at)
    synonyms: dict[str, list[str]] = defaultdict(list)
    for syn in verified.synonyms:
        synonyms[syn.slug].append(syn.label)
    dialect = dialect_of_kind(schema.kind)
    b.add_terms(verified.terms, synonyms, _join_paths(verified, dialect))
    slugs = b.term_iri
    evidence_of = {t.iri: t.evidence[0] for t in b.out.terms}

    # composition: every column Term is part of its table's Entity
    for vt in verified.terms:
        cand = vt.candidate
        if cand.column is not None and cand.value is None and term_slug(cand.table) in slugs:
            part, whole = slugs[cand.slug], slugs[term_slug(cand.table)]
            b.relation("Composition", part, whole, evidence_of[part])
        elif cand.value is not None and term_slug(cand.table, cand.column) in slugs:
            narrower, broader = slugs[cand.slug], slugs[term_slug(cand.table, cand.column)]
            b.relation("Hierarchy", narrower, broader, evidence_of[narrower])

    # associations: joins between Entities and between key columns
    entity_pairs: set[tuple[str, str]] = set()
    for vj in verified.joins:
        j = vj.candidate
        ev = b.evidence(vj.probe, summary=f"{vj.matched_rows} of {vj.child_rows} {j.child} rows join {j.parent} "
                                          f"({'declared' if j.declared else 'discovered'} key)")
        child_col, parent_col = term_slug(j.child, j.child_columns[0]), term_slug(j.parent, j.parent_columns[0])
        if child_col in slugs and parent_col in slugs:
            b.relation("Association", slugs[child_col], slugs[parent_col], ev,
                       join_condition=j.condition(dialect, quoted=True))
        pair = (j.child, j.parent)
        ends = (term_slug(j.child), term_slug(j.parent))
        if j.child != j.parent and pair not in entity_pairs and all(e in slugs for e in ends):
            entity_pairs.add(pair)
            b.relation("Association", slugs[ends[0]], slugs[ends[1]], ev,
                       join_condition=j.condition(dialect, quoted=True))

    # derivations: target derived from each operand. A derivation is added whole or not at all: a
    # column that satisfies two formulas with a shared operand (total = a + b and total = a * c)
    # would put two evo:formula values on the Derivation total → a; the first formula is kept.
    for d in verified.derivations:
        target = slugs.get(term_slug(d.table, d.target))
        operands = [slugs.get(term_slug(d.table, operand)) for operand in dict.fromkeys((d.left, d.right))]
        sources = [o for o in operands if o is not None]
        if target is None or not sources:
            continue
        conflicts = [why for o in sources if (why := b.conflict("Derivation", target, o, d.formula))]
        if conflicts:
            b.out.rejected.append(Rejection("derivation", f"{d.table}.{d.formula}", conflicts[0]))
            continue
        ev = b.evidence(d.probe, summary=f"0 rows of {d.table} violate {d.formula}")
        for source in sources:
            b.relation("Derivation", target, source, ev, formula=d.formula)

    mappings_of: dict[URIRef, list[URIRef]] = {}  # Term -> its Mappings (one pass, not one per constraint)
    for m in b.out.mappings:
        mappings_of.setdefault(m.term, []).append(m.iri)
    for vc in verified.constraints:
        c = vc.candidate
        targets = [t for t in (slugs.get(term_slug(c.table, c.column)),) if t is not None]
        if not targets:
            continue
        targets += mappings_of.get(targets[0], [])
        iri = iris.constraint(f"{schema.id}.{c.slug}")
        if not b.claim(iri, f"Constraint {c.slug} ({c.rule}: {c.condition})", "constraint", c.slug):
            continue
        # a domain rule's probe counts the rows breaking it; the other rules' count the rows checked
        summary = (f"{_count(vc.probe):,} rows of {c.table} break the domain rule on {c.table}.{c.column} "
                   "(whole table)" if c.rule == "domain"
                   else f"{_count(vc.probe):,} rows checked for {c.rule} rule on {c.table}.{c.column}")
        ev = b.evidence(vc.probe, summary=summary)
        b.out.constraints.append(Constraint(
            iri, constrains=targets, condition=c.condition,
            trigger_keywords=list(c.triggers), severity=c.severity, comment=c.comment, evidence=[ev],
        ))
    b.out.relations.sort(key=lambda r: str(r.iri))
    return b.out


#: Passages linked to one Term at most, and characters of a passage kept as its scope note.
MAX_PASSAGES_PER_TERM = 2
SCOPE_NOTE_CHARS = 300


def ground_in_documents(content: Graph, catalog: Graph) -> int:
    """Ground Terms in the document passages of the catalog that mention them.

    A Term whose preferred label (or a multi-word alternative label) occurs in a passage's
    ``evo:text`` as whole words (case-insensitive) gets ``prov:wasDerivedFrom <passage>`` and the
    passage text (first :data:`SCOPE_NOTE_CHARS` characters) as a ``skos:scopeNote``; at most
    :data:`MAX_PASSAGES_PER_TERM` passages per Term, in passage IRI order.

    Args:
        content: the content graph (modified in place).
        catalog: the catalog graph holding ``evo:Passage`` nodes of documents sources.

    Returns:
        The number of Term–passage links added.
    """
    passages = sorted((p, str(t)) for p in catalog.subjects(RDF.type, EVO.Passage)
                      for t in catalog.objects(p, EVO.text))
    if not passages:
        return 0
    lowered = [(p, " ".join(text.lower().split()), text) for p, text in passages]
    links = 0
    for term in sorted(content.subjects(RDF.type, EVO.Term), key=str):
        labels = [str(content.value(term, SKOS.prefLabel) or "")]
        labels += [str(a) for a in content.objects(term, SKOS.altLabel) if " " in str(a)]
        patterns = [re.compile(r"(?<!\w)" + re.escape(" ".join(label.lower().split())) + r"(?!\w)")
                    for label in labels if len(label.strip()) >= 4]
        found = [(p, text) for p, low, text in lowered if any(pattern.search(low) for pattern in patterns)]
        for passage, text in found[:MAX_PASSAGES_PER_TERM]:
            content.add((term, PROV.wasDerivedFrom, passage))
            note = " ".join(text.split())
            content.add((term, SKOS.scopeNote, Literal(note if len(note) <= SCOPE_NOTE_CHARS
                                                       else note[: SCOPE_NOTE_CHARS - 1] + "…", lang="en")))
            links += 1
    return links
