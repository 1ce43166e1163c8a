"""Import dbt MetricFlow semantic models and metrics (YAML under a dbt project) as a Content patch.

Read from every ``*.yml``/``*.yaml`` file under the project folder (``target/``, ``dbt_packages/``
and hidden folders skipped): ``semantic_models:`` and ``metrics:`` (dbt >= 1.6 MetricFlow spec).
A semantic model is grounded on the catalog table its ``model: ref('name')`` names (matched by
name, case-insensitively, in the workspace's sources); a model whose table is not in the catalog is
skipped and named in :attr:`DbtSummary.skipped`.

============================  =====================================================================
dbt                           evoonto
============================  =====================================================================
primary entity                the table's entity Term gains the entity name as ``skos:altLabel`` and
                              the model description as ``skos:definition``, replacing the builder's
                              generated one (new Entity Term if none)
foreign entity                an Association Relation (join condition ``child.col = parent.col``)
                              between the two tables' entity Terms
dimension                     the column's Term gains labels/description (a new Dimension or
                              TimeDimension Term with a Mapping if the column has none)
measure                       a Metric Term with a Mapping (column ``expr``, aggregation ``agg``)
metric (simple, cumulative)   a Metric Term with the measure's Mapping (plus the metric's filter),
                              a Derivation Relation to the measure's Term
metric (ratio, derived)       a Metric Term with Derivation Relations (formula) to its inputs
metric ``filter``             an ``evo:Constraint`` on the metric (condition with the Jinja
                              ``{{ Dimension('entity__dim') }}`` replaced by the dimension's column)
============================  =====================================================================

New Terms are ``B term/dbt/{model}.{name}`` (measures, dimensions) and ``B term/dbt/metric.{name}``.
Needs PyYAML (extra ``dbt``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import rdflib
from rdflib import Literal, URIRef
from rdflib.namespace import SKOS

from evoonto.catalog import TableInfo, read_catalog
from evoonto.errors import EvoontoError
from evoonto.iris import IriFactory
from evoonto.optional import require
from evoonto.patch import Patch
from evoonto.records import Constraint, Mapping, Relation, Term

if TYPE_CHECKING:
    from evoonto.ontology import Ontology

#: dbt ``agg`` -> evo:aggregation
AGGREGATIONS = {"sum": "SUM", "count": "COUNT", "count_distinct": "COUNT DISTINCT", "average": "AVG",
                "avg": "AVG", "min": "MIN", "max": "MAX", "sum_boolean": "SUM"}  # others (percentile…): none
_REF = re.compile(r"""ref\(\s*['"]([^'"]+)['"]\s*\)""")
_DIMENSION = re.compile(r"""\{\{\s*(?:Dimension|TimeDimension|Entity)\(\s*['"]([^'"]+)['"][^)]*\)\s*\}\}""")
_COLUMN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SKIP_DIRS = {"target", "dbt_packages", "node_modules", "logs"}


class DbtImportError(EvoontoError):
    """The folder is missing, a YAML file is malformed, or no semantic model/metric is found."""


@dataclass
class DbtSummary:
    """What a dbt import changes: counts of ``terms`` (new), ``enriched`` (existing Terms given labels
    or definitions), ``mappings``, ``relations``, ``constraints``, and ``skipped`` one-line notes."""

    terms: int = 0
    enriched: int = 0
    mappings: int = 0
    relations: int = 0
    constraints: int = 0
    skipped: list[str] = field(default_factory=list)

    def line(self) -> str:
        """One line for the CLI."""
        return (f"{self.terms} new Term(s), {self.enriched} enriched, {self.mappings} Mapping(s), "
                f"{self.relations} relation(s), {self.constraints} constraint(s); {len(self.skipped)} skipped")


def read_dbt_project(folder: Path | str) -> tuple[list[dict], list[dict]]:
    """``(semantic_models, metrics)`` from every YAML file under ``folder`` (sorted paths).

    Raises:
        DbtImportError: no such folder, or a malformed YAML file (named with its error's first line).
    """
    yaml = require("yaml")
    root = Path(folder)
    if not root.is_dir():
        raise DbtImportError(f"no such dbt project folder: {root}")
    models: list[dict] = []
    metrics: list[dict] = []
    files = sorted(p for ext in ("*.yml", "*.yaml") for p in root.rglob(ext)
                   if not any(part in _SKIP_DIRS or part.startswith(".") for part in p.relative_to(root).parts[:-1]))
    for path in files:
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise DbtImportError(f"cannot parse {path}: {str(exc).splitlines()[0]}") from exc
        if isinstance(doc, dict):
            models += [m for m in doc.get("semantic_models") or [] if isinstance(m, dict) and m.get("name")]
            metrics += [m for m in doc.get("metrics") or [] if isinstance(m, dict) and m.get("name")]
    return models, metrics


def _words(name: str) -> str:
    return re.sub(r"[_\s]+", " ", str(name)).strip()


class _Builder:
    """Accumulates the additions of one import (one instance per :func:`dbt_patch` call)."""

    def __init__(self, ontology: Ontology):
        self.onto = ontology
        self.iris = IriFactory(ontology.base_iri)
        self.catalog = read_catalog(ontology)
        self.graph, self.removals = rdflib.Graph(), rdflib.Graph()
        self.summary = DbtSummary()
        self.labels: dict[URIRef, set[str]] = {}
        self.defined: dict[URIRef, set[rdflib.term.Node]] = {}
        labelled = ("SELECT ?t ?l ?d WHERE { ?t a evo:Term . OPTIONAL { ?t skos:prefLabel|skos:altLabel ?l } "
                    "OPTIONAL { ?t skos:definition ?d } }")
        for row in ontology.query(labelled):
            term = URIRef(row["t"])
            self.labels.setdefault(term, set())
            if row.get("l") is not None:
                self.labels[term].add(str(row["l"]).casefold())
            if row.get("d") is not None:
                self.defined.setdefault(term, set()).add(row["d"])
        self.mapping_iris = {URIRef(r["m"]) for r in ontology.query("SELECT ?m WHERE { ?m a evo:Mapping }")}
        self.enriched: set[URIRef] = set()

    # lookups ---------------------------------------------------------------------------------
    def table(self, model: dict) -> TableInfo | None:
        ref = _REF.search(str(model.get("model", "")))
        name = ref.group(1) if ref else str(model.get("model") or model["name"])
        matches = [t for t in self.catalog.tables if t.name.casefold() == name.casefold()]
        return matches[0] if len(matches) == 1 else None

    def column_term(self, table: TableInfo, column: str, *, entity: bool = False) -> URIRef | None:
        col = table.column(column)
        if entity:
            rows = self.onto.query(f"SELECT ?t WHERE {{ ?t a evo:Entity ; evo:hasMapping ?m . "
                                   f"?m evo:table <{table.iri}> "
                                   "FILTER NOT EXISTS { ?m evo:column ?c } FILTER NOT EXISTS { ?m evo:filter ?f } }")
        elif col is not None:
            rows = self.onto.query(f"SELECT ?t WHERE {{ ?t a evo:Term ; evo:hasMapping ?m . "
                                   f"?m evo:column <{col.iri}> "
                                   "FILTER NOT EXISTS { ?m evo:filter ?f } FILTER NOT EXISTS { ?t a evo:Metric } }")
        else:
            return None
        terms = sorted(URIRef(r["t"]) for r in rows)
        return terms[0] if terms else None

    def new_mapping(self, term: URIRef, table: TableInfo, column: str | None, **kwargs: Any) -> URIRef:
        col = table.column(column) if column else None
        n = 1
        while True:
            iri = self.iris.mapping(table.source_id, table.name, col.name if col else None, n)
            if iri not in self.mapping_iris:
                break
            n += 1
        self.mapping_iris.add(iri)
        assert table.source_iri is not None
        Mapping(iri, term, table.source_iri, table.iri, col.iri if col else None, **kwargs).to_graph(self.graph)
        self.summary.mappings += 1
        return iri

    # writes ----------------------------------------------------------------------------------
    def enrich(self, term: URIRef, labels: list[str], description: str | None) -> None:
        known = self.labels.setdefault(term, set())
        changed = False
        for label in labels:
            if label and label.casefold() not in known:
                self.graph.add((term, SKOS.altLabel, Literal(label, lang="en")))
                known.add(label.casefold())
                changed = True
        text = Literal(description.strip(), lang="en") if description else None
        if text is not None and text not in self.defined.get(term, set()):
            for old in self.defined.get(term, set()):  # the project's description replaces the generated one
                self.removals.add((term, SKOS.definition, old))
            self.graph.add((term, SKOS.definition, text))
            self.defined[term] = {text}
            changed = True
        if changed and term not in self.enriched:
            self.enriched.add(term)
            self.summary.enriched += 1

    def new_term(self, iri: URIRef, label: str, kinds: list[str], description: str | None, alt: list[str]) -> URIRef:
        Term(iri, label, kinds=kinds, alt_labels=[a for a in dict.fromkeys(alt) if a.casefold() != label.casefold()],
             definition=(description or "").strip() or None, scheme=self.iris.scheme()).to_graph(self.graph)
        self.labels[iri] = {label.casefold(), *(a.casefold() for a in alt)}
        if description:
            self.defined[iri] = {Literal(description.strip(), lang="en")}
        self.summary.terms += 1
        return iri

    def relation(self, kind: str, source: URIRef, target: URIRef, **kwargs: Any) -> None:
        iri = self.iris.relation(kind, str(source), str(target))
        Relation(iri, kind, source, target, **kwargs).to_graph(self.graph)
        self.summary.relations += 1


def _column_of(item: dict) -> str | None:
    """The column an entity/dimension/measure reads: ``expr`` when a plain identifier, else its name
    when no ``expr`` is given; None for SQL expressions."""
    expr = item.get("expr")
    if expr is None:
        return str(item["name"])
    text = str(expr).strip()
    return text if _COLUMN.match(text) else None


def dbt_patch(ontology: Ontology, folder: Path | str) -> tuple[Patch, DbtSummary]:
    """The content patch importing the dbt project at ``folder`` into ``ontology`` (not committed).

    Raises:
        DbtImportError: see :func:`read_dbt_project`; or no semantic model or metric in the project.
        evoonto.errors.ConfigurationError: PyYAML is not installed (``pip install 'evoonto[dbt]'``).
    """
    models, metrics = read_dbt_project(folder)
    if not models and not metrics:
        raise DbtImportError(f"{folder} has no semantic_models or metrics in its YAML files")
    b = _Builder(ontology)
    entity_table: dict[str, tuple[TableInfo, URIRef, str]] = {}  # entity name -> (table, entity Term, key column)
    measures: dict[str, tuple[URIRef, TableInfo, str | None, str | None]] = {}  # name -> (term, table, column, agg)
    dims: dict[str, str] = {}  # "entity__dim" and "dim" -> column
    pending_foreign: list[tuple[TableInfo, URIRef, str, str]] = []
    for model in models:
        table = b.table(model)
        if table is None:
            b.summary.skipped.append(f"semantic model {model['name']}: no table {model.get('model')!r} in the catalog")
            continue
        description = model.get("description")
        entity = b.column_term(table, "", entity=True)
        primary = next((e for e in model.get("entities") or [] if e.get("type") in ("primary", "unique", "natural")),
                       None)
        names = [_words(model["name"])] + ([_words(primary["name"])] if primary else [])
        if entity is None:
            entity = b.new_term(b.iris.term("dbt", str(model["name"])), _words(model["name"]).capitalize(),
                                ["Entity"], description, names)
            b.new_mapping(entity, table, None, aggregation="COUNT")
        else:
            b.enrich(entity, names, description)
        for ent in model.get("entities") or []:
            column = _column_of(ent) or str(ent["name"])
            if ent.get("type") in ("primary", "unique", "natural"):
                entity_table[str(ent["name"])] = (table, entity, column)
            elif ent.get("type") == "foreign":
                pending_foreign.append((table, entity, str(ent["name"]), column))
        primary_name = str(primary["name"]) if primary else str(model["name"])
        for dim in model.get("dimensions") or []:
            dim_column = _column_of(dim)
            found = table.column(dim_column) if dim_column else None
            if dim_column is None or found is None:
                b.summary.skipped.append(f"dimension {model['name']}.{dim['name']}: not a column of {table.name}")
                continue
            dims[f"{primary_name}__{dim['name']}"] = dims[str(dim["name"])] = found.name
            labels = [_words(dim["name"])] + ([str(dim["label"])] if dim.get("label") else [])
            term = b.column_term(table, found.name)
            if term is None:
                kind = "TimeDimension" if dim.get("type") == "time" else "Dimension"
                term = b.new_term(b.iris.term("dbt", f"{model['name']}.{dim['name']}"), labels[-1].capitalize(),
                                  [kind], dim.get("description"), labels)
                b.new_mapping(term, table, found.name)
            else:
                b.enrich(term, labels, dim.get("description"))
        for measure in model.get("measures") or []:
            agg = AGGREGATIONS.get(str(measure.get("agg", "")).lower())
            m_col = _column_of(measure)
            if m_col is not None and table.column(m_col) is None:
                m_col = None
            label = str(measure.get("label") or _words(measure["name"]))
            term = b.new_term(b.iris.term("dbt", f"{model['name']}.{measure['name']}"), label[:1].upper() + label[1:],
                              ["Metric"], measure.get("description"), [_words(measure["name"])])
            if m_col is None and measure.get("expr") is not None:
                b.graph.add((term, SKOS.scopeNote, Literal(f"dbt measure expression: {measure['expr']}", lang="en")))
            b.new_mapping(term, table, m_col, aggregation=agg)
            measures[str(measure["name"])] = (term, table, m_col, agg)
    for table, entity, name, column in pending_foreign:
        parent = entity_table.get(name)
        if parent is None or parent[1] == entity:
            continue
        join = f"{table.name}.{column} = {parent[0].name}.{parent[2]}"
        b.relation("Association", entity, parent[1], join_condition=join)
    metric_terms: dict[str, URIRef] = {}
    for metric in sorted(metrics, key=lambda m: 0 if str(m.get("type", "simple")) in ("simple", "cumulative") else 1):
        name = str(metric["name"])
        label = str(metric.get("label") or _words(name))
        term = b.new_term(b.iris.term("dbt", f"metric.{name}"), label[:1].upper() + label[1:], ["Metric"],
                          metric.get("description"), [_words(name)])
        metric_terms[name] = term
        params = metric.get("type_params") or {}
        kind = str(metric.get("type", "simple"))
        condition = _translate_filter(metric.get("filter"), dims)
        if kind in ("simple", "cumulative"):
            measure = params.get("measure")
            measure_name = str(measure.get("name") if isinstance(measure, dict) else measure)
            if measure_name in measures:
                m_term, m_table, m_column, m_agg = measures[measure_name]
                b.new_mapping(term, m_table, m_column, aggregation=m_agg, filter=condition)
                b.relation("Derivation", term, m_term, formula=measure_name)
        else:
            inputs = []
            if kind == "ratio":
                inputs = [params.get("numerator"), params.get("denominator")]
                formula = " / ".join(str(i.get("name") if isinstance(i, dict) else i) for i in inputs)
            else:
                inputs = list(params.get("metrics") or [])
                formula = str(params.get("expr") or "")
            for item in inputs:
                other = metric_terms.get(str(item.get("name") if isinstance(item, dict) else item))
                if other is None:
                    m = measures.get(str(item.get("name") if isinstance(item, dict) else item))
                    other = m[0] if m else None
                if other is not None and other != term:
                    b.relation("Derivation", term, other, formula=formula or None)
        if condition:
            Constraint(b.iris.constraint(f"dbt.{name}.filter"), constrains=[term], condition=condition,
                       severity="Warning", comment=f"dbt metric {name} counts only rows where {condition}",
                       trigger_keywords=[_words(name)]).to_graph(b.graph)
            b.summary.constraints += 1
    patch = Patch.from_graphs("content", {"content": b.graph}, {"content": b.removals},
                              signature=f"import dbt {Path(folder).name}", intervention=b.summary.line())
    return patch, b.summary


def _translate_filter(text: Any, dims: dict[str, str]) -> str | None:
    """A MetricFlow filter with ``{{ Dimension('entity__dim') }}`` replaced by the dimension's column."""
    if not text:
        return None
    parts = text if isinstance(text, list) else [text]

    def column(match: re.Match) -> str:
        key = match.group(1)
        return dims.get(key) or dims.get(key.split("__")[-1]) or key.split("__")[-1]

    return " AND ".join(f"({_DIMENSION.sub(column, str(p)).strip()})" if len(parts) > 1 else
                        _DIMENSION.sub(column, str(p)).strip() for p in parts)


__all__ = ["AGGREGATIONS", "DbtImportError", "DbtSummary", "dbt_patch", "read_dbt_project"]
