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
* :mod:`~evoonto.evolution.backbone` — the offline schema-linking backbone and the EX agent backbone.

Typical use::

    from evoonto.evolution import LinkingBackbone, LoopConfig, OfflineEvolver, evolve
    result = evolve(ws, backbone=LinkingBackbone(bench), trajectory_questions=pool,
                    validation_questions=V, evolver=OfflineEvolver(), config=LoopConfig(rounds=5))
"""

from evoonto.evolution.backbone import ExBackbone, LinkingBackbone
from evoonto.evolution.candidates import Candidate, propose
from evoonto.evolution.diagnose import Signature, diagnose
from evoonto.evolution.gate import Gate, GateConfig, GateDecision, compare
from evoonto.evolution.loop import EvolutionResult, LoopConfig, Member, RoundRecord, evolve, evolve_group
from evoonto.evolution.offline import OfflineEvolver
from evoonto.evolution.trajectories import Event, TaskTrajectory, group_events, read_log

__all__ = [
    "Candidate", "Event", "EvolutionResult", "ExBackbone", "Gate", "GateConfig", "GateDecision",
    "LinkingBackbone", "LoopConfig", "Member", "OfflineEvolver", "RoundRecord", "Signature", "TaskTrajectory",
    "compare", "diagnose", "evolve", "evolve_group", "group_events", "propose", "read_log",
]
