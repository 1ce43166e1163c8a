"""Regression (issue 33 item 3): every ``Workspace.open`` parsed the whole dataset again (23 CPU s
for the 156 MB base.trig of a 68,434-column workspace, paid by each ``evoonto browse`` from the
shell). A big workspace now keeps the store it loaded under ``cache/store/<key>/`` and the next open
of the same files opens it read-only: base.trig is read and hashed, never parsed.
"""

from __future__ import annotations

import pytest

import evoonto.workspace as workspace_module
from evoonto.storecache import PersistedStore
from evoonto.workspace import Workspace
from fixtures.core_support import finance_workspace, term_patch


def test_big_workspace_reparsed_on_every_open(tmp_path, monkeypatch):
    monkeypatch.setattr(workspace_module, "PERSIST_MIN_BYTES", 0)  # the finance base counts as big
    ws = finance_workspace(tmp_path / "ws")
    ws.commit(term_patch(ws, "ebitda"))
    first = Workspace.open(ws.path)
    parsed: list[str] = []
    real = workspace_module.parse_rdf_file

    def spy(path, data=None):
        parsed.append(str(path))
        return real(path, data)

    monkeypatch.setattr(workspace_module, "parse_rdf_file", spy)
    again = Workspace.open(ws.path)
    assert isinstance(again.store, PersistedStore)
    assert not any(p.endswith("base.trig") for p in parsed)  # only the (small) patch files are read
    assert again.version == first.version == 1
    assert again.ontology.counts() == first.ontology.counts()


def test_small_workspace_still_parsed_and_not_cached(tmp_path):
    ws = finance_workspace(tmp_path / "ws")  # far below PERSIST_MIN_BYTES
    assert (ws.path / "base.trig").stat().st_size < workspace_module.PERSIST_MIN_BYTES
    again = Workspace.open(ws.path)
    assert not isinstance(again.store, PersistedStore) and not (ws.path / "cache" / "store").exists()


@pytest.mark.parametrize("damage", ["empty", "missing"])
def test_damaged_base_still_reported_with_a_persisted_store(tmp_path, monkeypatch, damage):
    monkeypatch.setattr(workspace_module, "PERSIST_MIN_BYTES", 0)
    ws = finance_workspace(tmp_path / "ws")
    Workspace.open(ws.path)
    base = ws.path / "base.trig"
    if damage == "empty":
        base.write_bytes(b"")
    else:
        base.unlink()
    with pytest.raises(workspace_module.WorkspaceError, match="base.trig is " + damage):
        Workspace.open(ws.path)
