"""The Claude proposer (evoonto.builder.llm) through the real ``anthropic`` SDK client, with a
recorded Messages API response served by an ``httpx2.MockTransport`` (the HTTP library of the
installed SDK), so no test touches the network."""

from __future__ import annotations

import json
from pathlib import Path

import anthropic
import httpx2 as httpx
import pytest
from fixtures.builder_support import make_cards_db
from rdflib import Literal
from rdflib.namespace import SKOS

from evoonto.builder import Question, build
from evoonto.builder.llm import ClaudeProposer, parse_response
from evoonto.builder.pipeline import make_proposer
from evoonto.errors import ConfigurationError, EvoontoError

FIXTURES = Path(__file__).parent / "fixtures"
RECORDED = json.loads((FIXTURES / "builder_claude_response.json").read_text(encoding="utf-8"))
API_KEY = "sk-ant-test-key-never-stored"


@pytest.fixture(scope="module")
def cards_db(tmp_path_factory) -> Path:
    return make_cards_db(tmp_path_factory.mktemp("cards"))


def _client(handler) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key=API_KEY, http_client=httpx.Client(transport=httpx.MockTransport(handler)),
                               max_retries=0)


def test_recorded_reply_goes_through_probe_verify_construct(cards_db):
    requests = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, json=RECORDED)

    proposer = ClaudeProposer(_client(handler), "claude-sonnet-5-5")
    questions = [Question("q1", "Which forbidden cards are there?"), Question("q2", "What is the margin?")]
    result = build([cards_db], questions, proposer=proposer)

    (request,) = requests
    body = json.loads(request.content)
    assert request.url.path == "/v1/messages" and body["model"] == "claude-sonnet-5-5"
    prompt = body["messages"][0]["content"]
    assert "Which forbidden cards are there?" in prompt and "TABLE cards" in prompt and "'Banned'" not in prompt
    assert result.proposer == "anthropic:claude-sonnet-5-5" and result.validation.conforms

    content = result.graphs["content"]
    alt = {str(o) for o in content.objects(None, SKOS.altLabel)}
    assert {"legality", "card title", "forbidden", "margin"} <= alt
    assert list(content.subjects(SKOS.prefLabel, Literal("Gross margin", lang="en")))
    reasons = {(r.family, r.subject.split(":")[0]): r.reason for r in result.rejected}
    assert "not in the catalog" in reasons[("term", "cards.rarity~card-rarity")]
    assert "type check failed" in reasons[("term", "cards.card_name~name-as-number")]
    assert "no row has" in reasons[("value", "cards.format=Vintage")]
    assert "not accepted" in reasons[("synonym", "cards.rarity")]
    # the key authenticates the request and is written nowhere
    assert API_KEY in request.headers.get("x-api-key", "") + request.headers.get("authorization", "")
    assert API_KEY not in result.serialize("content") + result.serialize("catalog") + repr(result)


def test_parse_response_skips_malformed_items():
    from evoonto.catalog import SourceSchema

    schema = SourceSchema("x", None, "sqlite", ())
    text = ('prose {"synonyms": [1, {"table": "t"}], "values": "nope", '
            '"terms": [{"label": "L", "kind": "Metric", "table": "t", "aggregation": "MEDIAN"}]}')
    proposal = parse_response(text, schema)
    assert proposal.synonyms == [] and proposal.values == [] and proposal.terms == []
    with pytest.raises(EvoontoError, match="no JSON"):
        parse_response("I cannot help with that.", schema)


def test_api_errors_and_missing_key(cards_db, monkeypatch):
    def handler(request):
        return httpx.Response(401, json={"type": "error", "error": {"type": "authentication_error",
                                                                     "message": "invalid x-api-key"}})

    with pytest.raises(EvoontoError, match="claude-x.*invalid x-api-key"):
        build([cards_db], ["How many cards?"], proposer=ClaudeProposer(_client(handler), "claude-x"))

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY"):
        make_proposer("anthropic:claude-sonnet-5-5")
    with pytest.raises(ConfigurationError, match="model name"):
        make_proposer("anthropic:")
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    assert make_proposer("anthropic:claude-sonnet-5-5").name == "anthropic:claude-sonnet-5-5"
