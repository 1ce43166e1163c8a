"""Regression (issue 33, item 3): ``evoonto serve`` right after ``evoonto build`` made every cache again.

The build held the store, yet wrote only the files: the first serve then parsed ``base.trig``,
wrote the persisted store, built the browse index, the table joins and the manifest before its
first answer (179 CPU s at 70,000 columns). ``evoonto build`` now prepares them for a big workspace
(``prepare_for_serving``); ``--no-serve-cache`` leaves them to the first serve.
"""

from __future__ import annotations

import shutil
import sqlite3

import pytest

import evoonto.workspace as workspace_module
from evoonto.cli import main
from evoonto.namespaces import GRAPH_NAMES
from evoonto.storecache import PersistedStore
from evoonto.workspace import Workspace


def _shop(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, name TEXT, city TEXT)")
    con.execute("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer, "
                "amount REAL, status TEXT)")
    con.executemany("INSERT INTO customer VALUES (?, ?, ?)", [(i, f"name {i}", f"city {i % 5}") for i in range(40)])
    con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?)",
                    [(i, i % 40, 5.0 * i, "open" if i % 3 else "shipped") for i in range(120)])
    con.commit()
    con.close()
    return path


@pytest.fixture
def big(monkeypatch):
    """Every workspace counts as big (the threshold is 4 MiB of base.trig)."""
    monkeypatch.setattr(workspace_module, "PERSIST_MIN_BYTES", 0)


def _cache(ws_path, name):
    folder = ws_path / "cache" / name
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def test_serve_after_build_makes_every_cache_again(tmp_path, big, monkeypatch, capsys):
    from evoonto.server import ToolsProvider
    from evoonto.tools import index as index_module
    from evoonto.tools import joinpaths
    from evoonto.tools.toolkit import OntologyTools

    db = _shop(tmp_path / "shop.sqlite")
    ws_path = tmp_path / "ws"
    assert main(["build", "--source", str(db), "--workspace", str(ws_path), "--no-progress"]) == 0
    assert "serve cache ready" in capsys.readouterr().out
    assert _cache(ws_path, "store") and _cache(ws_path, "index") and _cache(ws_path, "joins")
    assert _cache(ws_path, "manifest")

    opened = Workspace.open(ws_path)
    assert isinstance(opened.store, PersistedStore)  # not parsed again
    monkeypatch.setattr(workspace_module, "PERSIST_MIN_BYTES", 2**62)
    # parsed: the state the files give. A copy without cache/: the workspace itself opens its kept
    # store once base.trig's remembered digest is trusted (2 s after the write: on a loaded machine
    # the build and the first open took longer, and this open was not a parse)
    plain = tmp_path / "plain"
    shutil.copytree(ws_path, plain, ignore=shutil.ignore_patterns("cache"))
    fresh = Workspace.open(plain)
    assert not isinstance(fresh.store, PersistedStore)
    for name in GRAPH_NAMES:
        assert set(opened.ontology.store.triples(name)) == set(fresh.ontology.store.triples(name)), name
    monkeypatch.setattr(workspace_module, "PERSIST_MIN_BYTES", 0)

    def made_again(*args, **kwargs):
        raise AssertionError("made again at serve time")

    monkeypatch.setattr(index_module.SearchIndex, "__init__", made_again)
    monkeypatch.setattr(joinpaths, "table_joins", made_again)
    monkeypatch.setattr(OntologyTools, "manifest", made_again)
    provider = ToolsProvider(workspace=ws_path)
    tools = provider.tools
    assert tools.browse("customer city", format="compact")
    assert provider.manifest(tools).startswith("evoonto ontology layer v0 over \"shop\"")


def test_no_serve_cache_leaves_the_caches_to_the_first_serve(tmp_path, big, capsys):
    db = _shop(tmp_path / "shop.sqlite")
    ws_path = tmp_path / "ws"
    assert main(["build", "--source", str(db), "--workspace", str(ws_path), "--no-progress",
                 "--no-serve-cache"]) == 0
    assert "serve cache" not in capsys.readouterr().out
    assert not _cache(ws_path, "index") and not _cache(ws_path, "store")


def test_small_workspace_is_built_without_a_serve_cache(tmp_path, capsys):
    db = _shop(tmp_path / "shop.sqlite")
    ws_path = tmp_path / "ws"
    assert main(["build", "--source", str(db), "--workspace", str(ws_path), "--no-progress"]) == 0
    assert "serve cache" not in capsys.readouterr().out
    assert not _cache(ws_path, "store")
