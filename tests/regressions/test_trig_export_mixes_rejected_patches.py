"""Regression (issue 16, item 3): the TriG export with a union default graph gave wrong answers.

It held every patch's graphs, rejected and rolled-back ones too, so loading it with a union default
graph found a rolled-back synonym and a rejected Term. The default export is now the active dataset;
the history is ``to_trig(ws, history=True)`` / ``export --format trig --history``, whose patch graphs
are named apart and described with their status.
"""

from __future__ import annotations

import pyoxigraph as ox
import rdflib
from fixtures.core_support import finance_workspace, term_patch
from rdflib.namespace import SKOS

from evoonto.cli import main
from evoonto.export import to_trig
from evoonto.patch import Patch


def _workspace(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    term = next(s for s, _, _ in ws.store.triples("content") if "/term/" in str(s))
    synonym = (term, SKOS.altLabel, rdflib.Literal("zorbly takings", lang="en"))
    ws.commit(Patch.from_graphs("content", {"content": [synonym]}, id="synonym"))
    ws.rollback(0)
    ws.record_rejected(term_patch(ws, "rejected-metric", "Quuxish margin"))
    return ws


def _union_count(data: bytes, literal: str) -> int:
    store = ox.Store()
    store.load(data, format=ox.RdfFormat.TRIG)
    query = f'SELECT (COUNT(*) AS ?n) WHERE {{ ?s ?p ?o FILTER(STR(?o) = "{literal}") }}'
    return int(next(iter(store.query(query, use_default_graph_as_union=True)))["n"].value)


def test_default_trig_export_is_the_active_dataset(tmp_path):
    ws = _workspace(tmp_path)
    data = to_trig(ws)
    assert _union_count(data, "zorbly takings") == 0  # rolled back
    assert _union_count(data, "Quuxish margin") == 0  # rejected
    full = to_trig(ws, history=True)
    assert _union_count(full, "zorbly takings") == 2  # the synonym patch adds it, the rollback removes it
    assert _union_count(full, "Quuxish margin") == 1


def test_history_graphs_are_marked_with_their_status(tmp_path):
    ws = _workspace(tmp_path)
    store = ox.Store()
    store.load(to_trig(ws, history=True), format=ox.RdfFormat.TRIG)
    rows = store.query("""PREFIX evo: <https://w3id.org/evoonto/ns#>
        SELECT ?g ?status ?kind WHERE { GRAPH ?meta { ?g a evo:PatchGraph ; evo:patchStatus ?status ;
        evo:changeKind ?kind } GRAPH ?g { ?s ?p ?o } FILTER(STR(?o) = "Quuxish margin") }""")
    found = [(r["g"].value, r["status"].value, r["kind"].value) for r in rows]
    assert len(found) == 1 and found[0][1:] == ("rejected", "additions")
    assert found[0][0].startswith(f"{ws.base_iri}graph/patch/")


def test_cli_history_flag(tmp_path, capsysbinary):
    ws = _workspace(tmp_path)
    assert main(["export", "-w", str(ws.path), "--format", "trig"]) == 0
    assert _union_count(capsysbinary.readouterr().out, "zorbly takings") == 0
    assert main(["export", "-w", str(ws.path), "--format", "trig", "--history"]) == 0
    assert _union_count(capsysbinary.readouterr().out, "zorbly takings") == 2
    assert main(["export", "-w", str(ws.path), "--format", "ttl", "--history"]) == 2
