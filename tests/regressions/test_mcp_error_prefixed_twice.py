"""Defect (issue 17 item 3): MCP errors were prefixed twice ("Error executing tool browse: browse:
…") and a wrong argument type returned a multi-line pydantic dump with a URL. Errors are one line,
prefixed once with the tool name."""

from __future__ import annotations

import anyio
import pytest
from fixtures.mcp_support import concert_workspace

pytest.importorskip("mcp")
from mcp import Client  # noqa: E402

from evoonto.server import create_server  # noqa: E402

CASES = [
    ("browse", {"q": "age", "n": 0}, "browse: n must be an integer from 1 to 20"),
    ("browse", {"q": 17}, "browse: q must be a string, got integer"),
    ("browse", {"q": "age", "n": "3"}, "browse: n must be an integer, got string"),
    ("resolve", {"ids": ["a"], "depth": 9}, "resolve: depth must be an integer from 0 to 2"),
    ("resolve", {"ids": [1, 2]}, "resolve: every item of ids must be a string, got integer"),
    ("terms_labelled", {}, "terms_labelled: missing argument(s) text"),
]


@pytest.mark.slow
def test_errors_are_one_line_and_prefixed_once(tmp_path):
    server = create_server(concert_workspace(tmp_path / "ws"))

    async def main():
        async with Client(server) as client:
            return [await client.call_tool(tool, args) for tool, args, _ in CASES]

    for (tool, args, message), result in zip(CASES, anyio.run(main), strict=True):
        assert result.is_error, (tool, args)
        assert result.content[0].text == message
