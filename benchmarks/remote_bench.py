"""Benchmark of pushing to and reading back from a real Virtuoso 7 with its default result cap (issue 16).

Builds Chinook (or ``--source DB [DB …]``, one workspace over them all) with the offline builder,
starts Virtuoso (Debian package ``virtuoso-opensource-7-bin``) on a fresh database with
``ResultSetMaxRows`` = ``--cap`` (Virtuoso's default: 10,000), then measures (wall clock, seconds):

- push:   ``push_verified`` of the base (chunked ``INSERT DATA``, per-graph counts verified)
- read:   ``RemoteSparqlStore.triples`` of every graph (paged, ``--page-size`` rows per request), and
          whether each graph read back equals the workspace's (``equal``), with the rows one unpaged
          SELECT of the largest graph returns (``one_select``: the cap, when the graph is larger)
- commit/push: one content patch committed locally, then pushed

Usage::

    python benchmarks/remote_bench.py [--source DB ...] [--cap 10000] [--page-size 10000] [--json]

Exit status 1 when a graph read back differs from the workspace (the numbers are printed anyway).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from rdflib import Literal
from rdflib.namespace import SKOS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the Virtuoso launcher the tests use

from fixtures.remote_support import virtuoso_binaries, virtuoso_server  # noqa: E402

from evoonto.cli import main as cli  # noqa: E402
from evoonto.namespaces import GRAPH_NAMES  # noqa: E402
from evoonto.patch import Patch  # noqa: E402
from evoonto.remote import PAGE_SIZE, RemoteSparqlStore, push_verified  # noqa: E402
from evoonto.workspace import Workspace  # noqa: E402


CHINOOK = ROOT.parent / "shared" / "data" / "chinook" / "Chinook_Sqlite.sqlite"


def run(cap: int, page_size: int, dbs: tuple[Path, ...] = (CHINOOK,)) -> dict:
    """Build ``dbs``, push, read back and push one patch; returns the measurements (see the module docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ws"
        Workspace.init(path, base_iri="https://example.org/evoonto/bench/", name="bench")
        sources = [arg for db in dbs for arg in ("--source", str(db))]
        if cli(["build", *sources, "--workspace", str(path), "--no-progress"]) != 0:
            raise SystemExit("build failed")
        ws = Workspace.open(path)
        local = {n: ws.store.count(n) for n in GRAPH_NAMES}
        largest = max(local, key=lambda n: local[n])
        with virtuoso_server(Path(tmp) / "virtuoso", result_max_rows=cap) as endpoint:
            remote = RemoteSparqlStore(endpoint, endpoint, base_iri=ws.base_iri, page_size=page_size)
            t0 = time.perf_counter()
            push_verified(ws, remote)
            push_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            equal = {n: set(remote.triples(n)) == set(ws.store.triples(n)) for n in GRAPH_NAMES}
            read_s = time.perf_counter() - t0
            one_select = len(remote.query(f"SELECT ?s ?p ?o WHERE {{ GRAPH evog:{largest} {{ ?s ?p ?o }} }}",
                                          default_union=False))
            term = next(s for s, p, _ in ws.store.triples("content") if p == SKOS.prefLabel)
            ws.commit(Patch.from_graphs("content", {"content": [(term, SKOS.altLabel, Literal("bench", lang="en"))]}))
            t0 = time.perf_counter()
            push_verified(ws, remote)
            patch_s = time.perf_counter() - t0
    return {"source": [db.name for db in dbs], "cap": cap, "page_size": page_size, "triples": local, "largest": largest,
            "one_select": one_select,
            "push_s": round(push_s, 2), "read_s": round(read_s, 2), "commit_push_s": round(patch_s, 2),
            "equal": equal, "load1": round(os.getloadavg()[0], 2)}


def main() -> int:
    """Parse arguments, run, print; exit 1 when a graph read back differs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, nargs="+", default=[CHINOOK],
                        help="SQLite database(s) to build into one workspace (default Chinook)")
    parser.add_argument("--cap", type=int, default=10_000, help="Virtuoso ResultSetMaxRows (default 10,000)")
    parser.add_argument("--page-size", type=int, default=PAGE_SIZE, help=f"rows per page (default {PAGE_SIZE:,})")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    if virtuoso_binaries() is None:
        print("Virtuoso is not installed (apt-get install virtuoso-opensource-7-bin)", file=sys.stderr)
        return 2
    result = run(args.cap, args.page_size, tuple(args.source))
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>14}: {value}")
    return 0 if all(result["equal"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
