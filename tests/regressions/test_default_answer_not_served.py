"""Defect (issue 33 item 1): what an agent got by default was not what the benchmarks measured.
``evoonto serve`` answered ``browse(q)`` with 8 verbose hits, the builder wrote no tool settings,
the manifest never said how to ask for depth or detail, and ``evoonto eval --help`` described a
browse+resolve policy at 8,000 characters while the benchmarks scored compact at 6,000. Now one
definition, :data:`evoonto.tools.settings.DEFAULT_ANSWER_POLICY`, is written by the builder, served
by default (library, CLI, MCP), stated by the manifest and tool description, and scored by
:data:`evoonto.evaluation.linking.DEFAULT_POLICY`."""

from __future__ import annotations

import argparse
import json

import anyio
import pytest
from fixtures.mcp_support import concert_workspace

from evoonto.evaluation.linking import DEFAULT_POLICY, LinkingPolicy, run_policy
from evoonto.tools.settings import DEFAULT_ANSWER_POLICY, BrowseSettings, load_settings
from evoonto.workspace import Workspace

QUESTION = "What is the average age of singers from France?"


def test_the_benchmark_default_policy_is_the_served_default_answer():
    assert DEFAULT_POLICY == LinkingPolicy()
    assert (DEFAULT_POLICY.format, DEFAULT_POLICY.budget_chars, DEFAULT_POLICY.kind) == (
        DEFAULT_ANSWER_POLICY.format, DEFAULT_ANSWER_POLICY.budget, DEFAULT_ANSWER_POLICY.kind)
    assert BrowseSettings().answer_policy() == DEFAULT_ANSWER_POLICY
    assert DEFAULT_POLICY.is_default() and LinkingPolicy(evidence=True).is_default()
    assert not LinkingPolicy(budget_chars=1500).is_default()
    assert DEFAULT_POLICY.describe() == "default (compact, 6,000 characters)"


def test_the_builder_writes_the_default_answer_into_the_tools_graph(tmp_path):
    from fixtures.sources_support import make_shop_db

    from evoonto.builder.pipeline import build
    from evoonto.ontology import Ontology

    result = build([make_shop_db(tmp_path)], base_iri="https://example.org/shop/")
    assert result.validation is None or result.validation.conforms
    tools_graph = result.graphs["tools"]
    stated = {str(p).rsplit("#", 1)[-1]: o.toPython() for _s, p, o in tools_graph}
    assert stated["answerFormat"] == DEFAULT_ANSWER_POLICY.format
    assert stated["answerBudget"] == DEFAULT_ANSWER_POLICY.budget
    ontology = Ontology.from_graphs(dict(result.graphs), base_iri=result.base_iri)
    assert load_settings(ontology).browse.answer_policy() == DEFAULT_ANSWER_POLICY


@pytest.mark.slow  # serves an MCP session (in process) over a workspace with a value index: ~2.5 s
def test_mcp_browse_without_arguments_answers_what_the_benchmark_scores(tmp_path):
    pytest.importorskip("mcp")
    from mcp import Client

    from evoonto.server import create_server

    from evoonto.evaluation.conditions import condition_tools
    from evoonto.workspace import source_locations

    path = concert_workspace(tmp_path / "ws")
    ws = Workspace.open(path)
    # the benchmark's evoonto condition: the tools with the database's value index, as served
    tools = condition_tools(ws.ontology, "concert_singer", source_locations(ws)["concert_singer"], tmp_path / "values")
    assert tools.value_index is not None
    scored, _resolved, _events = run_policy(tools, QUESTION, DEFAULT_POLICY)
    assert scored == tools.browse(QUESTION, **DEFAULT_ANSWER_POLICY.browse_arguments())
    assert scored and "score" not in scored[0]  # the compact format, not verbose hits

    async def main():
        async with Client(create_server(path)) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            return client.instructions, listed["browse"], await client.call_tool("browse", {"q": QUESTION})

    instructions, spec, served = anyio.run(main)
    assert json.loads(served.content[0].text) == scored
    properties = spec.input_schema["properties"]
    assert properties["format"]["default"] == DEFAULT_POLICY.format
    assert f"default {DEFAULT_POLICY.budget_chars}" in spec.description
    # how to ask for more: depth (a budget), detail (verbose), everything of one record (resolve)
    assert "budget" in spec.description and "verbose" in spec.description and "resolve" in spec.description
    assert f"{DEFAULT_POLICY.budget_chars:,} characters" in instructions and "budget=N" in instructions
    assert "format='verbose'" in instructions


def test_eval_help_names_the_default_policy_and_budget():
    from evoonto.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    text = sub.choices["eval"].format_help()
    assert "8000" not in text and "8,000" not in text
    assert f"{DEFAULT_ANSWER_POLICY.budget:,} characters" in text
    budget_help = next(a.help for a in sub.choices["eval"]._actions if "--budget" in a.option_strings)
    assert str(DEFAULT_ANSWER_POLICY.budget) in budget_help
