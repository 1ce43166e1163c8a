"""The gated evolution loop (paper §"Evolution loop"; DESIGN.md §6).

diagnose → attribute → patch → gate, round after round, on a workspace:

* :mod:`~evoonto.evolution.trajectories` — tool events grouped per task with the evaluator's pass/fail;
* :mod:`~evoonto.evolution.diagnose` — recurrent failure signatures (ranked by frequency), with new
  read-only value probes of the sources (:mod:`~evoonto.evolution.probes`); never gold;
* :mod:`~evoonto.evolution.attribute` — each signature → content / tool / schema level, with a reason;
* :mod:`~evoonto.evolution.edits` / :mod:`~evoonto.evolution.candidates` — typed one-level edits and
  the offline patch writers; candidates compile to :class:`~evoonto.patch.Patch` and have fingerprints;
* :mod:`~evoonto.evolution.gate` — candidate vs parent on the same V: mean gain ≥ τ and a seeded paired
  test (sign test or bootstrap);
* :mod:`~evoonto.evolution.loop` — rounds, SHACL check before scoring, bisection of rejected batches,
  stop rule, history through ``Workspace.commit`` / ``record_rejected``; one workspace or a group
  sharing one pooled gate;
* :mod:`~evoonto.evolution.offline` / :mod:`~evoonto.evolution.llm` — the offline heuristic evolver and
  the Claude evolver (same interface);
* the loop knows backbones only through the :class:`~evoonto.evolution.loop.Backbone` protocol; the
  concrete ones (schema-linking recall, EX agent) score with gold and live in
  :mod:`evoonto.evaluation.backbones` (evolution never imports evaluation).

Typical use::

    from evoonto.evaluation.backbones import LinkingBackbone
    from evoonto.evolution import LoopConfig, OfflineEvolver, evolve
    result = evolve(ws, backbone=LinkingBackbone(bench), trajectory_questions=pool,
                    validation_questions=V, evolver=OfflineEvolver(), config=LoopConfig(rounds=5))
"""

from evoonto.evolution.candidates import Candidate, propose
from evoonto.evolution.diagnose import Signature, diagnose
from evoonto.evolution.gate import Gate, GateConfig, GateDecision, compare
from evoonto.evolution.loop import (Backbone, EvolutionResult, Evolver, EvolvingWorkspace, LoopConfig, Member,
                                   RoundRecord, evolve, evolve_group)
from evoonto.evolution.offline import OfflineEvolver
from evoonto.evolution.trajectories import Event, TaskTrajectory, group_events, read_log

__all__ = [
    "Backbone", "Candidate", "Event", "EvolutionResult", "Evolver", "EvolvingWorkspace", "Gate", "GateConfig",
    "GateDecision", "LoopConfig", "Member", "OfflineEvolver", "RoundRecord", "Signature", "TaskTrajectory",
    "compare", "diagnose", "evolve", "evolve_group", "group_events", "propose", "read_log",
]
