"""Regression: the in-process agent toolbox (used by ``evoonto eval`` and the agent backbone) kept
its own hand-written copy of the tool definitions: browse and resolve only, so an evaluated agent
never saw check_sql, coverage or join_path, and run_sql had no ``check`` option. It now offers the
one registry's tools with the same names, descriptions and schemas the MCP server serves."""

from __future__ import annotations

from fixtures.eval_support import make_db

from evoonto.evaluation.agent import InProcessToolbox
from evoonto.evaluation.conditions import build_baseline_ontology
from evoonto.sources import open_source
from evoonto.tools.data import DataTools
from evoonto.tools.toolkit import OntologyTools


def test_in_process_toolbox_serves_the_registry(tmp_path):
    db = make_db(tmp_path / "cs.sqlite")
    served = OntologyTools(build_baseline_ontology(db), sources={"cs": str(db)}, data_tools=True)
    with open_source(str(db)) as src:
        box = InProcessToolbox(DataTools({"cs": src}), OntologyTools(build_baseline_ontology(db)))
        offered = {d["name"]: d for d in box.definitions()}
        listed = {name: spec for name, spec in served.registry().items() if spec.listed}
        assert set(offered) == set(listed)
        assert {"check_sql", "coverage", "join_path", "run_sql"} <= set(offered)
        for name, spec in listed.items():
            assert offered[name]["input_schema"] == spec.input_schema, name
            assert offered[name]["description"] == spec.description, name
        answer = box.call("run_sql", {"sql": "SELECT Name FROM singer WHERE Country = 'france'", "check": True})
        assert "rows" in answer and "findings" in answer
        assert box.call("check_sql", {"sql": "SELECT nme FROM singer"})["ok"] is False
    served.close()
