"""Semantic query compiler on gold SQL (issue 32): how much gold is expressible, and is it equal?

For every gold query of a Spider/BIRD-layout folder (``--data DIR``), a **translator** on the scorer
side (:class:`evoonto.tools.semantic_from_sql.Translator`, here given gold only) reads the gold SQL
with sqlglot and writes the semantic query it asks (metrics, dimensions, filters, order, limit;
record ids of the builder's cold-start ontology of the database, which never saw the gold). Only
that semantic query reaches the compiler (:func:`evoonto.tools.semantic.compile_semantic`); the
compiled SQL is scored against the gold with the project's EX scorer
(:func:`evoonto.evaluation.execution.score_ex`, Spider rules for a Spider folder, BIRD rules for a
BIRD folder).

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

from evoonto.tools.semantic_from_sql import Lookup, NotExpressible, Translator

# The translator (SQL -> semantic query) lives in the package, :mod:`evoonto.tools.semantic_from_sql`
# (evolution uses it on verified SQL); here it reads gold SQL on the scorer side only.


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
