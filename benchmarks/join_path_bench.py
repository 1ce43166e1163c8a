"""Benchmark of join paths (issue 15, "Must hold": join paths match the gold's join keys in >= 95%).

For every gold query of ``<shared data>/spider`` (663) and ``<shared data>/bird_synth_dev`` (196)
that joins tables, the join keys the gold SQL writes (column equalities between two tables of one
SELECT, aliases resolved) are compared with the join tree the tool proposes over the same tables
(:meth:`evoonto.tools.joinpaths.JoinGraph.connect`, i.e. ``join_path`` hop by hop). A query matches
when, in each of its SELECTs, every gold join key is a hop of the tool's tree and the tree joins no
other keys. The ontology of each database is the builder's cold start with no workload (the builder
never reads gold SQL: only this scorer does). Prints the share per benchmark and lists the misses.

Usage::

    python benchmarks/join_path_bench.py [--data ../shared/data] [--misses 40] [DB ...]

Other benchmarks can import :func:`join_graphs` (the graph of each database, built once) and
:func:`gold_join_keys`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Iterable

BENCHMARKS = ("spider", "bird_synth_dev")


def _default_data() -> Path:
    return Path(os.environ.get("EVOONTO_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def join_graphs(folder: Path, databases: Iterable[str]) -> dict[str, Any]:
    """``{db_id: JoinGraph}`` of the builder's cold start of each ``folder/database/<db>/<db>.sqlite``."""
    from evoonto.builder import build
    from evoonto.ontology import Ontology
    from evoonto.tools.joinpaths import JoinGraph

    graphs = {}
    for db in databases:
        result = build([folder / "database" / db / f"{db}.sqlite"], None, validate=False)
        graphs[db] = JoinGraph.from_ontology(Ontology.from_graphs(result.graphs))
    return graphs


def gold_join_keys(graph: Any, sql: str, dialect: str = "sqlite") -> list[Any]:
    """The joins each SELECT of ``sql`` writes (:func:`evoonto.tools.joinpaths.written_joins`)."""
    import sqlglot

    from evoonto.tools.joinpaths import written_joins

    return written_joins(graph, sqlglot.parse_one(sql, read=dialect))


def score(graph: Any, sql: str) -> tuple[bool | None, bool, str]:
    """``(strict, lenient, detail)`` for one gold query; ``strict`` is None when it joins no tables.

    strict: in every SELECT, the tool's join tree joins exactly the gold's keys. lenient: the same,
    where a hop may be replaced by another known join between the same two tables (the tool lists
    those as the hop's ``alternatives``, e.g. ``eye_colour_id`` / ``hair_colour_id`` to ``colour``).
    """
    from evoonto.tools.joinpaths import TableRef

    try:
        scopes = gold_join_keys(graph, sql)
    except Exception as exc:  # noqa: BLE001 - a gold query sqlglot cannot read is reported, not fatal
        return False, False, f"unparsed: {type(exc).__name__}"
    if not scopes:
        return None, False, ""
    strict = lenient = True
    detail = ""
    for scope in scopes:
        hops = graph.connect(scope.tables)
        tool = set().union(*(h.pairs for h in hops)) if hops else set()
        if hops is not None and tool == scope.pairs:
            continue
        strict = False
        detail = f"gold {sorted(scope.pairs)} tool {sorted(tool) if hops is not None else 'no path'}"
        if hops is None:
            lenient = False
            continue
        chosen: set = set()
        for hop in hops:
            options = [e.pairs for e in graph.between(TableRef(hop.source, hop.left), TableRef(hop.source, hop.right))]
            fitting = [o for o in options if o <= scope.pairs]
            if not fitting:
                lenient = False
                break
            chosen |= fitting[0] if len(fitting) == 1 else set().union(*fitting)
        if lenient and chosen != scope.pairs:
            lenient = False
    return strict, lenient, detail


def join_violations(graph: Any, sql: str) -> list[str]:
    """``kind: message`` of the Violation-level findings of :func:`~evoonto.tools.joinpaths.check_joins`
    on one (gold) query; a query sqlglot cannot parse gives []."""
    import sqlglot

    from evoonto.tools.joinpaths import check_joins

    try:
        statement = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.ParseError:
        return []
    return [f"{f.kind}: {f.message}" for f in check_joins(graph, statement, dialect="sqlite")
            if f.severity == "Violation"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=_default_data(), help="the shared data folder")
    parser.add_argument("--misses", type=int, default=40, help="misses listed per benchmark")
    parser.add_argument("databases", nargs="*", help="database ids (default: all)")
    args = parser.parse_args(argv)
    total_joined = total_matched = total_loose = 0
    for bench in BENCHMARKS:
        folder = args.data / bench
        gold = json.loads((folder / "dev.json").read_text())
        dbs = sorted({g["db_id"] for g in gold if not args.databases or g["db_id"] in args.databases})
        t0 = time.perf_counter()
        graphs = join_graphs(folder, dbs)
        built = time.perf_counter() - t0
        joined = matched = loose = 0
        misses, flagged = [], []
        for item in gold:
            if item["db_id"] not in graphs:
                continue
            violations = join_violations(graphs[item["db_id"]], item["query"])
            if violations:
                flagged.append(f"  {item['db_id']}: {item['query'][:150]}\n      {violations}")
            ok, ok_loose, detail = score(graphs[item["db_id"]], item["query"])
            if ok is None:
                continue
            joined += 1
            matched += ok
            loose += ok_loose
            if not ok:
                tag = "alternative" if ok_loose else "MISS"
                misses.append(f"  [{tag}] {item['db_id']}: {item['query'][:150]}\n      {detail}")
        share = matched / joined if joined else 1.0
        print(f"{bench}: {matched}/{joined} joining gold queries match the tool's join path ({share:.1%}); "
              f"{loose}/{joined} counting a hop's listed alternatives ({loose / max(joined, 1):.1%}); "
              f"graphs built in {built:.1f} s")
        for line in misses[: args.misses]:
            print(line)
        if len(misses) > args.misses:
            print(f"  ... {len(misses) - args.misses} more")
        total_loose += loose
        checked = sum(1 for g in gold if g["db_id"] in graphs)
        print(f"{bench}: check_joins raises a Violation on {len(flagged)}/{checked} gold queries")
        for line in flagged[: args.misses]:
            print(line)
        total_joined += joined
        total_matched += matched
    share = total_matched / total_joined if total_joined else 1.0
    loose = total_loose / total_joined if total_joined else 1.0
    print(f"TOTAL: strict {total_matched}/{total_joined} ({share:.1%}), with alternatives {total_loose}/{total_joined} "
          f"({loose:.1%}); target >= 95% (strict) -> {'met' if share >= 0.95 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
