"""Regression (issue 33, cold ``serve``): the server ran a full garbage collection over everything
it had loaded (``freeze_loaded_objects``: about 2.5 CPU s at 70,000 columns) before its first
answer, which does not need it. The first load now only freezes the loaded objects and runs the
collection after the first answer, in a thread of its own; a reload still collects at once.
"""

from __future__ import annotations

import gc
import sqlite3
import time

import anyio
import pytest
from mcp import Client

import evoonto.server as server_module
from evoonto.cli import main
from evoonto.server import ToolsProvider, create_server


def _workspace(tmp_path):
    db = tmp_path / "shop.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, name TEXT, city TEXT)")
    con.executemany("INSERT INTO customer VALUES (?, ?, ?)", [(i, f"name {i}", f"city {i % 5}") for i in range(30)])
    con.commit()
    con.close()
    ws_path = tmp_path / "ws"
    assert main(["build", "--source", str(db), "--workspace", str(ws_path), "--no-progress"]) == 0
    return ws_path


@pytest.fixture
def collections(monkeypatch):
    """The full collections the server runs (``freeze_loaded_objects`` replaced by a recorder); the
    objects a load froze are unfrozen afterwards."""
    ran: list[float] = []
    monkeypatch.setattr(server_module, "freeze_loaded_objects", lambda: ran.append(time.monotonic()))
    yield ran
    gc.unfreeze()


def test_cold_serve_collects_garbage_before_first_answer(tmp_path, monkeypatch, collections):
    ws_path = _workspace(tmp_path)
    monkeypatch.setattr(server_module, "DEFERRED_DELAY", 0.0)
    server = create_server(ws_path)
    assert collections == []  # loaded and frozen, not collected, before any answer
    assert gc.get_freeze_count() > 0

    async def two_answers():
        async with Client(server) as client:
            for q in ("customer city", "customer name"):
                assert not (await client.call_tool("browse", {"q": q})).is_error

    anyio.run(two_answers)
    deadline = time.monotonic() + 20
    while not collections and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    assert len(collections) == 1  # once, after the first answer


def test_reload_collects_at_once(tmp_path, collections):
    provider = ToolsProvider(workspace=_workspace(tmp_path))
    assert collections == []
    provider.run_deferred()  # the first load's collection, when asked
    provider.run_deferred()  # once
    assert len(collections) == 1
    provider._load(previous=provider.tools)  # a reload: no answer waits for it
    assert len(collections) == 2


def test_reload_before_the_first_answer_drops_the_pending_collection(tmp_path, collections):
    provider = ToolsProvider(workspace=_workspace(tmp_path))
    provider._load(previous=provider.tools)  # e.g. `verified add` committed before the first call
    provider.answered()
    provider.run_deferred()
    assert len(collections) == 1  # the reload's; the first load's was not run on top of it
