"""Benchmark of the ontology core on a generated ontology of ~100k triples (issue 2).

Measures (wall clock, milliseconds):

- open:      ``Workspace.open`` of a workspace whose base.trig holds ~100k triples (target ≤ 1,500 ms)
- commit:    ``Workspace.commit`` of a 200-quad content patch, including SHACL validation of the
             touched nodes and the atomic file write (target ≤ 50 ms); the first commit of a process
             also builds the pyshacl shapes graph and is reported separately
- validate:  full SHACL validation of the active version (pyshacl Core + SPARQL checks on Oxigraph)
- export:    Turtle export of the active content + schema layers

Usage::

    python benchmarks/core_bench.py [--triples 100000] [--commits 5] [--json]

Numbers depend on the machine and on its load: wall-clock and process CPU times are both printed,
with the 1-minute load average, so runs on a busy machine can be read correctly.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import rdflib
from rdflib import Literal
from rdflib.namespace import DCAT, DCTERMS, RDF, XSD

from evoonto.export import to_turtle
from evoonto.iris import IriFactory, stable_key
from evoonto.namespaces import CSVW, EVO
from evoonto.patch import Patch
from evoonto.records import Evidence, Mapping, ProbeActivity, Relation, Term
from evoonto.validation import validate
from evoonto.workspace import Workspace

BASE = "https://example.org/evoonto/bench/"
COLUMNS_PER_TABLE = 8


def column_records(iris: IriFactory, src: str, table: str, column: str, i: int) -> tuple[list, list]:
    """(catalog triples, content triples) of one column with its Term, Mapping, Evidence and Probe."""
    t, c = iris.table(src, table), iris.column(src, table, column)
    catalog = [
        (c, RDF.type, CSVW.Column), (c, CSVW.name, Literal(column)), (c, DCTERMS.isPartOf, t),
        (c, EVO.declaredType, Literal("INTEGER" if i % 2 else "TEXT")),
        (c, EVO.ordinal, Literal(i % COLUMNS_PER_TABLE, datatype=XSD.integer)),
    ]
    key = stable_key(src, table, column)
    term = iris.term(src, f"{table}-{column}")
    mapping = iris.mapping(src, table, column)
    ev, probe = iris.evidence(key), iris.probe(key)
    records = [
        Term(term, f"{table} {column}", kinds=["Metric" if i % 2 else "Dimension"], alt_labels=[column],
             hidden_labels=[column.upper()], definition=f"The {column} of a {table}.", mappings=[mapping],
             evidence=[ev]),
        Mapping(mapping, term, iris.source(src), t, c, aggregation="SUM" if i % 2 else "NONE",
                grain=f"one row per {table}", confidence=0.9, evidence=[ev]),
        ProbeActivity(probe, f"SELECT {column} FROM {table}", used=iris.source(src)),
        Evidence(ev, probe=probe, summary="100 rows", rows_observed=100, null_fraction=0.0,
                 distinct_count=10, min_value="a", max_value="z", sample_values=["a", "b", "c"]),
    ]
    content = [triple for r in records for triple in r.to_triples()]
    return catalog, content


def generate(triples: int) -> dict[str, rdflib.Graph]:
    """Catalog + content graphs of about ``triples`` triples (tables of 8 columns, one Term each)."""
    iris = IriFactory(BASE)
    catalog, content = rdflib.Graph(), rdflib.Graph()
    src = "warehouse"
    s = iris.source(src)
    for t in ((s, RDF.type, DCAT.Dataset), (s, DCTERMS.identifier, Literal(src)),
              (s, EVO.sourceKind, Literal("sqlite"))):
        catalog.add(t)
    n_table = 0
    while len(catalog) + len(content) < triples:
        table = f"table_{n_table}"
        t = iris.table(src, table)
        for trip in ((t, RDF.type, CSVW.Table), (t, CSVW.name, Literal(table)), (t, DCTERMS.isPartOf, s),
                     (t, EVO.rowCount, Literal(100, datatype=XSD.integer))):
            catalog.add(trip)
        previous = None
        for i in range(COLUMNS_PER_TABLE):
            cat, con = column_records(iris, src, table, f"col_{i}", i)
            for trip in cat:
                catalog.add(trip)
            for trip in con:
                content.add(trip)
            term = iris.term(src, f"{table}-col_{i}")
            if previous is not None:
                rel = Relation(iris.relation("Association", previous, term), "Association", previous, term)
                for trip in rel.to_triples():
                    content.add(trip)
            previous = term
        n_table += 1
    return {"catalog": catalog, "content": content}


def patch_of(ws: Workspace, n: int, quads: int = 200) -> Patch:
    """A valid content patch of exactly ``quads`` quads: a new table with whole column records
    (catalog column, Term, Mapping, Probe, Evidence), padded with synonyms of its first Term."""
    from rdflib.namespace import SKOS

    cat_g, con_g = rdflib.Graph(), rdflib.Graph()
    table = f"new_table_{n}"
    t, s = ws.iris.table("warehouse", table), ws.iris.source("warehouse")
    for trip in ((t, RDF.type, CSVW.Table), (t, CSVW.name, Literal(table)), (t, DCTERMS.isPartOf, s)):
        cat_g.add(trip)
    i = 0
    while True:
        cat, con = column_records(ws.iris, "warehouse", table, f"c{i}", i)
        if len(cat_g) + len(con_g) + len(cat) + len(con) > quads:
            break
        for trip in cat:
            cat_g.add(trip)
        for trip in con:
            con_g.add(trip)
        i += 1
    first = ws.iris.term("warehouse", f"{table}-c0")
    k = 0
    while len(cat_g) + len(con_g) < quads:
        con_g.add((first, SKOS.altLabel, Literal(f"synonym {k}", lang="en")))
        k += 1
    return Patch.from_graphs("content", {"catalog": cat_g, "content": con_g}, signature="bench",
                             intervention=f"add {table}")


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--triples", type=int, default=100_000, help="content+catalog triples to generate")
    parser.add_argument("--commits", type=int, default=5, help="number of timed 200-quad commits")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ws"
        t0 = time.perf_counter()
        graphs = generate(args.triples)
        gen_s = time.perf_counter() - t0
        ws = Workspace.init(path, base_iri=BASE, name="bench")
        t0 = time.perf_counter()
        ws.replace_base(graphs, validate_shapes=False)
        base_s = time.perf_counter() - t0
        total = sum(ws.ontology.counts().values())

        open_times, open_cpu = [], []
        for _ in range(3):
            t0, c0 = time.perf_counter(), time.process_time()
            ws = Workspace.open(path)
            open_times.append(time.perf_counter() - t0)
            open_cpu.append(time.process_time() - c0)

        commit_times, commit_cpu, patch_sizes, valid = [], [], [], True
        for n in range(args.commits + 1):
            patch = patch_of(ws, n)
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                ws.commit(patch)
            except Exception as exc:  # noqa: BLE001 - reported, not hidden
                valid = False
                print(f"commit {n} failed: {str(exc)[:300]}", file=sys.stderr)
            commit_times.append(time.perf_counter() - t0)
            commit_cpu.append(time.process_time() - c0)
            patch_sizes.append(len(patch))

        t0 = time.perf_counter()
        report = validate(ws.ontology)
        validate_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        data = to_turtle(ws.ontology)
        export_s = time.perf_counter() - t0

        t0 = time.perf_counter()
        Workspace.open(path)
        reopen_s = time.perf_counter() - t0

    result = {
        "quads_total": total,
        "content_catalog_triples": sum(len(g) for g in graphs.values()),
        "generate_ms": ms(gen_s), "replace_base_ms": ms(base_s),
        "load_average_1min": round(os.getloadavg()[0], 2), "cpus": os.cpu_count(),
        "open_ms_median": ms(statistics.median(open_times)), "open_ms_all": [ms(x) for x in open_times],
        "open_cpu_ms_median": ms(statistics.median(open_cpu)),
        "open_after_commits_ms": ms(reopen_s),
        "patch_quads": patch_sizes[0],
        "commit_first_ms": ms(commit_times[0]),
        "commit_ms_median": ms(statistics.median(commit_times[1:])) if len(commit_times) > 1 else None,
        "commit_ms_all": [ms(x) for x in commit_times],
        "commit_cpu_ms_median": ms(statistics.median(commit_cpu[1:])) if len(commit_cpu) > 1 else None,
        "commits_valid": valid,
        "full_validation_ms": ms(validate_s), "full_validation_conforms": report.conforms,
        "turtle_export_ms": ms(export_s), "turtle_bytes": len(data),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        width = max(len(k) for k in result)
        for key, value in result.items():
            print(f"{key:<{width}}  {value}")
        commit_met = result["commit_ms_median"] and result["commit_ms_median"] <= 50
        print(f"targets: commit <= 50 ms ({'met' if commit_met else 'NOT met'}), "
              f"open <= 1500 ms ({'met' if result['open_ms_median'] <= 1500 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
