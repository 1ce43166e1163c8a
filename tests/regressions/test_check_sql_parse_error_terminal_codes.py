"""Regression: a SQL statement sqlglot cannot parse gave a parse_error message holding terminal colour
codes (``\\x1b[4m``) and a Python class path (``<class 'sqlglot.expressions.core.Mul'>``), with no
span, in the CLI, ``--json`` and the MCP answer. It now names the token and its position, and the
finding's span points at that token."""

from __future__ import annotations

import sqlglot

from evoonto.tools.sqlcheck import _parse_error


def _finding(sql: str):
    try:
        sqlglot.parse(sql, read="sqlite")
    except sqlglot.errors.ParseError as exc:
        return _parse_error(exc, sql)
    raise AssertionError("expected a parse error")


def test_parse_error_is_plain_text_with_a_span():
    sql = "SELEC * FROM"
    finding = _finding(sql)
    assert "\x1b" not in finding.message and "<class" not in finding.message
    assert "near 'FROM' (line 1, column 12)" in finding.message
    assert sql[finding.start:finding.end] == "FROM"


def test_span_counts_earlier_lines():
    sql = "SELECT a\nFROM t WHERE (("
    finding = _finding(sql)
    assert finding.start is not None and sql[finding.start:finding.end] == "("
    assert "(line 2," in finding.message
