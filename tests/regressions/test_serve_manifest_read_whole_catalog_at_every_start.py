"""Regression (issue 33 item 3): every ``evoonto serve`` start made the manifest again, which reads
the whole catalog (42 CPU s at 70,000 columns over the persisted store), before it could answer
``initialize``. The server now keeps the manifest of a version in ``<workspace>/cache/manifest``,
keyed by the version's files and the code, and makes it again only for another version or code.
"""

from __future__ import annotations

import pytest

from evoonto import server as server_module
from evoonto.server import ToolsProvider
from evoonto.tools.toolkit import OntologyTools
from fixtures.core_support import finance_workspace, term_patch


def test_serve_manifest_read_whole_catalog_at_every_start(tmp_path, monkeypatch):
    ws = finance_workspace(tmp_path / "ws")
    first = ToolsProvider(workspace=ws.path)
    text = first.manifest(first.tools)
    assert text and list((ws.path / "cache" / "manifest").glob("*.txt"))

    def refuse(self):
        raise AssertionError("the manifest was made again for a version served before")

    monkeypatch.setattr(OntologyTools, "manifest", refuse)
    again = ToolsProvider(workspace=ws.path)
    assert again.manifest(again.tools) == text


def test_manifest_made_again_for_a_new_version_or_other_code(tmp_path, monkeypatch):
    ws = finance_workspace(tmp_path / "ws")
    ToolsProvider(workspace=ws.path)
    made: list[int] = []
    real = OntologyTools.manifest

    def counting(self):
        made.append(self.version)
        return real(self)

    monkeypatch.setattr(OntologyTools, "manifest", counting)
    ws.commit(term_patch(ws, "ebitda"))
    provider = ToolsProvider(workspace=ws.path)
    assert made == [1] and provider.tools.version == 1
    server_module._code_stamp.cache_clear()
    monkeypatch.setattr(server_module, "_code_stamp", lambda: "other code")
    ToolsProvider(workspace=ws.path)
    assert made == [1, 1]


@pytest.mark.parametrize("data_tools", [False, True])
def test_cached_manifest_follows_data_tools(tmp_path, data_tools):
    ws = finance_workspace(tmp_path / "ws")
    ToolsProvider(workspace=ws.path, data_tools=not data_tools)  # caches the other flag's manifest first
    other = ToolsProvider(workspace=ws.path, data_tools=data_tools)
    assert other.manifest(other.tools) == other.tools.manifest()  # read back for its own flag
