"""Defect (issue 17 item 3): the MCP input schemas carried no enums (``kind``, ``expand``), no
bounds (``n``, ``depth``), no ``maxItems`` for ``ids`` and no per-property descriptions (titles "Q",
"N"); results were JSON-in-text only. The schemas now state the contract the calls are checked
against, and results also come as ``structuredContent`` matching an output schema."""

from __future__ import annotations

import json

import anyio
import pytest
from fixtures.mcp_support import concert_workspace

pytest.importorskip("mcp")
from mcp import Client  # noqa: E402

from evoonto.server import create_server  # noqa: E402


@pytest.mark.slow
def test_schemas_state_enums_bounds_and_descriptions(tmp_path):
    server = create_server(concert_workspace(tmp_path / "ws"), data_tools=True)

    async def main():
        async with Client(server) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            hits = await client.call_tool("browse", {"q": "singer age"})
            resolved = await client.call_tool("resolve", {"ids": ["term/cs/singer-age"], "depth": 0})
            rows = await client.call_tool("singers_from_country", {"country": "France"})
            return listed, hits, resolved, rows

    listed, hits, resolved, rows = anyio.run(main)
    browse = listed["browse"].input_schema
    assert browse["additionalProperties"] is False and browse["required"] == ["q"]
    assert browse["properties"]["kind"]["enum"] == ["term", "mapping", "constraint", "evidence", "relation",
                                                    "verified", "any"]
    assert (browse["properties"]["n"]["minimum"], browse["properties"]["n"]["maximum"]) == (1, 20)  # evo:maxResults
    resolve = listed["resolve"].input_schema
    assert resolve["properties"]["ids"]["maxItems"] == 50
    assert resolve["properties"]["expand"]["items"]["enum"] == ["mappings", "relations", "constraints", "evidence"]
    assert (resolve["properties"]["depth"]["minimum"], resolve["properties"]["depth"]["maximum"]) == (0, 2)
    for tool in listed.values():
        props = tool.input_schema.get("properties", {})
        assert all(p.get("description") for p in props.values()), tool.name
        assert "title" not in json.dumps(tool.input_schema)
        assert tool.output_schema and tool.output_schema["type"] == "object", tool.name
    # structured results equal the JSON text
    assert hits.structured_content == {"results": json.loads(hits.content[0].text)}
    assert hits.structured_content["results"][0]["id"] == "term/cs/singer-age"
    assert resolved.structured_content == json.loads(resolved.content[0].text)
    assert rows.structured_content["rows"] == [["Justin Brown"]]
