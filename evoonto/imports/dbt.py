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
from evoonto.errors import EvoontoError, ReadOnlyViolation
from evoonto.iris import IriFactory
from evoonto.optional import require
from evoonto.patch import Patch
from evoonto.records import Constraint, Mapping, Relation, Term
from evoonto.sources.guard import check_expression
from evoonto.sources.quoting import dialect_of_kind

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


#: Most semantic models plus metrics an import reads (a larger project is refused).
MAX_DBT_ITEMS = 5_000
#: Largest YAML file read, in bytes.
MAX_DBT_FILE_BYTES = 10 * 1024 * 1024
#: Most YAML files read under a project folder.
MAX_DBT_FILES = 10_000
#: Most bytes of YAML read under a project folder, all files together.
MAX_DBT_TOTAL_BYTES = 100 * 1024 * 1024
#: Longest time an import may take, in seconds (checked per semantic model and metric; 3,000 models and
#: 1,000 metrics over 100 tables took 41 s).
MAX_DBT_SECONDS = 300.0
#: dbt's own aggregations that have no evo:aggregation (kept without one); any other ``agg`` is refused.
_KNOWN_WITHOUT_AGGREGATION = frozenset({"percentile", "median"})
#: The list-of-mappings keys of a semantic model and of a metric, checked for shape.
_MODEL_LISTS = ("entities", "dimensions", "measures")


def _shape_error(path: Path, where: str, expected: str, value: Any) -> DbtImportError:
    return DbtImportError(f"{path}: {where} must be {expected}, got {type(value).__name__}")


def _check_item(path: Path, where: str, item: Any, lists: tuple[str, ...], mappings: tuple[str, ...]) -> None:
    """Refuse a semantic model or metric whose fields have the wrong YAML shape (one line naming
    the file and the field)."""
    if not isinstance(item, dict):
        raise _shape_error(path, where, "a mapping", item)
    if not isinstance(item.get("name"), (str, int)) or isinstance(item.get("name"), bool):
        raise DbtImportError(f"{path}: {where} needs a name (text)")
    for key in lists:
        value = item.get(key)
        if value is None:
            continue
        if not isinstance(value, list):
            raise _shape_error(path, f"{where}.{key}", "a list", value)
        for n, entry in enumerate(value):
            if not isinstance(entry, dict):
                raise _shape_error(path, f"{where}.{key}[{n}]", "a mapping", entry)
            if not isinstance(entry.get("name"), (str, int)) or isinstance(entry.get("name"), bool):
                raise DbtImportError(f"{path}: {where}.{key}[{n}] needs a name (text)")
            for text_key in ("expr", "agg", "type", "description", "label"):
                if entry.get(text_key) is not None and not isinstance(entry[text_key], (str, int, float, bool)):
                    raise _shape_error(path, f"{where}.{key}[{n}].{text_key}", "text", entry[text_key])
    for key in mappings:
        value = item.get(key)
        if value is not None and not isinstance(value, dict):
            raise _shape_error(path, f"{where}.{key}", "a mapping", value)
    for text_key in ("description", "label", "type", "model"):
        value = item.get(text_key)
        if value is not None and not isinstance(value, (str, int, float, bool)):
            raise _shape_error(path, f"{where}.{text_key}", "text", value)


def read_dbt_project(folder: Path | str) -> tuple[list[dict], list[dict]]:
    """``(semantic_models, metrics)`` from every YAML file under ``folder`` (sorted paths).

    Each file is read with PyYAML's safe loader (libyaml's when available), at most
    :data:`MAX_DBT_FILE_BYTES` bytes, and every semantic model and metric is checked for shape (a
    mapping with a name; ``entities``, ``dimensions``, ``measures`` lists of mappings with names;
    ``type_params`` a mapping).

    Raises:
        DbtImportError: no such folder; a file that is not UTF-8 YAML, too large or nested too
            deeply; a semantic model or metric of the wrong shape; more than :data:`MAX_DBT_FILES`
            files or :data:`MAX_DBT_ITEMS` models and metrics (each message names the file or limit).
    """
    yaml = require("yaml")
    root = Path(folder)
    if not root.is_dir():
        raise DbtImportError(f"no such dbt project folder: {root}")
    models: list[dict] = []
    metrics: list[dict] = []
    files = sorted(p for ext in ("*.yml", "*.yaml") for p in root.rglob(ext)
                   if not any(part in _SKIP_DIRS or part.startswith(".") for part in p.relative_to(root).parts[:-1]))
    if len(files) > MAX_DBT_FILES:
        raise DbtImportError(f"{root}: {len(files):,} YAML files; an import reads at most {MAX_DBT_FILES:,}")
    total = 0
    for path in files:
        try:
            size = path.stat().st_size
            if size > MAX_DBT_FILE_BYTES:
                raise DbtImportError(f"{path}: larger than {MAX_DBT_FILE_BYTES // (1024 * 1024)} MB, the limit "
                                     f"of a dbt YAML file")
            total += size
            if total > MAX_DBT_TOTAL_BYTES:
                raise DbtImportError(f"{root}: more than {MAX_DBT_TOTAL_BYTES // (1024 * 1024)} MB of YAML, the "
                                     f"limit of one import")
            # libyaml's safe loader when PyYAML has it (an optional C extension, hence getattr): ~5x faster,
            # and it stops nesting at 1,000 levels
            doc = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except yaml.YAMLError as exc:
            raise DbtImportError(f"cannot parse {path}: {str(exc).splitlines()[0]}") from None
        except UnicodeDecodeError:
            raise DbtImportError(f"cannot parse {path}: not UTF-8 text") from None
        except RecursionError:
            raise DbtImportError(f"cannot parse {path}: YAML nested too deeply to be read") from None
        except OSError as exc:
            raise DbtImportError(f"cannot read {path}: {exc.strerror or exc}") from None
        if not isinstance(doc, dict):
            continue  # a YAML file of another kind (a list, a scalar, empty): nothing of MetricFlow in it
        for key, found, lists, mappings in (("semantic_models", models, _MODEL_LISTS, ("defaults",)),
                                            ("metrics", metrics, (), ("type_params",))):
            items = doc.get(key)
            if items is None:
                continue
            if not isinstance(items, list):
                raise _shape_error(path, key, "a list", items)
            for n, item in enumerate(items):
                _check_item(path, f"{key}[{n}]", item, lists, mappings)
                found.append(item)
            if len(models) + len(metrics) > MAX_DBT_ITEMS:
                raise DbtImportError(f"{root}: more than {MAX_DBT_ITEMS:,} semantic models and metrics; the "
                                     f"limit of one import is {MAX_DBT_ITEMS:,}")
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
        self.next_mapping: dict[tuple[str, str, str | None], int] = {}
        # one query each for the lookups made per model and per column (3,000 models once took > 180 s)
        self.tables_by_name: dict[str, list[TableInfo]] = {}
        for table in self.catalog.tables:
            self.tables_by_name.setdefault(table.name.casefold(), []).append(table)
        self.dialects = {src.id: dialect_of_kind(src.kind) for src in self.catalog.sources}
        self.entity_terms: dict[URIRef, list[URIRef]] = {}
        for row in ontology.query("SELECT ?t ?table WHERE { ?t a evo:Entity ; evo:hasMapping ?m . ?m evo:table ?table "
                                  "FILTER NOT EXISTS { ?m evo:column ?c } FILTER NOT EXISTS { ?m evo:filter ?f } }"):
            self.entity_terms.setdefault(URIRef(row["table"]), []).append(URIRef(row["t"]))
        self.column_terms: dict[URIRef, list[URIRef]] = {}
        for row in ontology.query("SELECT ?t ?col WHERE { ?t a evo:Term ; evo:hasMapping ?m . ?m evo:column ?col "
                                  "FILTER NOT EXISTS { ?m evo:filter ?f } FILTER NOT EXISTS { ?t a evo:Metric } }"):
            self.column_terms.setdefault(URIRef(row["col"]), []).append(URIRef(row["t"]))

    def refusal(self, text: Any, table: TableInfo | None) -> str | None:
        """Why a dbt SQL expression (``expr``, a filter, a derived metric's formula) is refused by the
        guard every SQL entry point shares (:func:`evoonto.sources.guard.check_expression`: one
        expression, no ``;``, no denied function, size and depth limits), in the dialect of the
        table's source (generic SQL without a table); None when it passes."""
        dialect = self.dialects.get(table.source_id) if table is not None else None
        try:
            check_expression(str(text), dialect=dialect)
        except ReadOnlyViolation as err:
            return str(err).removeprefix("refused: ").removesuffix(" (read-only source)")
        return None

    # lookups ---------------------------------------------------------------------------------
    def table(self, model: dict) -> TableInfo | None:
        ref = _REF.search(str(model.get("model", "")))
        name = ref.group(1) if ref else str(model.get("model") or model["name"])
        matches = self.tables_by_name.get(name.casefold(), [])
        return matches[0] if len(matches) == 1 else None

    def column_term(self, table: TableInfo, column: str, *, entity: bool = False) -> URIRef | None:
        col = table.column(column)
        if entity:
            terms = self.entity_terms.get(table.iri, [])
        elif col is not None:
            terms = self.column_terms.get(col.iri, [])
        else:
            return None
        return min(terms) if terms else None

    def new_mapping(self, term: URIRef, table: TableInfo, column: str | None, **kwargs: Any) -> URIRef:
        col = table.column(column) if column else None
        key = (table.source_id, table.name, col.name if col else None)
        n = self.next_mapping.get(key, 1)  # the first free number of this column (not re-tried from 1)
        while True:
            iri = self.iris.mapping(*key, n)
            if iri not in self.mapping_iris:
                break
            n += 1
        self.next_mapping[key] = n + 1
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


def dbt_patch(ontology: Ontology, folder: Path | str, *,
              max_seconds: float = MAX_DBT_SECONDS) -> tuple[Patch, DbtSummary]:
    """The content patch importing the dbt project at ``folder`` into ``ontology`` (not committed).

    Args:
        ontology: the active version.
        folder: the dbt project folder.
        max_seconds: time budget of the import, in seconds (:data:`MAX_DBT_SECONDS`).

    Raises:
        DbtImportError: see :func:`read_dbt_project`; no semantic model or metric in the project; the
            time budget passed (nothing is returned, so nothing is committed).
        evoonto.errors.ConfigurationError: PyYAML is not installed (``pip install 'evoonto[dbt]'``).
    """
    import time

    started = time.monotonic()
    models, metrics = read_dbt_project(folder)
    if not models and not metrics:
        raise DbtImportError(f"{folder} has no semantic_models or metrics in its YAML files")
    b = _Builder(ontology)

    def in_budget(done: int) -> None:
        if time.monotonic() - started > max_seconds:
            raise DbtImportError(f"{folder}: import stopped after {max_seconds:g} s ({done:,} of "
                                 f"{len(models) + len(metrics):,} semantic models and metrics read)")
    entity_table: dict[str, tuple[TableInfo, URIRef, str]] = {}  # entity name -> (table, entity Term, key column)
    measures: dict[str, tuple[URIRef, TableInfo, str | None, str | None]] = {}  # name -> (term, table, column, agg)
    dims: dict[str, str] = {}  # "entity__dim" and "dim" -> column
    pending_foreign: list[tuple[TableInfo, URIRef, str, str]] = []
    for done, model in enumerate(models):
        in_budget(done)
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
            if dim_column is None and (why := b.refusal(dim.get("expr"), table)) is not None:
                b.summary.skipped.append(f"dimension {model['name']}.{dim['name']}: expr refused ({why})")
                continue
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
            given = str(measure.get("agg") or "").lower()
            agg = AGGREGATIONS.get(given)
            if given and agg is None and given not in _KNOWN_WITHOUT_AGGREGATION:
                b.summary.skipped.append(f"measure {model['name']}.{measure['name']}: agg {given[:40]!r} is not a "
                                         f"dbt aggregation ({', '.join(sorted(AGGREGATIONS))}, percentile, median)")
                continue
            m_col = _column_of(measure)
            if m_col is None and measure.get("expr") is not None and (
                    why := b.refusal(measure["expr"], table)) is not None:
                b.summary.skipped.append(f"measure {model['name']}.{measure['name']}: expr refused ({why})")
                continue
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
    for done, metric in enumerate(sorted(metrics, key=lambda m: 0 if str(m.get("type", "simple")) in
                                         ("simple", "cumulative") else 1), start=len(models)):
        in_budget(done)
        name = str(metric["name"])
        condition = _translate_filter(metric.get("filter"), dims)
        if condition and (why := b.refusal(condition, None)) is not None:  # without it the metric means more
            b.summary.skipped.append(f"metric {name}: filter refused ({why})")
            continue
        params = metric.get("type_params") or {}
        kind = str(metric.get("type", "simple"))
        if kind not in ("simple", "cumulative", "ratio") and params.get("expr") and (
                why := b.refusal(params["expr"], None)) is not None:
            b.summary.skipped.append(f"metric {name}: expr refused ({why})")
            continue
        label = str(metric.get("label") or _words(name))
        term = b.new_term(b.iris.term("dbt", f"metric.{name}"), label[:1].upper() + label[1:], ["Metric"],
                          metric.get("description"), [_words(name)])
        metric_terms[name] = term
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
