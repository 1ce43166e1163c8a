"""The end-to-end demo: the whole evoonto loop on the bundled Spider database, offline.

:func:`run_demo` orchestrates the public APIs of the other packages on the bundled
``concert_singer`` database (Spider 1.0, CC BY-SA 4.0, see ``evoonto/data/ATTRIBUTION.md``):

1. **split** the 45 questions (seeded) into a build/evolve fold and a held-out test fold;
2. **build** the ontology from the database and the build-fold questions (offline proposer; no gold
   SQL is read) and make it version 0 of a fresh workspace;
3. **validate** it against the SHACL shapes;
4. **browse/resolve** a few example queries through the Tool layer;
5. **evaluate** schema-linking recall on the held-out fold, baseline vs evoonto (paper §5);
6. **evolve** a few rounds (diagnose → attribute → patch → gate, paper §4) on the build fold and
   score the evolved version on the same held-out fold;
7. print the **version log** and the scores.

Each step prints a short readable summary as it finishes. A step whose implementation is missing
from this installation is reported as *unavailable* (with the reason) and never faked; the steps that
need its result are reported as skipped. The workspace left behind can be served with
``evoonto serve --workspace PATH``.

The workspace directory holds a marker file (:data:`MARKER`); an existing directory is replaced only
when it carries that marker (an earlier demo) or, with ``force=True``, when it is an evoonto
workspace. Any other existing directory is never deleted.
"""

from __future__ import annotations

import importlib
import json
import shutil
import sys
import time
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from evoonto.errors import EvoontoError, WorkspaceError

#: Database shipped in ``evoonto/data`` (Spider 1.0 dev, CC BY-SA 4.0).
DEMO_DB_ID = "concert_singer"

#: Evolution rounds run when the caller does not say.
DEFAULT_ROUNDS = 3

#: Largest number of evolution rounds the demo accepts.
MAX_ROUNDS = 20

#: File written into the workspace so a later demo knows it may replace the directory.
MARKER = "evoonto-demo.json"

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
        versions: the active version after each accepted patch (``[0]`` when nothing was accepted).
        seconds: total wall-clock time (s).
    """

    workspace: Path
    steps: list[StepResult] = field(default_factory=list)
    scores: dict[str, dict[str, float]] = field(default_factory=dict)
    versions: list[int] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def complete(self) -> bool:
        """True when every step ran."""
        return all(step.status == "ok" for step in self.steps)

    def step(self, name: str) -> StepResult | None:
        """The result of the step called ``name``, or None."""
        return next((s for s in self.steps if s.name == name), None)


def api(module: str, name: str) -> Any:
    """Import ``module`` and return its attribute ``name``.

    Raises:
        StepUnavailable: the module (an evoonto module) or the attribute does not exist.
    """
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and (module == exc.name or module.startswith(exc.name + ".")):
            raise StepUnavailable(f"{module} is not part of this installation") from None
        raise
    try:
        return getattr(mod, name)
    except AttributeError:
        raise StepUnavailable(f"{module}.{name} is not part of this installation") from None


# ---------------------------------------------------------------------------------------------
# workspace preparation


def _is_workspace(path: Path) -> bool:
    try:
        api("evoonto.workspace", "Workspace").open(path)
    except (EvoontoError, StepUnavailable):
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
    return None


# ---------------------------------------------------------------------------------------------
# the steps


@dataclass
class _State:
    data: DemoData
    workspace_path: Path
    rounds: int
    seed: int
    benchmark: Any = None
    build_questions: list = field(default_factory=list)
    validation_questions: list = field(default_factory=list)
    test_questions: list = field(default_factory=list)
    split: Any = None
    workspace: Any = None
    report: DemoReport | None = None


def _fmt_metrics(metrics: dict[str, float]) -> str:
    keys = ("strict_recall", "column_recall", "table_recall", "value_recall")
    parts = [f"{k.replace('_recall', '')} {metrics[k]:.2f}" for k in keys if k in metrics]
    if "tokens" in metrics:
        parts.append(f"~{metrics['tokens']:.0f} tokens")
    return ", ".join(parts)


def load_demo_benchmark(data: DemoData | None = None):
    """The bundled questions and their gold SQL as an evaluation :class:`~evoonto.evaluation.benchmarks.Benchmark`.

    The questions come from ``questions.jsonl`` (no gold); the gold SQL from ``gold.jsonl`` goes only
    into the benchmark's :class:`~evoonto.evaluation.benchmarks.GoldStore`, which only scorers read.

    Args:
        data: the demo data (default :func:`bundled_data`).
    Returns:
        A ``Benchmark`` named ``"spider"`` over the one bundled database.
    Raises:
        WorkloadError: a file is malformed or a gold id has no question.
        StepUnavailable: the evaluation package is missing.
    """
    from evoonto.errors import WorkloadError

    data = data or bundled_data()
    Benchmark = api("evoonto.evaluation.benchmarks", "Benchmark")
    Gold = api("evoonto.evaluation.benchmarks", "Gold")
    GoldStore = api("evoonto.evaluation.benchmarks", "GoldStore")
    load_workload = api("evoonto.builder.workload", "load_workload")
    questions = load_workload(data.questions, db_id=data.db_id)
    ids = {q.id for q in questions}
    gold = {}
    for n, line in enumerate(data.gold.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            qid, sql = str(row["id"]), row["query"]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise WorkloadError(f"{data.gold}:{n}: expected {{\"id\", \"db_id\", \"query\"}}") from None
        if qid not in ids:
            raise WorkloadError(f"{data.gold}:{n}: gold for unknown question id {qid!r}")
        gold[qid] = Gold(qid, data.db_id, sql)
    return Benchmark("spider", tuple(questions), {data.db_id: data.database}, GoldStore(gold))


def _step_split(state: _State) -> list[str]:
    state.benchmark = load_demo_benchmark(state.data)
    make_splits = api("evoonto.evaluation.splits", "make_splits")
    state.split = make_splits(state.benchmark.questions, seed=state.seed).rounds()[0]
    by_id = state.benchmark.by_id()
    state.build_questions = [by_id[q] for q in state.split.construction]
    state.validation_questions = [by_id[q] for q in state.split.validation]
    state.test_questions = [by_id[q] for q in state.split.test]
    return [f"{len(by_id)} questions (seed {state.seed}): fold A = {len(state.build_questions)} to build "
            f"+ {len(state.validation_questions)} gate validation set V; "
            f"fold B = {len(state.test_questions)} held out for testing"]


def _step_build(state: _State) -> list[str]:
    Workspace = api("evoonto.workspace", "Workspace")
    build = api("evoonto.builder.pipeline", "build")
    ws = Workspace.init(state.workspace_path)
    (state.workspace_path / MARKER).write_text(json.dumps({
        "created_by": "evoonto demo", "db_id": state.data.db_id, "seed": state.seed,
        "rounds": state.rounds, "database": str(state.data.database),
    }, indent=2) + "\n", encoding="utf-8")
    graphs = build([str(state.data.database)], state.build_questions)
    ws.replace_base(graphs)
    state.workspace = Workspace.open(state.workspace_path)
    return [_counts(state.workspace.ontology)]


def _counts(ontology: Any) -> str:
    rows = ontology.query("""
        PREFIX evo: <https://w3id.org/evoonto/ns#>
        SELECT ?kind (COUNT(DISTINCT ?x) AS ?n) WHERE {
          VALUES ?kind { evo:Term evo:Mapping evo:Evidence evo:Constraint evo:Relation }
          ?x a ?kind } GROUP BY ?kind""")
    counts = {str(r["kind"]).rsplit("#", 1)[-1]: int(r["n"]) for r in rows}
    names = ("Term", "Mapping", "Evidence", "Constraint", "Relation")
    return ", ".join(f"{counts.get(n, 0)} {n}s" for n in names)


def _step_validate(state: _State) -> list[str]:
    validate = api("evoonto.validation", "validate")
    report = validate(state.workspace.ontology)
    text = getattr(report, "summary", None)
    summary = text() if callable(text) else (text or ("conforms" if report.conforms else "does not conform"))
    return [str(summary).splitlines()[0] if summary else str(report.conforms)]


def _step_browse(state: _State) -> list[str]:
    OntologyTools = api("evoonto.tools.toolkit", "OntologyTools")
    tools = OntologyTools(state.workspace.ontology)
    lines = []
    first_id = None
    for query in BROWSE_EXAMPLES:
        hits = tools.browse(query, n=3)
        shown = "; ".join(f"{h['label']} ({h['kind']}, {h['score']:.2f})" for h in hits) or "no hits"
        lines.append(f"browse({query!r}) -> {shown}")
        if hits and first_id is None:
            first_id = hits[0]["id"]
    if first_id is not None:
        resolved = tools.resolve([first_id])
        text = json.dumps(resolved, ensure_ascii=False, default=str)
        lines.append(f"resolve([{first_id!r}]) -> {len(text)} characters of JSON: {text[:160]}…")
    return lines


def _step_evaluate(state: _State) -> list[str]:
    raise StepUnavailable("the evaluation API is not wired yet")


def _step_evolve(state: _State) -> list[str]:
    raise StepUnavailable("the evolution API is not wired yet")


def _step_log(state: _State) -> list[str]:
    raise StepUnavailable("the version log is not wired yet")


#: (name, function, names of the steps it needs)
STEPS: tuple[tuple[str, Callable[[_State], list[str]], tuple[str, ...]], ...] = (
    ("split", _step_split, ()),
    ("build", _step_build, ("split",)),
    ("validate", _step_validate, ("build",)),
    ("browse", _step_browse, ("build",)),
    ("evaluate", _step_evaluate, ("build",)),
    ("evolve", _step_evolve, ("build",)),
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
    from evoonto.errors import ConfigurationError

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
        result.seconds = time.perf_counter() - t0
        report.steps.append(result)
        echo(f"[{number}/{len(STEPS)}] {name} ({result.seconds:.1f} s)")
        for line in result.lines:
            echo(f"    {line}")
    report.seconds = time.perf_counter() - started
    unavailable = [s.name for s in report.steps if s.status != "ok"]
    if unavailable:
        echo(f"demo incomplete: step(s) {', '.join(unavailable)} did not run (see above).")
    echo(f"done in {report.seconds:.1f} s. Serve it to an agent: evoonto serve --workspace {path}")
    return report


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - convenience for python -m
    """``python -m evoonto.demo`` = ``evoonto demo``."""
    from evoonto.cli import main as cli_main

    return cli_main(["demo", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
