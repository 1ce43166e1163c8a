"""The experiment facade: fold plans follow the stored splits, never leak the held-out fold, and the
starting versions it makes are the builder's and the raw schema's."""

from __future__ import annotations

import pytest

from evoonto.demo import bundled_data, load_demo_benchmark
from evoonto.errors import ConfigurationError
from evoonto.experiment import Experiment


@pytest.fixture(scope="module")
def experiment() -> Experiment:
    return Experiment(load_demo_benchmark(), seed=0)


def test_every_question_is_held_out_exactly_once(experiment):
    held_out = [q.id for rnd in experiment.rounds() for plan in experiment.plans(rnd) for q in plan.test]
    assert sorted(held_out) == sorted(q.id for q in experiment.benchmark.questions)


def test_plans_keep_the_held_out_fold_apart(experiment):
    for rnd in experiment.rounds():
        (plan,) = experiment.plans(rnd)
        train = {q.id for q in plan.construction} | {q.id for q in plan.validation}
        assert not train & {q.id for q in plan.test}
        assert not {q.id for q in plan.construction} & {q.id for q in plan.validation}
        assert [q.id for q in plan.construction] == list(rnd.construction)
        assert plan.train_fold != rnd.test_fold and plan.train_folds == tuple(
            n for n in ("A", "B") if n != rnd.test_fold)


def test_training_fold_is_the_fold_evolve_uses(experiment):
    plan = experiment.training("A", "concert_singer")
    assert [q.id for q in plan.construction] == list(experiment.splits.fold("A", "construction", "concert_singer"))
    assert [q.id for q in plan.validation] == list(experiment.splits.fold("A", "validation", "concert_singer"))
    assert experiment.round_training_on("A").test_fold == "B"
    with pytest.raises(ConfigurationError, match="unknown fold"):
        experiment.training("Z", "concert_singer")
    assert experiment.plans(experiment.rounds()[0], max_test=2)[0].test == experiment.plans(
        experiment.rounds()[0])[0].test[:2]


@pytest.mark.slow
def test_baseline_start_is_the_raw_schema(experiment, tmp_path):
    plan = experiment.plan(experiment.round_training_on("A"), "concert_singer")
    ws, build = experiment.workspace(tmp_path / "ws", plan, start="baseline")
    assert build is None and ws.version == 0
    assert ws.settings["sources"] == {"concert_singer": str(bundled_data().database)}
    rows = ws.ontology.query("PREFIX evo: <https://w3id.org/evoonto/ns#> "
                             "SELECT (COUNT(?e) AS ?n) WHERE { ?e a evo:Evidence }")
    assert int(rows[0]["n"]) == 0  # bare Terms only: no probe evidence
    results = experiment.score(ws.ontology, plan.test)
    assert [r.question_id for r in results] == [q.id for q in plan.test]
    with pytest.raises(ConfigurationError, match="unknown start"):
        experiment.workspace(tmp_path / "other", plan, start="nothing")  # type: ignore[arg-type]


def test_load_stores_the_splits_once_and_reuses_them(tmp_path):
    from evoonto.errors import WorkloadError

    folder = bundled_data().questions.parent
    first = Experiment.load("jsonl", folder, seed=0, splits_path=tmp_path / "splits.json")
    stored = (tmp_path / "splits.json").read_bytes()
    again = Experiment.load(None, folder, seed=0, splits_path=tmp_path / "splits.json")
    assert again.splits == first.splits and (tmp_path / "splits.json").read_bytes() == stored
    with pytest.raises(WorkloadError):
        Experiment.load("jsonl", folder, seed=1, splits_path=tmp_path / "splits.json")
