"""Regression (issue 33, cold ``serve``): a server that parsed a big workspace (no ``cache/``) wrote
the persisted store for the next open before it could answer: at 70,000 columns an N-Quads copy and a
RocksDB bulk load of 3.7 million quads, 60 CPU s of the first answer's wait. The server now opens the
workspace with ``keep_store=False`` and, once it can answer, has the store kept by a detached process
(an MCP client ends its server with the session; a thread would die with it). In one process,
:meth:`Workspace.keep_loaded_store` keeps it later, and only while it is still exactly what the files
hold: a write after the open (or during the copy) keeps nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import Literal, URIRef
from rdflib.namespace import SKOS

import evoonto.workspace as workspace_module
from evoonto.namespaces import GRAPH_NAMES
from evoonto.storecache import STORE_CACHE_DIR, PersistedStore
from evoonto.workspace import Workspace
from fixtures.core_support import finance_workspace, term_patch


@pytest.fixture
def ws(tmp_path, monkeypatch):
    monkeypatch.setattr(workspace_module, "PERSIST_MIN_BYTES", 0)  # the finance workspace counts as big
    return finance_workspace(tmp_path / "ws")


def _folders(path: Path) -> list[str]:
    root = path / STORE_CACHE_DIR
    return sorted(f.name for f in root.iterdir() if f.is_dir()) if root.is_dir() else []


def _state(ws: Workspace) -> dict:
    return {name: set(ws.store.triples(name)) for name in GRAPH_NAMES}


def test_open_without_keeping_writes_no_store_until_asked(ws):
    opened = Workspace.open(ws.path, keep_store=False)
    assert _folders(ws.path) == []  # nothing written before the caller can answer
    assert opened.keep_loaded_store() is True
    assert len(_folders(ws.path)) == 1
    assert opened.keep_loaded_store() is False  # once
    reopened = Workspace.open(ws.path)
    assert isinstance(reopened.store, PersistedStore) and _state(reopened) == _state(opened)


def test_store_changed_after_open_is_never_kept(ws):
    opened = Workspace.open(ws.path, keep_store=False)
    opened.commit(term_patch(opened, "ebitda"))  # the store now holds version 1, the key was made for 0
    assert opened.keep_loaded_store() is False
    assert _folders(ws.path) == []


def test_store_changed_during_the_copy_is_never_kept(ws):
    opened = Workspace.open(ws.path, keep_store=False)
    store = opened.store
    inner = store.ox

    class WrittenDuringCopy:
        """The store's pyoxigraph Store; another thread writes through the workspace's store while
        it is copied (here: right after the copy, before the folder is written)."""

        def dump(self, *args, **kwargs):
            out = inner.dump(*args, **kwargs)
            store.ox = inner
            store.add([(URIRef("urn:x"), SKOS.prefLabel, Literal("written meanwhile"))], "content")
            return out

    store.ox = WrittenDuringCopy()  # type: ignore[assignment]
    assert opened.keep_loaded_store() is False
    assert _folders(ws.path) == []  # no folder, and no temp folder left behind


def test_small_workspace_has_nothing_to_keep(tmp_path):
    small = finance_workspace(tmp_path / "small")  # base.trig far below PERSIST_MIN_BYTES
    opened = Workspace.open(small.path, keep_store=False)
    assert opened.keep_loaded_store() is False and _folders(small.path) == []


def test_server_answers_then_keeps_the_parsed_store(ws):
    from evoonto.server import ToolsProvider

    provider = ToolsProvider(workspace=ws.path)
    assert provider.tools.browse("revenue")  # answers without the store kept by this process
    keeper = provider.store_keeper
    assert keeper is not None  # a process of its own: the client may end the server at any time
    assert keeper.wait(120) == 0
    assert len(_folders(ws.path)) == 1
    assert isinstance(Workspace.open(ws.path).store, PersistedStore)
    again = ToolsProvider(workspace=ws.path)  # the next server reads it: nothing left to keep
    assert again.tools.browse("revenue") and again.store_keeper is None


def test_keeping_leaves_no_copy_of_the_store_beside_the_folder(ws):
    opened = Workspace.open(ws.path, keep_store=False)
    assert opened.keep_loaded_store() is True
    root = ws.path / STORE_CACHE_DIR
    assert [f.name for f in root.iterdir() if f.name.startswith(".")] == []  # the N-Quads copy is gone


def test_one_store_keeper_at_a_time(ws):
    import shutil
    import subprocess
    import sys

    from evoonto.server import ToolsProvider

    provider = ToolsProvider(workspace=ws.path)
    first = provider.store_keeper
    assert first is not None and first.wait(120) == 0
    busy = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        provider.store_keeper = busy  # a keeper still running (a big store takes a minute or more)
        shutil.rmtree(ws.path / STORE_CACHE_DIR)
        provider._load()  # parsed again, not kept
        assert provider.store_keeper is busy  # no second keeper beside the running one
    finally:
        busy.kill()
        busy.wait()
    provider._load()  # the keeper is done: a new one keeps the store
    assert provider.store_keeper is not busy and provider.store_keeper.wait(120) == 0
    assert len(_folders(ws.path)) == 1
