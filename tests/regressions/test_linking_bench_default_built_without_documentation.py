"""Regression: the linking benchmark's ``evoonto`` condition was built without documentation.

``evoonto build`` reads the documentation beside a database by default (table comments, a BIRD
``database_description/`` data dictionary), so the ontology an agent is served has it; the
benchmark's plain ``evoonto`` condition passed ``documentation=False`` and so reported a number no
agent gets by default (wide BIRD question-only strict recall 0.786 against 0.888 for the build a
user makes). The default condition now builds as ``evoonto build`` does; ``--documentation off``
keeps the ablation.
"""

import importlib.util
from pathlib import Path

import pytest


def _bench_module():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "linking_bench.py"
    spec = importlib.util.spec_from_file_location("linking_bench_docs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Stop(Exception):
    pass


@pytest.mark.filterwarnings("ignore:database 'd' not found")
@pytest.mark.parametrize(("flag", "expected"), [((), True), (("--documentation", "off"), False)])
def test_linking_bench_default_built_without_documentation(tmp_path, monkeypatch, flag, expected):
    import evoonto.evaluation.conditions as conditions

    seen = {}

    def capture(*args, **kwargs):
        seen.update(kwargs)
        raise _Stop

    monkeypatch.setattr(conditions, "Conditions", capture)
    data = tmp_path / "spider"
    (data / "database").mkdir(parents=True)
    (data / "dev.json").write_text('[{"db_id": "d", "question": "q?", "query": "SELECT 1"}]')
    module = _bench_module()
    with pytest.raises(_Stop):
        module.main(["--data", str(data), "--conditions", "evoonto", *flag])
    assert seen["documentation"] is expected
    # the default build is what `evoonto build` makes
    import inspect

    from evoonto.builder.pipeline import build

    assert inspect.signature(build).parameters["documentation"].default is True
