"""Regression: a served workspace rebuilt by ``evoonto build --force`` kept answering from the old build.

The server decided whether a change on disk was a new version by its number alone: it opened the
whole workspace (a full parse of a big ``base.trig``) to read the active version and compared it with
the version it served. A rebuild writes a new version 0, so the number stayed 0 and the server kept
the old base's Terms (columns that no longer exist, none of the new ones) until it was restarted.
The check now compares :meth:`Workspace.version_fingerprint` (the digests of ``base.trig`` and of
the accepted patch files) and reads it without loading the store
(:func:`~evoonto.workspace.read_version_fingerprint`).
"""

from __future__ import annotations

import sqlite3

from evoonto.cli import main
from evoonto.server import ToolsProvider
from evoonto.workspace import Workspace, read_version_fingerprint
from fixtures.core_support import count_workspace_opens, finance_workspace, term_patch


def _shop(path, extra_column: str | None = None):
    con = sqlite3.connect(path)
    extra = f", {extra_column} TEXT" if extra_column else ""
    con.execute(f"CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, name TEXT{extra})")
    rows = [(i, f"name {i}") + ((f"tier {i % 3}",) if extra_column else ()) for i in range(20)]
    con.executemany(f"INSERT INTO customer VALUES ({', '.join('?' * len(rows[0]))})", rows)
    con.commit()
    con.close()
    return path


def _ids(tools, query: str) -> list[str]:
    return [hit["id"] for hit in tools.browse(query, format="verbose")]


def test_served_workspace_rebuilt_as_version_0_keeps_old_base(tmp_path, capsys):
    old_db, new_db = _shop(tmp_path / "old.sqlite"), _shop(tmp_path / "new.sqlite", "loyalty_tier")
    ws_path = tmp_path / "ws"
    assert main(["build", "--source", str(old_db), "--workspace", str(ws_path), "--no-progress"]) == 0
    provider = ToolsProvider(workspace=ws_path, reload_wait=30.0)
    assert not any("loyalty_tier" in hit for hit in _ids(provider.tools, "loyalty tier"))

    assert main(["build", "--source", str(new_db), "--workspace", str(ws_path), "--force", "--no-progress"]) == 0
    capsys.readouterr()
    tools = provider.tools
    assert provider.wait_for_reload(30)
    tools = provider.tools
    assert tools.version == 0 and provider.reloads == 1
    assert any("loyalty_tier" in hit for hit in _ids(tools, "loyalty tier"))


def test_reload_check_reads_no_store_and_skips_a_rejected_patch(tmp_path, monkeypatch):
    ws = finance_workspace(tmp_path / "ws")
    provider = ToolsProvider(workspace=ws.path, reload_wait=30.0)
    assert provider.tools.version == 0
    opened, real_open = count_workspace_opens(monkeypatch)
    writer = real_open(Workspace, ws.path)
    writer.record_rejected(term_patch(writer, "ebitda"))
    opened.clear()
    assert provider.tools.version == 0
    assert provider.wait_for_reload(30)
    assert opened == [] and provider.reloads == 0  # same content: nothing opened, nothing loaded

    writer.commit(term_patch(writer, "margin"))
    assert provider.tools.version == 1 and provider.reloads == 1
    assert len(opened) == 1  # the new version, opened once


def test_read_version_fingerprint_is_the_loaded_ones(tmp_path):
    ws = finance_workspace(tmp_path / "ws")
    assert read_version_fingerprint(ws.path) == (0, ws.version_fingerprint())
    ws.commit(term_patch(ws, "ebitda"))
    before = read_version_fingerprint(ws.path)
    assert before == (1, Workspace.open(ws.path).version_fingerprint()) == (1, ws.version_fingerprint())
    ws.record_rejected(term_patch(ws, "margin"))
    assert read_version_fingerprint(ws.path) == before  # a rejected patch changes no content
    ws.rollback(0)
    version, fingerprint = read_version_fingerprint(ws.path)
    assert version == 2 and fingerprint not in (before[1],) and fingerprint == ws.version_fingerprint()
