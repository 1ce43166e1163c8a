"""benchmarks/semantic_query_bench.py end to end on the packaged concert_singer gold (45 queries)."""

from __future__ import annotations

import importlib.util
import io
import json
import re
from contextlib import redirect_stdout
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "evoonto" / "data" / "concert_singer"

pytestmark = pytest.mark.slow


def test_bench_translates_compiles_and_scores(tmp_path):
    path = ROOT / "benchmarks" / "semantic_query_bench.py"
    spec = importlib.util.spec_from_file_location("semantic_query_bench", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    verified = tmp_path / "gold.jsonl"
    rows = [json.loads(line) for line in (DATA / "gold.jsonl").read_text().splitlines() if line.strip()]
    verified.write_text("".join(json.dumps({"id": r["id"], "sql": r["query"]}) + "\n" for r in rows))
    out = io.StringIO()
    with redirect_stdout(out):
        assert bench.main(["--verified", str(verified), "--db", str(DATA / "concert_singer.sqlite")]) == 0
    last = out.getvalue().strip().splitlines()[-1]
    found = re.fullmatch(r"semantic query: expressible (\d+)/(\d+), equal (\d+)/(\d+)", last)
    assert found, last
    expressible, total, equal, again = map(int, found.groups())
    assert total == len(rows) == 45 and again == expressible
    assert expressible >= 40 and equal == expressible, out.getvalue()
