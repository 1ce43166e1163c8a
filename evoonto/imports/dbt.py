"""Import dbt MetricFlow semantic models and metrics (YAML under a dbt project) as a Content patch.

Every ``*.yml``/``*.yaml`` file under the project folder (``target/``, ``dbt_packages/`` and hidden
folders skipped) is read for ``semantic_models:`` and ``metrics:`` (dbt >= 1.6), and those are parsed
by **dbt-semantic-interfaces** (dsi), the definitions dbt-core and MetricFlow use: its JSON schemas,
pydantic models and transformations (``count`` and ``median`` rewritten, simple metrics flattened to
an aggregation, ``create_metric`` measures made metrics). A semantic model is grounded on the catalog
table its ``model: ref('name')`` names (matched by name, case-insensitively, in the workspace's sources).

Nothing changes meaning silently: every metric of the manifest is imported faithfully or refused with
a one-line reason (:attr:`DbtSummary.refused`, printed by the CLI).

============================  =====================================================================
dbt                           evoonto
============================  =====================================================================
primary entity                the table's entity Term gains the entity name as ``skos:altLabel`` and
                              the model description as ``skos:definition`` (new Entity Term if none)
foreign entity                an Association Relation (join condition ``child.key = parent.key``, a
                              key ``expr`` may be an expression, e.g. a composite key's concatenation)
dimension on a column         the column's Term gains labels/description (a new Dimension or
                              TimeDimension Term with a Mapping if the column has none)
dimension as an expression    a new Dimension/TimeDimension Term whose Mapping has ``evo:expression``
                              (``CAST(ordered_at AS DATE)``)
measure                       a Metric Term with a Mapping: (column, ``evo:aggregation``) for a column
                              with sum/count/count_distinct/average/min/max, else the aggregate as
                              ``evo:expression`` (``SUM(1)``, ``SUM(CASE ...)``, a percentile in the
                              source's dialect)
simple metric                 a Metric Term: the measure's Mapping with the metric's filter
                              (``evo:filter`` and a Constraint), or the aggregate as ``evo:expression``
                              with the filter inside (``AGG(CASE WHEN filter THEN value END)``) and
                              ``fill_nulls_with`` as ``COALESCE``; a Derivation Relation to the measure
ratio, derived metric         a Metric Term whose Mapping's ``evo:expression`` is the formula over its
                              inputs' aggregates (ratio: ``CAST(n AS DOUBLE) / CAST(NULLIF(d, 0) AS
                              DOUBLE)`` as MetricFlow writes it); Derivation Relations to the inputs
refused (one line each)       cumulative windows, grain-to-date and all-time running totals;
                              conversion metrics; input offsets (``offset_window``); ``join_to_timespine``;
                              semi-additive measures; SCD validity dimensions; filters on
                              ``metric_time``, time grains or metrics; inputs on two tables; a
                              percentile the source's engine cannot compute exactly as MetricFlow does
============================  =====================================================================

New Terms are ``B term/dbt/{model}.{name}`` (measures, dimensions) and ``B term/dbt/metric.{name}``.
Needs PyYAML and dbt-semantic-interfaces (extra ``dbt``).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import rdflib
import sqlglot
from rdflib import Literal, URIRef
from rdflib.namespace import SKOS
from sqlglot import exp

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

#: dsi's aggregation of a column (after its transformations) -> evo:aggregation
AGGREGATIONS = {"sum": "SUM", "count": "COUNT", "count_distinct": "COUNT DISTINCT", "average": "AVG",
                "min": "MIN", "max": "MAX"}
_REF = re.compile(r"""ref\(\s*['"]([^'"]+)['"]\s*\)""")
_SKIP_DIRS = {"target", "dbt_packages", "node_modules", "logs"}


class DbtImportError(EvoontoError):
    """The folder is missing, a YAML file is malformed, or no semantic model/metric is found."""


@dataclass
class DbtSummary:
    """What a dbt import changes: counts of ``terms`` (new), ``enriched`` (existing Terms given labels
    or definitions), ``mappings``, ``relations``, ``constraints``; ``skipped`` one-line notes (every
    refusal among them); ``imported`` metric names; ``refused`` metric name -> the one-line reason."""

    terms: int = 0
    enriched: int = 0
    mappings: int = 0
    relations: int = 0
    constraints: int = 0
    skipped: list[str] = field(default_factory=list)
    imported: list[str] = field(default_factory=list)
    refused: dict[str, str] = field(default_factory=dict)

    def line(self) -> str:
        """One line for the CLI."""
        return (f"{self.terms} new Term(s), {self.enriched} enriched, {self.mappings} Mapping(s), "
                f"{self.relations} relation(s), {self.constraints} constraint(s); {len(self.imported)} metric(s) "
                f"imported, {len(self.refused)} refused; {len(self.skipped)} skipped")


#: Most semantic models plus metrics an import reads (a larger project is refused).
MAX_DBT_ITEMS = 5_000
#: Largest YAML file read, in bytes.
MAX_DBT_FILE_BYTES = 10 * 1024 * 1024
#: Most YAML files read under a project folder.
MAX_DBT_FILES = 10_000
#: Most bytes of YAML read under a project folder, all files together.
MAX_DBT_TOTAL_BYTES = 100 * 1024 * 1024
#: Longest time an import may take, in seconds (checked per semantic model and metric; 3,000 models and
#: 1,000 metrics over 100 tables took 69 s with dbt-semantic-interfaces, benchmarks/hostile_bench.py dbt-3000).
MAX_DBT_SECONDS = 300.0
#: Deepest nesting of ratio/derived metrics over other metrics an import follows (deeper: refused).
MAX_METRIC_NESTING = 50
#: Most paths through a ratio/derived metric's inputs (an input read twice counts twice) an import follows.
MAX_INPUT_EXPANSION = 10_000
#: Largest SQL expression (sqlglot nodes) a ratio/derived metric's Mapping may hold (larger: refused).
MAX_EXPRESSION_NODES = 5_000
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
    """``(semantic_models, metrics)`` from every YAML file under ``folder`` (sorted paths), as written
    (see :func:`read_dbt_files`)."""
    models: list[dict] = []
    metrics: list[dict] = []
    for _path, file_models, file_metrics in read_dbt_files(folder):
        models += file_models
        metrics += file_metrics
    return models, metrics


def read_dbt_files(folder: Path | str) -> list[tuple[Path, list[dict], list[dict]]]:
    """``(path, semantic_models, metrics)`` of every YAML file under ``folder`` that has any (sorted paths).

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
    found_files: list[tuple[Path, list[dict], list[dict]]] = []
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
        file_models: list[dict] = []
        file_metrics: list[dict] = []
        for key, found, lists, mappings in (("semantic_models", file_models, _MODEL_LISTS, ("defaults",)),
                                            ("metrics", file_metrics, (), ("type_params",))):
            items = doc.get(key)
            if items is None:
                continue
            if not isinstance(items, list):
                raise _shape_error(path, key, "a list", items)
            for n, item in enumerate(items):
                _check_item(path, f"{key}[{n}]", item, lists, mappings)
                found.append(item)
            if len(models) + len(metrics) + len(file_models) + len(file_metrics) > MAX_DBT_ITEMS:
                raise DbtImportError(f"{root}: more than {MAX_DBT_ITEMS:,} semantic models and metrics; the "
                                     f"limit of one import is {MAX_DBT_ITEMS:,}")
        models += file_models
        metrics += file_metrics
        if file_models or file_metrics:
            found_files.append((path, file_models, file_metrics))
    return found_files


def _words(name: str) -> str:
    return re.sub(r"[_\s]+", " ", str(name)).strip()


class _Refused(Exception):
    """A dbt construct evoonto cannot carry faithfully (the message is the one-line reason)."""


# -- the semantic manifest, parsed by dbt-semantic-interfaces ---------------------------------------------


def _metric_input(value: Any) -> Any:
    """dbt-core's shorthand for a metric input (``numerator: revenue``) as the mapping dsi parses."""
    return {"name": value} if isinstance(value, (str, int)) and not isinstance(value, bool) else value


def _to_dsi_model(model: dict, schema_name: str = "") -> dict:
    """A dbt-core semantic model (``model: ref('orders')``) as dbt-semantic-interfaces' YAML document
    (``node_relation``), the translation dbt-core makes before it writes the semantic manifest."""
    doc = {k: v for k, v in model.items() if k not in ("model", "group", "meta")}
    ref = _REF.search(str(model.get("model", "")))
    alias = ref.group(1) if ref else str(model.get("model") or model["name"])
    doc["node_relation"] = {"alias": alias, "schema_name": schema_name}
    return doc


def _to_dsi_metric(metric: dict) -> dict:
    """A dbt-core metric as dbt-semantic-interfaces' YAML document (metric inputs written as names
    become ``{name: ...}``, as dbt-core's parser does)."""
    doc = {k: v for k, v in metric.items() if k not in ("group", "meta")}
    params = dict(doc.get("type_params") or {})
    for key in ("numerator", "denominator"):
        if key in params:
            params[key] = _metric_input(params[key])
    if isinstance(params.get("metrics"), list):
        params["metrics"] = [_metric_input(m) for m in params["metrics"]]
    cumulative = params.get("cumulative_type_params")
    if isinstance(cumulative, dict) and "metric" in cumulative:
        params["cumulative_type_params"] = {**cumulative, "metric": _metric_input(cumulative["metric"])}
    doc["type_params"] = params
    return doc


def semantic_yaml_documents(files: list[tuple[Path, list[dict], list[dict]]], *,
                            schema_name: str = "") -> list[tuple[str, str]]:
    """``(path, YAML text)`` per file: its semantic models and metrics as dbt-semantic-interfaces' YAML
    documents (``semantic_model:`` / ``metric:``, one per ``---`` document), translated from dbt-core's
    form as dbt-core does (``model: ref('orders')`` -> ``node_relation`` with ``schema_name``; metric
    inputs written as names -> ``{name: ...}``). No project configuration document is included."""
    yaml = require("yaml")
    out = []
    for path, models, metrics in files:
        docs = [{"semantic_model": _to_dsi_model(m, schema_name)} for m in models]
        docs += [{"metric": _to_dsi_metric(m)} for m in metrics]
        # libyaml's dumper when PyYAML has it (the documents are plain data: dicts, lists, scalars)
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        out.append((str(path), yaml.dump_all(docs, Dumper=dumper, sort_keys=False)))
    return out


def read_semantic_manifest(files: list[tuple[Path, list[dict], list[dict]]]) -> Any:
    """The semantic manifest (``dbt_semantic_interfaces`` ``PydanticSemanticManifest``, transformed
    as MetricFlow reads it: ``count`` and ``median`` rewritten, simple metrics flattened to an
    aggregation, measures with ``create_metric`` made metrics) of the semantic models and metrics
    :func:`read_dbt_files` read.

    Each file's items go through dsi's own parser (``parse_yaml_files_to_validation_ready_semantic_manifest``:
    its JSON schemas, its pydantic models, its transformations) as :func:`semantic_yaml_documents`
    writes them.

    Raises:
        DbtImportError: a document dsi refuses (one line naming the file and dsi's first reason).
        evoonto.errors.ConfigurationError: dbt-semantic-interfaces is not installed (``evoonto[dbt]``).
    """
    yaml = require("yaml")
    parse_yaml_files_to_validation_ready_semantic_manifest = require(
        "dbt_semantic_interfaces.parsing.dir_to_model").parse_yaml_files_to_validation_ready_semantic_manifest
    YamlConfigFile = require("dbt_semantic_interfaces.parsing.objects").YamlConfigFile

    configs = [YamlConfigFile(filepath=path, contents=text) for path, text in semantic_yaml_documents(files)]
    configs.append(YamlConfigFile(filepath="<evoonto: project configuration>",
                                  contents=yaml.safe_dump({"project_configuration": {}})))
    try:
        result = parse_yaml_files_to_validation_ready_semantic_manifest(configs, raise_issues_as_exceptions=False)
    except Exception as exc:  # dsi raises plain exceptions for some malformed documents
        raise DbtImportError(f"dbt-semantic-interfaces cannot parse the project: {str(exc).splitlines()[0]}") from None
    if result.issues.has_blocking_issues:
        issue = result.issues.errors[0] if result.issues.errors else result.issues.all_issues[0]
        where = getattr(issue.context, "file_context", None) or issue.context
        name = getattr(where, "file_name", None) or "the project"
        message = " ".join(str(issue.message).split())
        raise DbtImportError(f"{name}: dbt-semantic-interfaces refuses it: {message[:300]}")
    return result.semantic_manifest


# -- SQL of measures, filters and metrics --------------------------------------------------------------


class _Ref:
    """What ``{{ Dimension('entity__name') }}`` renders to in a filter: the dimension's SQL."""

    def __init__(self, sql: str):
        self.sql = sql

    def __str__(self) -> str:
        return self.sql

    def grain(self, *args: Any, **kwargs: Any) -> _Ref:
        """A time grain chosen in a filter: refused (evoonto's filters compare values, not truncated times)."""
        raise _Refused("a filter with a time grain (.grain): evoonto's metric filters compare column values")

    def date_part(self, *args: Any, **kwargs: Any) -> _Ref:
        """A date part in a filter: refused."""
        raise _Refused("a filter with a date part (.date_part): evoonto's metric filters compare column values")

    def descending(self, *args: Any, **kwargs: Any) -> _Ref:
        """An order in a filter: refused."""
        raise _Refused("a filter with .descending()")


@dataclass
class _Dimension:
    table: TableInfo
    sql: str            # the dimension's expression (source dialect), columns unqualified
    column: str | None  # the catalog column when the expression is one


@dataclass
class _Aggregate:
    """A measure or metric over one table: AGG(value) with its filters, as an sqlglot tree."""

    table: TableInfo
    node: exp.Expression
    column: str | None = None          # when the value is one column and the aggregation is evo's
    aggregation: str | None = None     # evo:aggregation of (column, aggregation)
    conditions: list[str] = field(default_factory=list)   # filters (source dialect), AND-joined
    joined: bool = False               # a filter reads another table (only the column form carries it)


#: Dialects whose engines have no exact percentile aggregate (PERCENTILE_CONT / _DISC or QUANTILE_*).
_NO_PERCENTILE = frozenset({"sqlite"})
#: Dialects whose approximate continuous percentile is written as MetricFlow writes it (DuckDB:
#: ``approx_quantile(x, p)``, checked against metricflow 0.213's DuckDB renderer).
_APPROX_PERCENTILE = frozenset({"duckdb"})


def _agg_value(node: exp.Expression, agg: str, params: Any, dialect: str | None) -> exp.Expression:
    """AGG(node) for a dsi aggregation (``params``: its ``agg_params``, a dsi
    ``MeasureAggregationParameters`` or None); percentile per dialect."""
    if agg == "sum":
        return exp.Sum(this=node)
    if agg == "count":
        return exp.Count(this=node)
    if agg == "count_distinct":
        return exp.Count(this=exp.Distinct(expressions=[node]))
    if agg == "average":
        return exp.Avg(this=node)
    if agg in ("min", "max"):
        return (exp.Min if agg == "min" else exp.Max)(this=node)
    if agg == "sum_boolean":
        return exp.Sum(this=exp.Case(ifs=[exp.If(this=node, true=exp.Literal.number(1))],
                                     default=exp.Literal.number(0)))
    if agg in ("percentile", "median"):
        p = 0.5 if agg == "median" else (params.percentile if params is not None else None)
        if p is None:
            raise _Refused("a percentile without agg_params.percentile")
        discrete = bool(params is not None and params.use_discrete_percentile)
        if params is not None and params.use_approximate_percentile:
            if discrete or dialect not in _APPROX_PERCENTILE:
                raise _Refused(f"an approximate {'discrete ' if discrete else ''}percentile on "
                               f"{dialect or 'generic SQL'}: no function there gives MetricFlow's approximation")
            return exp.ApproxQuantile(this=node, quantile=exp.Literal.number(p))
        if dialect in _NO_PERCENTILE:
            raise _Refused(f"a percentile on {dialect}: the engine has no percentile aggregate")
        func = exp.PercentileDisc if discrete else exp.PercentileCont
        return exp.WithinGroup(this=func(this=exp.Literal.number(p)),
                               expression=exp.Order(expressions=[exp.Ordered(this=node, nulls_first=False)]))
    raise _Refused(f"aggregation {agg!r} has no evoonto representation")


def _with_conditions(node: exp.Expression, conditions: list[exp.Expression]) -> exp.Expression:
    """AGG(CASE WHEN conditions THEN value END): the aggregate over the rows the filters keep (no ELSE:
    as MetricFlow's WHERE, no kept row gives NULL)."""
    if not conditions:
        return node
    cond = exp.and_(*[c.copy() for c in conditions])
    node = node.copy()
    agg = node.this if isinstance(node, exp.WithinGroup) else node
    if isinstance(node, exp.WithinGroup):
        ordered = node.expression.expressions[0]
        ordered.set("this", exp.Case(ifs=[exp.If(this=cond, true=ordered.this)]))
        return node
    value = agg.this
    if isinstance(value, exp.Distinct):
        value.set("expressions", [exp.Case(ifs=[exp.If(this=cond, true=value.expressions[0])])])
        return node
    agg.set("this", exp.Case(ifs=[exp.If(this=cond, true=value)]))
    return node


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



def _enum(value: Any) -> str:
    """A dsi enum member (or a plain string) as its lower-case value."""
    return str(value.value if isinstance(value, enum.Enum) else value or "").lower()


class _Importer:
    """Reads one semantic manifest into a :class:`_Builder` (one instance per :func:`dbt_patch` call)."""

    def __init__(self, b: _Builder, manifest: Any):
        self.b, self.manifest = b, manifest
        self.tables: dict[str, TableInfo | None] = {}        # semantic model name -> its catalog table
        self.dimensions: dict[tuple[str, str], _Dimension] = {}  # (entity, dimension) -> where it is
        self.entity_keys: dict[str, tuple[TableInfo, str]] = {}  # entity name -> (table, key SQL) of its primary
        self.metrics = {m.name: m for m in manifest.metrics}
        self.metric_terms: dict[str, URIRef] = {}
        self.measure_terms: dict[str, URIRef] = {}
        self.refused: dict[str, str] = {}
        self.aggregates: dict[tuple[str, tuple[str, ...]], _Aggregate | _Refused] = {}

    # -- SQL helpers --------------------------------------------------------------------------------
    def dialect(self, table: TableInfo) -> str | None:
        return self.b.dialects.get(table.source_id)

    def parse(self, text: Any, table: TableInfo, what: str) -> exp.Expression:
        """``text`` (a dbt ``expr``) parsed in the table's dialect after the SQL guard, every column
        checked against the catalog table."""
        why = self.b.refusal(text, table)
        if why is not None:
            raise _Refused(f"{what} refused ({why})")
        node: exp.Expression = sqlglot.parse_one(str(text), read=self.dialect(table))  # type: ignore[assignment]
        for col in node.find_all(exp.Column):
            if table.column(col.name) is None and not col.table:
                raise _Refused(f"{what} {str(text)[:80]!r} names {col.name!r}, not a column of {table.name}")
        return node

    def sql(self, node: exp.Expression, table: TableInfo) -> str:
        return node.sql(dialect=self.dialect(table))

    def qualified(self, text: str, table: TableInfo, other: TableInfo) -> str:
        """``text`` (columns of ``table``) as read from a query over ``other``: columns qualified with
        the table's name when the two differ."""
        if table.iri == other.iri:
            return text
        node: exp.Expression = sqlglot.parse_one(text, read=self.dialect(table))  # type: ignore[assignment]
        for col in node.find_all(exp.Column):
            if not col.table:
                col.set("table", exp.to_identifier(table.name))
        return self.sql(node, other)

    # -- semantic models ------------------------------------------------------------------------------
    def semantic_models(self, in_budget: Callable[[int], None]) -> None:
        b = self.b
        pending_foreign: list[tuple[TableInfo, URIRef, Any, str]] = []
        for done, model in enumerate(self.manifest.semantic_models):
            in_budget(done)
            matches = b.tables_by_name.get(model.node_relation.alias.casefold(), [])
            table = matches[0] if len(matches) == 1 else None
            self.tables[model.name] = table
            if table is None:
                b.summary.skipped.append(f"semantic model {model.name}: no table {model.node_relation.alias!r} in "
                                         "the catalog")
                continue
            entity = b.column_term(table, "", entity=True)
            primary = next((e for e in model.entities if _enum(e.type) in ("primary", "unique", "natural")), None)
            primary_name = model.primary_entity or (primary.name if primary else None)
            names = [_words(model.name)] + ([_words(primary_name)] if primary_name else [])
            if entity is None:
                entity = b.new_term(b.iris.term("dbt", model.name), _words(model.name).capitalize(), ["Entity"],
                                    model.description, names)
                b.new_mapping(entity, table, None, aggregation="COUNT")
            else:
                b.enrich(entity, names, model.description)
            # a dimension is reached through the entities that identify this model's rows (MetricFlow's
            # ``entity__dimension``): its primary, unique and natural entities, not its foreign keys
            entity_names = [e.name for e in model.entities if _enum(e.type) in ("primary", "unique", "natural")]
            entity_names += [primary_name] if primary_name else []
            for ent in model.entities:
                key = ent.expr or ent.name
                if _enum(ent.type) in ("primary", "unique", "natural"):
                    self.entity_keys.setdefault(ent.name, (table, key))
                elif _enum(ent.type) == "foreign":
                    pending_foreign.append((table, entity, ent, key))
            for dim in model.dimensions:
                try:
                    found = self.dimension(model, table, dim)
                except _Refused as why:
                    b.summary.skipped.append(f"dimension {model.name}.{dim.name}: {why}")
                    continue
                for name in entity_names:
                    self.dimensions.setdefault((name, dim.name), found)
            for measure in model.measures:
                try:
                    agg = self.aggregate(table, _enum(measure.agg), measure.agg_params, measure.expr or measure.name,
                                         "expr")
                    if measure.non_additive_dimension is not None:
                        raise _Refused("non_additive_dimension (a semi-additive measure, aggregated at the last "
                                       "value of a time dimension) has no evoonto representation")
                except _Refused as why:
                    b.summary.skipped.append(f"measure {model.name}.{measure.name}: {why}")
                    continue
                label = str(measure.label or _words(measure.name))
                term = b.new_term(b.iris.term("dbt", f"{model.name}.{measure.name}"), label[:1].upper() + label[1:],
                                  ["Metric"], measure.description, [_words(measure.name)])
                if agg.column is None and measure.expr is not None:
                    b.graph.add((term, SKOS.scopeNote, Literal(f"dbt measure expression: {measure.expr}", lang="en")))
                self.map_aggregate(term, agg)
                self.measure_terms[measure.name] = term
        for table, entity, ent, key in pending_foreign:
            parent = self.entity_keys.get(ent.name)
            if parent is None:
                b.summary.skipped.append(f"entity {table.name}.{ent.name}: no semantic model has it as its primary "
                                         "entity; no join imported")
                continue
            if parent[0].iri == table.iri:
                continue
            try:
                join = self.join_condition(table, key, parent[0], parent[1])
            except _Refused as why:
                b.summary.skipped.append(f"entity {table.name}.{ent.name}: {why}")
                continue
            parent_entity = b.column_term(parent[0], "", entity=True)
            if parent_entity is not None and parent_entity != entity:
                b.relation("Association", entity, parent_entity, join_condition=join)

    def join_condition(self, child: TableInfo, child_key: str, parent: TableInfo, parent_key: str) -> str:
        """``child.key = parent.key`` with every column qualified (an entity's ``expr`` may be an expression,
        e.g. the concatenation of a composite key's columns)."""
        sides = []
        for table, key in ((child, child_key), (parent, parent_key)):
            node = self.parse(key, table, f"entity key of {table.name}")
            for col in node.find_all(exp.Column):
                col.set("table", exp.to_identifier(table.name))
            sides.append(self.sql(node, child))
        return f"{sides[0]} = {sides[1]}"

    def dimension(self, model: Any, table: TableInfo, dim: Any) -> _Dimension:
        b = self.b
        params = dim.type_params
        if params is not None and params.validity_params is not None:
            raise _Refused("validity_params (a slowly changing dimension's validity window) has no evoonto "
                           "representation")
        text = str(dim.expr or dim.name)
        node = self.parse(text, table, "expr")
        column = table.column(node.name) if isinstance(node, exp.Column) and not node.table else None
        labels = [_words(dim.name)] + ([str(dim.label)] if dim.label else [])
        kind = "TimeDimension" if _enum(dim.type) == "time" else "Dimension"
        if column is not None:
            term = b.column_term(table, column.name)
            if term is None:
                term = b.new_term(b.iris.term("dbt", f"{model.name}.{dim.name}"), labels[-1].capitalize(), [kind],
                                  dim.description, labels)
                b.new_mapping(term, table, column.name)
            else:
                b.enrich(term, labels, dim.description)
            return _Dimension(table, column.name, column.name)
        # a dimension written as an SQL expression (cast(ordered_at as DATE)): a Term with evo:expression
        sql = self.sql(node, table)
        term = b.new_term(b.iris.term("dbt", f"{model.name}.{dim.name}"), labels[-1].capitalize(), [kind],
                          dim.description, labels)
        # no evo:column: the Term is the expression's value, not the column's (the column keeps its own Term)
        b.new_mapping(term, table, None, expression=sql)
        return _Dimension(table, sql, None)

    # -- measures and metrics ---------------------------------------------------------------------------
    def aggregate(self, table: TableInfo, agg: str, params: Any, expr: Any, what: str) -> _Aggregate:
        node = self.parse(expr, table, what)
        value = _agg_value(node, agg, params, self.dialect(table))
        is_column = isinstance(node, exp.Column) and not node.table and agg in AGGREGATIONS
        return _Aggregate(table, value, node.name if is_column else None,
                          AGGREGATIONS.get(agg) if is_column else None)

    def map_aggregate(self, term: URIRef, agg: _Aggregate, *, fill: int | None = None) -> None:
        """The Mapping of a measure or simple metric: (column, aggregation, filter) when it is one, else
        the aggregate with its filters and null fill as ``evo:expression``."""
        b = self.b
        condition = " AND ".join(f"({c})" if len(agg.conditions) > 1 else c for c in agg.conditions) or None
        if agg.column is not None and fill is None:
            b.new_mapping(term, agg.table, agg.column, aggregation=agg.aggregation, filter=condition)
            return
        if agg.joined:
            raise _Refused("a filter on another table's dimension with an aggregate expression: an evoonto metric "
                           "expression reads one table")
        b.new_mapping(term, agg.table, None, expression=self.sql(self.node_of(agg, fill), agg.table))

    def node_of(self, agg: _Aggregate, fill: int | None = None) -> exp.Expression:
        conditions: list[exp.Expression] = [sqlglot.parse_one(c, read=self.dialect(agg.table))  # type: ignore[misc]
                                             for c in agg.conditions]
        node = _with_conditions(agg.node, conditions)
        if fill is not None:
            node = exp.Coalesce(this=node, expressions=[exp.Literal.number(fill)])
        return node

    def render_filter(self, template: str, table: TableInfo) -> tuple[str, bool]:
        """A MetricFlow ``where`` filter rendered (Jinja, sandboxed) with each ``Dimension('entity__name')``
        and ``Entity('name')`` replaced by its SQL as read from ``table``; (condition, reads another table)."""
        from jinja2 import TemplateError
        from jinja2.sandbox import SandboxedEnvironment

        other = [False]

        def dimension(name: str, *args: Any, **kwargs: Any) -> _Ref:
            parts = str(name).split("__")
            if len(parts) < 2:
                raise _Refused(f"filter dimension {name!r} names no entity")
            found = self.dimensions.get((parts[-2], parts[-1]))
            if found is None:
                raise _Refused(f"filter dimension {name!r} is not a dimension evoonto imported")
            other[0] |= found.table.iri != table.iri
            sql = self.qualified(found.sql, found.table, table)
            return _Ref(sql if found.column else f"({sql})")

        def time_dimension(name: str, grain: Any = None, *args: Any, **kwargs: Any) -> _Ref:
            if grain is not None or str(name).split("__")[-1] == "metric_time":
                raise _Refused(f"a filter on TimeDimension({name!r}{', ' + repr(grain) if grain else ''}): "
                               "metric_time and time grains have no evoonto representation in a filter")
            return dimension(name)

        def entity(name: str, *args: Any, **kwargs: Any) -> _Ref:
            found = self.entity_keys.get(str(name).split("__")[-1])
            if found is None:
                raise _Refused(f"filter entity {name!r} is no semantic model's primary entity")
            other[0] |= found[0].iri != table.iri
            return _Ref(self.qualified(found[1], found[0], table))

        def metric(name: str, *args: Any, **kwargs: Any) -> _Ref:
            raise _Refused(f"a filter on Metric({name!r}) (a metric computed per entity) has no evoonto "
                           "representation")

        try:
            text = SandboxedEnvironment().from_string(template).render(
                Dimension=dimension, TimeDimension=time_dimension, Entity=entity, Metric=metric).strip()
        except TemplateError as exc:
            raise _Refused(f"filter {template.strip()[:80]!r} does not render ({str(exc)[:80]})") from None
        why = self.b.refusal(text, table)
        if why is not None:
            raise _Refused(f"filter refused ({why})")
        return text, other[0]

    def filters(self, intersection: Any) -> list[str]:
        return [f.where_sql_template for f in (intersection.where_filters if intersection is not None else [])]

    def metric_aggregate(self, name: str, extra: list[str], seen: tuple[str, ...] = ()) -> _Aggregate:
        """The aggregate of a metric (a simple one, or a ratio/derived one over inputs of one table) with
        the filters ``extra`` added; raises :class:`_Refused` with the reason it cannot be carried.
        Each (metric, filters) is worked out once per import (an input used twice is not recomputed)."""
        key = (name, tuple(extra))
        if key not in self.aggregates:
            try:
                self.aggregates[key] = self._metric_aggregate(name, extra, seen)
            except _Refused as why:
                self.aggregates[key] = why
        found = self.aggregates[key]
        if isinstance(found, _Refused):
            raise found
        return found

    def _metric_aggregate(self, name: str, extra: list[str], seen: tuple[str, ...]) -> _Aggregate:
        metric = self.metrics.get(name)
        if metric is None:
            raise _Refused(f"input {name!r} is not a metric of the project")
        if name in seen:
            raise _Refused(f"metric {name!r} is its own input")
        if len(seen) > MAX_METRIC_NESTING:
            raise _Refused(f"inputs nest more than {MAX_METRIC_NESTING} metrics deep")
        kind = _enum(metric.type)
        params = metric.type_params
        own = self.filters(metric.filter) + extra
        if kind == "simple":
            if params.join_to_timespine or (params.measure is not None and params.measure.join_to_timespine):
                raise _Refused("join_to_timespine (a row for every period of the time spine, even without data) has "
                               "no evoonto representation")
            agg_params = params.metric_aggregation_params
            if agg_params is None:
                raise _Refused("a simple metric without a measure or aggregation")
            if agg_params.non_additive_dimension is not None:
                raise _Refused("non_additive_dimension (a semi-additive measure) has no evoonto representation")
            table = self.tables.get(agg_params.semantic_model)
            if table is None:
                raise _Refused(f"semantic model {agg_params.semantic_model} has no table in the catalog")
            measure_filter = self.filters(params.measure.filter) if params.measure is not None else []
            agg = self.aggregate(table, _enum(agg_params.agg), agg_params.agg_params, params.expr, "expr")
            for template in measure_filter + own:
                condition, joined = self.render_filter(template, table)
                agg.conditions.append(condition)
                agg.joined |= joined
            return agg
        if kind == "cumulative":
            cumulative = params.cumulative_type_params
            window = params.window or (cumulative.window if cumulative else None)
            to_date = params.grain_to_date or (cumulative.grain_to_date if cumulative else None)
            if window is not None:
                raise _Refused(f"a cumulative window of {window.count} {window.granularity}(s) (a running total over "
                               "metric_time) has no evoonto representation")
            if to_date is not None:
                raise _Refused(f"a cumulative {_enum(to_date)}-to-date total has no evoonto representation")
            raise _Refused("a cumulative all-time total (a running total over metric_time) has no evoonto "
                           "representation")
        if kind == "conversion":
            raise _Refused("a conversion metric (entities that convert within a window) has no evoonto representation")
        inputs = [params.numerator, params.denominator] if kind == "ratio" else list(params.metrics or [])
        if not inputs or any(i is None for i in inputs):
            raise _Refused(f"a {kind} metric without inputs")
        parts: dict[str, exp.Expression] = {}
        first: TableInfo | None = None
        for item in inputs:
            if item.offset_window is not None or item.offset_to_grain is not None:
                shift = (f"{item.offset_window.count} {item.offset_window.granularity}" if item.offset_window else
                         f"to {item.offset_to_grain}")
                raise _Refused(f"input {item.name} offset by {shift} (a value from an earlier period) has no "
                               "evoonto representation")
            try:
                agg = self.metric_aggregate(item.name, self.filters(item.filter) + own, seen + (name,))
            except _Refused as why:  # named by the direct input and the first reason (not the whole chain)
                raise _Refused(f"input {item.name}: {re.sub(r'^(input [^:]+: )+', '', str(why))}") from None
            if agg.joined:
                raise _Refused(f"input {item.name} filters on another table's dimension: an evoonto metric "
                               "expression reads one table")
            if first is not None and agg.table.iri != first.iri:
                raise _Refused(f"inputs on two tables ({first.name}, {agg.table.name}): an evoonto metric "
                               "expression reads one table")
            first = agg.table
            fill = self.fill_of(item.name)
            parts[item.alias or item.name] = self.node_of(agg, fill)
        assert first is not None
        if kind == "ratio":  # as MetricFlow writes a ratio
            num, den = (parts[i.alias or i.name] for i in inputs)
            node: exp.Expression = exp.Div(this=exp.cast(num, "double"),
                                           expression=exp.cast(exp.Nullif(this=den, expression=exp.Literal.number(0)),
                                                               "double"))
        else:
            formula = self.parse_formula(params.expr, first, set(parts))
            node = formula.transform(lambda n: exp.Paren(this=parts[n.name].copy())
                                     if isinstance(n, exp.Column) and not n.table and n.name in parts else n)
        size = sum(1 for _ in node.walk())
        if size > MAX_EXPRESSION_NODES:
            raise _Refused(f"its SQL expression would have {size:,} nodes (inputs repeated through nested formulas); "
                           f"the limit is {MAX_EXPRESSION_NODES:,}")
        return _Aggregate(first, node)

    def fill_of(self, name: str) -> int | None:
        metric = self.metrics.get(name)
        if metric is None or _enum(metric.type) != "simple":
            return None
        params = metric.type_params
        if params.fill_nulls_with is not None:
            return int(params.fill_nulls_with)
        return params.measure.fill_nulls_with if params.measure is not None else None

    def parse_formula(self, text: Any, table: TableInfo, names: set[str]) -> exp.Expression:
        why = self.b.refusal(text, table)
        if why is not None:
            raise _Refused(f"expr refused ({why})")
        node: exp.Expression = sqlglot.parse_one(str(text), read=self.dialect(table))  # type: ignore[assignment]
        unknown = sorted({c.sql() for c in node.find_all(exp.Column) if c.table or c.name not in names})
        if unknown:
            raise _Refused(f"expr {str(text)[:80]!r} names {', '.join(unknown)}, not one of its inputs")
        return node

    def metric(self, metric: Any) -> None:
        """One metric of the manifest: a Metric Term with a Mapping, or a refusal line."""
        b = self.b
        name = metric.name
        kind = _enum(metric.type)
        agg = self.metric_aggregate(name, [])
        fill = self.fill_of(name)
        if kind == "simple" and agg.column is not None and fill is None:
            pass  # the Mapping carries (column, aggregation, filter)
        elif agg.joined:
            raise _Refused("a filter on another table's dimension with an aggregate expression: an evoonto metric "
                           "expression reads one table")
        label = str(metric.label or _words(name))
        term = b.new_term(b.iris.term("dbt", f"metric.{name}"), label[:1].upper() + label[1:], ["Metric"],
                          metric.description, [_words(name)])
        self.metric_terms[name] = term
        params = metric.type_params
        if kind == "simple":
            self.map_aggregate(term, agg, fill=fill)
            measure = params.measure.name if params.measure is not None else None
            if measure in self.measure_terms:
                b.relation("Derivation", term, self.measure_terms[measure], formula=measure)
            condition = " AND ".join(agg.conditions) if len(agg.conditions) == 1 else \
                " AND ".join(f"({c})" for c in agg.conditions)
            if condition:
                Constraint(b.iris.constraint(f"dbt.{name}.filter"), constrains=[term], condition=condition,
                           severity="Warning", comment=f"dbt metric {name} counts only rows where {condition}",
                           trigger_keywords=[_words(name)]).to_graph(b.graph)
                b.summary.constraints += 1
            return
        b.new_mapping(term, agg.table, None, expression=self.sql(agg.node, agg.table))
        inputs = [params.numerator, params.denominator] if kind == "ratio" else list(params.metrics or [])
        formula = (" / ".join(i.name for i in inputs) if kind == "ratio" else str(params.expr))
        for item in inputs:
            other = self.metric_terms.get(item.name)
            if other is not None and other != term:
                b.relation("Derivation", term, other, formula=formula)


def dbt_patch(ontology: Ontology, folder: Path | str, *,
              max_seconds: float = MAX_DBT_SECONDS) -> tuple[Patch, DbtSummary]:
    """The content patch importing the dbt project at ``folder`` into ``ontology`` (not committed).

    The project's semantic models and metrics are parsed by dbt-semantic-interfaces
    (:func:`read_semantic_manifest`); every metric of the manifest is either imported (its name in
    :attr:`DbtSummary.imported`) or refused with a one-line reason (:attr:`DbtSummary.refused`, and a
    line in :attr:`DbtSummary.skipped`).

    Args:
        ontology: the active version.
        folder: the dbt project folder.
        max_seconds: time budget of the import, in seconds (:data:`MAX_DBT_SECONDS`).

    Raises:
        DbtImportError: see :func:`read_dbt_files` and :func:`read_semantic_manifest`; no semantic model or
            metric in the project; the time budget passed (nothing is returned, so nothing is committed).
        evoonto.errors.ConfigurationError: PyYAML or dbt-semantic-interfaces is not installed
            (``pip install 'evoonto[dbt]'``).
    """
    import time

    started = time.monotonic()
    files = read_dbt_files(folder)
    if not files:
        raise DbtImportError(f"{folder} has no semantic_models or metrics in its YAML files")
    b = _Builder(ontology)
    for _path, models, _metrics in files:  # an aggregation dsi does not know: refused here, not the whole project
        for model in models:
            kept = []
            for measure in model.get("measures") or []:
                given = str(measure.get("agg") or "").lower()
                if given not in _DSI_AGGREGATIONS:
                    b.summary.skipped.append(f"measure {model['name']}.{measure['name']}: agg {given[:40]!r} is not a "
                                             f"dbt aggregation ({', '.join(sorted(_DSI_AGGREGATIONS))})")
                    continue
                kept.append(measure)
            if model.get("measures"):
                model["measures"] = kept
    refused, depths = _metric_nesting(files)
    for name, why in refused.items():  # before dsi, whose transformations follow every path
        b.summary.refused[name] = why
        b.summary.skipped.append(f"metric {name}: {why}")
    files = [(path, models, [m for m in metrics if str(m["name"]) not in b.summary.refused])
             for path, models, metrics in files]
    manifest = read_semantic_manifest(files)
    total = len(manifest.semantic_models) + len(manifest.metrics)

    def in_budget(done: int) -> None:
        if time.monotonic() - started > max_seconds:
            raise DbtImportError(f"{folder}: import stopped after {max_seconds:g} s ({done:,} of "
                                 f"{total:,} semantic models and metrics read)")
    importer = _Importer(b, manifest)
    importer.semantic_models(in_budget)
    for done, metric in enumerate(sorted(manifest.metrics, key=lambda m: depths.get(m.name, 0)),
                                  start=len(manifest.semantic_models)):
        in_budget(done)
        if metric.type_params.is_private:
            continue  # made by dsi's transformations as another metric's input; not queryable itself
        try:
            importer.metric(metric)
        except _Refused as why:
            b.summary.refused[metric.name] = str(why)
            b.summary.skipped.append(f"metric {metric.name}: {why}")
            continue
        b.summary.imported.append(metric.name)
    patch = Patch.from_graphs("content", {"content": b.graph}, {"content": b.removals},
                              signature=f"import dbt {Path(folder).name}", intervention=b.summary.line())
    return patch, b.summary


def _raw_inputs(metric: dict) -> list[str]:
    """The metrics a ratio or derived metric (as written in the YAML) reads."""
    params = metric.get("type_params") or {}
    kind = str(metric.get("type", "")).lower()
    items: list[Any] = []
    if kind == "ratio":
        items = [params.get("numerator"), params.get("denominator")]
    elif kind == "derived" and isinstance(params.get("metrics"), list):
        items = list(params["metrics"])
    names = [_metric_input(i).get("name") if isinstance(_metric_input(i), dict) else None for i in items]
    return [str(n) for n in names if n is not None]


def _metric_nesting(files: list[tuple[Path, list[dict], list[dict]]]) -> tuple[dict[str, str], dict[str, int]]:
    """How the ratio/derived metrics of the YAML nest, read before dsi (whose transformations follow
    every path of the inputs).

    Returns:
        ``(refused, depths)``: metric name -> reason, for the metrics whose inputs loop, nest deeper
        than :data:`MAX_METRIC_NESTING` or expand to more than :data:`MAX_INPUT_EXPANSION` paths (an
        input read twice at each of 20 levels is a million); and metric name -> how deep its inputs
        nest (0: simple, cumulative, conversion), so that a metric is imported after its inputs and
        its Derivation relations find their Terms (a metric dsi makes from a measure is simple).
    """
    raw = {str(m["name"]): m for _path, _models, metrics in files for m in metrics}
    memo: dict[str, tuple[int, int]] = {}  # name -> (paths through its inputs, depth of its inputs)
    over = (MAX_INPUT_EXPANSION + 1, MAX_METRIC_NESTING + 1)

    def count(name: str, stack: frozenset[str]) -> tuple[int, int]:
        if name in memo:
            return memo[name]
        if name in stack or len(stack) > MAX_METRIC_NESTING:
            return over
        inputs = _raw_inputs(raw[name]) if name in raw else []
        if not inputs:
            found = (1, 0)
        else:
            counted = [count(i, stack | {name}) for i in inputs]
            found = (min(over[0], sum(c[0] for c in counted)), min(over[1], 1 + max(c[1] for c in counted)))
        memo[name] = found
        return found

    refused, depths = {}, {}
    for name in raw:
        paths, depths[name] = count(name, frozenset())
        if paths >= over[0] or depths[name] >= over[1]:
            refused[name] = (f"its inputs loop, nest more than {MAX_METRIC_NESTING} metrics deep or expand to more "
                             f"than {MAX_INPUT_EXPANSION:,} paths")
    return refused, depths


#: The ``agg`` values dbt-semantic-interfaces accepts.
_DSI_AGGREGATIONS = ("average", "count", "count_distinct", "max", "median", "min", "percentile", "sum", "sum_boolean")

__all__ = ["AGGREGATIONS", "DbtImportError", "DbtSummary", "dbt_patch", "read_dbt_files", "read_dbt_project",
           "read_semantic_manifest", "semantic_yaml_documents"]
