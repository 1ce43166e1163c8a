"""Defect (issue 17 item 2): the CLI help, the MCP tool description and the manifest all said browse
returns 5 results; it returned 8 (and 12/16/24 after Tool patches). Every such text is generated
from the active settings (``evo:defaultResults``)."""

from __future__ import annotations

import argparse
import re

import anyio
import pytest
from fixtures.mcp_support import concert_workspace

from evoonto.tools.toolkit import OntologyTools
from evoonto.workspace import Workspace


def _browse_default_in(text: str) -> int:
    # the default answer is compact (issue 33); the verbose hit count is stated beside it
    match = re.search(r"\(verbose: n=(\d+) hits\)", text)
    assert match, text
    return int(match.group(1))


@pytest.mark.slow
def test_manifest_and_mcp_description_state_the_default_browse_returns(tmp_path):
    pytest.importorskip("mcp")
    from mcp import Client

    from evoonto.server import create_server

    path = concert_workspace(tmp_path / "ws", default_results=7)
    ws = Workspace.open(path)
    tools = OntologyTools(ws.ontology, version=ws.version)
    returned = len(tools.browse("singer", kind="any", format="verbose"))
    assert returned == 7
    assert _browse_default_in(tools.manifest()) == returned

    async def main():
        async with Client(create_server(path)) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            return client.instructions, listed["browse"]

    instructions, browse = anyio.run(main)
    assert _browse_default_in(instructions) == returned
    assert re.search(r"n: verbose: number of results \(default (\d+)", browse.description).group(1) == str(returned)
    assert browse.input_schema["properties"]["n"]["default"] == returned


def test_cli_help_states_the_default_browse_returns_without_a_setting(tmp_path, capsys):
    from evoonto.cli import build_parser, main

    path = concert_workspace(tmp_path / "ws", default_results=None)  # no evo:defaultResults
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    help_n = next(a.help for a in sub.choices["browse"]._actions if "-n" in a.option_strings)
    stated = int(re.search(r"(\d+) unless", help_n).group(1))
    assert main(["browse", "singer", "--kind", "any", "--format", "verbose", "--json", "--workspace", str(path)]) == 0
    import json

    assert len(json.loads(capsys.readouterr().out)) == stated
