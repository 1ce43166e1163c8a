"""Regression: ``evoonto sparql`` with an undeclared prefix printed pyoxigraph's parser message cut
mid-way through a list of Unicode character ranges ("expected one of Prefix not found, ['%'], ['-' |
'0' ..= '9' | …"), never naming the prefix. It now names the prefix, its position, how to declare
it and the predeclared prefixes; other syntax errors keep their position without the range lists."""

from __future__ import annotations

import pytest

from evoonto.cli import main
from evoonto.workspace import Workspace


@pytest.fixture()
def ws(tmp_path):
    Workspace.init(tmp_path / "ws", base_iri="https://example.org/sparql-test/")
    return str(tmp_path / "ws")


def test_unknown_prefix_is_named(ws, capsys):
    assert main(["sparql", "--workspace", ws, "SELECT ?t WHERE { ?t a foo:Bar }"]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown prefix 'foo:' at line 1, column 31" in err
    assert "PREFIX foo: <IRI>" in err and "evo:" in err
    assert "\\u{" not in err and len(err.splitlines()) == 1


def test_other_syntax_errors_keep_position_without_character_ranges(ws, capsys):
    assert main(["sparql", "--workspace", ws, "SELECT ?t WHERE { ?t a  }"]) == 2
    err = capsys.readouterr().err.strip()
    assert "syntax error at line 1, column 26" in err and "[" not in err
