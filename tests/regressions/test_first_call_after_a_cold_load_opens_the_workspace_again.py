"""Regression (issue 33, cold ``serve``): the server's change stamp included the workspace folder's own
mtime, which changes when ``cache/`` is made. A workspace loaded without a cache therefore looked
changed at the first call, and a background reload opened it again: a second parse of a big
``base.trig`` (30 CPU s at 70,000 columns) next to the first answer, for the same version."""

from __future__ import annotations

import shutil

from evoonto.server import ToolsProvider
from fixtures.core_support import count_workspace_opens, finance_workspace, term_patch


def test_first_call_after_a_cold_load_opens_the_workspace_again(tmp_path, monkeypatch):
    import evoonto.workspace as workspace_module

    ws = finance_workspace(tmp_path / "ws")
    shutil.rmtree(ws.path / "cache", ignore_errors=True)
    opened, real_open = count_workspace_opens(monkeypatch)
    provider = ToolsProvider(workspace=ws.path)
    assert (ws.path / "cache").is_dir()  # the load made it
    assert provider.tools.browse("revenue")
    assert provider.wait_for_reload(30)
    assert len(opened) == 1 and provider.reloads == 0  # opened once, no reload

    # a real change still reloads
    writer = real_open(workspace_module.Workspace, ws.path)
    writer.commit(term_patch(writer, "ebitda"))
    provider.reload_wait = 30
    assert provider.tools.version == 1 and provider.reloads == 1
