"""The evolution loop's backbones: the schema-linking retrieval policy and the EX agent, as trajectories.

They implement :class:`evoonto.evolution.loop.Backbone` and are the only part of the loop that reads
gold (through the evaluation scorers), which is why they live in the evaluation package: evolution
knows only the protocol (issue 13, gold isolation).

DESIGN.md §7: offline, the consumer of the tool layer is a deterministic retrieval policy (browse the
question, resolve the hits within a size budget, :mod:`evoonto.evaluation.linking`). For evolution it
yields two things per question:

* the **outcome** the gate compares (strict recall hit 1/0, or column recall in [0, 1]) — computed by
  the evaluation scorer, the only code that reads gold;
* the **trajectory**: the browse/resolve calls with their results and the pass/fail verdict. The
  trajectory never carries the scorer's missing columns/values (they come from gold).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from evoonto.errors import ConfigurationError
from evoonto.evolution.trajectories import Event, TaskTrajectory

if TYPE_CHECKING:
    from evoonto.evaluation.agent import ReactAgent
    from evoonto.evaluation.benchmarks import Benchmark
    from evoonto.evaluation.linking import LinkingPolicy

METRICS = ("strict", "column", "answer")


def linking_outcome(result, metric: str) -> float:
    """The per-question outcome the gate compares, from a LinkingResult: ``strict`` (1/0: every gold
    column surfaced), ``column`` (column recall) or ``answer`` (column recall and, when the gold query
    compares string values, value recall, averaged: a smaller answer that drops the values the SQL
    needs is worse for the agent even when every column is still named)."""
    if metric == "strict":
        return float(result.strict)
    if metric == "answer" and result.value_recall is not None:
        return (float(result.column_recall) + float(result.value_recall)) / 2.0
    return float(result.column_recall)


#: Characters the verbose served answer is read within (browse hits, then resolve them): the budget of
#: :data:`evoonto.evaluation.linking.VERBOSE_POLICY`, the policy earlier numbers were measured at.
VERBOSE_READ_CHARS = 8000


def served_policy(ontology) -> "LinkingPolicy":
    """The retrieval policy an agent gets by default from this ontology version: the browse answer
    of the version's tools graph (``evo:answerFormat``, ``evo:answerBudget``, read by
    :func:`evoonto.tools.settings.load_settings`, which falls back to
    :data:`evoonto.tools.settings.DEFAULT_ANSWER_POLICY` when the graph names none), so that a
    Tool-level patch of those settings changes what the gate scores, as it changes what
    ``evoonto serve`` answers.

    ``compact`` → one budgeted compact browse answer of ``evo:answerBudget`` characters
    (:meth:`LinkingPolicy.of`); ``verbose`` → ``evo:defaultResults`` verbose hits resolved within
    :data:`VERBOSE_READ_CHARS` characters.

    Args:
        ontology: an :class:`~evoonto.ontology.Ontology` (its ``tools`` graph is read).
    Returns:
        a :class:`~evoonto.evaluation.linking.LinkingPolicy` (``n`` None: the tool's default).
    """
    from evoonto.evaluation.linking import LinkingPolicy
    from evoonto.tools.settings import load_settings

    answer = load_settings(ontology).browse.answer_policy()
    if answer.format == "compact":
        return LinkingPolicy.of(answer)
    return LinkingPolicy(format="verbose", budget_chars=VERBOSE_READ_CHARS)


@dataclass
class LinkingBackbone:
    """Scores ontology versions with the schema-linking policy on a benchmark's questions.

    Args:
        benchmark: an :class:`evoonto.evaluation.benchmarks.Benchmark` (questions, databases and the
            GoldStore, which only the scorer call below touches).
        policy: :class:`evoonto.evaluation.linking.LinkingPolicy` (n, kind, character budget), or
            None (the default): the **served** policy of each scored version (:func:`served_policy`,
            read from its tools graph), what an agent gets from ``evoonto serve``.
        metric: ``"strict"`` (1 when every gold column was surfaced), ``"column"`` (column recall) or
            ``"answer"`` (column and value recall, :func:`linking_outcome`).
        sources: source id -> open Source, passed to the tools (declared tools need them).
        reveal_sql: True only when the workload's SQL is a team's verified queries (knowledge the
            evolver may use, e.g. ``evoonto evolve --verified``): each trajectory then carries its
            question's SQL as ``reference_sql``. False (the default) for a benchmark, whose gold the
            evolver must never see.

    ``key`` identifies scorer, metric and policy (the gate's parent cache key). Every trajectory
    carries ``tokens``: what the policy put in front of the agent (prompt + answers, characters / 4),
    and passes iff its outcome is full (1.0 under the metric).
    Raises:
        ConfigurationError: unknown metric.
    """

    benchmark: Benchmark
    policy: LinkingPolicy | None = None
    metric: str = "strict"
    sources: dict = field(default_factory=dict)
    reveal_sql: bool = False

    def __post_init__(self):
        if self.metric not in METRICS:
            raise ConfigurationError(f"unknown linking metric {self.metric!r}; choose {', '.join(METRICS)}")
        described = "served" if self.policy is None else \
            tuple(sorted((k, str(v)) for k, v in self.policy.to_json().items()))
        self.key = ("linking", self.metric, described)

    def policy_for(self, ontology):
        """The policy scoring ``ontology``: the fixed ``policy``, else the version's served one."""
        return self.policy if self.policy is not None else served_policy(ontology)

    def surface(self, ontology, questions):
        """(question, Surfaced) pairs for ``questions`` on ``ontology`` (no scoring, no gold)."""
        from evoonto.evaluation.linking import surface_with_tools
        from evoonto.tools.toolkit import OntologyTools

        tools = OntologyTools(ontology, sources=self.sources or None)
        prompt = tools.manifest()
        policy = self.policy_for(ontology)
        return [(q, surface_with_tools(tools, prompt, q.text, policy, self.benchmark.schema(q.db_id),
                                       context=(self.benchmark.hints.get(q.id) or None) if policy.evidence else None))
                for q in questions]

    def results(self, ontology, questions):
        """(question, Surfaced, LinkingResult) triples: one retrieval per question, scored once
        (the LinkingResult carries strict, column, table and value recall; reports only)."""
        from evoonto.evaluation.benchmarks import analysis_of
        from evoonto.evaluation.linking import score_linking

        return [(q, surfaced, score_linking(q.id, surfaced, analysis_of(self.benchmark.gold[q.id], self.benchmark)))
                for q, surfaced in self.surface(ontology, questions)]

    def run(self, ontology, questions) -> tuple[dict[str, float], list[TaskTrajectory]]:
        """Outcomes {question id: float} and trajectories (pass/fail, tokens) on ``ontology``."""
        outcomes: dict[str, float] = {}
        trajectories: list[TaskTrajectory] = []
        for q, surfaced, result in self.results(ontology, questions):
            outcome = linking_outcome(result, self.metric)
            outcomes[q.id] = outcome
            reference = _gold_sql(self.benchmark, q.id) if self.reveal_sql else None
            # a task passes when its outcome is full (with the answer metric: every column and every value
            # the SQL compares), so a task that named the columns but not the values is diagnosed too
            trajectories.append(TaskTrajectory(q.id, q.text, q.db_id,
                                               [Event.from_dict(e) for e in surfaced.events],
                                               passed=outcome >= 1.0 - 1e-9, score=outcome, tokens=result.tokens,
                                               reference_sql=reference))
        return outcomes, trajectories


def _gold_sql(benchmark: Benchmark, question_id: str) -> str | None:
    """The SQL text of a question of a verified-queries workload (``reveal_sql`` only), or None."""
    return benchmark.gold[question_id].sql


@dataclass
class ExBackbone:
    """Scores ontology versions by execution accuracy of the Claude ReAct agent (DESIGN.md §7).

    Args:
        benchmark: the Benchmark (gold is read only by :func:`evoonto.evaluation.execution.score_ex`).
        agent: a :class:`evoonto.evaluation.agent.ReactAgent` (client + model + budgets fixed for the
            whole run: the gate compares versions under one backbone).
        timeout_ms: per-query time limit in milliseconds for gold and prediction.

    ``run`` returns EX outcomes (1/0) and trajectories built from the agent's tool events (with the
    final SQL); the agent's raw data tools and the ontology tools are served in-process.
    """

    benchmark: Benchmark
    agent: ReactAgent
    timeout_ms: int = 30_000

    def __post_init__(self):
        self.key = ("ex", tuple(sorted(self.agent.config.to_json().items())))

    def run(self, ontology, questions) -> tuple[dict[str, float], list[TaskTrajectory]]:
        """EX outcome {question id: 1.0/0.0} and trajectories (pass/fail only) on ``ontology``."""
        from evoonto.evaluation.agent import InProcessToolbox
        from evoonto.evaluation.execution import rules_for, score_ex
        from evoonto.sources import open_source
        from evoonto.tools.data import DataTools
        from evoonto.tools.toolkit import OntologyTools

        # the benchmark's own rules (Spider data -> Spider rules), as `evoonto eval` scores it
        rules = rules_for("spider" if self.benchmark.name == "spider" else "bird")

        outcomes: dict[str, float] = {}
        trajectories: list[TaskTrajectory] = []
        for q in questions:
            database = self.benchmark.databases[q.db_id]
            tools = OntologyTools(ontology, sources={q.db_id: str(database)})
            with open_source(str(database)) as src:
                box = InProcessToolbox(DataTools({q.db_id: src}), tools, version=tools.version)
                answer = self.agent.run(q, box, context=tools.manifest(), hint=self.benchmark.hints.get(q.id))
            scored = score_ex(self.benchmark.gold[q.id], database, answer.final_sql, timeout_ms=self.timeout_ms,
                              rules=rules)
            ok = scored.correct
            outcomes[q.id] = float(ok)
            events = [Event.from_dict(e) for e in answer.events]
            trajectories.append(TaskTrajectory(q.id, q.text, q.db_id, events, passed=ok, score=float(ok),
                                               final_sql=answer.final_sql))
        return outcomes, trajectories
