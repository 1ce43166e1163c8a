"""Regression: a declared SQL tool parsed (and re-generated) an over-long template with sqlglot before the
read-only guard refused it for its length; a 107,000-character UNION chain took 5–14 s of parsing only to
be refused. The length is now checked first, so nothing is parsed."""

from __future__ import annotations

import pytest

from evoonto.errors import ToolArgumentError
from evoonto.sources.guard import MAX_SQL_CHARS
from evoonto.tools.declared import DeclaredTool, bind_sql, run_declared


def test_declared_template_over_the_length_limit_is_refused_unparsed(monkeypatch):
    import sqlglot

    def no_parse(*_args, **_kwargs):
        raise AssertionError("an over-long template must be refused before sqlglot parses it")

    monkeypatch.setattr(sqlglot, "parse_one", no_parse)
    template = "SELECT 1 " + "UNION SELECT 1 " * (MAX_SQL_CHARS // 14)
    with pytest.raises(ToolArgumentError, match="characters long, the limit is 100,000"):
        bind_sql(template, {})
    with pytest.raises(ToolArgumentError, match="characters long"):
        run_declared(DeclaredTool("t", "d", "sql", template, ()), {}, ontology=None,
                     open_source=lambda _iri: None)


def test_declared_template_at_the_limit_is_still_parsed():
    template = "SELECT :x AS v"
    assert bind_sql(template, {"x": 3}) == "SELECT 3 AS v"
