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
  ``evoonto serve`` started as a subprocess of the console script (1k-Term workspace).

Targets: browse p50 ≤ 2 ms at 20k and ≤ 10 ms at 100k Terms; resolve p50 ≤ 5 ms; stdio p50 ≤ 10 ms.

Usage::

    python benchmarks/tools_bench.py [--sizes 1000 20000 100000] [--queries 300] [--no-stdio]
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


def main(argv: list[str] | None = None) -> int:
    import logging

    logging.getLogger("bm25s").setLevel(logging.WARNING)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000, 100000])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--no-stdio", action="store_true")
    args = parser.parse_args(argv)
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
