"""One experiment facade: benchmark → seeded folds → build per fold → backbone → evolve → score held-out.

The wiring of the paper's protocol (DESIGN.md §1 *Evaluation*: reciprocal two-fold, each training fold
cut into a construction pool and a gate validation set V) lives here once, and ``evoonto eval``,
``evoonto evolve``, ``evoonto demo``, notebook 02 and the benchmarks are thin users of it::

    exp = Experiment.load("spider", "../shared/data/spider", seed=0)
    for plan in exp.plans(exp.rounds()[0]):            # one FoldPlan per database of the round
        v0 = exp.build(plan, base_iri=...)              # builder output (graphs), gold never read
        ws, _ = exp.workspace(path, plan, start="builder")  # or start="baseline" (raw schema)
        result = exp.evolve(ws, plan, backbone=exp.backbone(sources=...), evolver=..., config=...)
        scores = exp.score(ws.ontology, plan.test)      # held-out schema-linking results

Gold answers stay inside :class:`~evoonto.evaluation.benchmarks.Benchmark`'s GoldStore, read only by the
scorers (:meth:`Experiment.score`, :meth:`Experiment.evaluate`, the backbone); plans, builds and the
evolution loop receive Questions only. This module sits above ``evaluation`` and ``evolution`` and may
import both; neither imports it.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence

from evoonto.errors import ConfigurationError, WorkloadError

if TYPE_CHECKING:  # typing only: the facade imports its collaborators where they are used
    from evoonto.builder.pipeline import BuildResult
    from evoonto.evaluation.backbones import LinkingBackbone
    from evoonto.evaluation.benchmarks import Benchmark, Question
    from evoonto.evaluation.conditions import Conditions, Context
    from evoonto.evaluation.runner import EvalConfig, RunResult
    from evoonto.evaluation.linking import LinkingPolicy, LinkingResult
    from evoonto.evaluation.splits import Round, Splits
    from evoonto.evolution.loop import Backbone, EvolutionResult, Evolver, LoopConfig, RoundRecord
    from evoonto.evolution.offline import OfflineEvolver
    from evoonto.ontology import Ontology
    from evoonto.workspace import Workspace

#: Where an evolution run starts: the builder's cold start, or the paper's raw-schema Baseline.
Start = Literal["builder", "baseline"]


@dataclass(frozen=True)
class FoldPlan:
    """The questions of one database in one round of the protocol (Questions only, never gold).

    Attributes:
        round: the :class:`~evoonto.evaluation.splits.Round` (``round.test_fold`` is held out).
        db_id: the database.
        construction: the training folds' construction pool (builder workload, evolution trajectories).
        validation: the training folds' gate validation set V.
        test: the held-out fold's questions.
        train_folds: names of the folds the construction pool and V come from.
    """

    round: "Round"
    db_id: str
    construction: tuple["Question", ...]
    validation: tuple["Question", ...]
    test: tuple["Question", ...]

    train_folds: tuple[str, ...] = ()

    @property
    def train_fold(self) -> str:
        """The training fold(s) joined by ``+``, e.g. ``"B"`` (two folds, fold A held out)."""
        return "+".join(self.train_folds)


class Experiment:
    """A benchmark with its seeded fold assignment, and the protocol's steps over it.

    Args:
        benchmark: the loaded :class:`~evoonto.evaluation.benchmarks.Benchmark`.
        splits: the fold assignment (default: :func:`~evoonto.evaluation.splits.make_splits` of the
            benchmark's questions with ``seed``, ``folds``, ``validation_fraction``).
        seed: split seed (also the gate's seed where callers use it). folds: k ≥ 2.
        validation_fraction: share of each fold that goes to V (0 < f < 1).
    Raises:
        ConfigurationError: ``folds`` < 2.
    """

    def __init__(self, benchmark: "Benchmark", *, splits: "Splits | None" = None, seed: int = 0,
                 folds: int = 2, validation_fraction: float = 0.3) -> None:
        from evoonto.evaluation.splits import make_splits

        if folds < 2:
            raise ConfigurationError("--folds must be at least 2")
        self.benchmark = benchmark
        self.seed = splits.seed if splits is not None else seed
        self.splits = splits if splits is not None else make_splits(
            benchmark.questions, seed=seed, folds=folds, validation_fraction=validation_fraction)
        self._by_id = {q.id: q for q in benchmark.questions}

    @classmethod
    def load(cls, name: str | None, data: Path | str, *, seed: int = 0, folds: int = 2,
             validation_fraction: float = 0.3, splits_path: Path | str | None = None) -> "Experiment":
        """Load a benchmark (:func:`~evoonto.evaluation.benchmarks.load_benchmark`) and its splits.

        Args:
            name: ``spider``, ``bird``, ``jsonl`` or None (detect). data: its folder or question file.
            seed, folds, validation_fraction: the split protocol.
            splits_path: a splits JSON to reuse, created (atomic write) when missing; None = in memory.
        Returns:
            the :class:`Experiment`.
        Raises:
            WorkloadError: bad benchmark files, or a stored splits file made with other parameters.
            ConfigurationError: ``folds`` < 2.
        """
        from evoonto.evaluation.benchmarks import load_benchmark
        from evoonto.evaluation.splits import load_or_create_splits

        if folds < 2:
            raise ConfigurationError("--folds must be at least 2")
        bench = load_benchmark(name, data)
        splits = None
        if splits_path is not None:
            splits = load_or_create_splits(splits_path, bench.questions, seed=seed, folds=folds,
                                           validation_fraction=validation_fraction)
        return cls(bench, splits=splits, seed=seed, folds=folds, validation_fraction=validation_fraction)

    # ----------------------------------------------------------------------------- folds

    def rounds(self) -> list["Round"]:
        """The k rounds of the reciprocal protocol (round i holds out fold i)."""
        return self.splits.rounds()

    def round_training_on(self, fold: str) -> "Round":
        """The round whose training folds include ``fold`` and that holds out another one (for
        two folds: train on ``fold``, test on the other).

        Raises:
            ConfigurationError: no such fold.
        """
        for rnd in self.rounds():
            if rnd.test_fold != fold and fold in self._fold_names():
                return rnd
        raise ConfigurationError(f"unknown fold {fold!r}; choose from {', '.join(self._fold_names())}")

    def _fold_names(self) -> list[str]:
        from evoonto.evaluation.splits import fold_name

        return [fold_name(i) for i in range(self.splits.folds)]

    def plans(self, rnd: "Round", databases: Sequence[str] | None = None, *,
              max_test: int | None = None) -> list[FoldPlan]:
        """One :class:`FoldPlan` per database with held-out questions in ``rnd``, sorted by db id.

        Args:
            rnd: a round from :meth:`rounds`.
            databases: only these db ids (None = all).
            max_test: at most this many held-out questions per database (quick runs; None = all).
        Raises:
            WorkloadError: a requested database has no questions in the benchmark.
        """
        if databases is not None:
            missing = sorted(set(databases) - set(self.benchmark.db_ids()))
            if missing:
                raise WorkloadError(f"no questions for database(s) {', '.join(missing)}")
        chosen = set(databases) if databases is not None else None
        test = [self._by_id[i] for i in rnd.test]
        out = []
        for db_id in sorted({q.db_id for q in test if q.db_id is not None}):  # db-less questions: no plan
            if chosen is not None and db_id not in chosen:
                continue
            held_out = [q for q in test if q.db_id == db_id][:max_test]
            construction = tuple(self._by_id[i] for i in rnd.construction if self._by_id[i].db_id == db_id)
            validation = tuple(self._by_id[i] for i in rnd.validation if self._by_id[i].db_id == db_id)
            assert not {q.id for q in held_out} & {q.id for q in construction + validation}
            train = tuple(n for n in self._fold_names() if n != rnd.test_fold)
            out.append(FoldPlan(rnd, db_id, construction, validation, tuple(held_out), train))
        return out

    def plan(self, rnd: "Round", db_id: str) -> FoldPlan:
        """The :class:`FoldPlan` of one database in ``rnd``.

        Raises:
            WorkloadError: ``db_id`` has no held-out question in ``rnd`` (or is unknown).
        """
        found = self.plans(rnd, [db_id])
        if not found:
            raise WorkloadError(f"round {rnd.index} holds out no question of {db_id!r}")
        return found[0]

    def training(self, fold: str, db_id: str) -> FoldPlan:
        """Construction pool and V of one training ``fold`` of ``db_id`` (the fold's own questions
        only, as ``evoonto evolve --fold`` uses), with the other folds' questions as ``test``.

        Raises:
            ConfigurationError: unknown fold. WorkloadError: unknown database.
        """
        if fold not in self._fold_names():
            raise ConfigurationError(f"unknown fold {fold!r}; choose from {', '.join(self._fold_names())}")
        if db_id not in self.splits.databases:
            raise WorkloadError(f"the splits have no database {db_id!r}")
        by_id = self._by_id
        rnd = next(r for r in self.rounds() if r.test_fold != fold)
        rest = [n for n in self._fold_names() if n != fold]
        return FoldPlan(rnd, db_id,
                        tuple(by_id[i] for i in self.splits.fold(fold, "construction", db_id)),
                        tuple(by_id[i] for i in self.splits.fold(fold, "validation", db_id)),
                        tuple(by_id[i] for n in rest for i in self.splits.fold(n, None, db_id)), (fold,))

    # ----------------------------------------------------------------------------- ontologies

    def database(self, db_id: str) -> Path:
        """The database file of ``db_id``."""
        return Path(self.benchmark.databases[db_id])

    def build(self, plan: FoldPlan, *, base_iri: str | None = None, proposer: str = "offline") -> "BuildResult":
        """The builder's cold start of ``plan.db_id`` from its construction pool (Questions only).

        Returns:
            the :class:`~evoonto.builder.pipeline.BuildResult` (``.graphs`` becomes a workspace's base).
        """
        from evoonto.builder.pipeline import build

        kwargs: dict[str, Any] = {"proposer": proposer}
        if base_iri is not None:
            kwargs["base_iri"] = base_iri
        return build([str(self.database(plan.db_id))], list(plan.construction), **kwargs)

    def baseline(self, db_id: str, *, base_iri: str | None = None) -> "Ontology":
        """The paper's Baseline: the raw-schema ontology of ``db_id`` (one bare Term per table/column)."""
        from evoonto.evaluation.conditions import build_baseline_ontology

        if base_iri is None:
            return build_baseline_ontology(self.database(db_id))
        return build_baseline_ontology(self.database(db_id), base_iri=base_iri)

    def workspace(self, path: Path | str, plan: FoldPlan, *, start: Start = "builder",
                  base_iri: str | None = None, proposer: str = "offline",
                  prepare: Callable[["Workspace"], None] | None = None) -> tuple["Workspace", "BuildResult | None"]:
        """A new workspace at ``path`` whose version 0 is the starting point of an evolution run.

        Args:
            path: a directory that does not exist yet (or is empty).
            plan: the fold plan (its construction pool is the builder workload).
            start: ``"builder"`` (the builder's ontology) or ``"baseline"`` (raw schema: catalog and
                bare Terms only, the weaker start the paper's Baseline condition uses).
            base_iri: instance IRI base (default: the workspace's own).
            proposer: builder proposer (``offline`` or ``anthropic:MODEL``).
            prepare: called with the fresh workspace before version 0 is written (settings, markers).
        Returns:
            ``(workspace, build result or None for the baseline)``; the workspace records the source
            in its ``sources`` setting so ``evoonto serve --data-tools`` reaches it.
        Raises:
            WorkspaceError: ``path`` exists and is not empty. ConfigurationError: unknown ``start``.
        """
        from evoonto.workspace import Workspace

        if start not in ("builder", "baseline"):
            raise ConfigurationError(f"unknown start {start!r}; choose builder or baseline")
        ws = Workspace.init(path, base_iri=base_iri) if base_iri else Workspace.init(path)
        if prepare is not None:
            prepare(ws)
        ws.set_setting("sources", {plan.db_id: str(self.database(plan.db_id))})
        if start == "builder":
            result = self.build(plan, base_iri=ws.base_iri, proposer=proposer)
            ws.replace_base(result.graphs)
            return ws, result
        raw = self.baseline(plan.db_id, base_iri=ws.base_iri)
        ws.replace_base({"catalog": raw.graph("catalog"), "content": raw.graph("content")})
        return ws, None

    # ----------------------------------------------------------------------------- scoring

    def backbone(self, *, metric: str = "column", policy: "LinkingPolicy | None" = None,
                 sources: dict | None = None) -> "Backbone":
        """The offline backbone the gate compares versions with: the schema-linking policy.

        Args:
            metric: ``column`` (column recall per question) or ``strict`` (1 when every gold column
                was surfaced). policy: the retrieval policy (default :class:`LinkingPolicy`).
            sources: source id → open Source (declared tools need them).
        Returns:
            a :class:`~evoonto.evaluation.backbones.LinkingBackbone`, typed as the loop's
            :class:`~evoonto.evolution.loop.Backbone` protocol (so callers may swap in ``ExBackbone``).
        Raises:
            ConfigurationError: unknown metric.
        """
        return self._linking_backbone(metric=metric, policy=policy, sources=sources)

    def _linking_backbone(self, *, metric: str, policy: "LinkingPolicy | None",
                          sources: dict | None) -> "LinkingBackbone":
        from evoonto.evaluation.backbones import LinkingBackbone

        return LinkingBackbone(self.benchmark, policy=policy, metric=metric, sources=dict(sources or {}))

    def score(self, ontology: "Ontology", questions: Sequence["Question"], *,
              policy: "LinkingPolicy | None" = None, sources: dict | None = None) -> list["LinkingResult"]:
        """Schema-linking results (strict, column, table, value recall, tokens) of ``questions`` on
        ``ontology`` under the retrieval policy: the held-out score of a version."""
        return [r for _, _, r in self._linking_backbone(metric="strict", policy=policy, sources=sources)
                .results(ontology, list(questions))]

    def context(self, condition: str, plan: FoldPlan, *, conditions: "Conditions | None" = None,
                ontology: "Ontology | None" = None) -> "Context":
        """The evaluation :class:`~evoonto.evaluation.conditions.Context` of ``condition`` (baseline,
        full, evoonto) for ``plan``; with ``ontology``, the evoonto/full conditions use it instead of
        building one from the construction pool."""
        from evoonto.evaluation.conditions import Conditions

        if conditions is None:
            conditions = (Conditions() if ontology is None
                          else Conditions(ontology_provider=lambda db_id, database, workload: ontology))
        return conditions.prepare(condition, plan.db_id, self.database(plan.db_id), list(plan.construction))

    def evaluate(self, condition: str, plan: FoldPlan, *, policy: "LinkingPolicy | None" = None,
                 conditions: "Conditions | None" = None, ontology: "Ontology | None" = None,
                 questions: Sequence["Question"] | None = None) -> list["LinkingResult"]:
        """Schema-linking results of ``condition`` on ``questions`` (default: the held-out ``plan.test``).

        Raises:
            ConfigurationError: unknown condition.
        """
        from evoonto.evaluation.runner import evaluate_linking

        context = self.context(condition, plan, conditions=conditions, ontology=ontology)
        return evaluate_linking(context, list(plan.test if questions is None else questions), self.benchmark,
                                policy)

    # ----------------------------------------------------------------------------- evolution

    def evolve(self, workspace: "Workspace", plan: FoldPlan, *, backbone: "Backbone", evolver: "Evolver",
               config: "LoopConfig | None" = None, on_round: Callable[["RoundRecord"], None] | None = None,
               recorded_trajectories: list | None = None) -> "EvolutionResult":
        """Run the gated loop on ``workspace``: trajectories from ``plan.construction``, gate on
        ``plan.validation`` (the held-out ``plan.test`` never reaches evolution).

        Returns:
            the :class:`~evoonto.evolution.loop.EvolutionResult`; every decision is in the workspace history.
        Raises:
            WorkloadError: ``plan`` has no validation question.
        """
        from evoonto.evolution.loop import evolve

        if not plan.validation:
            raise WorkloadError(f"the training fold has no validation questions for {plan.db_id}")
        return evolve(workspace, backbone=backbone, trajectory_questions=list(plan.construction),
                      validation_questions=list(plan.validation), evolver=evolver, config=config,
                      on_round=on_round, recorded_trajectories=recorded_trajectories)

    def evolve_group(self, members: Sequence[tuple["Workspace", FoldPlan]], *, backbone: "Backbone",
                     evolver: "Evolver",
                     config: "LoopConfig | None" = None, on_round: Callable[["RoundRecord"], None] | None = None,
                     caches: dict | None = None) -> "EvolutionResult":
        """Evolve several workspaces (one per database) together with one pooled gate
        (:func:`~evoonto.evolution.loop.evolve_group`).

        Args:
            members: ``(workspace, plan)`` pairs. caches: db id → backbone cache shared between runs
                from the same version 0 (e.g. gated and no-gate ablation).
        """
        from evoonto.evolution.loop import Member, evolve_group

        caches = caches if caches is not None else {}
        group = [Member(plan.db_id, ws, list(plan.construction), list(plan.validation),
                        cache=caches.setdefault(plan.db_id, {})) for ws, plan in members]
        return evolve_group(group, backbone=backbone, evolver=evolver, config=config, on_round=on_round)


def run_evaluation(config: "EvalConfig", *, client: Any = None, progress: bool = True,
                   conditions: "Conditions | None" = None) -> "RunResult":
    """Run the reciprocal k-fold evaluation of ``evoonto eval`` and write the run folder.

    For each round, database and condition, the condition is prepared from the round's construction
    pool (:meth:`Experiment.context`) and every held-out question is scored (linking or EX); see
    :mod:`evoonto.evaluation.runner` for the files written.

    Args:
        config: :class:`EvalConfig`.
        client: an ``anthropic.Anthropic`` client for ``ex`` (default :func:`~evoonto.evaluation.agent.make_client`).
        progress: show a progress bar on stderr when it is a terminal (never in a redirected
            stderr; :func:`evoonto.progress.progress_bar`); False turns it off.
        conditions: a :class:`Conditions` (to share caches or plug in an ontology provider).

    Returns:
        a :class:`RunResult`.

    Raises:
        ConfigurationError: bad settings or missing API key; WorkloadError: bad benchmark/splits.
    """
    from evoonto.evaluation.benchmarks import load_benchmark
    from evoonto.evaluation.conditions import Conditions
    from evoonto.evaluation.runner import RunResult, _score_ex, _summarize, evaluate_linking
    from evoonto.evaluation.splits import load_or_create_splits
    from evoonto.progress import progress_bar

    config.check()
    agent = None
    if config.scorer == "ex":
        from evoonto.evaluation.agent import ReactAgent, make_client

        agent = ReactAgent(client if client is not None else make_client(), config.agent)
    bench = load_benchmark(config.benchmark, config.data)
    chosen = set(config.databases or bench.db_ids())
    missing = sorted(chosen - set(bench.db_ids()))
    if missing:
        raise WorkloadError(f"no questions for database(s) {', '.join(missing)} in {config.data}")
    # splits always cover the whole benchmark (each database is split independently), so runs on a
    # subset of databases reuse the same stored file
    splits_path = config.splits_path or Path(config.out) / f"splits-{config.benchmark}.json"
    splits = load_or_create_splits(splits_path, bench.questions, seed=config.seed, folds=config.folds,
                                   validation_fraction=config.validation_fraction)
    experiment = Experiment(bench, splits=splits)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    folder = Path(config.out) / f"{stamp}-{config.benchmark}-{config.scorer}-{uuid.uuid4().hex[:6]}"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({**config.to_json(), "splits": str(splits_path)}, indent=1) + "\n")

    plans = [p for rnd in experiment.rounds()
             for p in experiment.plans(rnd, sorted(chosen), max_test=config.max_questions)]
    total = sum(len(p.test) for p in plans) * len(config.conditions)

    conditions = conditions or Conditions(proposer=config.proposer)
    rows: list[dict] = []
    sizes: dict[str, dict] = {}
    with open(folder / "results.jsonl", "w", encoding="utf-8") as out, \
            progress_bar(total, desc=f"eval {config.scorer}", unit="q", enabled=progress) as bar:
        for plan in plans:
            rnd, db_id, held_out = plan.round, plan.db_id, plan.test
            for name in config.conditions:
                bar.set_postfix_str(f"{rnd.test_fold} {db_id} {name}")
                context = experiment.context(name, plan, conditions=conditions)
                for part, chars in context.sizes.items():
                    sizes.setdefault(name, {}).setdefault(part, []).append(chars)
                for question in held_out:
                    row = {"round": rnd.index, "test_fold": rnd.test_fold, "condition": name, "db_id": db_id,
                           "question_id": question.id, "question": question.text}
                    if config.scorer == "linking":
                        row.update(evaluate_linking(context, [question], bench, config.policy)[0].to_json())
                    else:
                        row.update(_score_ex(agent, context, question, bench, config, folder))
                    rows.append(row)
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
                    out.flush()
                    bar.update(1)

    summary = {name: {"all": _summarize([r for r in rows if r["condition"] == name], config.scorer),
                      "rounds": [_summarize([r for r in rows if r["condition"] == name and r["round"] == i],
                                            config.scorer) for i in range(splits.folds)]}
               for name in config.conditions}
    mean_sizes = {name: {part: sum(v) / len(v) for part, v in parts.items()} for name, parts in sizes.items()}
    (folder / "summary.json").write_text(json.dumps({"summary": summary, "prompt_sizes": mean_sizes}, indent=1) + "\n")
    return RunResult(folder, summary, rows, mean_sizes)


def offline_evolver(sources: dict, **kwargs: Any) -> "OfflineEvolver":
    """The offline evolver (deterministic heuristics) with a value prober over ``sources``
    (source id → open Source); ``kwargs`` go to :class:`~evoonto.evolution.offline.OfflineEvolver`."""
    from evoonto.evolution.offline import OfflineEvolver
    from evoonto.evolution.probes import ValueProber

    return OfflineEvolver(prober=ValueProber(sources), **kwargs)
