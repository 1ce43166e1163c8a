"""How far evolution can grow the semantic query layer (issue 32 item 4), with every task failed.

For each database of a Spider/BIRD-layout folder (``--data DIR``) or one verified-queries file
(``--verified FILE --db DB``), the builder's cold start (no workload, no verified queries) is the
parent; each query's SQL is given to diagnosis as the verified SQL (``reference_sql``) of a failed
task asking its question — the upper bound of what a loop run could see, since there only failed
tasks count. It prints, per database and in total:

- ``signatures``: ``missing_measure`` signatures (an aggregate no metric Term holds, or a condition no
  named filter holds, in the builder's miner's sense);
- ``candidates``: those the candidate writer turns into a metric Term or filter Constraint (the miner
  names it from the questions, it passes SHACL, the SQL is expressible as a semantic query with it);
- ``expressible``: queries the translator cannot express over the parent but can once every
  candidate of the database is applied (each candidate is checked alone, so this counts the
  queries one of them makes expressible).

No gate runs here (see ``benchmarks/evolution_bench.py --verified N`` for the loop). Usage::

    python benchmarks/semantic_growth_bench.py --data ../shared/data/bird_synth_dev [DB ...]
    python benchmarks/semantic_growth_bench.py --verified examples/chinook/verified.jsonl \\
        --db ../shared/data/chinook/Chinook_Sqlite.sqlite

The last line is ``semantic growth: signatures S, candidates C (metrics M, filters F), newly expressible X/N``.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any


def run_database(db_path: Path, items: list[tuple[str, str, str]]) -> dict[str, Any]:
    """``items`` = ``[(id, question, sql)]`` of one SQLite database; returns the counts."""
    from evoonto.builder import build
    from evoonto.evolution.attribute import attribute
    from evoonto.evolution.candidates import propose
    from evoonto.evolution.diagnose import diagnose
    from evoonto.evolution.edits import EditContext
    from evoonto.evolution.loop import to_patch, validate_candidate
    from evoonto.evolution.probes import ValueProber
    from evoonto.evolution.trajectories import TaskTrajectory
    from evoonto.evolution.view import OntologyView
    from evoonto.ontology import Ontology
    from evoonto.resources import vocab_graph
    from evoonto.sources import open_source
    from evoonto.tools.semantic_from_sql import NotExpressible, translate_sql

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = build([db_path], None, validate=False)
    onto = Ontology.from_graphs({**result.graphs, "vocab": vocab_graph()}, base_iri=result.base_iri)
    source = open_source(str(db_path))
    src = source.id
    try:
        view = OntologyView(onto)
        ctx = EditContext(view, onto.iris)
        prober = ValueProber({src: source})
        trajs = [TaskTrajectory(qid, question, src, [], passed=False, score=0.0, reference_sql=sql)
                 for qid, question, sql in items]
        sigs = diagnose(trajs, view, prober=prober, kinds=("missing_measure",))
        counts = {"signatures": len(sigs), "metrics": 0, "filters": 0, "invalid": 0, "newly": 0, "n": len(items)}
        patched_versions = []
        for sig in sigs:
            for cand in propose(attribute(sig, view), view, prober=prober, iris=ctx.iris, now=ctx.now):
                patched, why = validate_candidate(onto, to_patch(cand, ctx))
                if why is not None:
                    counts["invalid"] += 1
                    continue
                counts["metrics" if sig.detail("measure") == "metric" else "filters"] += 1
                patched_versions.append(patched)
        for _qid, _question, sql in items:
            try:
                translate_sql(onto, sql)
                continue
            except NotExpressible:
                pass
            for patched in patched_versions:
                try:
                    translate_sql(patched, sql)
                except NotExpressible:
                    continue
                counts["newly"] += 1
                break
        return counts
    finally:
        source.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, help="a Spider/BIRD-layout folder (dev.json + database/)")
    parser.add_argument("--verified", type=Path, help="a verified-queries JSON Lines file (id, question, sql)")
    parser.add_argument("--db", type=Path, help="the SQLite database of --verified")
    parser.add_argument("databases", nargs="*", help="only these db ids")
    args = parser.parse_args(argv)
    by_db: dict[Path, list[tuple[str, str, str]]] = {}
    if args.verified:
        if not args.db:
            parser.error("--verified needs --db")
        from evoonto.builder.verified import load_verified

        by_db[args.db] = [(item.id, item.question, item.sql) for item in load_verified(args.verified)]
    elif args.data:
        from evoonto.evaluation.benchmarks import load_benchmark

        bench = load_benchmark("bird" if "bird" in args.data.name else None, args.data)
        for q in bench.questions:
            if args.databases and q.db_id not in args.databases:
                continue
            by_db.setdefault(Path(bench.databases[q.db_id]), []).append((q.id, q.text, bench.gold[q.id].sql))
    else:
        parser.error("give --data DIR or --verified FILE --db FILE")
    total = {"signatures": 0, "metrics": 0, "filters": 0, "invalid": 0, "newly": 0, "n": 0}
    started = time.perf_counter()
    for db_path, items in sorted(by_db.items()):
        counts = run_database(db_path, items)
        print(f"{db_path.stem:32s} queries {counts['n']:4d}  signatures {counts['signatures']:3d}  metrics "
              f"{counts['metrics']:3d}  filters {counts['filters']:3d}  SHACL-invalid {counts['invalid']}  newly "
              f"expressible {counts['newly']}", flush=True)
        for key in total:
            total[key] += counts[key]
    print(f"wall time {time.perf_counter() - started:.1f} s")
    print(f"semantic growth: signatures {total['signatures']}, candidates {total['metrics'] + total['filters']} "
          f"(metrics {total['metrics']}, filters {total['filters']}), newly expressible {total['newly']}/{total['n']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
