"""Defect (issue 13 structure, issue 17 item 3): unknown tool arguments were silently dropped
(``{"q": "artist", "limit": 3}`` returned hits as if ``limit`` had been honoured). An unknown
argument is an error with one clear message, over MCP and in-process alike."""

from __future__ import annotations

import anyio
import pytest
from fixtures.mcp_support import concert_workspace

from evoonto.errors import ToolArgumentError
from evoonto.tools.toolkit import OntologyTools
from evoonto.workspace import Workspace

MESSAGE = "browse: unknown argument(s) 'limit'; accepted: q, kind, n, format, budget, context"


def test_in_process_call_refuses_an_unknown_argument(tmp_path):
    ws = Workspace.open(concert_workspace(tmp_path / "ws"))
    tools = OntologyTools(ws.ontology, version=ws.version)
    with pytest.raises(ToolArgumentError) as caught:
        tools.call("browse", {"q": "singer", "limit": 3})
    assert str(caught.value) == MESSAGE
    with pytest.raises(ToolArgumentError, match="resolve: unknown argument"):
        tools.call("resolve", {"ids": ["term/cs/singer-age"], "depht": 2})


def test_mcp_call_refuses_an_unknown_argument(tmp_path):
    pytest.importorskip("mcp")
    from mcp import Client

    from evoonto.server import create_server

    server = create_server(concert_workspace(tmp_path / "ws"))

    async def main():
        async with Client(server) as client:
            return await client.call_tool("browse", {"q": "singer", "limit": 3})

    result = anyio.run(main)
    assert result.is_error and result.content[0].text == MESSAGE
