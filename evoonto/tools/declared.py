"""Declared tools: extra agent-facing tools defined as data in the ``tools`` graph (paper §3, Tool layer R).

::

    <B tools/convert_currency> a evo:DeclaredTool ;
        evo:toolName "convert_currency" ; rdfs:comment "Amount in EUR of a USD amount." ;
        evo:sqlTemplate "SELECT :amount * rate AS eur FROM fx WHERE code = :code" ;
        evo:source <B source/shop> ;                      # which catalogued source runs it
        evo:parameter <B tools/convert_currency/amount>, <B tools/convert_currency/code> .
    <B tools/convert_currency/amount> evo:parameterName "amount" ; evo:parameterType "number" .

SQL templates use ``:name`` placeholders. They are bound on the parse tree: the template is parsed
with sqlglot in the source's dialect and each placeholder is replaced by a literal node
(``sqlglot.exp.convert``), so a value can never change the statement's structure; the statement then
runs through the read-only source layer (single SELECT/WITH, row cap, timeout).
SPARQL templates use ``$name`` placeholders, replaced by escaped SPARQL literals
(:func:`evoonto.tools.sparql.literal`) outside strings, IRIs and comments; the query runs on the
ontology (read-only: ``query()`` does not accept updates).

Malformed declarations (bad names, unknown parameter types, no or two templates, a template the SQL
guard refuses or a SPARQL Update) are skipped with a warning, so a bad Tool patch cannot take the other
tools down; a Tool patch adding such a template is refused at commit (:func:`check_declared_templates`,
registered with :func:`evoonto.validation.register_patch_check`).
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from evoonto.errors import SourceError, ToolArgumentError, first_line
from evoonto.tools.sparql import literal, local_name, select

if TYPE_CHECKING:
    from evoonto.patch import Patch

PARAMETER_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool}
RESERVED_NAMES = frozenset({"browse", "resolve", "list_tables", "describe_table", "run_sql", "manifest"})
MAX_ARG_CHARS = 1000
MAX_ROWS = 100

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,47}$")
_PARAM = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,31}$")
# strings, IRIs, comments, then $variables (SPARQL 1.1 grammar §19.8 tokens)
_SPARQL_TOKENS = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*\'\'\''
    r'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|<[^<>"{}|^`\\\s]*>|#[^\n]*|\$([A-Za-z_][A-Za-z0-9_]*)'
)


@dataclass(frozen=True)
class Parameter:
    """A declared tool parameter: ``name`` and JSON Schema ``type`` (string/integer/number/boolean)."""

    name: str
    type: str = "string"


@dataclass(frozen=True)
class DeclaredTool:
    """One declared tool.

    Attributes:
        name: tool name shown to the agent (``[a-z][a-z0-9_]*``, not a built-in tool name).
        description: ``rdfs:comment``.
        language: ``"sql"`` or ``"sparql"``.
        template: the template text.
        parameters: in declaration order (sorted by name).
        source: IRI of the ``dcat:Dataset`` a SQL template runs on (None: the only source).
        iri: the declaration's IRI.
    """

    name: str
    description: str
    language: str
    template: str
    parameters: tuple[Parameter, ...]
    source: str | None = None
    iri: str = ""

    def input_schema(self) -> dict[str, Any]:
        """JSON Schema of the arguments (every parameter required, no extra properties)."""
        props: dict[str, dict[str, Any]] = {
            p.name: {"type": p.type, "description": f"{p.name} ({p.type})"} for p in self.parameters}
        for p in self.parameters:
            if p.type == "string":
                props[p.name]["maxLength"] = MAX_ARG_CHARS
        return {"type": "object", "properties": props, "required": [p.name for p in self.parameters],
                "additionalProperties": False}

    def check_args(self, arguments: Any) -> dict[str, Any]:
        """Validate and coerce arguments.

        Raises:
            ToolArgumentError: not an object, missing or unknown parameters, wrong types, strings
                longer than 1,000 characters.
        """
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise ToolArgumentError(f"{self.name}: arguments must be an object")
        names = {p.name for p in self.parameters}
        unknown = sorted(str(k)[:40] for k in arguments if k not in names)
        if unknown:
            raise ToolArgumentError(f"{self.name}: unknown parameter(s) {', '.join(map(repr, unknown))}")
        out = {}
        for p in self.parameters:
            if p.name not in arguments:
                raise ToolArgumentError(f"{self.name}: missing parameter {p.name!r}")
            out[p.name] = _coerce(self.name, p, arguments[p.name])
        return out


def _coerce(tool: str, param: Parameter, value: Any) -> Any:
    expected = PARAMETER_TYPES[param.type]
    if param.type == "number" and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, expected) or (expected is not bool and isinstance(value, bool)):
        raise ToolArgumentError(f"{tool}: parameter {param.name!r} must be of type {param.type}")
    if isinstance(value, str) and len(value) > MAX_ARG_CHARS:
        raise ToolArgumentError(f"{tool}: parameter {param.name!r} is longer than {MAX_ARG_CHARS} characters")
    if isinstance(value, float) and value != value:
        raise ToolArgumentError(f"{tool}: parameter {param.name!r} is not a number")
    return value


def load_declared_tools(ontology: Any) -> list[DeclaredTool]:
    """The valid declared tools of the ontology, sorted by name (invalid ones skipped with a warning)."""
    rows = select(ontology, """
        SELECT ?tool ?p ?o ?pname ?ptype WHERE {
          ?tool a evo:DeclaredTool ; ?p ?o .
          FILTER NOT EXISTS { ?tool owl:deprecated true }
          OPTIONAL { FILTER(?p = evo:parameter) ?o evo:parameterName ?pname . OPTIONAL { ?o evo:parameterType ?ptype } }
        }""")
    raw: dict[str, dict[str, list]] = {}
    for row in rows:
        entry = raw.setdefault(row["tool"], {})
        pred = local_name(row["p"])
        if pred == "parameter":
            if "pname" in row:
                entry.setdefault("parameter", []).append((row["pname"], row.get("ptype", "string")))
        else:
            entry.setdefault(pred, []).append(row["o"])
    tools: dict[str, DeclaredTool] = {}
    for iri, entry in sorted(raw.items()):
        try:
            tool = _declared(iri, entry)
        except ValueError as exc:
            warnings.warn(f"declared tool {iri} skipped: {exc}", stacklevel=2)
            continue
        if tool.name in tools:
            warnings.warn(f"declared tool {iri} skipped: duplicate name {tool.name!r}", stacklevel=2)
            continue
        tools[tool.name] = tool
    return [tools[k] for k in sorted(tools)]


def _declared(iri: str, entry: dict[str, list]) -> DeclaredTool:
    names = entry.get("toolName", [])
    if len(names) != 1 or not _NAME.match(names[0]) or names[0] in RESERVED_NAMES:
        raise ValueError(f"tool name must be one [a-z][a-z0-9_]* that is not built in, got {names[:2]}")
    sql, sparql = entry.get("sqlTemplate", []), entry.get("sparqlTemplate", [])
    if len(sql) + len(sparql) != 1:
        raise ValueError("exactly one evo:sqlTemplate or evo:sparqlTemplate is required")
    params = []
    for pname, ptype in sorted(set(entry.get("parameter", []))):
        if not _PARAM.match(pname) or ptype not in PARAMETER_TYPES:
            raise ValueError(f"bad parameter {pname[:40]!r} of type {ptype[:20]!r}")
        params.append(Parameter(pname, ptype))
    if len({p.name for p in params}) != len(params):
        raise ValueError("parameter declared twice")
    refusal = template_refusal(sql[0], "sql") if sql else template_refusal(sparql[0], "sparql")
    if refusal is not None:
        raise ValueError(refusal)
    comment = (entry.get("comment") or [""])[0]
    sources = entry.get("source", [])
    return DeclaredTool(
        name=names[0], description=comment or f"declared {'SQL' if sql else 'SPARQL'} tool",
        language="sql" if sql else "sparql", template=(sql or sparql)[0], parameters=tuple(params),
        source=sources[0] if sources else None, iri=iri,
    )


def template_refusal(template: str, language: str) -> str | None:
    """Why a declared tool's template may not be served, or None.

    A SQL template is judged by the guard every SQL entry point shares
    (:func:`evoonto.sources.guard.check_read_only`, generic dialect, ``:name`` placeholders read as
    values): one read-only SELECT/WITH within the size and depth limits, no denied node or function.
    A template that does not parse in the generic dialect may still parse in its source's and is
    checked again there when run. A SPARQL template must not be a SPARQL Update.
    """
    from evoonto.errors import ReadOnlyViolation
    from evoonto.sources.guard import check_read_only
    from evoonto.store import QueryError, refuse_update

    if language == "sparql":
        try:
            refuse_update(template, where="a declared tool")
        except QueryError as exc:
            return first_line(exc, 300)
        return None
    try:
        check_read_only(template)
    except ReadOnlyViolation as exc:
        if exc.stage != "parse":
            return f"SQL template {str(exc)}"
    return None


def check_declared_templates(candidate: Any, patch: Patch) -> list[Any]:
    """The patch check (:func:`evoonto.validation.register_patch_check`) that refuses a Tool patch
    adding a declared tool whose template :func:`template_refusal` refuses (a write, a second
    statement, a denied function, a SPARQL Update): one Violation per such template, so the patch
    is not committed and the tool is never advertised."""
    from rdflib import URIRef

    from evoonto.namespaces import EVO
    from evoonto.validation import ValidationResult

    languages = {URIRef(str(EVO.sqlTemplate)): "sql", URIRef(str(EVO.sparqlTemplate)): "sparql"}
    results = []
    for triples in patch.additions.values():
        for subject, predicate, template in triples:
            language = languages.get(predicate)
            reason = template_refusal(str(template), language) if language else None
            if reason is not None:
                results.append(ValidationResult("Violation", None, subject, predicate, None,
                                                f"declared tool template refused: {reason}"))
    return results


def _register() -> None:
    from evoonto.validation import register_patch_check

    register_patch_check(check_declared_templates)


_register()


def bind_sql(template: str, arguments: dict[str, Any], dialect: str | None = None) -> str:
    """The SQL of ``template`` with each ``:name`` placeholder replaced by a literal node.

    Raises:
        ToolArgumentError: the template is longer than the read-only guard accepts
            (:data:`evoonto.sources.guard.MAX_SQL_CHARS` characters; refused before it is parsed, since
            parsing a statement that will be refused anyway can take seconds), does not parse, or uses a
            placeholder without an argument.
    """
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    from evoonto.sources.guard import MAX_SQL_CHARS

    if len(template) > MAX_SQL_CHARS:
        raise ToolArgumentError(
            f"declared SQL template is {len(template):,} characters long, the limit is {MAX_SQL_CHARS:,}")
    try:
        tree = sqlglot.parse_one(template, read=dialect)
    except SqlglotError as exc:
        raise ToolArgumentError(f"declared SQL template does not parse: {first_line(exc, 200)}") from None
    except RecursionError:
        raise ToolArgumentError("declared SQL template is nested too deeply to be parsed") from None
    missing = sorted({p.name for p in tree.find_all(exp.Placeholder) if p.name not in arguments})
    if missing:
        raise ToolArgumentError(f"declared SQL template uses undeclared placeholder(s) {', '.join(missing)}")
    try:
        bound = tree.transform(
            lambda node: exp.convert(arguments[node.name]) if isinstance(node, exp.Placeholder) else node
        )
        return bound.sql(dialect=dialect)
    except RecursionError:
        raise ToolArgumentError("declared SQL template is nested too deeply to be bound") from None


def bind_sparql(template: str, arguments: dict[str, Any]) -> str:
    """The SPARQL of ``template`` with each ``$name`` outside strings/IRIs/comments replaced by a literal.

    Raises:
        ToolArgumentError: a ``$name`` placeholder has no argument.
    """

    def replace(match: re.Match) -> str:
        name = match.group(1)
        if name is None:
            return match.group(0)
        if name not in arguments:
            raise ToolArgumentError(f"declared SPARQL template uses undeclared placeholder ${name}")
        return literal(arguments[name])

    return _SPARQL_TOKENS.sub(replace, template)


def run_declared(tool: DeclaredTool, arguments: Any, *, ontology: Any,
                 open_source: Callable[[str | None], Any] | None = None) -> dict[str, Any]:
    """Run a declared tool.

    Args:
        tool: the declaration.
        arguments: the agent's arguments (validated with :meth:`DeclaredTool.check_args`).
        ontology: the Ontology (SPARQL templates run on it).
        open_source: maps ``tool.source`` (IRI or None) to an open read-only Source (SQL templates).
    Returns:
        ``{"columns": [...], "rows": [[...], ...], "truncated": bool}`` with at most 100 rows and,
        for SQL tools, at most :data:`evoonto.tools.data.MAX_ANSWER_CHARS` characters of JSON
        (plus ``"note"`` when the answer was cut).
    Raises:
        ToolArgumentError: bad arguments; SourceError: no source available or the query failed.
    """
    args = tool.check_args(arguments)
    if tool.language == "sparql":
        rows = select(ontology, bind_sparql(tool.template, args))
        columns = sorted({k for r in rows for k in r})
        return {"columns": columns, "rows": [[r.get(c) for c in columns] for r in rows[:MAX_ROWS]],
                "truncated": len(rows) > MAX_ROWS}
    if open_source is None:
        raise SourceError(f"{tool.name}: no data source is configured for declared SQL tools")
    source = open_source(tool.source)
    # the template is bound (and its length checked) before the source is used
    sql = bind_sql(tool.template, args, source.dialect if source is not None else None)
    from evoonto.tools.data import SOURCE_MAX_CHARS, bound_answer

    result = source.run(sql, limit=MAX_ROWS, max_chars=SOURCE_MAX_CHARS)
    return bound_answer(list(result.columns), [list(r) for r in result.rows], bool(result.truncated),
                        result.note)
