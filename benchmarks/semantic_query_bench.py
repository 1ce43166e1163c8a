"""Semantic query compiler on gold SQL (issue 32): how much gold is expressible, and is it equal?

For every gold query of a Spider/BIRD-layout folder (``--data DIR``), a **translator** on the scorer
side (this file, :func:`translate`) reads the gold SQL with sqlglot and writes the semantic query it
asks (metrics, dimensions, filters, order, limit; record ids of the builder's cold-start ontology of
the database, which never saw the gold). Only that semantic query reaches the compiler
(:func:`evoonto.tools.semantic.compile_semantic`); the compiled SQL is scored against the gold with
the project's EX scorer (:func:`evoonto.evaluation.execution.score_ex`, Spider rules for a Spider
folder, BIRD rules for a BIRD folder).

- **expressible**: the translator wrote a semantic query and the compiler answered ``ok``;
- **equal**: of those, the compiled SQL's result equals the gold result (EX = 1). Every expressible
  query whose result differs is listed (``--show N``): as a defect, or under "tie at limit" when
  :func:`tie_at_limit` verifies that the gold's ORDER BY keys tie at its LIMIT cut-off and the compiled
  rows are another valid cut (the gold run again without LIMIT). Such items still count as not equal.

Also prints the compile latency (p50/p99 over the expressible queries of the largest database, world_1
when present; ``compile p50 X ms``) and the reasons gold was not expressible, most frequent first.

Usage::

    python benchmarks/semantic_query_bench.py --data ../shared/data/spider [--show 20] [DB ...]
    python benchmarks/semantic_query_bench.py --data ../shared/data/bird_synth_dev
    python benchmarks/semantic_query_bench.py --verified examples/chinook/verified.jsonl \\
        --db ../shared/data/chinook/Chinook_Sqlite.sqlite

The last line is ``semantic query: expressible E/N, equal Q/E``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp


class NotExpressible(Exception):
    """The gold query uses something a semantic query does not say (the message names it)."""


# -- the translator (scorer side: it reads gold SQL; the compiler never does) ---------------------------


class Lookup:
    """Record ids of one database's ontology: column Terms, entity Terms, tables, join edges."""

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
        key = (table.casefold(), column.casefold())
        if key not in self.columns:
            raise NotExpressible(f"unknown column {table}.{column}")
        return self.columns[key]


class Translator:
    """Gold SQL (SQLite) -> semantic query, or :class:`NotExpressible`."""

    def __init__(self, lookup: Lookup, *, auto_joins: bool = False):
        self.lookup = lookup
        self.auto_joins = auto_joins  # leave the joins to the compiler (its own path choice)

    def translate(self, sql: str) -> dict[str, Any]:
        try:
            tree = sqlglot.parse_one(sql, read="sqlite")
        except sqlglot.errors.SqlglotError as exc:
            raise NotExpressible(f"unparsed: {type(exc).__name__}") from None
        return self.query(tree)

    def query(self, tree: exp.Expression) -> dict[str, Any]:
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


_GRAINS = {"%Y": "year", "%Y-%m": "month", "%Y-%m-%d": "day"}


def _grain(node: exp.Expression) -> tuple[exp.Column, str] | None:
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
        if joins and not self.t.auto_joins:
            query["joins"] = joins
        if self.output != sorted(self.output, key=lambda o: (o[0] != "d", int(o[1:]))):
            query["output"] = self.output
        return query

    # -- pieces ---------------------------------------------------------------------------------

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

    def column(self, node: exp.Expression) -> exp.Column:
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

    def metric(self, node: exp.Expression) -> Any:
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

    def conditional(self, name: str, arg: exp.Expression) -> Any:
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

    def formula(self, node: exp.Expression) -> Any:
        """An arithmetic expression over aggregates as a derived metric, when the gold divides in floating
        point (a CAST to REAL/FLOAT or a decimal literal on one side of every division)."""
        inputs: dict[str, Any] = {}

        def floating(n: exp.Expression) -> bool:
            return any((isinstance(x, exp.Cast) and x.to.this.name in ("FLOAT", "DOUBLE"))
                       or (isinstance(x, exp.Literal) and not x.is_string and "." in x.this) for x in n.walk())

        def walk(n: exp.Expression) -> exp.Expression:
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

    def join_conditions(self, on: exp.Expression) -> list[str]:
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

    def conditions(self, node: exp.Expression, joins: list[str], having: bool = False) -> list[Any]:
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

    def condition(self, node: exp.Expression, having: bool) -> Any:
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
        ops = {exp.EQ: "=", exp.NEQ: "!=", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">=",
               exp.Like: "like"}
        subject_key = "metric" if having else "term"
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
        del subject_key
        raise NotExpressible(f"condition {type(node).__name__}")

    def subject(self, node: exp.Expression, having: bool) -> dict[str, Any]:
        if having or node.find(exp.AggFunc):
            return {"metric": self.metric(node)}
        grained = _grain(node)
        if grained:
            return {"term": self.ref(self.column(grained[0])), "grain": grained[1]}
        col = self.column(node)
        if not self._is_column(col):
            raise NotExpressible(f"a compared name that is no column ({col.name})")
        return {"term": self.ref(col)}

    def value(self, node: exp.Expression) -> Any:
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


def normalized(node: exp.Expression, table_of: Any) -> str:
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


# -- the benchmark ---------------------------------------------------------------------------------------


def build_ontology(db_path: Path, verified: Path | None = None) -> tuple[Any, Any]:
    """``(ontology, codec)``: the builder's cold start of one SQLite database (no workload, no gold;
    with ``verified``, the verified queries of that file mined into Content as ``evoonto build
    --verified`` does)."""
    from evoonto.builder import build
    from evoonto.ontology import Ontology
    from evoonto.tools.resolve import IdCodec

    result = build([db_path], None, validate=False, verified=verified)
    ontology = Ontology.from_graphs(result.graphs)
    return ontology, IdCodec(result.base_iri if hasattr(result, "base_iri") else "https://example.org/evoonto/build/")


def tie_at_limit(gold_sql: str, database: Path | str, predicted_sql: str, rules: Any) -> bool:
    """Whether a prediction that EX scored wrong is one valid answer of a gold ``ORDER BY ... LIMIT n``
    whose ORDER BY keys tie at the cut-off (row n and row n+1 have equal keys), checked by running the
    gold again without its LIMIT, with its ORDER BY keys as extra columns (the whole result):

    - the gold is one SELECT with ORDER BY and a numeric LIMIT n (no OFFSET; ORDER BY keys are
      expressions or output aliases, not positions; with DISTINCT only keys the gold also selects);
    - the unlimited, ordered gold has more than n rows, and rows n and n+1 have equal keys;
    - the prediction has n rows, each a row of the unlimited gold with one key value; it holds every
      row whose key sorts before the tied key, the rest are rows with the tied key, none after it;
    - when ``rules`` make row order count (Spider with ORDER BY), its keys follow the gold's order.

    Anything else (an error, a query this cannot rewrite, a key that differs) is False: the difference
    stays a defect. Columns compare in the gold's order (no permutation). ``rules`` is an
    :class:`~evoonto.evaluation.execution.Rules`; both queries run as ``rules.prepare`` gives them.
    """
    from collections import Counter as _Counter

    import sqlglot
    from sqlglot import exp

    from evoonto.evaluation.execution import execute, gold_order_matters

    gold_sql, predicted_sql = rules.prepare(gold_sql), rules.prepare(predicted_sql)
    try:
        tree = sqlglot.parse_one(gold_sql, read="sqlite")
    except sqlglot.errors.SqlglotError:
        return False
    order, limit = tree.args.get("order"), tree.args.get("limit")
    if not isinstance(tree, exp.Select) or order is None or limit is None or tree.args.get("offset") \
            or limit.args.get("offset") or not isinstance(limit.expression, exp.Literal) \
            or limit.expression.is_string:
        return False
    n = int(limit.expression.this)
    aliases = {i.alias.casefold(): i.this for i in tree.expressions if isinstance(i, exp.Alias)}
    selected = {(i.this if isinstance(i, exp.Alias) else i).sql("sqlite") for i in tree.expressions}
    keys = []
    for item in order.expressions:
        key = item.this
        if isinstance(key, exp.Literal):
            return False  # ORDER BY 2: a position
        if isinstance(key, exp.Column) and not key.table and key.name.casefold() in aliases:
            key = aliases[key.name.casefold()]
        if tree.args.get("distinct") and key.sql("sqlite") not in selected:
            return False  # an extra column would change which rows are distinct
        keys.append(key.copy())
    width_run = execute(database, gold_sql)
    if not width_run.rows:
        return False
    width = len(width_run.rows[0])
    keyed = tree.copy()
    keyed.set("limit", None)
    keyed = keyed.select(*(k.as_(f"evoonto_tie_key{i}") for i, k in enumerate(keys)), copy=False)
    full, pred = execute(database, keyed.sql("sqlite")), execute(database, predicted_sql)
    if full.rows is None or pred.rows is None or full.truncated or len(full.rows) <= n or len(pred.rows) != n:
        return False
    rows = [(tuple(r[:width]), tuple(r[width:])) for r in full.rows]
    cut = rows[n - 1][1]
    if rows[n][1] != cut:
        return False  # no tie at the cut-off: the gold's first n rows are the only answer
    rank: dict[tuple, int] = {}
    for _row, key in rows:
        rank.setdefault(key, len(rank))
    key_of: dict[tuple, set] = {}
    for row, key in rows:
        key_of.setdefault(row, set()).add(key)
    pred_ranks = []
    for row in pred.rows:
        found = key_of.get(tuple(row), set())
        if len(found) != 1:
            return False  # not a gold row, or one row with two keys
        pred_ranks.append(rank[next(iter(found))])
    cut_rank = rank[cut]
    available = _Counter(row for row, _key in rows)
    if any(count > available[row] for row, count in _Counter(tuple(r) for r in pred.rows).items()):
        return False
    before = _Counter(row for row, key in rows if rank[key] < cut_rank)
    if _Counter(tuple(r) for r, k in zip(pred.rows, pred_ranks, strict=True) if k < cut_rank) != before:
        return False
    if any(k > cut_rank for k in pred_ranks):
        return False
    ordered = gold_order_matters(gold_sql, rules.mode, order_by_sensitive=rules.order_by_sensitive)
    return not ordered or pred_ranks == sorted(pred_ranks)


def _probe_for(db_path: Path):
    from evoonto.sources import open_source

    source = open_source(str(db_path))

    def probe(_source_id: str, sql: str) -> bool:
        return bool(source.run(sql, limit=1, timeout_ms=2000).rows)

    return probe, source


def run(items: list[tuple[str, str, Path, Any]], rules_name: str, show: int, latency_db: str | None,
        out=sys.stdout, verbose: bool = False, verified: Path | None = None,
        auto_joins: bool = False) -> tuple[int, int, int]:
    """Score ``items`` = ``[(question id, gold SQL, database file, Gold)]``; prints details and returns
    ``(N, expressible, equal)``."""
    from evoonto.evaluation.execution import rules_for, score_ex
    from evoonto.tools.findings import has_violation
    from evoonto.tools.semantic import compile_semantic
    from evoonto.tools.sqlcheck import check_sql

    rules = rules_for(rules_name)
    by_db: dict[Path, list] = {}
    for item in items:
        by_db.setdefault(item[2], []).append(item)
    n = expressible = equal = 0
    reasons: Counter = Counter()
    defects: list[str] = []
    ties: list[str] = []  # differing results that are another valid cut of a tie at the gold's LIMIT
    flagged: list[str] = []  # compiled SQL on which check_sql reports a Violation
    latencies: dict[str, list[float]] = {}
    for db_path, group in sorted(by_db.items()):
        ontology, codec = build_ontology(db_path, verified)
        lookup = Lookup(ontology, codec)
        probe, source = _probe_for(db_path)
        db = db_path.stem
        for qid, sql, _path, gold in group:
            n += 1
            try:
                query = Translator(lookup, auto_joins=auto_joins).translate(sql)
            except NotExpressible as exc:
                reasons[f"translator: {str(exc)[:90] if verbose else str(exc).split(' (')[0][:70]}"] += 1
                continue
            t0 = time.perf_counter()
            answer = compile_semantic(ontology, query, codec=codec, probe=probe)
            latencies.setdefault(db, []).append((time.perf_counter() - t0) * 1000)
            if answer["status"] != "ok":
                reasons[f"compiler {answer['status']}: "
                        f"{(answer.get('missing') or answer.get('question') or '')[:60]}"] += 1
                continue
            expressible += 1
            findings = check_sql(ontology, answer["sql"])
            if has_violation(findings):
                flagged.append(f"{qid} [{db}] " + "; ".join(f"{f.kind}: {f.message}" for f in findings
                                                             if f.severity == "Violation")[:300]
                               + f"\n    compiled: {answer['sql']}")
            result = score_ex(gold, db_path, answer["sql"], rules=rules)
            if result.correct:
                equal += 1
            elif not result.error and tie_at_limit(sql, db_path, answer["sql"], rules):
                ties.append(f"{qid} [{db}]\n    gold: {sql}\n    compiled: {answer['sql']}")
            else:
                defects.append(f"{qid} [{db}] {result.error or result.gold_error or 'different rows'}\n"
                               f"    gold: {sql}\n    semantic: {json.dumps(query)}\n    compiled: {answer['sql']}")
        source.close()
    print(f"not expressible ({n - expressible}), by reason:", file=out)
    for reason, count in reasons.most_common(25):
        print(f"  {count:4d}  {reason}", file=out)
    print(f"defects (expressible, result differs, not a tie at limit): {len(defects)}", file=out)
    for line in defects[:show]:
        print("  " + line, file=out)
    print(f"tie at limit (result differs; the gold's ORDER BY keys tie at its LIMIT and the compiled rows "
          f"are another valid cut, checked by tie_at_limit): {len(ties)}", file=out)
    for line in ties[:show]:
        print("  " + line, file=out)
    print(f"compiled SQL with a check_sql Violation: {len(flagged)}", file=out)
    for line in flagged[:show]:
        print("  " + line, file=out)
    db = latency_db if latency_db in latencies else max(latencies, key=lambda d: len(latencies[d]), default=None)
    if db is not None:
        lat = sorted(latencies[db])
        p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))]
        print(f"compile latency on {db} ({len(lat)} queries, warm after the first): "
              f"p50 {statistics.median(lat):.2f} ms, p99 {p99:.2f} ms", file=out)
    return n, expressible, equal


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, help="a Spider/BIRD-layout folder (dev.json + database/)")
    parser.add_argument("--verified", type=Path, help="a verified-queries JSON Lines file (id, question, sql)")
    parser.add_argument("--db", type=Path, help="the SQLite database of --verified")
    parser.add_argument("--show", type=int, default=20, help="defects to print (default 20)")
    parser.add_argument("--mine", action="store_true",
                        help="with --verified: build the ontology with those verified queries mined (metric Terms, "
                             "grains, joins), as `evoonto build --verified` does, to show what the Content they add "
                             "makes expressible")
    parser.add_argument("--auto-joins", action="store_true",
                        help="leave the gold's join conditions out of the semantic query: the compiler picks the "
                             "join paths itself (and asks when two joins are known); tables the gold joins only to "
                             "restrict rows are then not joined")
    parser.add_argument("--verbose", action="store_true", help="reasons in full (not grouped by kind)")
    parser.add_argument("databases", nargs="*", help="only these db ids")
    args = parser.parse_args(argv)
    from evoonto.evaluation.benchmarks import Gold

    items: list[tuple[str, str, Path, Any]] = []
    if args.verified:
        if not args.db:
            parser.error("--verified needs --db")
        for i, line in enumerate(args.verified.read_text(encoding="utf-8").splitlines()):
            if line.strip():
                row = json.loads(line)
                qid = str(row.get("id", i))
                items.append((qid, row["sql"], args.db, Gold(qid, args.db.stem, row["sql"])))
        rules = "bird"
    elif args.data:
        from evoonto.evaluation.benchmarks import load_benchmark

        bench = load_benchmark("bird" if "bird" in args.data.name else None, args.data)
        for q in bench.questions:
            if args.databases and q.db_id not in args.databases:
                continue
            gold = bench.gold[q.id]
            items.append((q.id, gold.sql, Path(bench.databases[q.db_id]), gold))
        rules = "bird" if bench.name == "bird" else "spider"
    else:
        parser.error("give --data DIR or --verified FILE --db FILE")
    n, e, q = run(items, rules, args.show, "world_1", verbose=args.verbose,
                  verified=args.verified if args.mine else None, auto_joins=args.auto_joins)
    print(f"semantic query: expressible {e}/{n}, equal {q}/{e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
