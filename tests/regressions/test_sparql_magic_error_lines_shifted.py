"""Regression (issue 17, item 7): ``%%sparql`` prepended one ``PREFIX`` line per standard prefix, so
a parser error on line 3 of a cell was reported at line 16. The store predeclares the prefixes, so
the cell now reaches an Ontology unchanged; for other targets the declarations share the first line."""

from __future__ import annotations

import re

import pytest

from evoonto.sparql_magic import run_query, with_standard_prefixes
from evoonto.store import QueryError

BROKEN = "SELECT ?x\nWHERE { ?x a evo:Term }\nLIMIT many"


def test_error_positions_refer_to_the_lines_of_the_cell(tmp_path):
    from evoonto.workspace import Workspace

    ws = Workspace.init(tmp_path / "ws")
    with pytest.raises(QueryError) as caught:
        run_query(ws, BROKEN)
    position = re.search(r"at line (\d+), column", str(caught.value))
    assert position is not None, str(caught.value)
    assert position.group(1) == "3"


def test_injected_declarations_add_no_line():
    text = with_standard_prefixes(BROKEN)
    assert text.count("\n") == BROKEN.count("\n") and text.endswith(BROKEN)
    assert "PREFIX evo: <https://w3id.org/evoonto/ns#>" in text.splitlines()[0]
