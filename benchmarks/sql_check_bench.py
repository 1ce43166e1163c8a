"""check_sql against gold SQL: precision on gold, recall on mutations, latency (issues 15 and 28).

Ontologies are built with the offline builder from each database and its questions only (no gold
SQL reaches the builder). Gold SQL is read here, on the scorer side. check_sql is called as an
agent's toolkit calls it: with the database open as its source, so absences are confirmed by point
probes (``sources=``); the question-wording rules are opt-in and stay off. Measured:

- **Precision**: over every gold query of ``spider`` and ``bird_synth_dev`` and every chinook
  example (``examples/chinook/verified.jsonl``) that returns rows (a result with at least one
  non-NULL value), the share on which
  ``check_sql`` raises no Violation (target ≥ 99.5%); the flagged ones are listed with why, and so
  are flagged gold queries left out because they return no row or only NULLs.
- **Recall**: mutations generated from the gold queries on which check_sql raises no Violation, by
  kind (target ≥ 90% flagged per kind):

  - ``wrong_column``: a column reference replaced by a column name of another table of the same
    database that no table of the query has (the agent's "right name, wrong table").
  - ``same_table_column``: the issue's literal "wrong column of the same table": in a one-table
    query, a column replaced by another real column of that table. No check against the schema
    alone can know which of two real columns was meant; check_sql is given the question (as an
    agent's call would give it) and flags it with ``question_mismatch`` when the column is named by
    no word of the question while another column of that table is, and without the question where
    its type, values or range contradict a literal (``type_mismatch``, ``unseen_value``,
    ``value_elsewhere``, ``out_of_range``) or the select list / grouping gives it away
    (``repeated_column``, ``ungrouped_column``, ``group_by_unique``, ``grouped_aggregate``,
    ``selects_filter_value``, ``count_skips_nulls``, ``self_comparison``). Most of these are Warnings, so
    they do not count against precision: how often each fires on the gold queries themselves is
    printed as its false-alarm rate, next to the recall it buys.
  - ``value_case`` / ``value_spelling``: a string literal compared with a column, with its case
    changed / one interior character dropped.
  - ``missing_constraint``: for a gold query filtering ``a = 'x' AND <predicate on b>``, the bench
    declares a Violation Constraint "``a = 'x'`` requires ``<predicate on b>``" (target: a's
    Mapping, trigger ``x``), as a data owner would, and drops the predicate on b. Flagged when a
    ``missing_constraint`` finding names that Constraint.
  - ``dropped_join_condition`` (the ON of a join removed), ``wrong_join_key`` (one side of a join
    condition replaced by another column of the same table), ``fan_trap`` (SUM/AVG/COUNT of a column
    of one table gets a join to a table whose declared key references it and is not unique by
    declared keys or probe Evidence, so 1:N; 1:1 children are skipped, and parent columns the child
    also has are qualified so the SQL stays valid): checked by
    :mod:`evoonto.tools.joinpaths` (the "joins" slice) through check_sql; generated here, and
    reported as "needs joinpaths" while that module is absent.

  A mutation counts as flagged when check_sql raises a finding of an expected kind (column ``any``)
  or a Violation (column ``viol``) that its gold query did not have (same kind and subject): a
  warning the gold query already drew does not count as catching the mutation. Mutations are drawn
  at random (``--seed``): same_table_column moves by a few points between seeds.
- **Equivalent mutants**: as in mutation testing, a mutant that returns the same rows as its gold
  query on the database is *equivalent* (``COUNT(a)`` for ``COUNT(b)`` when neither has NULLs;
  ``ORDER BY a`` for ``ORDER BY b`` when both sort alike): no check can call it wrong. Both are run
  read-only (``evoonto.sources.sqlite``, a time limit of ``--timeout-ms``); the result is compared
  as a list when the gold query sorts (top-level ``ORDER BY``), else as a multiset. A mutant counts
  as equivalent only when both return the same *non-empty* result (two empty results are counted
  as non-equivalent: they say nothing), and never when either fails or is cut. The recall table
  shows recall over all mutants (``any``, ``viol``) and over the non-equivalent ones (``any*``):
  **``any*`` is the target figure** (≥ 90% per kind). bird_synth_dev's rows are synthetic, so its
  equivalences hold on that data only.
- **Recall of an independent generator** (:func:`independent_mutations`, issue 28): written from
  the mistakes agents make, not from the checker's shapes: a wrong column of the right table in a
  multi-table query (where a literal is compared with it), ``COUNT(*)`` after an extra 1:N join,
  fan-out through two joins, half of a composite key, value case / spelling in a high-cardinality
  column, the other role of a key. Reported next to the first generator (target ≥ 90% per kind).
  The shared sets join on no multi-column key, so a generated database with composite keys and 14
  questions with SQL written for it (``benchmarks/data/composite_keys.py``, bench ``composite``;
  its gold queries count in the precision too) gives that kind its cases.
  A mutant is kept only when its answer differs from gold's under the project's EX comparison
  (:func:`same_answer`), a fan-out mutant only when the data repeats a row through the added join
  (:func:`fans_out`); the dropped ones are counted, and every miss is classified (:func:`miss_class`).
  The shared sets have few columns whose vocabulary the Evidence misses; ``--hide-values`` drops
  every Evidence value so that every column is checked as a high-cardinality one (probes only).
- **Latency**: check_sql p50/p99 over world_1's gold queries (a warm ontology, point probes of the
  database included; target p50 ≤ 30 ms).

Usage::

    python benchmarks/sql_check_bench.py [--data ../shared/data] [--cache DIR] [--db world_1 ...]
        [--seed N] [--dump FILE.jsonl]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
JOIN_KINDS = ("dropped_join_condition", "wrong_join_key", "fan_trap")
KINDS = ("wrong_column", "same_table_column", "value_case", "value_spelling", "missing_constraint") + JOIN_KINDS
EXPECTED = {"wrong_column": {"unknown_column"},
            # a real column of the same table: no schema check can know it is the wrong one; it is
            # caught where its type, values or range contradict the literal it is compared with, where
            # the grouping or select list gives it away, or where the question names another column
            "same_table_column": {"unseen_value", "value_case", "value_elsewhere", "type_mismatch", "out_of_range",
                                  "question_mismatch", "repeated_column", "ungrouped_column", "group_by_unique",
                                  "grouped_aggregate", "selects_filter_value", "count_skips_nulls",
                                  "self_comparison"},
            "value_case": {"unseen_value", "value_case"},
            "value_spelling": {"unseen_value"}, "missing_constraint": {"missing_constraint"},
            "dropped_join_condition": {"unknown_join"}, "wrong_join_key": {"mismatched_join_keys", "unknown_join"},
            "fan_trap": {"fan_trap"}}


def composite_key_items(folder: Path) -> list[dict[str, Any]]:
    """Items of the generated composite-key database (``benchmarks/data/composite_keys.py``, written
    into ``folder``): the shared data has no join on a multi-column key, so without these the
    ``composite_key_half`` kind has no case."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("composite_keys", REPO / "benchmarks" / "data" / "composite_keys.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    db = module.make_database(folder / f"{module.DB_ID}.sqlite")
    return [{"bench": "composite", "db_id": module.DB_ID, "question": q, "sql": sql, "db_path": db}
            for q, sql in module.QUESTIONS]


def load_items(data: Path, generated: Path | None = None) -> list[dict[str, Any]]:
    """Gold items ``{bench, db_id, question, sql, db_path}`` of spider and bird_synth_dev, the
    repository's chinook examples (``examples/chinook/verified.jsonl``, questions with verified SQL)
    when the chinook database is in ``data``, and, with ``generated`` (a folder to write it in), the
    generated composite-key database's questions (:func:`composite_key_items`)."""
    items = [] if generated is None else composite_key_items(generated)
    for bench in ("spider", "bird_synth_dev"):
        for row in json.loads((data / bench / "dev.json").read_text(encoding="utf-8")):
            db = data / bench / "database" / row["db_id"] / f"{row['db_id']}.sqlite"
            items.append({"bench": bench, "db_id": row["db_id"], "question": row["question"],
                          "sql": row.get("query") or row.get("SQL"), "db_path": db})
    chinook, examples = data / "chinook" / "Chinook_Sqlite.sqlite", REPO / "examples" / "chinook" / "verified.jsonl"
    if chinook.exists() and examples.exists():
        for line in examples.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                items.append({"bench": "chinook", "db_id": "chinook", "question": row["question"], "sql": row["sql"],
                              "db_path": chinook})
    return items


def build_ontology(db_path: Path, questions: list[str], cache: Path | None):
    """The builder's ontology of one database from its questions (cached as TriG when ``cache``)."""
    import rdflib

    from evoonto.builder.pipeline import build
    from evoonto.ontology import Ontology

    graphs: dict[str, rdflib.Graph]
    target = cache / f"{db_path.stem}.json" if cache else None
    if target is not None and target.exists():
        stored = json.loads(target.read_text(encoding="utf-8"))
        graphs = {name: rdflib.Graph().parse(data=text, format="nt") for name, text in stored.items()}
    else:
        graphs = dict(build([db_path], questions).graphs)
        if target is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps({n: g.serialize(format="nt") for n, g in graphs.items()}), encoding="utf-8")
    return Ontology.from_graphs(graphs), graphs


def hide_values(graphs):
    """The ontology with no Evidence values (``evo:sampleValue``, ``evo:valueDistribution``) in its
    content graph: every column looks high-cardinality (no vocabulary known), so value findings
    can come only from point probes of the data."""
    import rdflib

    from evoonto.ontology import Ontology

    evo = rdflib.Namespace("https://w3id.org/evoonto/ns#")
    content = rdflib.Graph()
    content += graphs["content"]
    for predicate in (evo.sampleValue, evo.valueDistribution):
        content.remove((None, predicate, None))
    stripped = {**graphs, "content": content}
    return Ontology.from_graphs(stripped), stripped


# -- equivalent mutants (scorer side: they run gold SQL) ------------------------------------------


def _rows(conn, sql: str, timeout_ms: float):
    """``(sorted?, rows)`` of ``sql`` run read-only on ``conn``, or None when it fails, times out or
    is cut by the row cap. ``sorted?`` is True when the statement sorts at its top level."""
    import sqlglot
    from sqlglot import exp

    from evoonto.errors import SourceError
    from evoonto.sources.sqlite import execute_capped

    try:
        _names, rows, truncated, _note = execute_capped(conn, sql, limit=100_000, timeout_ms=timeout_ms)
    except SourceError:
        return None
    if truncated:
        return None
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
        ordered = isinstance(tree, exp.Query) and tree.args.get("order") is not None
    except sqlglot.errors.SqlglotError:
        ordered = False
    return ordered, [tuple(repr(v) for v in row) for row in rows]


def equivalent(gold, mutant) -> bool:
    """True when a mutant's result (:func:`_rows`) equals its gold query's, and is not empty."""
    if gold is None or mutant is None or not gold[1]:
        return False
    if gold[0]:
        return gold[1] == mutant[1]
    return Counter(gold[1]) == Counter(mutant[1])


def _raw_rows(conn, sql: str, timeout_ms: float) -> list[tuple] | None:
    """The rows of ``sql`` run read-only on ``conn`` (values as the driver returns them), or None when
    it fails, times out or is cut by the row cap."""
    from evoonto.errors import SourceError
    from evoonto.sources.sqlite import execute_capped

    try:
        _names, rows, truncated, _note = execute_capped(conn, sql, limit=100_000, timeout_ms=timeout_ms)
    except SourceError:
        return None
    return None if truncated else [tuple(r) for r in rows]


def same_answer(bench: str, gold_sql: str, gold_rows: list[tuple] | None, mutant_rows: list[tuple] | None) -> bool:
    """True when a mutant returns its gold query's answer under the project's EX comparison
    (:func:`evoonto.evaluation.execution.results_match` in the benchmark's official mode: ``spider``
    for Spider, ``bird`` otherwise, row order as :func:`~evoonto.evaluation.execution.gold_order_matters`
    says). A mutant that fails or is cut never does: it is kept as an error."""
    from evoonto.evaluation.execution import gold_order_matters, results_match

    if gold_rows is None or mutant_rows is None:
        return False
    mode = "spider" if bench == "spider" else "bird"
    return results_match(gold_rows, mutant_rows, order_matters=gold_order_matters(gold_sql, mode), mode=mode)


def fans_out(conn, mutant_sql: str, alias: str, timeout_ms: float) -> bool | None:
    """Whether, under the mutant's own FROM, joins and WHERE, some row of the table ``alias`` (the
    one-table gold query's table) appears more than once: ``SELECT 1 FROM … WHERE … GROUP BY
    alias.rowid HAVING COUNT(*) > 1 LIMIT 1`` on the database (whole tables; measured here, not
    read from the checker). None when the test cannot run (e.g. a table without rowid)."""
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(mutant_sql, read="sqlite")
    except sqlglot.errors.SqlglotError:
        return None
    if not isinstance(tree, exp.Select):
        return None
    for arg in ("group", "having", "order", "limit", "offset", "distinct"):
        tree.set(arg, None)
    tree.set("expressions", [exp.Literal.number(1)])
    tree = tree.group_by(exp.column("rowid", table=alias, quoted=True), copy=False)
    tree = tree.having("COUNT(*) > 1", copy=False).limit(1, copy=False)
    rows = _raw_rows(conn, tree.sql(dialect="sqlite"), timeout_ms)
    return None if rows is None else bool(rows)


#: Independent kinds that add a join to a one-table query: the mutant is a fan-out only where the
#: data repeats a row of that table through the added join (:func:`fans_out`).
FAN_OUT_KINDS = ("count_star_fan_out", "aggregate_fan_out", "chain_fan_out")


def miss_class(kind: str, mutant_sql: str, conn=None, schema=None) -> str:
    """Why a kept, non-equivalent independent mutant that check_sql did not flag is undecidable from
    the SQL and the ontology's facts (class (c) of issue 28), ``"(b) checker miss"``, or not classified
    (kinds other than these two):

    - ``wrong_key_role``: both roles of the key are valid joins; which one is meant only the question
      says, unless the mutant's ON repeats one condition (two roles joined, one replaced by the other);
    - ``count_star_fan_out`` grouped by columns of the counted table that are unique in the data
      (``conn``, whole table): one group per row, and ``COUNT(*)`` per row over a 1:N join is how one
      counts the joined rows per row (``orders per customer``); which rows are counted only the question
      says. Grouped by columns that are not unique, it is a checker miss."""
    import sqlglot
    from sqlglot import exp

    if kind == "wrong_key_role":
        for join in sqlglot.parse_one(mutant_sql, read="sqlite").find_all(exp.Join):
            conditions = [c.sql() for c in join.args["on"].flatten()] if join.args.get("on") is not None else []
            if len(set(conditions)) < len(conditions):
                return "(b) the join repeats one condition (the other role became a copy): visible in the SQL"
        return "(c) which role of the key: the question decides"
    if kind == "count_star_fan_out":
        tree = sqlglot.parse_one(mutant_sql, read="sqlite")
        group = tree.args.get("group")
        base = next(iter(tree.find_all(exp.Table)))
        grouped = [g.name for g in group.expressions if isinstance(g, exp.Column) and g.table != "mut_child"] \
            if group is not None else []
        if grouped and conn is not None and schema is not None and _unique(conn, schema, base.name, grouped):
            return "(c) grouped by columns unique in the counted table: joined rows per row may be meant"
        return "(b) checker miss"
    return "not classified (issue 28's analysis covers COUNT(*) fan-out and key roles)"


# -- mutations (scorer side: they read gold SQL) ---------------------------------------------------


def _columns_in_scope(tree, schema) -> set[str]:
    from sqlglot import exp

    names = set()
    for table in tree.find_all(exp.Table):
        info = schema.table(table.name)
        if info is not None:
            names |= {c.name.casefold() for c in info.columns}
    return names


def _string_comparisons(tree):
    """(comparison, column node, literal node) for ``column = 'text'`` comparisons."""
    from sqlglot import exp

    for cmp in tree.find_all(exp.EQ):
        left, right = cmp.this, cmp.expression
        if isinstance(left, exp.Column) and isinstance(right, exp.Literal) and right.is_string:
            yield cmp, left, right
        elif isinstance(left, exp.Column) and isinstance(right, exp.Column) and right.this.args.get("quoted") \
                and not right.table:
            yield cmp, left, right


def mutations(sql: str, schema, dialect: str, rng: random.Random, joins=None) -> list[tuple[str, str, Any]]:
    """``(kind, mutated sql, extra)`` for one gold query (extra: the synthetic Constraint).

    ``joins`` (the version's :class:`~evoonto.tools.joinpaths.JoinGraph`) tells which columns are
    unique (declared keys and probe Evidence); fan traps are generated only over 1:N joins it knows."""
    import sqlglot
    from sqlglot import exp

    out: list[tuple[str, str, Any]] = []
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return out
    in_scope = _columns_in_scope(tree, schema)
    # wrong column: a name from another table that no table of the query has
    columns = [c for c in tree.find_all(exp.Column) if c.name and c.name.casefold() in in_scope]
    foreign = sorted({c.name for t in schema.tables for c in t.columns if c.name.casefold() not in in_scope})
    if columns and foreign:
        mutated = tree.copy()
        target = [c for c in mutated.find_all(exp.Column) if c.name and c.name.casefold() in in_scope]
        node = target[rng.randrange(len(target))]
        node.set("this", exp.to_identifier(rng.choice(foreign)))
        out.append(("wrong_column", mutated.sql(dialect=dialect), None))
    # the issue's "wrong column of the same table": in a one-table query, a column replaced by
    # another real column of that table (reported on its own: a schema check cannot see it)
    tables = list(tree.find_all(exp.Table))
    if len(tables) == 1 and (info := schema.table(tables[0].name)) is not None and len(info.columns) > 1:
        mutated = tree.copy()
        target = [c for c in mutated.find_all(exp.Column) if c.name and c.name.casefold() in in_scope]
        if target:
            node = target[rng.randrange(len(target))]
            others = sorted(c.name for c in info.columns if c.name.casefold() != node.name.casefold())
            node.set("this", exp.to_identifier(rng.choice(others)))
            out.append(("same_table_column", mutated.sql(dialect=dialect), None))
    # values
    comparisons = list(_string_comparisons(tree))
    if comparisons:
        index = rng.randrange(len(comparisons))
        for kind in ("value_case", "value_spelling"):
            mutated = tree.copy()
            _cmp, _col, lit = list(_string_comparisons(mutated))[index]
            text = lit.this if isinstance(lit, exp.Literal) else lit.name
            if kind == "value_case":
                changed = text.swapcase() if text.swapcase() != text else None
            else:
                letters = [i for i in range(1, len(text) - 1) if text[i].isalnum()]
                middle = letters[len(letters) // 2] if letters else None
                changed = None if middle is None else text[:middle] + text[middle + 1:]
            if not changed or changed == text:
                continue
            lit.replace(exp.Literal.string(changed))
            out.append((kind, mutated.sql(dialect=dialect), None))
    out += _join_mutations(tree, schema, dialect, rng, joins)
    # missing constraint: a = 'x' AND <predicate on b> -> declare "a = 'x' requires it", drop it
    where = tree.find(exp.Where)
    if where is not None and isinstance(where.this, exp.And) and comparisons:
        conjuncts = list(where.this.flatten())
        trigger = next(((c, col, lit) for c, col, lit in comparisons if c in conjuncts), None)
        if trigger is not None:
            cmp, col, lit = trigger
            others = [p for p in conjuncts if p is not cmp and isinstance(p, (exp.EQ, exp.GT, exp.LT, exp.GTE, exp.LTE,
                                                                           exp.Like, exp.NEQ))
                      and not p.find(exp.Select)
                      and {c.name.casefold() for c in p.find_all(exp.Column)} - {col.name.casefold()}
                      and all(isinstance(c, exp.Column) and (not c.this.args.get("quoted") or c.table)
                              for c in p.find_all(exp.Column))
                      and col.name.casefold() not in {c.name.casefold() for c in p.find_all(exp.Column)}]
            if others:
                required = others[0]
                condition = required.copy()
                for c in condition.find_all(exp.Column):
                    c.set("table", None)
                mutated = tree.copy()
                position = conjuncts.index(required)
                mutated_conjuncts = list(mutated.find(exp.Where).this.flatten())
                kept = [p for i, p in enumerate(mutated_conjuncts) if i != position]
                new_where = kept[0]
                for p in kept[1:]:
                    new_where = exp.and_(new_where, p)
                mutated.find(exp.Where).set("this", new_where)
                value = lit.this if isinstance(lit, exp.Literal) else lit.name
                out.append(("missing_constraint", mutated.sql(dialect=dialect),
                            {"column": col, "trigger": value, "condition": condition.sql(dialect=dialect)}))
    return out


def _join_mutations(tree, schema, dialect: str, rng: random.Random, graph=None) -> list[tuple[str, str, Any]]:
    """dropped_join_condition, wrong_join_key and fan_trap mutations of one gold query.

    A fan trap joins the one table of an aggregating query to a child table on a declared foreign key
    whose referencing column is not unique (by declared keys and probe Evidence in ``graph``), so each
    parent row is repeated once per child row; a 1:1 child (its key is the reference) is no fan trap.
    Parent columns whose name the child also has are qualified, so the mutated SQL stays valid."""
    from sqlglot import exp

    from evoonto.tools.joinpaths import TableRef

    out: list[tuple[str, str, Any]] = []
    joins = [j for j in tree.find_all(exp.Join) if isinstance(j.args.get("on"), exp.EQ)]
    if joins:
        index = rng.randrange(len(joins))
        mutated = tree.copy()
        target = [j for j in mutated.find_all(exp.Join) if isinstance(j.args.get("on"), exp.EQ)][index]
        target.set("on", None)
        out.append(("dropped_join_condition", mutated.sql(dialect=dialect), None))
        mutated = tree.copy()
        target = [j for j in mutated.find_all(exp.Join) if isinstance(j.args.get("on"), exp.EQ)][index]
        right = target.args["on"].expression
        table = _column_table(mutated, right, schema) if isinstance(right, exp.Column) else None
        info = schema.table(table) if table else None
        if info is not None:
            others = [c.name for c in info.columns if c.name.casefold() != right.name.casefold()]
            if others:
                right.set("this", exp.to_identifier(rng.choice(others)))
                out.append(("wrong_join_key", mutated.sql(dialect=dialect), None))
    # fan trap: SUM/AVG/COUNT of a column of one table, joined to a child table that references it
    select = tree if isinstance(tree, exp.Select) else None
    tables = list(tree.find_all(exp.Table))
    over_column = [a for a in tree.find_all(exp.Sum, exp.Avg, exp.Count) if isinstance(a.this, exp.Column)]
    if select is not None and len(tables) == 1 and not joins and over_column:
        parent = schema.table(tables[0].name)
        children = [(t, c, ref_col) for t in schema.tables for c in t.columns
                    for ref_table, ref_col in c.references
                    if parent is not None and ref_table.casefold() == parent.name.casefold() and t.name != parent.name
                    and (graph is None or not graph.is_unique(TableRef(schema.id, t.name), (c.name,)))]
        if children:
            child, column, ref_col = children[rng.randrange(len(children))]
            alias = tables[0].alias_or_name
            mutated = tree.copy()
            shared = {c.name.casefold() for c in child.columns}
            for col in mutated.find_all(exp.Column):
                if not col.table and col.name.casefold() in shared and parent.column(col.name) is not None:
                    col.set("table", exp.to_identifier(alias))
            mutated = mutated.join(exp.to_table(child.name).as_("fan_child"),
                                   on=f'fan_child."{column.name}" = "{alias}"."{ref_col}"', dialect=dialect)
            out.append(("fan_trap", mutated.sql(dialect=dialect), None))
    return out


# -- a second, independent generator (issue 28): shapes chosen from the mistakes agents make, not from
# -- what the checker looks for; it never reads check_sql's code paths or finding kinds -------------------

INDEPENDENT_KINDS = ("multi_table_wrong_column", "count_star_fan_out", "aggregate_fan_out", "chain_fan_out",
                     "composite_key_half",
                     "value_case_high_cardinality", "value_spelling_high_cardinality", "wrong_key_role")
#: What counts as catching each kind (any finding the gold query did not draw, of these kinds, or a Violation).
INDEPENDENT_EXPECTED = {
    "multi_table_wrong_column": {"unseen_value", "value_case", "value_elsewhere", "type_mismatch", "out_of_range",
                                 "unknown_column"},
    "count_star_fan_out": {"fan_trap"}, "aggregate_fan_out": {"fan_trap"}, "chain_fan_out": {"fan_trap"},
    "composite_key_half": {"partial_key_join", "fan_trap"},
    "value_case_high_cardinality": {"unseen_value", "value_case"},
    "value_spelling_high_cardinality": {"unseen_value"},
    # both roles are valid joins: only the question can tell (the opt-in question rules, --question-rules),
    # unless the other role became a copy of a condition the join states already (repeated_condition)
    "wrong_key_role": {"mismatched_join_keys", "unknown_join", "question_mismatch", "repeated_condition"},
}


def _fk_pairs(schema) -> list[tuple[str, tuple[str, ...], str, tuple[str, ...]]]:
    """(child table, child columns, parent table, parent columns) of the catalog's declared keys, a
    composite key (child columns referencing the parent's whole multi-column primary key) as one."""
    out = []
    for t in schema.tables:
        by_parent: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for c in t.columns:
            for ref_table, ref_col in c.references:
                by_parent[ref_table].append((c.name, ref_col))
        for parent, pairs in by_parent.items():
            info = schema.table(parent)
            pk = {k.casefold() for k in info.primary_key} if info is not None else set()
            if len(pk) > 1 and {b.casefold() for _a, b in pairs} == pk and len(pairs) == len(pk):
                out.append((t.name, tuple(a for a, _ in pairs), parent, tuple(b for _, b in pairs)))
            else:
                out += [(t.name, (a,), parent, (b,)) for a, b in pairs]
    return out


def independent_mutations(sql: str, schema, dialect: str, rng: random.Random,
                          conn) -> list[tuple[str, str, str | None]]:
    """``(kind, mutated sql, alias)`` of :data:`INDEPENDENT_KINDS` for one gold query (scorer side);
    ``alias``: for the fan-out kinds, the alias of the one-table gold query's table (None otherwise).

    - multi_table_wrong_column: in a query over two or more tables, a column compared with a literal
      is replaced by another column of the same table (the right table, the wrong column);
    - count_star_fan_out: a one-table ``COUNT(*)`` query gets a join to a table that references it
      (each row now counted once per referencing row);
    - aggregate_fan_out: a one-table query aggregating one of its columns (SUM/AVG/COUNT) gets a join
      to a table that references it, the aggregate then reading its column across the added join;
    - chain_fan_out: a one-table query aggregating a column (SUM/AVG/COUNT) is joined to the table
      its key references, and from there to another table referencing that one (two hops);
    - composite_key_half: a join on a whole composite key keeps one of its conditions;
    - value_case_high_cardinality / value_spelling_high_cardinality: a literal compared with a column
      holding more than :data:`HIGH_CARDINALITY` distinct values in the database, its case swapped /
      one interior character dropped;
    - wrong_key_role: a join ``child.fk = parent.key`` where the child has another column referencing
      the same parent key uses that other column (the other role: origin for dest).
    """
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except sqlglot.errors.SqlglotError:
        return []
    out: list[tuple[str, str, str | None]] = []
    tables = [t for t in tree.find_all(exp.Table) if schema.table(t.name) is not None]
    aliases = {t.alias_or_name.casefold(): schema.table(t.name) for t in tables}

    def owner(col):
        if col.table:
            return aliases.get(col.table.casefold())
        found = [i for i in aliases.values() if i.column(col.name) is not None]
        return found[0] if len({i.name for i in found}) == 1 else None

    literal_cmps = [(cmp, col, lit) for cmp, col, lit in _string_comparisons(tree)]
    numeric_cmps = [(cmp, cmp.this, cmp.expression) for cmp in tree.find_all(exp.EQ, exp.GT, exp.LT)
                    if isinstance(cmp.this, exp.Column) and isinstance(cmp.expression, exp.Literal)]
    if len({t.name for t in tables}) >= 2 and literal_cmps + numeric_cmps:
        index = rng.randrange(len(literal_cmps + numeric_cmps))
        mutated = tree.copy()
        cmp_m = (list(_string_comparisons(mutated)) + [
            (c, c.this, c.expression) for c in mutated.find_all(exp.EQ, exp.GT, exp.LT)
            if isinstance(c.this, exp.Column) and isinstance(c.expression, exp.Literal)])[index]
        info = owner(cmp_m[1])
        if info is not None:
            others = [c.name for c in info.columns if c.name.casefold() != cmp_m[1].name.casefold()]
            if others:
                cmp_m[1].set("this", exp.to_identifier(rng.choice(others)))
                out.append(("multi_table_wrong_column", mutated.sql(dialect=dialect), None))
    fks = _fk_pairs(schema)
    select = tree if isinstance(tree, exp.Select) else None
    single = select is not None and len(tables) == 1 and not select.args.get("joins")
    if single:
        base = tables[0]
        alias = base.alias_or_name
        children = [f for f in fks
                    if f[2].casefold() == base.name.casefold() and f[0].casefold() != base.name.casefold()
                    and not _unique(conn, schema, f[0], f[1])]
        has_star = any(isinstance(c.this, exp.Star) for c in select.find_all(exp.Count))
        if has_star and children:
            child, ccols, _p, pcols = children[rng.randrange(len(children))]
            on = " AND ".join(f'mut_child."{a}" = "{alias}"."{b}"' for a, b in zip(ccols, pcols, strict=True))
            mutated = _qualified(tree, schema, base, alias).join(exp.to_table(child).as_("mut_child"), on=on,
                                                                    dialect=dialect)
            out.append(("count_star_fan_out", mutated.sql(dialect=dialect), alias))
        aggregates_column = any(isinstance(a.this, exp.Column) for a in select.find_all(exp.Sum, exp.Avg, exp.Count))
        if aggregates_column and children:
            child, ccols, _p, pcols = children[rng.randrange(len(children))]
            on = " AND ".join(f'mut_child."{a}" = "{alias}"."{b}"' for a, b in zip(ccols, pcols, strict=True))
            mutated = _qualified(tree, schema, base, alias).join(exp.to_table(child).as_("mut_child"), on=on,
                                                                    dialect=dialect)
            out.append(("aggregate_fan_out", mutated.sql(dialect=dialect), alias))
        parents = [f for f in fks if f[0].casefold() == base.name.casefold() and len(f[1]) == 1]
        chains = [(p, c) for p in parents for c in fks
                  if c[2].casefold() == p[2].casefold() and c[0].casefold() != base.name.casefold()
                  and c[0].casefold() != p[2].casefold() and not _unique(conn, schema, c[0], c[1])]
        if aggregates_column and chains:
            (_t, pc, parent, pk), (child, cc, _p2, ck) = chains[rng.randrange(len(chains))]
            mutated = _qualified(tree, schema, base, alias)
            mutated = mutated.join(exp.to_table(parent).as_("mut_parent"),
                                   on=f'"{alias}"."{pc[0]}" = mut_parent."{pk[0]}"', dialect=dialect)
            on = " AND ".join(f'mut_child."{a}" = mut_parent."{b}"' for a, b in zip(cc, ck, strict=True))
            mutated = mutated.join(exp.to_table(child).as_("mut_child"), on=on, dialect=dialect)
            out.append(("chain_fan_out", mutated.sql(dialect=dialect), alias))
    # composite key: a join ON a AND b that is a declared composite key keeps one condition
    composite = {(f[0].casefold(), f[2].casefold()): f for f in fks if len(f[1]) > 1}
    for n, join in enumerate(tree.find_all(exp.Join)):
        on = join.args.get("on")
        equalities = list(on.flatten()) if isinstance(on, exp.And) else []
        if len(equalities) < 2 or not all(isinstance(e, exp.EQ) and isinstance(e.this, exp.Column)
                                          and isinstance(e.expression, exp.Column) for e in equalities):
            continue
        owners = {frozenset({owner(e.this).name.casefold(), owner(e.expression).name.casefold()})
                  if owner(e.this) is not None and owner(e.expression) is not None else None for e in equalities}
        pair = next(iter(owners)) if len(owners) == 1 and None not in owners else None
        if pair is None or len(pair) != 2 or not any(frozenset(k) == pair for k in composite):
            continue
        mutated = tree.copy()
        target = list(mutated.find_all(exp.Join))[n]
        target.set("on", list(target.args["on"].flatten())[0])
        out.append(("composite_key_half", mutated.sql(dialect=dialect), None))
        break
    # values in columns whose vocabulary the Evidence does not hold whole
    high = []
    for i, (_cmp, col, _lit) in enumerate(literal_cmps):
        info = owner(col)
        column = info.column(col.name) if info is not None else None
        if column is not None and _distinct(conn, info.name, column.name) > HIGH_CARDINALITY:
            high.append(i)
    if high:
        index = high[rng.randrange(len(high))]
        for kind in ("value_case_high_cardinality", "value_spelling_high_cardinality"):
            mutated = tree.copy()
            _c, _col, lit = list(_string_comparisons(mutated))[index]
            text = lit.this if isinstance(lit, exp.Literal) else lit.name
            if kind.startswith("value_case"):
                changed = text.upper() if text != text.upper() else text.lower()
            else:
                inner = [k for k in range(1, len(text) - 1) if text[k].isalpha()]
                changed = text[:inner[0]] + text[inner[0] + 1:] if inner else None
            if changed and changed != text:
                lit.replace(exp.Literal.string(changed))
                out.append((kind, mutated.sql(dialect=dialect), None))
    # the other role of a key: child.fk = parent.key where another child column references that key too
    for eq in tree.find_all(exp.EQ):
        if not (isinstance(eq.this, exp.Column) and isinstance(eq.expression, exp.Column)):
            continue
        a, b = owner(eq.this), owner(eq.expression)
        if a is None or b is None:
            continue
        for child_col, child, parent_col, parent in ((eq.this, a, eq.expression, b), (eq.expression, b, eq.this, a)):
            roles = [f[1][0] for f in fks if f[0] == child.name and f[2].casefold() == parent.name.casefold()
                     and len(f[1]) == 1 and f[3][0].casefold() == parent_col.name.casefold()]
            if child_col.name in roles and len(roles) > 1:
                other = rng.choice([r for r in roles if r != child_col.name])
                mutated = tree.copy()
                for node in mutated.find_all(exp.Column):
                    if node.sql() == child_col.sql() and isinstance(node.parent, exp.EQ):
                        node.set("this", exp.to_identifier(other))
                        break
                out.append(("wrong_key_role", mutated.sql(dialect=dialect), None))
                return out
    return out


#: A column with more distinct values than this in the database counts as high-cardinality for the
#: independent generator (measured on the data, not read from the checker's Evidence).
HIGH_CARDINALITY = 100


def _unique(conn, schema, table: str, columns) -> bool:
    """Whether ``columns`` are unique in ``table``, measured on the database (distinct non-null
    tuples vs rows with no null in them; the whole table), not read from the checker's join graph.
    A failed count says not unique."""
    name = schema.table(table).name
    cols = ", ".join(f'"{c}"' for c in columns)
    not_null = " AND ".join(f'"{c}" IS NOT NULL' for c in columns)
    try:
        rows = conn.execute(f'SELECT COUNT(*) FROM "{name}" WHERE {not_null}').fetchone()[0]
        distinct = conn.execute(f'SELECT COUNT(*) FROM (SELECT DISTINCT {cols} FROM "{name}" '
                                f'WHERE {not_null})').fetchone()[0]
    except Exception:  # noqa: BLE001 - a benchmark helper: an unreadable table is simply not unique
        return False
    return rows == distinct


def _distinct(conn, table: str, column: str) -> int:
    """COUNT(DISTINCT column) of ``table`` on the database (whole table; 0 when the count fails)."""
    try:
        return int(conn.execute(f'SELECT COUNT(DISTINCT "{column}") FROM "{table}"').fetchone()[0] or 0)
    except Exception:  # noqa: BLE001 - a benchmark helper: an unreadable column is left out
        return 0


def _qualified(tree, schema, base, alias):
    """A copy of a one-table query whose unqualified columns are qualified with its alias (so a join
    added to it keeps every column reference valid)."""
    from sqlglot import exp

    mutated = tree.copy()
    for col in mutated.find_all(exp.Column):
        if not col.table and schema.table(base.name).column(col.name) is not None:
            col.set("table", exp.to_identifier(alias))
    return mutated



def _column_table(tree, col, schema) -> str | None:
    """The table a column of a gold query belongs to (alias resolved, else the only table having it)."""
    from sqlglot import exp

    aliases = {t.alias_or_name.casefold(): t.name for t in tree.find_all(exp.Table)}
    if col.table and col.table.casefold() in aliases:
        return aliases[col.table.casefold()]
    owners = [t.name for t in tree.find_all(exp.Table)
              if schema.table(t.name) is not None and schema.table(t.name).column(col.name) is not None]
    return owners[0] if len(set(owners)) == 1 else None


def add_constraints(graphs, onto, pending: list[tuple[int, dict, str]], schema):
    """A new Ontology with one Violation Constraint per pending missing_constraint mutation."""
    import rdflib
    from rdflib import Literal, Namespace, URIRef
    from rdflib.namespace import RDF, SH

    from evoonto.ontology import Ontology
    from evoonto.tools.sparql import select

    evo = Namespace("https://w3id.org/evoonto/ns#")
    content = rdflib.Graph()
    content += graphs["content"]
    iris = {}
    for key, extra, _gold in pending:
        tree_col = extra["column"]
        table = _column_table(extra["tree"], tree_col, schema)
        info = schema.table(table) if table else None
        column = info.column(tree_col.name) if info else None
        if column is None:
            continue
        rows = select(onto, f"SELECT ?m WHERE {{ ?m evo:column <{column.iri}> }} LIMIT 1")
        if not rows:
            continue
        iri = URIRef(f"https://example.org/bench/constraint/{key}")
        content.add((iri, RDF.type, evo.Constraint))
        content.add((iri, evo.constrains, URIRef(rows[0]["m"])))
        content.add((iri, evo.condition, Literal(extra["condition"])))
        content.add((iri, evo.triggerKeyword, Literal(extra["trigger"])))
        content.add((iri, evo.severity, SH.Violation))
        iris[key] = str(iri)
    return Ontology.from_graphs({**graphs, "content": content}), iris


# -- the run -------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    parser.add_argument("--cache", default=None, help="folder caching the built ontologies (N-Triples in JSON)")
    parser.add_argument("--db", nargs="*", default=None, help="only these databases")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=40, help="flagged gold queries listed")
    parser.add_argument("--show-misses", type=int, default=3, help="missed mutants listed per kind")
    parser.add_argument("--hide-values", action="store_true",
                        help="drop every Evidence's observed values (evo:sampleValue, evo:valueDistribution), as "
                             "if every column were high-cardinality: values are then checked by point probes only")
    parser.add_argument("--question-rules", action="store_true",
                        help="turn on check_sql's opt-in question rules (question_mismatch) for gold and mutants")
    parser.add_argument("--timeout-ms", type=float, default=2000.0,
                        help="time limit of each run deciding equivalent mutants")
    parser.add_argument("--dump", default=None, help="write every mutation (kind, question, gold, mutant, "
                        "finding kinds, caught, equivalent) to this JSON-lines file")
    args = parser.parse_args(argv)

    import sqlglot

    from evoonto.sources import open_source
    from evoonto.sources.sqlite import connect_read_only
    from evoonto.tools.findings import has_violation
    from evoonto.tools.sqlcheck import check_facts, check_sql

    try:
        from evoonto.tools import joinpaths  # noqa: F401
        have_joins = True
    except ImportError:
        have_joins = False

    data = Path(args.data)
    cache = Path(args.cache) if args.cache else None
    generated = Path(tempfile.mkdtemp(prefix="evoonto-sqlcheck-"))
    items = load_items(data, generated)
    by_db: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for item in items:
        if args.db is None or item["db_id"] in args.db:
            by_db[(item["bench"], item["db_id"])].append(item)

    rng = random.Random(args.seed)
    total, flagged_gold, mismatch_gold, type_gold = Counter(), defaultdict(list), defaultdict(list), defaultdict(list)
    no_rows: Counter = Counter()  # gold queries that return no row (or fail): left out of precision
    empty_flagged: dict[str, list[tuple[str, str]]] = defaultdict(list)
    generated2, caught2, equivalents2, no_fan_out2 = Counter(), Counter(), Counter(), Counter()
    miss_classes2: Counter = Counter()  # (kind, class) of the kept mutants check_sql missed
    dropped2: list[tuple[str, str, str, str]] = []  # (kind, db, mutant, why) of the mutants not kept
    misses2: dict[str, list[str]] = defaultdict(list)
    warned_gold: Counter = Counter()  # (bench, kind) -> gold queries with a finding of that kind
    generated, caught, caught_viol = Counter(), Counter(), Counter()
    equivalents, caught_equivalent = Counter(), Counter()
    dump = open(args.dump, "w", encoding="utf-8") if args.dump else None
    latency_world: list[float] = []
    latency_all: list[float] = []
    misses: dict[str, list[str]] = defaultdict(list)
    started = time.perf_counter()
    for (bench, db_id), group in sorted(by_db.items()):
        t0 = time.perf_counter()
        onto, graphs = build_ontology(group[0]["db_path"], [i["question"] for i in group], cache)
        if args.hide_values:
            onto, graphs = hide_values(graphs)
        facts = check_facts(onto)
        schema = next(iter(facts.sources.values()))
        dialect = "sqlite"
        build_s = time.perf_counter() - t0
        clean = []
        conn = connect_read_only(group[0]["db_path"])
        # the database backs check_sql's point probes, as the toolkit's sources do for an agent
        live = open_source(group[0]["db_path"], source_id=schema.id)
        probe_sources = {schema.id: live}
        for item in group:
            item["rows"] = _rows(conn, item["sql"], args.timeout_ms)
            item["raw"] = _raw_rows(conn, item["sql"], args.timeout_ms)
            if item["rows"] is None or not any(v != "None" for row in item["rows"][1] for v in row):
                no_rows[bench] += 1
                # precision is measured on gold queries that return rows: a query whose result is empty
                # or only NULLs (an aggregate over no row) is listed below when check_sql flags it
                if has_violation(check_sql(onto, item["sql"], sources=probe_sources)):
                    empty_flagged[bench].append((db_id, item["sql"]))
                continue
            t1 = time.perf_counter()
            findings = check_sql(onto, item["sql"], question=item["question"], sources=probe_sources,
                                 question_rules=args.question_rules)
            ms = (time.perf_counter() - t1) * 1000.0
            latency_all.append(ms)
            if db_id == "world_1":
                latency_world.append(ms)
            total[bench] += 1
            for kind in {f.kind for f in findings}:
                warned_gold[(bench, kind)] += 1
            if any(f.kind == "type_mismatch" for f in findings):
                type_gold[bench].append((db_id, item["question"], item["sql"],
                                         [f for f in findings if f.kind == "type_mismatch"]))
            if any(f.kind == "question_mismatch" for f in findings):
                mismatch_gold[bench].append((db_id, item["question"], item["sql"],
                                             [f for f in findings if f.kind == "question_mismatch"]))
            if has_violation(findings):
                flagged_gold[bench].append((db_id, item["sql"], [f for f in findings if f.severity == "Violation"]))
            else:
                clean.append({**item, "seen": {(f.kind, f.subject) for f in findings}})
        pending = []

        def record(kind: str, item: dict, mutated: str, findings: list, hit: bool, conn=conn, db_id=db_id) -> None:
            """Count one mutation (flagged or not; equivalent or not) and dump it."""
            same = equivalent(item["rows"], _rows(conn, mutated, args.timeout_ms))
            generated[kind] += 1
            equivalents[kind] += same
            caught[kind] += hit
            caught_equivalent[kind] += hit and same
            # missing_constraint: the Violation must be the one that names the declared Constraint
            caught_viol[kind] += (hit if kind == "missing_constraint" else True) and has_violation(findings)
            if not hit:
                misses[kind].append(f"{db_id}: {mutated}" + (" (equivalent)" if same else ""))
            if dump is not None:
                dump.write(json.dumps({"kind": kind, "db": db_id, "question": item["question"], "gold": item["sql"],
                                       "mutant": mutated, "findings": sorted({f.kind for f in findings}),
                                       "caught": hit, "equivalent": same}) + "\n")

        for n, item in enumerate(clean):
            for kind, mutated, alias in independent_mutations(item["sql"], schema, dialect, rng, conn):
                # kept only when the mutant's answer differs from gold's (the project's EX comparison),
                # and, for a fan-out kind, when the data repeats a row of the query's table through the
                # added join (else the answer changes only because the inner join drops rows)
                same = same_answer(bench, item["sql"], item["raw"], _raw_rows(conn, mutated, args.timeout_ms))
                generated2[kind] += 1
                no_fan = not same and kind in FAN_OUT_KINDS and fans_out(conn, mutated, alias, args.timeout_ms) is False
                found = [] if same or no_fan else [
                    f for f in check_sql(onto, mutated, sources=probe_sources, question=item["question"],
                                         question_rules=args.question_rules)
                    if (f.kind, f.subject) not in item["seen"]]
                hit = bool({f.kind for f in found} & INDEPENDENT_EXPECTED[kind]) or has_violation(found)
                equivalents2[kind] += same
                no_fan_out2[kind] += no_fan
                caught2[kind] += hit
                why = None
                if same or no_fan:
                    dropped2.append((kind, db_id, mutated, "same answer as gold" if same else
                                     "no row repeated in the data (the join only drops rows)"))
                elif not hit:
                    why = miss_class(kind, mutated, conn, schema)
                    miss_classes2[(kind, why)] += 1
                    misses2[kind].append(f"{db_id}: {mutated}  [{why}]")
                if dump is not None:
                    dump.write(json.dumps({"generator": "independent", "kind": kind, "db": db_id, "bench": bench,
                                           "question": item["question"], "gold": item["sql"], "mutant": mutated,
                                           "findings": sorted({f.kind for f in found}), "caught": hit,
                                           "equivalent": same, "no_fan_out": no_fan, "miss_class": why}) + "\n")
            for kind, mutated, extra in mutations(item["sql"], schema, dialect, rng, facts.joins):
                if kind == "missing_constraint":
                    extra["tree"] = sqlglot.parse_one(item["sql"], read=dialect)
                    pending.append((f"{db_id}-{n}", extra, mutated, item))
                    continue
                if kind in JOIN_KINDS and not have_joins:
                    generated[kind] += 1
                    continue
                findings = [f for f in check_sql(onto, mutated, question=item["question"], sources=probe_sources,
                                                 question_rules=args.question_rules)
                            if (f.kind, f.subject) not in item["seen"]]  # new: the gold query did not draw it
                record(kind, item, mutated, findings, bool({f.kind for f in findings} & EXPECTED[kind]))
        if pending:
            augmented, iris = add_constraints(graphs, onto, [p[:3] for p in pending], schema)
            for key, _extra, mutated, item in pending:
                if key not in iris:
                    continue
                findings = check_sql(augmented, mutated, sources=probe_sources)
                hit = any(f.kind == "missing_constraint" and f.subject == iris[key] for f in findings)
                record("missing_constraint", item, mutated, findings, hit)
        conn.close()
        live.close()
        print(f"{bench}/{db_id}: {len(group)} gold, ontology in {build_s:.1f}s", file=sys.stderr)

    print(f"check_sql benchmark ({time.perf_counter() - started:.0f}s; seed {args.seed})\n")
    print("Precision (gold queries that return rows, checked with point probes of the database, without a "
          "Violation; target >= 99.5%)")
    for bench in total:
        ok = total[bench] - len(flagged_gold[bench])
        print(f"  {bench:<16} {ok}/{total[bench]} = {ok / total[bench]:.1%} "
              f"({no_rows[bench]} gold queries returning no row, only NULLs, or failing left out; "
              f"{len(empty_flagged[bench])} of them flagged)")
    overall = sum(total.values())
    ok_all = overall - sum(len(v) for v in flagged_gold.values())
    print(f"  {'all':<16} {ok_all}/{overall} = {ok_all / max(overall, 1):.1%}")
    shown = 0
    for bench, rows in flagged_gold.items():
        for db_id, sql, found in rows:
            if shown >= args.show:
                break
            shown += 1
            why = "; ".join(f"{f.kind}: {f.message}" for f in found)
            print(f"  flagged {bench}/{db_id}: {sql}\n      why: {why}")
    for bench, rows in empty_flagged.items():
        for db_id, sql in rows[:args.show]:
            print(f"  (left out: no row or only NULLs) flagged {bench}/{db_id}: {sql}")
    why_counts = Counter(f.kind for rows in flagged_gold.values() for _d, _s, found in rows for f in found)
    print(f"  flagged gold by kind: {dict(why_counts)}")
    print("\nWarnings on gold queries (false alarms; Warnings do not count against precision)")
    for bench in total:
        print(f"  {bench:<16} question_mismatch {len(mismatch_gold[bench])}/{total[bench]} = "
              f"{len(mismatch_gold[bench]) / total[bench]:.1%}; type_mismatch {len(type_gold[bench])}/{total[bench]} = "
              f"{len(type_gold[bench]) / total[bench]:.1%}")
    counted = sorted(set().union(*EXPECTED.values()))
    print("  findings on gold by kind (the kinds recall counts; share of gold queries with one):")
    for bench in total:
        shares = [f"{k} {warned_gold[(bench, k)] / total[bench]:.1%}" for k in counted if warned_gold[(bench, k)]]
        print(f"  {bench:<16} " + "; ".join(shares))
    for bench, rows in type_gold.items():
        for db_id, _question, sql, found in rows[:3]:
            print(f"  warned {bench}/{db_id}: {sql}\n      why: {found[0].message}")
    for bench, rows in mismatch_gold.items():
        for db_id, question, sql, found in rows[:3]:
            print(f"  warned {bench}/{db_id}: {question}\n      {sql}\n      why: {found[0].message}")

    print("\nRecall on mutations (target: any* >= 90% per kind)")
    print("  any/viol: share of all mutants flagged (any expected finding / a Violation); equiv: mutants that\n"
          "  return the gold query's (non-empty) rows on the database; any*: share of the non-equivalent\n"
          "  mutants flagged, the target figure")
    print(f"  {'kind':<24} {'n':>5} {'any':>7} {'viol':>7} {'equiv':>6} {'any*':>7}")
    if dump is not None:
        dump.close()
    for kind in KINDS:
        if kind in JOIN_KINDS and not have_joins:
            print(f"  {kind:<24} {generated[kind]:>5} needs joinpaths (evoonto.tools.joinpaths is not on this branch)")
            continue
        n = generated[kind]
        if not n:
            print(f"  {kind:<24} {0:>5}")
            continue
        real = n - equivalents[kind]
        star = (caught[kind] - caught_equivalent[kind]) / real if real else float("nan")
        print(f"  {kind:<24} {n:>5} {caught[kind] / n:>7.1%} {caught_viol[kind] / n:>7.1%} "
              f"{equivalents[kind]:>6} {star:>7.1%}")
    for kind, rows in misses.items():
        for row in rows[:3] if kind != "fan_trap" else rows:
            print(f"  missed {kind}: {row}")

    print("\nRecall of the independent generator (issue 28). A mutant is kept only when its answer differs from "
          "gold's\n  (the project's EX comparison, results_match in the benchmark's mode) and, for a fan-out kind, "
          "when the data\n  repeats a row of the query's table through the added join; recall: kept mutants flagged "
          "by an expected kind\n  or a new Violation (target >= 90%)")
    print(f"  {'kind':<32} {'n':>5} {'same':>5} {'nofan':>5} {'kept':>5} {'recall':>7}")
    for kind in INDEPENDENT_KINDS:
        n = generated2[kind]
        if not n:
            print(f"  {kind:<32} {0:>5}  (no gold query has this shape)")
            continue
        kept = n - equivalents2[kind] - no_fan_out2[kind]
        recall = f"{caught2[kind] / kept:>7.1%}" if kept else f"{'-':>7}"
        print(f"  {kind:<32} {n:>5} {equivalents2[kind]:>5} {no_fan_out2[kind]:>5} {kept:>5} {recall}")
    print(f"  dropped: {sum(equivalents2.values())} with gold's answer, {sum(no_fan_out2.values())} fan-out mutants "
          "whose join repeats no row in the data")
    if miss_classes2:
        print("  misses by class ((b) the checker could catch it from the SQL and the ontology's facts; (c) only the "
              "question can tell):")
        for (kind, why), count in sorted(miss_classes2.items()):
            print(f"    {kind:<30} {count:>4}  {why}")
    for kind, rows in misses2.items():
        for row in rows[:args.show_misses]:
            print(f"  missed {kind}: {row}")
    for kind, db_id, mutated, why in dropped2:
        if kind in FAN_OUT_KINDS + ("wrong_key_role",) and args.show_misses:
            print(f"  dropped {kind} ({why}): {db_id}: {mutated}")

    def pct(values: list[float], q: float) -> float:
        values = sorted(values)
        return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")

    print("\nLatency of check_sql (warm ontology, point probes of the database included; target p50 <= 30 ms)")
    if latency_world:
        print(f"  world_1 ({len(latency_world)} gold): p50 {statistics.median(latency_world):.2f} ms, "
              f"p99 {pct(latency_world, 0.99):.2f} ms")
    print(f"  all ({len(latency_all)} gold, first call per database includes reading the ontology): "
          f"p50 {statistics.median(latency_all):.2f} ms, p99 {pct(latency_all, 0.99):.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
