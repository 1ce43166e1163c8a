"""SQL -> semantic query: what a verified (or any) SELECT asks, in the terms of one ontology.

The inverse of :func:`evoonto.tools.semantic.compile_semantic`: :func:`translate_sql` reads one SQLite
SELECT with sqlglot and writes the semantic query (:data:`evoonto.tools.semantic.SEMANTIC_QUERY_SCHEMA`)
that asks for the same rows, with record ids of the ontology it is given — its catalog columns and
tables, the column Terms (one plain Mapping), the Entity Terms of tables, and the metric Terms whose
``evo:expression`` equals an aggregate of the SQL (compared as text with every column written
``table.column``, case-folded, :func:`normalized`). It never reads a result and never runs anything.

Two users: the benchmark ``benchmarks/semantic_query_bench.py`` (it translates gold SQL on the scorer
side; only the semantic query reaches the compiler) and evolution (:mod:`evoonto.evolution.diagnose`,
signature ``missing_measure``), which translates a failed task's *verified* SQL to find the aggregate
the ontology has no metric Term for, or the filter it has no named Constraint for.

What it expresses: one SELECT (or a UNION/INTERSECT/EXCEPT of two) over real tables joined by equality
of columns (``JOIN … ON`` or in ``WHERE``; each join must be one the ontology knows, see
:class:`~evoonto.tools.joinpaths.JoinGraph`); selected columns, ``strftime`` date grains (year, month,
day), ``COUNT/SUM/AVG/MIN/MAX`` of a column, ``COUNT(*)``, ``COUNT(DISTINCT c)``, conditional
aggregates (``SUM(IIF(c, 1, 0))``, ``SUM(CASE WHEN c THEN x ELSE 0 END)``, ``COUNT/AVG(CASE WHEN c
THEN x END)``), arithmetic over aggregates with a floating-point division; ``WHERE``/``HAVING``
comparisons (``= != < <= > >= LIKE BETWEEN IN IS NULL``, ``AND``, ``OR``, ``NOT``), ``IN`` and scalar
sub-queries, ``GROUP BY``, ``ORDER BY``, ``LIMIT``, ``DISTINCT``.

What raises :class:`NotExpressible` (the message names the piece): SQL sqlglot does not parse,
``WITH``, a sub-query in ``FROM``, a self-join, ``LEFT/RIGHT/OUTER JOIN``, ``JOIN USING``, a cross
product, a join the ontology does not know, a table or column the catalog lacks, an expression where a
column is needed (``a + b`` as a dimension), an integer division over aggregates, a ``SUM/AVG/COUNT``
of a column the SQL's own joins repeat (the SQL multiplies it; a semantic query would not), a selected
column that is not grouped (unless a grouped unique key of its table determines it), ``OFFSET``,
``DISTINCT`` over aggregates, a set operation with its own order or limit.
"""

from __future__ import annotations

from typing import Any

import sqlglot
from sqlglot import exp

from evoonto.errors import EvoontoError

__all__ = ["NotExpressible", "Lookup", "Translator", "translate_sql", "normalized", "metric_specs"]


class NotExpressible(EvoontoError):
    """The SQL uses something a semantic query does not say (the message names it, one line)."""


class Lookup:
    """Record ids of one ontology: catalog columns and tables, column Terms, Entity Terms, metric
    Terms by expression, and the join graph.

    Args:
        ontology: an :class:`~evoonto.ontology.Ontology` (catalog, content).
        codec: an :class:`~evoonto.tools.resolve.IdCodec` (ids as browse/resolve give them).

    Attributes:
        columns: ``(table, column)`` case-folded -> id (the column's own Term when it has one);
        tables: table case-folded -> id (its Entity Term when it has one); names: table case-folded ->
        column names; table_name: table case-folded -> catalog spelling; metric_terms: normalized
        expression (:func:`normalized`) -> metric Term id; graph: the
        :class:`~evoonto.tools.joinpaths.JoinGraph`.
    """

    def __init__(self, ontology: Any, codec: Any):
        from evoonto.catalog import read_catalog
        from evoonto.tools.joinpaths import join_graph_of
        from evoonto.tools.semantic import semantic_vocabulary

        self.codec = codec
        self.graph = join_graph_of(ontology)
        vocab = semantic_vocabulary(ontology)
        self.columns: dict[tuple[str, str], str] = {}   # (table, column) casefolded -> id
        self.tables: dict[str, str] = {}                  # table casefolded -> id
        self.names: dict[str, list[str]] = {}             # table casefolded -> column names
        self.table_name: dict[str, str] = {}
        catalog = read_catalog(ontology)
        for src in catalog.sources:
            for table in src.tables:
                key = table.name.casefold()
                self.tables[key] = codec.to_id(str(table.iri))
                self.table_name[key] = table.name
                self.names[key] = [c.name for c in table.columns]
                for col in table.columns:
                    self.columns[(key, col.name.casefold())] = codec.to_id(str(col.iri))
        # metric Terms with an expression (mined from verified queries): normalized expression -> id
        self.metric_terms: dict[str, str] = {}
        for iri, places in vocab.places.items():
            for place in places:
                if place.expression and "Metric" in vocab.kinds.get(iri, set()):
                    try:
                        node = sqlglot.parse_one(place.expression, read="sqlite")
                    except sqlglot.errors.SqlglotError:
                        continue
                    text = normalized(node, lambda c, t=place.table: c.table or t)
                    self.metric_terms.setdefault(text, codec.to_id(iri))
        # prefer the column's own Term (one Mapping, no filter, no expression) over the catalog column
        for iri, places in vocab.places.items():
            if "/term/" not in iri or len(places) != 1:
                continue
            place = places[0]
            if place.column is None and place.aggregation == "COUNT" and not place.filter:
                self.tables[place.table.casefold()] = codec.to_id(iri)  # the table's Entity Term
                continue
            if place.filter or place.expression or place.aggregation == "COUNT":
                continue
            if place.column is None:
                continue
            self.columns[(place.table.casefold(), place.column.casefold())] = codec.to_id(iri)

    def column(self, table: str, column: str) -> str:
        """The id of ``table.column`` (any case); raises :class:`NotExpressible` when unknown."""
        key = (table.casefold(), column.casefold())
        if key not in self.columns:
            raise NotExpressible(f"unknown column {table}.{column}")
        return self.columns[key]


class Translator:
    """SQL (SQLite dialect) -> semantic query over one :class:`Lookup`, or :class:`NotExpressible`.

    Args:
        lookup: the ontology's ids.
        auto_joins: leave the SQL's join conditions out of the query (the compiler picks the join
            paths itself); False writes them as ``joins``.
    """

    def __init__(self, lookup: Lookup, *, auto_joins: bool = False):
        self.lookup = lookup
        self.auto_joins = auto_joins  # leave the joins to the compiler (its own path choice)

    def translate(self, sql: str) -> dict[str, Any]:
        """The semantic query (a JSON-ready dict) of ``sql``; raises :class:`NotExpressible`."""
        try:
            tree = sqlglot.parse_one(sql, read="sqlite")
        except sqlglot.errors.SqlglotError as exc:
            raise NotExpressible(f"unparsed: {type(exc).__name__}") from None
        return self.query(tree)

    def query(self, tree: exp.Expr) -> dict[str, Any]:
        """The semantic query of a parsed SELECT or set operation; raises :class:`NotExpressible`."""
        if isinstance(tree, (exp.Union, exp.Intersect, exp.Except)):
            if tree.args.get("order") or tree.args.get("limit"):
                raise NotExpressible("set operation with order/limit")
            op = {exp.Intersect: "intersect", exp.Except: "except"}.get(type(tree)) or (
                "union" if tree.args.get("distinct") else "union all")
            return {"set": op, "queries": [self.query(tree.this), self.query(tree.expression)]}
        if not isinstance(tree, exp.Select):
            raise NotExpressible(f"statement {type(tree).__name__}")
        if tree.args.get("with"):
            raise NotExpressible("WITH")
        return _SelectTranslation(self, tree).run()


def translate_sql(ontology: Any, sql: str, *, codec: Any = None, auto_joins: bool = False,
                  lookup: Lookup | None = None) -> dict[str, Any]:
    """The semantic query that asks what ``sql`` asks, in record ids of ``ontology``.

    Args:
        ontology: an :class:`~evoonto.ontology.Ontology`.
        sql: one SQLite SELECT (or a set operation of two).
        codec: the id codec (default: ``IdCodec(ontology.base_iri)``).
        auto_joins: see :class:`Translator`.
        lookup: a :class:`Lookup` of ``ontology`` made before (reuse it for many statements; then
            ``codec`` is not used).
    Returns:
        A semantic query dict for :func:`evoonto.tools.semantic.compile_semantic`.
    Raises:
        NotExpressible: the SQL uses something a semantic query cannot say (module docstring).
    """
    if lookup is None:
        if codec is None:
            from evoonto.tools.resolve import IdCodec

            codec = IdCodec(getattr(ontology, "base_iri", None))
        lookup = Lookup(ontology, codec)
    return Translator(lookup, auto_joins=auto_joins).translate(sql)


def metric_specs(query: Any) -> list[Any]:
    """Every metric spec of a semantic query, outermost first: its ``metrics``, the metrics of
    ``HAVING`` filters and of ``order``, the inputs of derived metrics, and those of sub-queries and
    set operations. A metric Term is an id (a string), an inline aggregate a dict."""
    out: list[Any] = []

    def metric(spec: Any) -> None:
        out.append(spec)
        if isinstance(spec, dict):
            for inner in (spec.get("inputs") or {}).values():
                metric(inner)
            for f in spec.get("filters") or ():
                flt(f)

    def flt(spec: Any) -> None:
        if not isinstance(spec, dict):
            return
        if "metric" in spec:
            metric(spec["metric"])
        for inner in spec.get("any") or ():
            flt(inner)
        if "not" in spec:
            flt(spec["not"])
        value = spec.get("value")
        if isinstance(value, dict) and "query" in value:
            walk(value["query"])

    def walk(q: Any) -> None:
        if not isinstance(q, dict):
            return
        for sub in q.get("queries") or ():
            walk(sub)
        for m in q.get("metrics") or ():
            metric(m)
        for f in q.get("filters") or ():
            flt(f)
        for o in q.get("order") or ():
            if isinstance(o, dict) and "metric" in o:
                metric(o["metric"])

    walk(query)
    return out


_GRAINS = {"%Y": "year", "%Y-%m": "month", "%Y-%m-%d": "day"}


def _grain(node: exp.Expr) -> tuple[exp.Column, str] | None:
    """``(column, grain)`` of ``strftime('%Y', column)`` and the like, else None."""
    if isinstance(node, exp.TimeToStr):
        fmt = node.args.get("format")
        inner = node.this.this if isinstance(node.this, exp.TsOrDsToTimestamp) else node.this
        if isinstance(fmt, exp.Literal) and fmt.this in _GRAINS and isinstance(inner, exp.Column):
            return inner, _GRAINS[fmt.this]
    return None


class _SelectTranslation:
    def __init__(self, translator: Translator, select: exp.Select):
        self.t, self.lookup, self.select = translator, translator.lookup, select
        self.aliases: dict[str, str] = {}   # alias or name casefolded -> table casefolded
        self.metrics: list[Any] = []
        self.dimensions: list[Any] = []
        self.output: list[str] = []

    def run(self) -> dict[str, Any]:
        sel = self.select
        from_ = sel.args.get("from_") or sel.args.get("from")
        if from_ is None:
            raise NotExpressible("no FROM")
        sources = [from_.this] + [j.this for j in sel.args.get("joins") or []]
        for src in sources:
            if not isinstance(src, exp.Table):
                raise NotExpressible("subquery in FROM")
            name = src.name.casefold()
            if name not in self.lookup.tables:
                raise NotExpressible(f"unknown table {src.name}")
            if name in self.aliases.values():
                raise NotExpressible("the same table twice (self-join)")
            self.aliases[name] = name
            if src.alias:
                self.aliases[src.alias.casefold()] = name
        joins: list[str] = []
        for j in sel.args.get("joins") or []:
            if j.args.get("kind") or j.side:
                if j.side or (j.args.get("kind") or "").upper() not in ("INNER", ""):
                    raise NotExpressible(f"{j.side or j.args.get('kind')} JOIN")
            on = j.args.get("on")
            if on is None:
                if j.args.get("using"):
                    raise NotExpressible("JOIN USING")
                continue  # FROM a, b: the WHERE must say the join
            joins += self.join_conditions(on)
        where = sel.args.get("where")
        filters: list[Any] = []
        if where is not None:
            filters = self.conditions(where.this, joins)
        if len(sources) > 1 and not joins:
            raise NotExpressible("tables without a join condition (cross product)")
        group, group_grains = [], []
        aliases = {i.alias.casefold(): i.this for i in sel.expressions if isinstance(i, exp.Alias)}
        for g in (sel.args.get("group") or exp.Group()).expressions:
            if isinstance(g, exp.Column) and not g.table and g.name.casefold() in aliases \
                    and not self._is_column(g):
                g = aliases[g.name.casefold()]
            grained = _grain(g)
            if grained:
                group_grains.append((self.ref(self.column(grained[0])), grained[1]))
            else:
                group.append(self.column(g))
        group_keys = [self.key(g) for g in group]
        aggregated = bool(group) or any(e.find(exp.AggFunc) for e in sel.expressions)
        for item in sel.expressions:
            node = item.this if isinstance(item, exp.Alias) else item
            if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
                if aggregated or len(sources) != 1:
                    raise NotExpressible("SELECT * over several tables or with aggregates")
                table = self.aliases[sources[0].name.casefold()]
                for name in self.lookup.names[table]:
                    self.add_dimension(self.lookup.column(table, name))
                continue
            grained = _grain(node)
            if node.find(exp.AggFunc):
                self.output.append(f"m{len(self.metrics)}")
                self.metrics.append(self.metric(node))
            elif grained:
                spec = {"term": self.ref(self.column(grained[0])), "grain": grained[1]}
                if aggregated and (spec["term"], spec["grain"]) not in group_grains:
                    raise NotExpressible("a selected date grain that is not grouped")
                self.add_dimension(spec)
            else:
                col = self.column(node)
                if aggregated and self.key(col) not in group_keys:
                    if not group:
                        raise NotExpressible("a bare column beside an aggregate without GROUP BY")
                    if not self.functionally_dependent(col, group):
                        raise NotExpressible("a selected column that is not grouped")
                self.add_dimension(self.ref(col))
        for g in group:
            if self.ref(g) not in [d for d in self.dimensions if isinstance(d, str)]:
                self.dimensions.append({"term": self.ref(g), "hidden": True})
        for term, grain in group_grains:
            if {"term": term, "grain": grain} not in self.dimensions:
                self.dimensions.append({"term": term, "grain": grain, "hidden": True})
        query: dict[str, Any] = {}
        if self.metrics:
            query["metrics"] = self.metrics
        if self.dimensions:
            query["dimensions"] = self.dimensions
        if filters:
            query["filters"] = filters
        having = sel.args.get("having")
        if having is not None:
            query.setdefault("filters", []).extend(self.conditions(having.this, joins, having=True))
        order = sel.args.get("order")
        if order is not None:
            query["order"] = [self.order_item(o, aggregated) for o in order.expressions]
        limit = sel.args.get("limit")
        if limit is not None:
            try:
                query["limit"] = int(limit.expression.name)
            except (AttributeError, ValueError):
                raise NotExpressible("LIMIT that is not a number") from None
            if limit.args.get("offset") or sel.args.get("offset"):
                raise NotExpressible("OFFSET")
        if sel.args.get("distinct"):
            if aggregated:
                raise NotExpressible("DISTINCT over aggregates")
            query["distinct"] = True
        if joins and (not self.t.auto_joins or self.joins_carry_meaning(query, joins)):
            query["joins"] = joins
        if self.output != sorted(self.output, key=lambda o: (o[0] != "d", int(o[1:]))):
            query["output"] = self.output
        return query

    # -- pieces ---------------------------------------------------------------------------------

    def joins_carry_meaning(self, query: dict[str, Any], joins: list[str]) -> bool:
        """Whether the SQL's joins say something the rest of ``query`` does not, so that leaving them to
        the compiler (``auto_joins``) would change the answer: a table of the FROM/JOIN list that no record
        of the query's metrics, dimensions, filters or order belongs to (joined only to keep the rows
        that have a match, or to connect two tables by a route of its own), or join conditions that
        close a cycle (as many joined table pairs as tables: the cycle restricts rows)."""
        owner = {i: t for (t, _c), i in self.lookup.columns.items()}
        owner.update({i: t for t, i in self.lookup.tables.items()})
        used: set[str] = set()

        def walk(node: Any) -> None:
            if isinstance(node, str) and node in owner:
                used.add(owner[node])
            elif isinstance(node, dict):
                for key, value in node.items():
                    if key != "query":  # a nested query has its own FROM
                        walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)

        walk({k: query.get(k) for k in ("metrics", "dimensions", "filters", "order")})
        tables = set(self.aliases.values())
        pairs = {frozenset(side.strip().split(".", 1)[0].casefold() for side in c.split(" AND ")[0].split(" = "))
                 for c in joins}
        return bool(tables - used) or len(pairs) >= len(tables)

    def add_dimension(self, ref: Any) -> None:
        if ref in self.dimensions:
            raise NotExpressible("the same column selected twice")
        self.output.append(f"d{len(self.dimensions)}")
        self.dimensions.append(ref)

    def table_of(self, col: exp.Column) -> str:
        if col.table:
            name = self.aliases.get(col.table.casefold())
            if name is None:
                raise NotExpressible(f"unknown alias {col.table}")
            return name
        owners = [t for t in dict.fromkeys(self.aliases.values())
                  if col.name.casefold() in {c.casefold() for c in self.lookup.names[t]}]
        if len(owners) != 1:
            raise NotExpressible(f"column {col.name} in {len(owners)} tables of the scope")
        return owners[0]

    def column(self, node: exp.Expr) -> exp.Column:
        if not isinstance(node, exp.Column) or isinstance(node.this, exp.Star):
            raise NotExpressible(f"an expression ({type(node).__name__}) where a column is needed")
        self.table_of(node)
        return node

    def key(self, col: exp.Column) -> tuple[str, str]:
        return self.table_of(col), col.name.casefold()

    def ref(self, col: exp.Column) -> str:
        return self.lookup.column(self.lookup.table_name[self.table_of(col)], col.name)

    def functionally_dependent(self, col: exp.Column, group: list[exp.Column]) -> bool:
        """The column is determined by a grouped unique key of its own table."""
        from evoonto.tools.joinpaths import TableRef

        table = self.table_of(col)
        grouped = {c.name for c in group if self.table_of(c) == table}
        keys = {self.key(c) for c in group}
        for edge in self._edges:  # a grouped column joined to a column of this table groups it too
            for a, ac, b, bc in ((edge.left, edge.left_columns, edge.right, edge.right_columns),
                                 (edge.right, edge.right_columns, edge.left, edge.left_columns)):
                if b.casefold() == table and all((a.casefold(), c.casefold()) in keys for c in ac):
                    grouped.update(bc)
        ref = TableRef(next(iter({t.source for t in self.lookup.graph.columns})), self.lookup.table_name[table])
        return bool(grouped) and self.lookup.graph.is_unique(ref, grouped)

    def metric(self, node: exp.Expr) -> Any:
        if self.lookup.metric_terms:  # a metric Term the ontology already has for this expression
            try:
                text = normalized(node, lambda c: self.lookup.table_name[self.table_of(c)])
            except NotExpressible:
                text = ""
            if text in self.lookup.metric_terms:
                return self.lookup.metric_terms[text]
        if not isinstance(node, exp.AggFunc):
            return self.formula(node)
        arg = node.this
        name = {exp.Count: "count", exp.Sum: "sum", exp.Avg: "avg", exp.Min: "min", exp.Max: "max"}.get(type(node))
        if name is None:
            raise NotExpressible(f"aggregate {node.key}")
        conditional = self.conditional(name, arg)
        if conditional is not None:
            return conditional
        if isinstance(arg, exp.Star):
            return {"aggregate": "count", "of": self.lookup.tables[self.count_root()]}
        if isinstance(arg, exp.Distinct):
            if name != "count" or len(arg.expressions) != 1:
                raise NotExpressible("DISTINCT inside an aggregate other than COUNT")
            return {"term": self.ref(self.column(arg.expressions[0])), "aggregate": "count_distinct"}
        col = self.column(arg)
        table = self.table_of(col)
        if len(set(self.aliases.values())) > 1 and name in ("count", "sum", "avg") and self.multiplied(table):
            if name == "count" and self.is_key(col):
                return {"aggregate": "count", "of": self.lookup.tables[self.count_root()]}
            raise NotExpressible(f"{name.upper()} of a column the gold's joins repeat (the gold multiplies it)")
        return {"term": self.ref(col), "aggregate": name}

    def conditional(self, name: str, arg: exp.Expr) -> Any:
        """``SUM(IIF(c, 1, 0))``, ``COUNT(CASE WHEN c THEN x END)``, ``SUM(CASE WHEN c THEN x ELSE 0 END)``,
        ``AVG(CASE WHEN c THEN x END)`` as a metric with its own filters; None when ``arg`` is no such branch."""
        if isinstance(arg, exp.If):
            cond, true, false = arg.this, arg.args.get("true"), arg.args.get("false")
        elif isinstance(arg, exp.Case) and len(arg.args.get("ifs") or []) == 1 and arg.this is None:
            branch = arg.args["ifs"][0]
            cond, true, false = branch.this, branch.args.get("true"), arg.args.get("default")
        else:
            return None
        zero = isinstance(false, exp.Literal) and not false.is_string and float(false.this) == 0
        empty = false is None or isinstance(false, exp.Null)
        one = isinstance(true, exp.Literal) and not true.is_string and float(true.this) == 1
        flt = [self.condition(part, False) for part in (cond.flatten() if isinstance(cond, exp.And) else [cond])]
        if (name == "sum" and one and zero) or (name == "count" and empty and isinstance(true, exp.Literal)):
            return {"aggregate": "count", "of": self.lookup.tables[self.count_root()], "filters": flt}
        if isinstance(true, exp.Column) and self._is_column(true):
            col = self.column(true)
            if len(set(self.aliases.values())) > 1 and self.multiplied(self.table_of(col)):
                raise NotExpressible("a conditional aggregate of a column the gold's joins repeat")
            if (name == "sum" and zero) or (name in ("count", "avg", "min", "max") and empty):
                return {"term": self.ref(col), "aggregate": name, "filters": flt}
        raise NotExpressible(f"a conditional {name.upper()} of another shape")

    def formula(self, node: exp.Expr) -> Any:
        """An arithmetic expression over aggregates as a derived metric, when the gold divides in floating
        point (a CAST to REAL/FLOAT or a decimal literal on one side of every division)."""
        inputs: dict[str, Any] = {}

        def floating(n: exp.Expr) -> bool:
            return any((isinstance(x, exp.Cast) and x.to.this.name in ("FLOAT", "DOUBLE"))
                       or (isinstance(x, exp.Literal) and not x.is_string and "." in x.this) for x in n.walk())

        def walk(n: exp.Expr) -> exp.Expr:
            if isinstance(n, exp.Cast):
                if n.to.this.name not in ("FLOAT", "DOUBLE"):
                    raise NotExpressible(f"a CAST to {n.to.sql()} in a formula")
                inner = walk(n.this)  # the CAST kept its operand together: keep it so without it
                return exp.Paren(this=inner) if isinstance(inner, exp.Binary) else inner
            if isinstance(n, exp.AggFunc):
                name = f"i{len(inputs)}"
                inputs[name] = self.metric(n)
                return exp.column(name)
            if isinstance(n, exp.Div) and not (floating(n.this) or floating(n.expression)):
                raise NotExpressible("an integer division over aggregates")
            if isinstance(n, (exp.Add, exp.Sub, exp.Mul, exp.Div)):
                return type(n)(this=walk(n.this), expression=walk(n.expression))
            if isinstance(n, exp.Paren):
                return exp.Paren(this=walk(n.this))
            if isinstance(n, exp.Literal) and not n.is_string:
                return n.copy()
            raise NotExpressible(f"an expression over aggregates ({type(n).__name__})")

        tree = walk(node)
        if not inputs:
            raise NotExpressible("an expression without aggregates")
        return {"formula": tree.sql(), "inputs": inputs}

    def is_key(self, col: exp.Column) -> bool:
        from evoonto.tools.joinpaths import TableRef

        source = next(iter({t.source for t in self.lookup.graph.columns}))
        ref = TableRef(source, self.lookup.table_name[self.table_of(col)])
        return any(key == frozenset({col.name.casefold()}) for key in self.lookup.graph.primary_keys.get(ref, ()))

    def multiplied(self, table: str) -> bool:
        """The gold's joins reach, from ``table``, a table whose joined side is not unique."""
        reached, frontier = {table}, [table]
        while frontier:
            here = frontier.pop()
            for e in self._edges:
                for a, b, far_unique in ((e.left, e.right, e.right_unique), (e.right, e.left, e.left_unique)):
                    if a.casefold() == here and b.casefold() not in reached:
                        if not far_unique:
                            return True
                        reached.add(b.casefold())
                        frontier.append(b.casefold())
        return False

    def count_root(self) -> str:
        """The table COUNT(*) counts: the one every join of the scope reaches many-to-one."""
        from evoonto.tools.joinpaths import TableRef

        tables = list(dict.fromkeys(self.aliases.values()))
        if len(tables) == 1:
            return tables[0]
        source = next(iter({t.source for t in self.lookup.graph.columns}))
        edges = self._edges
        for root in tables:
            reached, ok, frontier = {root}, True, [root]
            while frontier and ok:
                here = frontier.pop()
                for e in edges:
                    for a, b, far_unique in ((e.left, e.right, e.right_unique), (e.right, e.left, e.left_unique)):
                        if a.casefold() == here and b.casefold() not in reached:
                            if not far_unique:
                                ok = False
                            reached.add(b.casefold())
                            frontier.append(b.casefold())
            if ok and reached >= set(tables):
                return root
        del source, TableRef
        raise NotExpressible("COUNT(*) over a join that repeats rows of every table")

    def join_conditions(self, on: exp.Expr) -> list[str]:
        parts = list(on.flatten()) if isinstance(on, exp.And) else [on]
        by_pair: dict[frozenset, list[str]] = {}
        for part in parts:
            if not (isinstance(part, exp.EQ) and isinstance(part.this, exp.Column)
                    and isinstance(part.expression, exp.Column)):
                raise NotExpressible("a join condition that is not column = column")
            a, b = self.key(part.this), self.key(part.expression)
            text = (f"{self.lookup.table_name[a[0]]}.{part.this.name} = "
                    f"{self.lookup.table_name[b[0]]}.{part.expression.name}")
            by_pair.setdefault(frozenset({a[0], b[0]}), []).append(text)
        out = [" AND ".join(texts) for texts in by_pair.values()]
        self._remember_edges(out)
        return out

    _edges: list[Any] = []

    def _remember_edges(self, conditions: list[str]) -> None:
        from evoonto.tools.joinpaths import TableRef

        edges = list(self._edges)
        for cond in conditions:
            sides = [s.strip().split(".", 1) for s in cond.split(" AND ")[0].split(" = ")]
            source = next(iter({t.source for t in self.lookup.graph.columns}))
            a, b = TableRef(source, sides[0][0]), TableRef(source, sides[1][0])
            wanted = frozenset(_pair_of(c) for c in cond.split(" AND "))
            match = [e for e in self.lookup.graph.between(a, b) if e.pairs == wanted]
            if not match:
                raise NotExpressible(f"a join the ontology does not know ({cond})")
            edges.append(match[0])
        self._edges = edges

    def conditions(self, node: exp.Expr, joins: list[str], having: bool = False) -> list[Any]:
        parts = list(node.flatten()) if isinstance(node, exp.And) else [node]
        out = []
        for part in parts:
            if isinstance(part, exp.Paren):
                inner = part.this
                if isinstance(inner, exp.And):
                    out += self.conditions(inner, joins, having)
                    continue
                part = inner
            if (not having and isinstance(part, exp.EQ) and isinstance(part.this, exp.Column)
                    and isinstance(part.expression, exp.Column) and self._is_column(part.expression)
                    and self._is_column(part.this) and self.table_of(part.this) != self.table_of(part.expression)):
                joins += self.join_conditions(part)  # a join written in WHERE
                continue
            out.append(self.condition(part, having))
        return out

    def _is_column(self, col: exp.Column) -> bool:
        try:
            table = self.table_of(col)
        except NotExpressible:
            return False
        return col.name.casefold() in {c.casefold() for c in self.lookup.names[table]}

    def condition(self, node: exp.Expr, having: bool) -> Any:
        if isinstance(node, exp.Paren):
            return self.condition(node.this, having)
        if isinstance(node, exp.Or):
            return {"any": [self.condition(p, having) for p in node.flatten()]}
        if isinstance(node, exp.Not):
            inner = node.this
            if isinstance(inner, exp.In):
                cond = self.condition(inner, having)
                cond["op"] = "not in"
                return cond
            if isinstance(inner, exp.Like):
                cond = self.condition(inner, having)
                cond["op"] = "not like"
                return cond
            if isinstance(inner, exp.Is):
                cond = self.condition(inner, having)
                cond["op"] = "is not null"
                return cond
            return {"not": self.condition(inner, having)}
        ops: dict[type, str] = {exp.EQ: "=", exp.NEQ: "!=", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">=",
               exp.Like: "like"}
        if type(node) in ops:
            return {**self.subject(node.this, having), "op": ops[type(node)],
                    "value": self.value(node.expression)}
        if isinstance(node, exp.Between):
            return {**self.subject(node.this, having), "op": "between",
                    "value": [self.value(node.args["low"]), self.value(node.args["high"])]}
        if isinstance(node, exp.In):
            query = node.args.get("query")
            if query is not None:
                sub = query.this if isinstance(query, exp.Subquery) else query
                return {**self.subject(node.this, having), "op": "in",
                        "value": {"query": self.t.query(sub)}}
            return {**self.subject(node.this, having), "op": "in",
                    "value": [self.value(v) for v in node.expressions]}
        if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
            return {**self.subject(node.this, having), "op": "is null"}
        raise NotExpressible(f"condition {type(node).__name__}")

    def subject(self, node: exp.Expr, having: bool) -> dict[str, Any]:
        if having or node.find(exp.AggFunc):
            return {"metric": self.metric(node)}
        grained = _grain(node)
        if grained:
            return {"term": self.ref(self.column(grained[0])), "grain": grained[1]}
        col = self.column(node)
        if not self._is_column(col):
            raise NotExpressible(f"a compared name that is no column ({col.name})")
        return {"term": self.ref(col)}

    def value(self, node: exp.Expr) -> Any:
        if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
            v = self.value(node.this)
            return -v
        if isinstance(node, exp.Literal):
            if node.is_string:
                return node.this
            text = node.this
            try:
                return int(text)
            except ValueError:
                return float(text)
        if isinstance(node, exp.Boolean):
            return bool(node.this)
        if isinstance(node, exp.Column) and not node.table and not self._is_column(node):
            return node.name  # SQLite: an unknown double-quoted name is a string ("France")
        if isinstance(node, exp.Subquery):
            return {"query": self.t.query(node.this)}
        raise NotExpressible(f"a compared value that is an expression ({type(node).__name__})")

    def order_item(self, node: exp.Ordered, aggregated: bool) -> dict[str, Any]:
        desc = bool(node.args.get("desc"))
        target = node.this
        if target.find(exp.AggFunc):
            return {"metric": self.metric(target), "desc": desc}
        if isinstance(target, exp.Column) and not target.table:  # an output alias?
            for item in self.select.expressions:
                if isinstance(item, exp.Alias) and item.alias.casefold() == target.name.casefold():
                    return self.order_item(exp.Ordered(this=item.this.copy(), desc=desc), aggregated)
        grained = _grain(target)
        if grained:
            spec = {"term": self.ref(self.column(grained[0])), "grain": grained[1]}
            if aggregated and not any(isinstance(d, dict) and d["term"] == spec["term"]
                                      and d.get("grain") == spec["grain"] for d in self.dimensions):
                raise NotExpressible("ORDER BY a date grain that is not grouped")
            return {**spec, "desc": desc}
        col = self.column(target)
        ref = self.ref(col)
        if aggregated and ref not in [d if isinstance(d, str) else d["term"] for d in self.dimensions]:
            raise NotExpressible("ORDER BY a column that is not grouped")
        return {"term": ref, "desc": desc}


def normalized(node: exp.Expr, table_of: Any) -> str:
    """An expression's text with every column as ``table.column`` (real table names), case-folded."""
    node = node.copy()
    for col in node.find_all(exp.Column):
        col.set("table", exp.to_identifier(table_of(col).casefold()))
        col.set("this", exp.to_identifier(col.name.casefold()))
    return node.sql("sqlite").casefold()


def _pair_of(cond: str) -> tuple[tuple[str, str], tuple[str, str]]:
    left, right = (s.strip() for s in cond.split(" = "))
    a = tuple(x.casefold() for x in left.split(".", 1))
    b = tuple(x.casefold() for x in right.split(".", 1))
    return (a, b) if a <= b else (b, a)  # type: ignore[return-value]


