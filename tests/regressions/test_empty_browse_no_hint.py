"""Regression (issue 17, MCP contract): an empty browse answer reached the agent as a bare ``[]``
with no word on what to try next. Over MCP it now carries a hint, as text and in the structured
result, and the answer itself stays an empty list."""

from __future__ import annotations

import pytest

import json

import anyio

from evoonto.server import create_server
from evoonto.tools.toolkit import BROWSE_EMPTY_HINT
from fixtures.mcp_support import concert_workspace
from mcp import Client


@pytest.mark.slow
def test_empty_browse_answer_carries_a_hint(tmp_path):
    server = create_server(concert_workspace(tmp_path / "ws"))

    async def main():
        async with Client(server) as client:
            # (the compact default lists a schema that fits its budget when nothing matched)
            empty = await client.call_tool("browse", {"q": "zzqxv wwkrp", "format": "verbose"})
            found = await client.call_tool("browse", {"q": "singer"})
            return empty, found

    empty, found = anyio.run(main)
    assert json.loads(empty.content[0].text) == []
    assert [c.text for c in empty.content[1:]] == [f"hint: {BROWSE_EMPTY_HINT}"]
    assert empty.structured_content == {"results": [], "hint": BROWSE_EMPTY_HINT}
    assert len(found.content) == 1 and "hint" not in found.structured_content
