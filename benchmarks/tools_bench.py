"""Benchmark of the Tool layer (issue 9): browse/resolve latency and an MCP stdio round trip.

For generated ontologies of 1k, 20k and 100k Terms (each Term with a synonym, a hidden column-name
label, a definition, one Mapping to a table column, and every 5th Term an Evidence record with
sample values), it prints:

- index build time (seconds: SPARQL gathering + BM25 indexes), one-time per version;
- browse p50/p99 (ms) over generated queries (exact label, two label words, a snake_case column
  name, a sample value, a misspelt word) and recall@5 of the Term the query was made from;
- the same for a plain token-overlap scan (score = shared words + 2 if the query's words appear
  as a phrase; a full scan per call), on the same ontologies and queries;
- resolve p50/p99 (ms) of one Term id with full expansion;
- MCP stdio round trip p50/p99 (ms): ``browse`` called through the SDK Client against
  ``evoonto serve`` started as a subprocess of the console script (1k-Term workspace);
- with ``--reload`` (issue 19), per size on a workspace: the index built cold (no tokens known), read
  back from the workspace cache (what ``evoonto browse``/``serve`` do for a version indexed before),
  and built incrementally after a one-Term patch from the parent's index; then the server
  (``ToolsProvider``) after that commit: the longest browse call while the new version is indexed
  (answered by the previous version) and the time until the new version is served;
- with ``--workspace PATH``: browse p50/p99 (verbose and compact, wall and CPU) on a built workspace
  (e.g. the 70,000-column one ``scale_bench.py --keep`` leaves), see :func:`bench_workspace`.

Targets: browse p50 ≤ 2 ms at 20k and ≤ 10 ms at 100k Terms; resolve p50 ≤ 5 ms; stdio p50 ≤ 10 ms.

Usage::

    python benchmarks/tools_bench.py [--sizes 1000 20000 100000] [--queries 300] [--no-stdio] [--reload]
    python benchmarks/tools_bench.py --workspace /tmp/scale/ws_gen_70000 --queries 20
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

ADJ = ("total net gross average monthly annual daily active lost new returning paid unpaid open closed "
       "pending late early current prior regional global local online retail wholesale direct indirect "
       "primary secondary internal external verified flagged premium basic legacy seasonal quarterly "
       "weekly expected actual").split()
NOUN = ("revenue customer order invoice payment shipment product supplier employee contract account "
        "region store warehouse discount refund margin cost price quantity rating review ticket "
        "campaign lead visit session subscription plan device branch loan claim policy vehicle route "
        "flight booking patient doctor course student grade exam salary bonus budget asset liability "
        "tax fee balance transfer channel segment partner vendor item category brand").split()
QUAL = [f"{w}{i}" if i else w for i in range(5) for w in
        ("count amount rate ratio share score status type code date level tier flag group index").split()]
VALUES = ("Banned Active Suspended Pending Closed Gold Silver Bronze Verified Rejected Approved "
          "Cancelled Refunded Shipped Delivered Returned Expired Trial Premium Standard").split()

EVO = "https://w3id.org/evoonto/ns#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
PROV = "http://www.w3.org/ns/prov#"
CSVW = "http://www.w3.org/ns/csvw#"
DCT = "http://purl.org/dc/terms/"
DCAT = "http://www.w3.org/ns/dcat#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
G = "https://w3id.org/evoonto/graph/"
BASE = "https://example.org/evoonto/bench/"


def generate(n: int, seed: int = 0):
    """Quads of an n-Term ontology and, per Term, (id, label, column, sample value or None)."""
    import pyoxigraph as ox

    rng = random.Random(seed)
    combos = [(a, b, c) for a in ADJ for b in NOUN for c in QUAL]
    rng.shuffle(combos)
    N, L = ox.NamedNode, ox.Literal
    content, catalog = N(G + "content"), N(G + "catalog")
    quads, terms = [], []
    src = N(BASE + "source/shop")
    quads += [ox.Quad(src, N(RDF_TYPE), N(DCAT + "Dataset"), catalog),
              ox.Quad(src, N(DCT + "identifier"), L("shop"), catalog)]
    for i in range(n):
        a, b, c = combos[i % len(combos)]
        label = f"{a} {b} {c}" + (f" {i // len(combos)}" if i >= len(combos) else "")
        column = re.sub(r"\W+", "_", label)
        table_name = f"{b}_{i // 50}"
        term, mapping = N(f"{BASE}term/shop/t{i}"), N(f"{BASE}mapping/shop/t{i}")
        table = N(f"{BASE}source/shop/table/{table_name}")
        col = N(f"{BASE}source/shop/table/{table_name}/column/{column}")
        quads += [
            ox.Quad(term, N(RDF_TYPE), N(EVO + "Term"), content),
            ox.Quad(term, N(RDF_TYPE), N(EVO + "Metric"), content),
            ox.Quad(term, N(SKOS + "prefLabel"), L(label, language="en"), content),
            ox.Quad(term, N(SKOS + "altLabel"), L(f"{b} {c}", language="en"), content),
            ox.Quad(term, N(SKOS + "hiddenLabel"), L(column), content),
            ox.Quad(term, N(SKOS + "definition"),
                    L(f"The {c} of {a} {b} records, per {rng.choice(NOUN)}.", language="en"), content),
            ox.Quad(term, N(EVO + "hasMapping"), mapping, content),
            ox.Quad(mapping, N(RDF_TYPE), N(EVO + "Mapping"), content),
            ox.Quad(mapping, N(EVO + "mapsTerm"), term, content),
            ox.Quad(mapping, N(EVO + "table"), table, content),
            ox.Quad(mapping, N(EVO + "column"), col, content),
            ox.Quad(mapping, N(EVO + "aggregation"), L("SUM"), content),
            ox.Quad(table, N(RDF_TYPE), N(CSVW + "Table"), catalog),
            ox.Quad(table, N(CSVW + "name"), L(table_name), catalog),
            ox.Quad(table, N(DCT + "isPartOf"), src, catalog),
            ox.Quad(col, N(RDF_TYPE), N(CSVW + "Column"), catalog),
            ox.Quad(col, N(CSVW + "name"), L(column), catalog),
            ox.Quad(col, N(DCT + "isPartOf"), table, catalog),
        ]
        value = None
        if i % 5 == 0:
            ev = N(f"{BASE}evidence/e{i}")
            value = f"{rng.choice(VALUES)}{i}"
            quads += [
                ox.Quad(ev, N(RDF_TYPE), N(EVO + "Evidence"), content),
                ox.Quad(ev, N(EVO + "summary"), L(f"{rng.randint(10, 10**6)} rows, 3 distinct"), content),
                ox.Quad(ev, N(EVO + "sampleValue"), L(value), content),
                ox.Quad(ev, N(EVO + "sampleValue"), L(rng.choice(VALUES)), content),
                ox.Quad(mapping, N(PROV + "wasDerivedFrom"), ev, content),
            ]
        terms.append((f"term/shop/t{i}", label, column, value))
    return quads, terms


def make_queries(terms, count: int, seed: int = 1):
    """``(query, target id)`` pairs of five kinds, cycling."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        tid, label, column, value = rng.choice(terms)
        words = label.split()
        kind = len(out) % 5
        if kind == 0:
            q = label
        elif kind == 1:
            q = f"what is the {words[1]} {words[2]} for {words[0]} ones"
        elif kind == 2:
            q = column
        elif kind == 3 and value:
            q = value
        else:
            w = words[1]
            q = " ".join(words[:1] + [w[:2] + w[3:] if len(w) > 4 else w] + words[2:])  # drop a letter
        out.append((q, tid))
    return out


class OverlapBaseline:
    """Plain token-overlap full scan: score = shared words + 2 when the query is a phrase of the text."""

    def __init__(self, docs):
        self.docs = [(d.iri, set(t.split()), " " + t + " ") for d, t in docs]

    @staticmethod
    def norm(text: str) -> str:
        return " ".join(re.findall(r"\w+", text.lower()))

    def search(self, q: str, n: int = 5):
        qn = self.norm(q)
        words = set(qn.split())
        phrase = f" {qn} "
        scored = []
        for iri, tokens, text in self.docs:
            shared = len(words & tokens)
            if shared:
                scored.append((shared + (2 if phrase in text else 0), iri))
        scored.sort(key=lambda x: -x[0])
        return [iri for _, iri in scored[:n]]


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def bench_size(n: int, queries: int) -> dict:
    from evoonto.ontology import Ontology
    from evoonto.store import OxigraphStore
    from evoonto.tools.toolkit import OntologyTools
    import pyoxigraph as ox

    quads, terms = generate(n)
    store = ox.Store()
    store.bulk_extend(quads)
    onto = Ontology(OxigraphStore(store), version=0, base_iri=BASE)
    tools = OntologyTools(onto)
    t0 = time.perf_counter()
    built = tools.built
    build_s = time.perf_counter() - t0
    qs = make_queries(terms, queries)
    for q, _ in qs[:20]:
        tools.browse(q)
    lat, hits = [], 0
    for q, target in qs:
        t = time.perf_counter()
        res = tools.browse(q, n=5)
        lat.append((time.perf_counter() - t) * 1000)
        hits += any(h["id"] == target for h in res)
    # baseline over the same term documents (label, synonyms, definition, column names, values)
    term_docs = [d for d in built.index.documents if d.kind == "term"]
    base = OverlapBaseline([(d, OverlapBaseline.norm(" ".join(t for v in d.fields.values() for t in v)))
                            for d in term_docs])
    blat, bhits = [], 0
    for q, target in qs[: max(50, queries // 3)]:
        t = time.perf_counter()
        res = base.search(q)
        blat.append((time.perf_counter() - t) * 1000)
        bhits += (BASE + target) in res
    rng = random.Random(2)
    rlat = []
    for _ in range(queries):
        tid = rng.choice(terms)[0]
        t = time.perf_counter()
        tools.resolve([tid])
        rlat.append((time.perf_counter() - t) * 1000)
    return {
        "terms": n, "triples": len(quads), "build_s": build_s,
        "browse_p50": pct(lat, 50), "browse_p99": pct(lat, 99), "recall5": hits / len(qs),
        "base_p50": pct(blat, 50), "base_p99": pct(blat, 99), "base_recall5": bhits / len(blat),
        "resolve_p50": pct(rlat, 50), "resolve_p99": pct(rlat, 99),
    }


def bench_stdio(calls: int) -> tuple[float, float]:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    from evoonto.store import OxigraphStore
    from evoonto.workspace import Workspace
    import pyoxigraph as ox

    quads, terms = generate(1000)
    store = ox.Store()
    store.bulk_extend(quads)
    oxs = OxigraphStore(store)
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace.init(Path(tmp) / "ws", base_iri=BASE)
        ws.replace_base({g: oxs.graph(g) for g in ("catalog", "content")}, validate_shapes=False)
        exe = str(Path(sys.executable).parent / "evoonto")
        params = StdioServerParameters(command=exe, args=["serve", "--workspace", str(ws.path)], env=dict(os.environ))
        qs = make_queries(terms, calls)
        lat: list[float] = []

        async def main():
            async with Client(params, read_timeout_seconds=120) as client:
                for q, _ in qs[:20]:
                    await client.call_tool("browse", {"q": q})
                for q, _ in qs:
                    t = time.perf_counter()
                    await client.call_tool("browse", {"q": q})
                    lat.append((time.perf_counter() - t) * 1000)

        anyio.run(main)
    return pct(lat, 50), pct(lat, 99)


def bench_reload(n: int) -> dict:
    """Index cold / from the cache / incremental after a patch, and server calls during the reload."""
    import threading

    import pyoxigraph as ox
    import rdflib

    from evoonto.patch import Patch
    from evoonto.server import ToolsProvider
    from evoonto.store import OxigraphStore
    from evoonto.tools.index import IndexCache, SearchIndex, build_index
    from evoonto.tools.settings import load_settings
    from evoonto.workspace import Workspace

    quads, _terms = generate(n)
    store = ox.Store()
    store.bulk_extend(quads)
    oxs = OxigraphStore(store)
    out: dict = {"terms": n}
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace.init(Path(tmp) / "ws", base_iri=BASE)
        ws.replace_base({g: oxs.graph(g) for g in ("catalog", "content")}, validate_shapes=False)
        weights = load_settings(ws.ontology).browse.weights
        SearchIndex._TOKENS.clear()
        t0 = time.perf_counter()
        parent = build_index(ws.ontology, weights, cache=IndexCache.for_workspace(ws))
        out["cold_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        assert IndexCache.for_workspace(ws).load(weights) is not None
        out["cached_s"] = time.perf_counter() - t0

        def patch(i: int) -> Patch:
            g = rdflib.Graph()
            term = rdflib.URIRef(f"{BASE}term/bench/added-{i}")
            g.add((term, rdflib.RDF.type, rdflib.URIRef(EVO + "Term")))
            g.add((term, rdflib.URIRef(SKOS + "prefLabel"), rdflib.Literal(f"added measure {i}")))
            return Patch.from_graphs("content", additions={"content": g}, signature="bench", intervention=f"add {i}")

        provider = ToolsProvider(workspace=ws.path)  # version 0, index read from the cache
        ws.commit(patch(1), metadata={"decision": "accepted"})
        SearchIndex._TOKENS.clear()
        t0 = time.perf_counter()
        build_index(ws.ontology, weights, parent=parent)
        out["incremental_s"] = time.perf_counter() - t0
        ws.commit(patch(2), metadata={"decision": "accepted"})  # the server has not indexed this one
        SearchIndex._TOKENS.clear()
        latencies: list[float] = []
        committed = time.perf_counter()
        served = None
        while time.perf_counter() - committed < 600:
            t = time.perf_counter()
            tools = provider.tools
            tools.browse("total revenue")
            latencies.append(time.perf_counter() - t)
            if tools.version == 2:
                served = time.perf_counter() - committed
                break
            time.sleep(0.01)
        out.update(calls=len(latencies), max_call_s=max(latencies), new_version_s=served,
                   threads=threading.active_count())
    return out


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] if ordered else float("nan")


def bench_workspace(path: Path, queries: int) -> None:
    """Browse latency on a built workspace (e.g. one ``scale_bench.py --keep`` left), as the server
    serves it: the version's index from the workspace cache (built and cached on the first run), the
    value index over its recorded sources, the first-use maps built at load; queries made from the
    schema's own names as ``scale_bench.py`` makes them (per sampled column: its words, and its
    table's words plus its last word). Prints load times and browse p50/p99 (wall and CPU) of the
    verbose (default) and compact formats."""
    from evoonto.server import freeze_loaded_objects
    from evoonto.sources import open_source
    from evoonto.tools.toolkit import OntologyTools
    from evoonto.tools.values import workspace_value_index
    from evoonto.workspace import Workspace, source_locations

    t = time.perf_counter()
    ws = Workspace.open(path)
    print(f"workspace open {time.perf_counter() - t:.1f} s", flush=True)
    sources = {sid: open_source(loc) for sid, loc in source_locations(ws).items() if loc}
    t = time.perf_counter()
    tools = OntologyTools.for_workspace(ws, sources=sources, value_index=workspace_value_index(ws.path, sources))
    index = tools.built.index
    print(f"browse index (cache or build) {time.perf_counter() - t:.1f} s, {index.size:,} documents", flush=True)
    t = time.perf_counter()
    index.warm()
    if tools.value_index is not None:
        tools.value_index.warm()
    freeze_loaded_objects()  # the server's garbage-collector policy after a load
    print(f"first-use maps {time.perf_counter() - t:.1f} s", flush=True)
    layout = index.layout()
    pool = sorted(layout.column_term)
    rng = random.Random(11)
    picks = [pool[i] for i in sorted(rng.sample(range(len(pool)), min(queries, len(pool))))]
    texts = []
    for location in picks:
        table, _dot, column = location.partition(".")
        texts += [column.replace("_", " "), f"{table.replace('_', ' ')} {column.split('_')[-1]}"]
    for fmt in ("verbose", "compact"):
        wall, cpu = [], []
        for q in texts:
            t, c = time.perf_counter(), time.process_time()
            tools.browse(q[:1000], kind="term", format=fmt)
            wall.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
        print(f"browse {fmt}: {len(texts)} queries, wall p50 {_percentile(wall, 0.5):.1f} ms p99 "
              f"{_percentile(wall, 0.99):.1f} ms; CPU p50 {_percentile(cpu, 0.5):.1f} ms p99 "
              f"{_percentile(cpu, 0.99):.1f} ms", flush=True)
    tools.close()


def main(argv: list[str] | None = None) -> int:
    import logging

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000, 100000])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--no-stdio", action="store_true")
    parser.add_argument("--reload", action="store_true",
                        help="only the issue-19 index/reload measurements (per size)")
    parser.add_argument("--workspace", type=Path, default=None,
                        help="only browse latency on this built workspace (queries from its own names)")
    args = parser.parse_args(argv)
    if args.workspace is not None:
        bench_workspace(args.workspace, args.queries)
        return 0
    if args.reload:
        print(f"{'terms':>7} | {'cold build s':>12} {'from cache s':>12} {'incremental s':>13} | "
              f"{'calls during reload':>19} {'longest call s':>14} {'new version after s':>19}")
        for n in args.sizes:
            r = bench_reload(n)
            served = f"{r['new_version_s']:.2f}" if r["new_version_s"] is not None else "never"
            print(f"{r['terms']:>7} | {r['cold_s']:>12.2f} {r['cached_s']:>12.2f} {r['incremental_s']:>13.2f} | "
                  f"{r['calls']:>19} {r['max_call_s']:>14.3f} {served:>19}", flush=True)
        print("(cold: no tokens known; incremental: a one-Term patch built from the parent's index; calls during "
              "reload are answered by the previous version, each waiting at most RELOAD_WAIT)")
        return 0
    header = (f"{'terms':>7} {'triples':>8} {'build s':>8} | {'browse p50':>10} {'p99':>7} {'R@5':>5} | "
              f"{'overlap p50':>11} {'p99':>7} {'R@5':>5} | {'resolve p50':>11} {'p99':>7}")
    print(header)
    print("-" * len(header))
    for n in args.sizes:
        r = bench_size(n, args.queries)
        print(f"{r['terms']:>7} {r['triples']:>8} {r['build_s']:>8.1f} | {r['browse_p50']:>10.2f} "
              f"{r['browse_p99']:>7.2f} {r['recall5']:>5.2f} | {r['base_p50']:>11.2f} {r['base_p99']:>7.2f} "
              f"{r['base_recall5']:>5.2f} | {r['resolve_p50']:>11.2f} {r['resolve_p99']:>7.2f}", flush=True)
    print("(latencies in ms; R@5 = share of queries whose source Term is in the top 5)")
    if not args.no_stdio:
        p50, p99 = bench_stdio(args.queries)
        print(f"MCP stdio round trip (browse, 1k Terms, `evoonto serve` subprocess): "
              f"p50 {p50:.2f} ms, p99 {p99:.2f} ms")
    print("targets: browse p50 <= 2 ms @20k, <= 10 ms @100k; resolve p50 <= 5 ms; stdio p50 <= 10 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
