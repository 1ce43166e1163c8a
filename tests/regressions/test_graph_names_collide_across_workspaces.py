"""Regression (issue 16, item 2): graph names collided across workspaces.

Every workspace wrote its graphs as ``https://w3id.org/evoonto/graph/content`` etc., so two
workspaces exported (or pushed) into one store merged silently. Graph names outside the embedded
store are now under the workspace's base IRI (``<base>graph/content``), decided by one function
(``namespaces.workspace_graph_iri``); workspaces written with the old names (format 1) open
transparently, upgrade on their first write, and ``Workspace.migrate`` rewrites them; nothing is lost.
"""

from __future__ import annotations

import json

import pyoxigraph as ox
from fixtures.core_support import finance_workspace, term_patch

from evoonto.cli import main
from evoonto.export import to_sparql_update, to_trig
from evoonto.namespaces import EVOG, workspace_graph_iri
from evoonto.store import serialize_ox
from evoonto.workspace import BASE_FILE, CONFIG_FILE, PATCH_DIR, FORMAT_VERSION, Workspace


def _graph_names(data: bytes) -> set[str]:
    return {q.graph_name.value for q in ox.parse(data, format=ox.RdfFormat.TRIG)}


def test_two_workspaces_in_one_store_stay_separate(tmp_path):
    a = finance_workspace(tmp_path / "a")
    b = Workspace.init(tmp_path / "b", base_iri="https://example.org/evoonto/b/")
    store = ox.Store()
    store.load(to_trig(a), format=ox.RdfFormat.TRIG)
    store.load(to_trig(b), format=ox.RdfFormat.TRIG)
    for ws in (a, b):
        graph = ox.NamedNode(str(workspace_graph_iri("content", ws.base_iri)))
        assert sum(1 for _ in store.quads_for_pattern(None, None, None, graph)) == ws.store.count("content")
    assert not _graph_names(to_trig(a)) & _graph_names(to_trig(b))
    # SPARQL Update (what push sends) names the same per-workspace graphs
    update = ox.Store()
    update.update(to_sparql_update(a))
    assert {q.graph_name.value for q in update} <= {str(workspace_graph_iri(n, a.base_iri)) for n in
                                                     ("vocab", "shapes", "catalog", "content", "tools")}


def test_workspace_files_use_the_base_iri(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    ws.commit(term_patch(ws, "ebitda"))
    prefix = f"{ws.base_iri}graph/"
    for file in [ws.path / BASE_FILE, *sorted((ws.path / PATCH_DIR).iterdir())]:
        names = _graph_names(file.read_bytes())
        assert names and all(n.startswith(prefix) for n in names), (file, names)
    assert json.loads((ws.path / CONFIG_FILE).read_text())["format"] == FORMAT_VERSION


def _downgrade(ws) -> None:
    """Rewrite a workspace's files as format 1 (graph names evog:…), as an older evoonto wrote them."""
    prefix = f"{ws.base_iri}graph/"
    for file in [ws.path / BASE_FILE, *(ws.path / PATCH_DIR).iterdir()]:
        quads = [ox.Quad(q.subject, q.predicate, q.object,
                         ox.NamedNode(q.graph_name.value.replace(prefix, str(EVOG))))
                 for q in ox.parse(file.read_bytes(), format=ox.RdfFormat.TRIG)]
        file.write_bytes(serialize_ox(quads))
    config = json.loads((ws.path / CONFIG_FILE).read_text())
    (ws.path / CONFIG_FILE).write_text(json.dumps(dict(config, format=1)))


def test_format_1_workspace_opens_upgrades_and_migrates(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    ws.commit(term_patch(ws, "ebitda"))
    ws.record_rejected(term_patch(ws, "nope"))
    before = {g: set(ws.store.triples(g)) for g in ("content", "catalog", "history")}
    _downgrade(ws)
    assert str(EVOG) in (ws.path / BASE_FILE).read_text()

    old = Workspace.open(ws.path)  # read transparently
    assert old.version == 1 and [e.decision for e in old.log()] == ["accepted", "rejected"]
    assert {g: set(old.store.triples(g)) for g in before} == before

    assert main(["migrate", "-w", str(ws.path)]) == 0
    assert str(EVOG) not in (ws.path / BASE_FILE).read_text()
    assert all(str(EVOG) not in f.read_text() for f in (ws.path / PATCH_DIR).iterdir())
    assert json.loads((ws.path / CONFIG_FILE).read_text())["format"] == FORMAT_VERSION
    migrated = Workspace.open(ws.path)
    # nothing lost; the hand-made finance base also gets the content upgrade (skos:Concept types ...)
    # as patches after version 1 (tests/regressions/test_migrate_only_renames_graphs.py)
    assert all(before[g] <= set(migrated.store.triples(g)) for g in before)
    assert [e.decision for e in migrated.log()][:2] == ["accepted", "rejected"] and migrated.version >= 2
    assert migrated.migrate() is False
    assert main(["migrate", "-w", str(ws.path)]) == 0  # nothing to do, still fine

    _downgrade(migrated)  # a first write upgrades the config; old and new files read alike
    again = Workspace.open(ws.path)
    again.commit(term_patch(again, "margin"))
    assert json.loads((ws.path / CONFIG_FILE).read_text())["format"] == FORMAT_VERSION
    assert Workspace.open(ws.path).version == migrated.version + 1
