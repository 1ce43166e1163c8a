"""The end-to-end demo: the whole evoonto loop on the bundled Spider database, offline.

:func:`run_demo` is a thin script over :class:`evoonto.experiment.Experiment` on the bundled
``concert_singer`` database (Spider 1.0, CC BY-SA 4.0, see ``evoonto/data/ATTRIBUTION.md``):

1. **split** the 45 questions (seeded) into folds A and B; train on fold A (its construction pool
   builds and gives trajectories, its validation part is the gate's V) and hold out fold B;
2. **build** the ontology from the database and the construction questions (offline proposer; no
   gold SQL is read) and make it version 0 of a fresh workspace;
3. **validate** it against the SHACL shapes;
4. **browse/resolve** a few example queries through the Tool layer;
5. **evaluate** schema-linking recall on the held-out fold: full schema, raw-schema baseline and the
   builder's ontology (paper, *Evaluation*);
6. **evolve** a few rounds (diagnose → attribute → patch → gate, paper, *Evolution loop*) starting
   from the paper's raw-schema Baseline in the sub-workspace ``PATH/evolution`` (the builder's
   ontology already passes the questions it was built from, so the loop would find nothing to do
   there), and score the evolved version on the same held-out fold;
7. print the **version logs** and the scores.

Each step prints a short readable summary as it finishes. A step that cannot run is reported as
*unavailable* (with the reason) and never faked; the steps that need its result are reported as
skipped. The workspace left behind can be served with ``evoonto serve --workspace PATH``.

The workspace directory holds a marker file (:data:`MARKER`); an existing directory is replaced only
when it carries that marker (an earlier demo) or, with ``force=True``, when it is an evoonto
workspace. Any other existing directory is never deleted.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable, Sequence

from evoonto.builder.pipeline import BuildResult
from evoonto.builder.workload import load_workload
from evoonto.errors import ConfigurationError, EvoontoError, WorkspaceError
from evoonto.evaluation.backbones import served_policy
from evoonto.evaluation.benchmarks import Benchmark, Question, load_jsonl
from evoonto.evaluation.linking import VERBOSE_POLICY, LinkingPolicy, summarize_linking
from evoonto.evaluation.splits import load_or_create_splits
from evoonto.evolution.gate import GateConfig
from evoonto.evolution.loop import EvolutionResult, LoopConfig, RoundRecord
from evoonto.experiment import Experiment, FoldPlan, offline_evolver
from evoonto.ontology import Ontology
from evoonto.sources import open_source
from evoonto.tools.toolkit import OntologyTools
from evoonto.validation import validate
from evoonto.workspace import Workspace

#: Database shipped in ``evoonto/data`` (Spider 1.0 dev, CC BY-SA 4.0).
DEMO_DB_ID = "concert_singer"

#: The training fold (DESIGN.md §1: build and evolve on A, test on B).
TRAIN_FOLD = "A"

#: Sub-folder of the demo workspace where the loop evolves the raw-schema Baseline.
EVOLUTION_WORKSPACE = "evolution"

#: Evolution rounds run when the caller does not say.
DEFAULT_ROUNDS = 3

#: Largest number of evolution rounds the demo accepts.
MAX_ROUNDS = 20

#: File written into the workspace so a later demo knows it may replace the directory.
MARKER = "evoonto-demo.json"

#: What the gate compares per question (as ``evoonto evolve``'s default): ``answer`` (column and value recall).
GATE_METRIC = "answer"

#: The gate's margin (as ``evoonto evolve``'s default).
GATE_TAU = 0.0

#: Readable text of the evolution loop's stop reasons.
STOP_REASONS = {
    "rounds": "round budget spent",
    "patience": "too many consecutive rejections",
    "no-candidates": "no candidate left (no failure signature the offline evolver can act on)",
}

#: Example queries shown in the browse/resolve step (generic phrases, not benchmark questions).
BROWSE_EXAMPLES = ("singer age", "stadium capacity", "concert theme")


class StepUnavailable(Exception):
    """A step cannot run because a module or function it needs is missing from this installation."""


@dataclass
class DemoData:
    """Paths of the bundled demo data.

    Attributes:
        db_id: the Spider database id.
        database: the SQLite file.
        questions: JSON Lines ``{"id", "db_id", "question"}`` (read by the builder and the loop).
        gold: JSON Lines ``{"id", "db_id", "query"}`` (read only by evaluation scorers).
        attribution: the attribution/license note.
    """

    db_id: str
    database: Path
    questions: Path
    gold: Path
    attribution: Path


def bundled_data(db_id: str = DEMO_DB_ID) -> DemoData:
    """Locate the bundled demo data inside the installed package.

    Args:
        db_id: the bundled database to use (only ``concert_singer`` ships).
    Returns:
        A :class:`DemoData` with existing paths.
    Raises:
        WorkspaceError: the package data is missing (a broken installation).
    """
    root = Path(str(resources.files("evoonto") / "data"))
    folder = root / db_id
    data = DemoData(db_id, folder / f"{db_id}.sqlite", folder / "questions.jsonl", folder / "gold.jsonl",
                    root / "ATTRIBUTION.md")
    for path in (data.database, data.questions, data.gold):
        if not path.is_file():
            raise WorkspaceError(f"bundled demo data is missing: {path} (reinstall evoonto)")
    return data


@dataclass
class StepResult:
    """Outcome of one demo step.

    Attributes:
        name: short step name (``build``, ``validate``, …).
        status: ``"ok"``, ``"unavailable"`` (an implementation is missing) or ``"skipped"``
            (an earlier step it needs did not run).
        lines: the summary lines printed for the step.
        seconds: wall-clock duration (s).
    """

    name: str
    status: str
    lines: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class DemoReport:
    """What :func:`run_demo` did.

    Attributes:
        workspace: the workspace directory.
        steps: one :class:`StepResult` per step, in order.
        scores: condition name → linking metrics (``strict_recall``, ``column_recall``,
            ``table_recall``, ``value_recall``, ``tokens``) on the held-out fold.
        versions: the versions of the evolution workspace: 0 and the version of each accepted patch.
        evolution_workspace: the sub-workspace the loop evolved (None when the evolve step did not run).
        seconds: total wall-clock time (s).
    """

    workspace: Path
    steps: list[StepResult] = field(default_factory=list)
    scores: dict[str, dict[str, float]] = field(default_factory=dict)
    versions: list[int] = field(default_factory=list)
    evolution_workspace: Path | None = None
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        """True when every step ran."""
        return all(step.status == "ok" for step in self.steps)

    def step(self, name: str) -> StepResult | None:
        """The result of the step called ``name``, or None."""
        return next((s for s in self.steps if s.name == name), None)


# ---------------------------------------------------------------------------------------------
# workspace preparation


def _is_workspace(path: Path) -> bool:
    try:
        Workspace.open(path)
    except EvoontoError:
        return False
    return True


def prepare_workspace(path: Path, *, force: bool = False) -> str | None:
    """Make sure ``path`` can receive a fresh demo workspace; remove an earlier demo workspace there.

    Args:
        path: the workspace directory the demo will create.
        force: also replace an existing evoonto workspace that the demo did not create.
    Returns:
        A note for the user when something was replaced, else None.
    Raises:
        WorkspaceError: ``path`` is a file; or an existing non-empty directory that is not a demo
            workspace (without ``force``) or not an evoonto workspace at all (never deleted); or the
            parent directory cannot be created.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise WorkspaceError(f"{path} exists and is not a directory; choose another --workspace")
    if path.is_dir():
        if not any(path.iterdir()):
            path.rmdir()
            return None
        if (path / MARKER).is_file():
            shutil.rmtree(path)
            return f"replaced the earlier demo workspace at {path}"
        if not force:
            raise WorkspaceError(
                f"{path} already exists and was not created by `evoonto demo`; "
                "pass --force to replace it or choose another --workspace")
        if not _is_workspace(path):
            raise WorkspaceError(
                f"{path} is a non-empty directory that is not an evoonto workspace; "
                "refusing to delete it even with --force")
        shutil.rmtree(path)
        return f"replaced the existing workspace at {path} (--force)"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WorkspaceError(f"cannot create {path.parent}: {exc.strerror or exc}") from None
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise WorkspaceError(f"cannot create {path}: {path.parent} is not writable")
    return None


# ---------------------------------------------------------------------------------------------
# the steps


@dataclass
class _State:
    data: DemoData
    workspace_path: Path
    rounds: int
    seed: int
    experiment: Experiment | None = None
    plan: FoldPlan | None = None
    workspace: Workspace | None = None
    evolution_workspace: Workspace | None = None
    policy: LinkingPolicy | None = None
    evolution: EvolutionResult | None = None
    report: DemoReport | None = None


def load_demo_benchmark(data: DemoData | None = None) -> Benchmark:
    """The bundled questions and their gold SQL as an evaluation :class:`~evoonto.evaluation.benchmarks.Benchmark`.

    Read by the shared JSON Lines loader :func:`evoonto.evaluation.benchmarks.load_jsonl` (the same
    one ``evoonto evolve --data`` uses): questions from ``questions.jsonl`` (no gold); the gold SQL
    from ``gold.jsonl`` goes only into the benchmark's :class:`~evoonto.evaluation.benchmarks.GoldStore`,
    which only scorers read.

    Args:
        data: the demo data (default :func:`bundled_data`).
    Returns:
        A ``Benchmark`` named ``"spider"`` over the one bundled database.
    Raises:
        WorkloadError: a file is malformed or a gold id has no question.
    """
    data = data or bundled_data()
    return load_jsonl(data.questions, gold_file=data.gold)


def demo_experiment(data: DemoData | None = None, seed: int = 0) -> tuple[Experiment, FoldPlan]:
    """The demo's experiment and its one fold plan: train on :data:`TRAIN_FOLD`, hold out the other fold.

    Args:
        data: the demo data (default :func:`bundled_data`). seed: the split seed.
    Returns:
        ``(experiment, plan)``; ``plan.construction`` builds and gives trajectories, ``plan.validation``
        is the gate's V, ``plan.test`` is held out.
    """
    data = data or bundled_data()
    experiment = Experiment(load_demo_benchmark(data), seed=seed)
    return experiment, experiment.plan(experiment.round_training_on(TRAIN_FOLD), data.db_id)


def benchmark_setting(data: DemoData, seed: int, fold: str = TRAIN_FOLD) -> dict:
    """The ``benchmark`` workspace setting the demo records, so ``evoonto evolve`` needs no ``--data``.

    Args:
        data: the bundled data. seed: the split seed. fold: the training fold the workspace was
            built from (``evoonto evolve`` defaults to it, so it never evolves on the held-out fold).
    Returns:
        ``{"format": "jsonl", "data": <folder of the bundled data>, "db_id", "seed", "fold"}``
        (JSON-serialisable).
    """
    return {"format": "jsonl", "data": str(data.questions.parent), "db_id": data.db_id, "seed": seed,
            "fold": fold}


def _step_split(state: _State) -> list[str]:
    state.experiment, state.plan = demo_experiment(state.data, state.seed)
    plan = state.plan
    total = len(state.experiment.benchmark.questions)
    return [f"{total} questions (seed {state.seed}): fold {plan.train_fold} = "
            f"{len(plan.construction)} to build + {len(plan.validation)} gate validation set V; "
            f"fold {plan.round.test_fold} = {len(plan.test)} held out for testing"]


def build_workspace(path: str | Path, data: DemoData | None = None, questions: Sequence[Question] | None = None,
                    *, marker: dict | None = None) -> tuple[Workspace, BuildResult]:
    """Create a workspace at ``path`` holding the builder's ontology of the bundled database as version 0.

    Args:
        path: a directory that does not exist yet (or is empty).
        data: the demo data (default :func:`bundled_data`).
        questions: the workload (Questions without gold); default: every bundled question.
        marker: when given, written as :data:`MARKER` (JSON) so a later demo may replace the folder.
    Returns:
        ``(workspace, build)``: the open :class:`~evoonto.workspace.Workspace` (version 0), whose
        settings record the source (``settings["sources"] = {db_id: path}``, so ``evoonto serve
        --data-tools`` reaches it), and the builder's :class:`~evoonto.builder.pipeline.BuildResult`.
    Raises:
        WorkspaceError: ``path`` exists and is not empty.
    """
    data = data or bundled_data()
    if questions is None:
        questions = load_workload(data.questions, db_id=data.db_id)
    experiment = Experiment(load_demo_benchmark(data))
    rnd = experiment.rounds()[0]
    plan = FoldPlan(rnd, data.db_id, tuple(questions), (), (), ())
    ws, result = experiment.workspace(path, plan, start="builder", prepare=_marker_writer(path, marker))
    assert result is not None
    return ws, result


def _marker_writer(path: str | Path, marker: dict | None):
    def write(_ws: Workspace) -> None:
        if marker is not None:
            (Path(path) / MARKER).write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
    return write


def _step_build(state: _State) -> list[str]:
    assert state.experiment is not None and state.plan is not None
    marker = {"created_by": "evoonto demo", "db_id": state.data.db_id, "seed": state.seed,
              "rounds": state.rounds, "database": str(state.data.database)}
    state.workspace, result = state.experiment.workspace(
        state.workspace_path, state.plan, start="builder", prepare=_marker_writer(state.workspace_path, marker))
    assert result is not None
    state.workspace.set_setting("benchmark", benchmark_setting(state.data, state.seed, state.plan.train_fold))
    load_or_create_splits(  # the fold assignment the demo used, stored for `evoonto evolve`
        state.workspace_path / "splits.json", state.experiment.benchmark.questions,
                          seed=state.seed)
    return [f"offline builder on {len(state.plan.construction)} questions (gold never read): "
            f"{_counts(state.workspace.ontology)}",
            f"{len(result.rejected)} candidate(s) rejected by verification; "
            f"{result.elapsed_ms / 1000:.1f} s; version {state.workspace.version}"]


def _counts(ontology: Ontology) -> str:
    rows = ontology.query("""
        PREFIX evo: <https://w3id.org/evoonto/ns#>
        SELECT ?kind (COUNT(DISTINCT ?x) AS ?n) WHERE {
          VALUES ?kind { evo:Term evo:Mapping evo:Evidence evo:Constraint evo:Relation }
          ?x a ?kind } GROUP BY ?kind""")
    counts = {str(r["kind"]).rsplit("#", 1)[-1]: int(r["n"]) for r in rows}
    plural = {"Term": "Terms", "Mapping": "Mappings", "Evidence": "Evidence", "Constraint": "Constraints",
              "Relation": "Relations"}
    return ", ".join(f"{counts.get(n, 0)} {n if counts.get(n, 0) == 1 else p}" for n, p in plural.items())


def _step_validate(state: _State) -> list[str]:
    assert state.workspace is not None
    report = validate(state.workspace.ontology)
    lines = [report.text(limit=3)]
    if not report.conforms:
        lines.append("the ontology does NOT conform to the shapes (see above)")
    return lines


def _step_browse(state: _State) -> list[str]:
    assert state.workspace is not None
    tools = OntologyTools(state.workspace.ontology, sources={state.data.db_id: str(state.data.database)})
    lines = []
    first_id = None
    for query in BROWSE_EXAMPLES:
        hits = tools.browse(query, n=3, format="verbose")
        shown = "; ".join(f"{h['label']} [{h['kind']}] {h['score']:.2f}" for h in hits) or "no hits"
        lines.append(f"browse({query!r}) -> {shown}")
        if hits and first_id is None:
            first_id = hits[0]["id"]
    if first_id is not None:
        resolved = tools.resolve([first_id])
        record = (resolved.get("records") or [{}])[0]
        mappings = record.get("mappings") or []
        where = ", ".join(f"{m.get('table')}.{m.get('column')}" if m.get("column") else str(m.get("table"))
                          for m in mappings[:3]) or "-"
        evidence = record.get("evidence") or [m_e for m in mappings for m_e in (m.get("evidence") or [])]
        summary = evidence[0].get("summary") if evidence and isinstance(evidence[0], dict) else None
        size = len(json.dumps(resolved, ensure_ascii=False, separators=(",", ":"), default=str))
        lines.append(f"resolve([{first_id!r}]) -> {size} characters of JSON; mapped to {where}"
                     + (f"; evidence: {summary}" if summary else ""))
    return lines


def _linking_scores(state: _State, condition: str, ontology: Ontology | None = None, *,
                    served: bool = False) -> dict[str, float]:
    """Mean schema-linking metrics of ``condition`` on the held-out fold (the evoonto/full conditions
    use ``ontology``, default the workspace's active version). With ``served`` the retrieval policy is
    the one ``ontology`` serves (its tools-graph answer settings, as the gate scored it), else the
    demo's fixed policy."""
    assert state.experiment is not None and state.plan is not None and state.workspace is not None
    ontology = ontology if ontology is not None else state.workspace.ontology
    policy = served_policy(ontology) if served else state.policy
    s = summarize_linking(state.experiment.evaluate(condition, state.plan, policy=policy, ontology=ontology))
    out = {"strict_recall": s.strict_recall, "column_recall": s.column_recall, "table_recall": s.table_recall,
           "tokens": s.avg_tokens}
    if s.value_recall is not None:
        out["value_recall"] = s.value_recall
    return out


def _score_row(name: str, metrics: dict[str, float], reference: float | None) -> str:
    value = f"{metrics['value_recall']:.2f}" if "value_recall" in metrics else "  - "
    ratio = f"{metrics['tokens'] / reference:6.0%}" if reference else "     -"
    return (f"{name:<24} {metrics['strict_recall']:6.2f} {metrics['column_recall']:6.2f} "
            f"{metrics['table_recall']:6.2f} {value:>6} {metrics['tokens']:7.0f} {ratio}")


SCORE_HEADER = (f"{'condition (held-out)':<24} {'strict':>6} {'column':>6} {'table':>6} {'value':>6} "
                f"{'tokens':>7} {'vs full':>6}")


def _step_evaluate(state: _State) -> list[str]:
    assert state.report is not None and state.plan is not None
    state.policy = VERBOSE_POLICY  # on a 4-table schema the compact policy lists the whole schema
    scores = state.report.scores
    for condition, label in (("full", "full schema prompt"), ("baseline", "baseline (raw schema)"),
                             ("evoonto", "evoonto v0 (builder)")):
        scores[label] = _linking_scores(state, condition)
    ref = scores["full schema prompt"]["tokens"]
    return [f"schema-linking recall on {len(state.plan.test)} held-out questions "
            "(browse the question, resolve the hits; tokens = characters / 4):",
            SCORE_HEADER] + [_score_row(name, m, ref) for name, m in scores.items()]


#: The score row of the evolution workspace's version 0 (the raw-schema Baseline served by the evoonto
#: tools), the row the evolved version is compared with.
RAW_START_ROW = "raw schema v0 (served)"


def _step_evolve(state: _State) -> list[str]:
    assert state.experiment is not None and state.plan is not None and state.report is not None
    if state.rounds == 0:
        return ["0 rounds requested: nothing to evolve"]
    plan, experiment = state.plan, state.experiment
    path = state.workspace_path / EVOLUTION_WORKSPACE
    ws, _ = experiment.workspace(path, plan, start="baseline")
    state.evolution_workspace = ws
    state.report.evolution_workspace = path
    start_scores = _linking_scores(state, "evoonto", ws.ontology, served=True)  # version 0, before any patch
    lines = [f"start: the raw-schema Baseline (one bare Term per table and column) as version 0 of "
             f"{path}; the builder's v0 is not evolved here because it already passes the construction "
             f"questions it was built from",
             f"gate: {GATE_METRIC} score (column and value recall of the served answer) on V "
             f"({len(plan.validation)} questions), candidate vs parent, accepted iff mean gain ≥ tau = {GATE_TAU} "
             f"and the default Bayesian gate supports it (P(net gain | V) ≥ {1 - GateConfig().alpha:g}, no "
             f"evidence of more than {100 * GateConfig().regression_budget:g} regressions per 100 questions); "
             f"answer size counts: equal score with more tokens is rejected, with at least "
             f"{100 * GateConfig().token_saving:g}% fewer accepted"]

    def on_round(r: RoundRecord) -> None:
        scores = ("" if r.parent_score is None else
                  f" V score {r.parent_score:.3f} -> {r.candidate_score:.3f}")
        if r.statistics.get("screen_fixed"):
            scores += f" (+{r.statistics['screen_fixed']} failed source task(s) fixed)"
        if "parent_tokens" in r.statistics:
            scores += f", tokens {r.statistics['parent_tokens']:.0f} -> {r.statistics['candidate_tokens']:.0f}"
        why = ""
        if r.decision == "rejected" and r.reason:  # the gate's words, without the numbers printed above
            why = f"; why: {r.reason.split(': gain ', 1)[0]}"
        lines.append(f"round {r.round}: {r.decision:<8} [{r.level}] {r.signature[:70]}{scores}"
                     f" (version {r.version}){why}")

    with open_source(str(state.data.database)) as src:
        sources = {state.data.db_id: src}
        # the gate scores what an agent gets from each version: its served answer (tools graph settings)
        backbone = experiment.backbone(metric=GATE_METRIC, policy=None, sources=sources)
        trajectories = backbone.run(ws.ontology, list(plan.construction))[1]
        failed = sum(1 for t in trajectories if t.passed is False)
        lines.insert(1, f"trajectories: the retrieval policy on the {len(trajectories)} construction questions, "
                        f"{failed} failed (only failures are diagnosed; pass/fail is all the evolver sees)")
        result = experiment.evolve(ws, plan, backbone=backbone, evolver=offline_evolver(sources),
                                   config=LoopConfig(rounds=state.rounds,
                                                     gate=GateConfig(tau=GATE_TAU, seed=state.seed)),
                                   on_round=on_round)
    state.evolution = result
    lines.append(f"{result.accepted} accepted, {result.rejected} rejected, {result.invalid} invalid; "
                 f"{result.screened_out} more screened out before the gate (re-run on the tasks they were "
                 f"written for, they fixed none on balance or did not apply; a saving changed an outcome "
                 f"or shrank nothing); "
                 f"stopped: {STOP_REASONS.get(result.stop_reason, result.stop_reason)}; "
                 f"active version {result.final_version}")
    if result.accepted:
        scores = state.report.scores
        # the evolved version is compared with its own version 0 under the same condition (the evoonto
        # tools over the raw-schema ontology, each version's served answer): the "baseline (raw schema)"
        # row is another condition, so the gap between those two rows is the tool layer, not evolution
        scores[RAW_START_ROW] = start_scores
        scores[f"raw schema v{result.final_version} (evolved)"] = _linking_scores(state, "evoonto", ws.ontology,
                                                                                  served=True)
        ref = scores.get("full schema prompt", {}).get("tokens")
        lines += [SCORE_HEADER] + [_score_row(n, m, ref) for n, m in scores.items() if n != "full schema prompt"]
        fixed = (state.policy or LinkingPolicy()).describe()
        lines.append(f"the two raw-schema rows score each version's served answer (as the gate did); the rows "
                     f"above them read {fixed}: compare v0 with v{result.final_version}, not with the baseline")
    elif result.rounds:
        lines.append("no patch passed the gate: the held-out scores stay those of version 0")
    else:
        lines.append("no patch was proposed: the held-out scores stay those of version 0")
    return lines


def _step_log(state: _State) -> list[str]:
    assert state.report is not None
    ws = Workspace.open(state.workspace_path)
    lines = [f"{state.workspace_path}: version 0: base (builder output); active version {ws.version}"]
    evolved = state.workspace_path / EVOLUTION_WORKSPACE
    if not (evolved / "config.json").is_file():
        state.report.versions = [0]
        return lines
    ews = Workspace.open(evolved)
    log = ews.log()
    state.report.versions = [0] + [e.version for e in log if e.decision == "accepted" and e.version is not None]
    lines.append(f"{evolved}: version 0: base (raw schema)")
    for e in log:
        scores = e.scores or {}
        sc = (f" {scores['parent_score']:.3f} -> {scores['candidate_score']:.3f}"
              if "parent_score" in scores and "candidate_score" in scores else "")
        target = f"version {e.version}" if e.version is not None else "not applied"
        lines.append(f"patch {e.id[:12]} {e.decision:<8} {e.level:<7}{sc} -> {target}: {e.signature[:60]}")
    accepted = sum(1 for e in log if e.decision == "accepted")
    rejected = sum(1 for e in log if e.decision == "rejected")
    lines.append(f"history: {accepted} accepted, {rejected} rejected by the gate; active version {ews.version}; "
                 f"`evoonto log --workspace {evolved}` shows the same")
    return lines


#: (name, function, names of the steps it needs)
STEPS: tuple[tuple[str, Callable[[_State], list[str]], tuple[str, ...]], ...] = (
    ("split", _step_split, ()),
    ("build", _step_build, ("split",)),
    ("validate", _step_validate, ("build",)),
    ("browse", _step_browse, ("build",)),
    ("evaluate", _step_evaluate, ("build",)),
    ("evolve", _step_evolve, ("evaluate",)),
    ("log", _step_log, ("build",)),
)


def run_demo(workspace: str | Path, *, rounds: int = DEFAULT_ROUNDS, seed: int = 0, force: bool = False,
             echo: Callable[[str], None] | None = None) -> DemoReport:
    """Run the end-to-end demo into ``workspace`` and print a summary step by step.

    Args:
        workspace: directory of the workspace to create (see :func:`prepare_workspace` for what
            happens when it exists).
        rounds: evolution rounds, 0..:data:`MAX_ROUNDS`.
        seed: seed of the question split.
        force: replace an existing evoonto workspace the demo did not create.
        echo: called with each output line (default: print to stdout, flushed).
    Returns:
        A :class:`DemoReport`; ``report.complete`` is False when a step was unavailable.
    Raises:
        WorkspaceError: see :func:`prepare_workspace`; bundled data missing.
        ConfigurationError: ``rounds`` out of range.
        EvoontoError: whatever a step raises for bad input (nothing is faked).
    """
    if echo is None:
        def echo(line: str) -> None:
            print(line, flush=True)
    if not isinstance(rounds, int) or not 0 <= rounds <= MAX_ROUNDS:
        raise ConfigurationError(f"--rounds must be between 0 and {MAX_ROUNDS}, not {rounds}")
    started = time.perf_counter()
    path = Path(workspace)
    data = bundled_data()
    note = prepare_workspace(path, force=force)
    report = DemoReport(workspace=path)
    state = _State(data=data, workspace_path=path, rounds=rounds, seed=seed, report=report)

    echo(f"evoonto demo: Spider database '{data.db_id}' (CC BY-SA 4.0, Yu et al. 2018) -> workspace {path}")
    if note:
        echo(f"  ({note})")
    done: set[str] = set()
    for number, (name, function, needs) in enumerate(STEPS, start=1):
        t0 = time.perf_counter()
        missing = [n for n in needs if n not in done]
        if missing:
            result = StepResult(name, "skipped", [f"skipped: needs the {', '.join(missing)} step"])
        else:
            try:
                result = StepResult(name, "ok", function(state))
                done.add(name)
            except StepUnavailable as exc:
                result = StepResult(name, "unavailable", [f"UNAVAILABLE: {exc}"])
            except OSError as exc:  # disk full, permissions changed under us: one line, no traceback
                where = f"{exc.filename}: " if exc.filename else ""
                raise WorkspaceError(f"{name} step failed: {where}{exc.strerror or exc}") from None
        result.seconds = time.perf_counter() - t0
        report.steps.append(result)
        echo(f"[{number}/{len(STEPS)}] {name} ({result.seconds:.1f} s)")
        for line in result.lines:
            echo(f"    {line}")
    report.seconds = time.perf_counter() - started
    if report.scores:
        echo("summary (schema-linking recall on the held-out fold; tokens = characters / 4):")
        ref = report.scores.get("full schema prompt", {}).get("tokens")
        echo(f"    {SCORE_HEADER}")
        for name, metrics in report.scores.items():
            echo(f"    {_score_row(name, metrics, ref)}")
    evolution = state.evolution
    if evolution is not None:
        echo(f"evolution (from the raw-schema Baseline): {evolution.accepted} accepted, {evolution.rejected} "
             f"rejected, {evolution.invalid} invalid in {len(evolution.rounds)} round(s), "
             f"{evolution.screened_out} screened out before the gate; "
             f"versions {report.versions or [0]}")
    unavailable = [s.name for s in report.steps if s.status != "ok"]
    if unavailable:
        echo(f"demo incomplete: step(s) {', '.join(unavailable)} did not run (see above).")
    echo(f"done in {report.seconds:.1f} s. Serve it to an agent: evoonto serve --workspace {path} [--data-tools]")
    echo(f"Explore it in a browser: evoonto viz --workspace {path} --out explorer.html")
    return report
