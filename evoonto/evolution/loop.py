"""The evolution loop: diagnose → attribute → patch → gate, round after round.

Paper §"Evolution loop" (Algorithm: rounds over L_t). One round:

1. run the backbone on the trajectory questions (construction pool) with the parent version and
   collect trajectories with pass/fail (no gold);
2. the evolver (offline heuristics, or Claude) diagnoses signatures, attributes them to a level and
   writes candidates; candidates whose fingerprint was rejected before are dropped;
3. the round's candidate (a bisection half of a rejected batch if one is pending, else a batch of the
   top signatures' first untried alternatives, all of one level) is compiled to a Patch and
   validated with SHACL on its touched nodes — an invalid candidate is logged ``invalid`` and never
   scored;
4. the gate scores it on V against the cached parent score; accepted → ``Workspace.commit`` (a new
   version), rejected → ``Workspace.record_rejected``; both carry signature, intervention,
   fingerprint, level, scores and decision.

Stop rule (DESIGN.md §6): ``patience`` consecutive rejections, no candidate left, or ``rounds`` spent.

Interruption: the loop holds no state the workspace does not: a KeyboardInterrupt or SIGKILL at any
point leaves the workspace at the last committed (accepted) version, because ``Workspace.commit`` is
an atomic write and nothing else is written.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterable, Protocol

from evoonto.evolution.candidates import Candidate, CandidateError, merge
from evoonto.evolution.edits import EditContext, EditError
from evoonto.evolution.gate import Gate, GateConfig, GateDecision
from evoonto.evolution.trajectories import TaskTrajectory
from evoonto.evolution.view import OntologyView


class Backbone(Protocol):
    """The consumer of the tool layer whose score the gate compares (DESIGN.md §7).

    ``key``: hashable description of scorer/agent, model, decoding and budgets (part of the parent
    cache key). ``run(ontology, questions)`` -> (outcomes {question id: float in [0,1]},
    trajectories [TaskTrajectory]); only the backbone's scorer sees gold.
    """

    key: Hashable

    def run(self, ontology, questions) -> tuple[dict[str, float], list[TaskTrajectory]]: ...


class Evolver(Protocol):
    """Proposes candidates from trajectories: ``propose(trajectories, view, ctx) -> list[list[Candidate]]``
    (one list of alternatives per signature, best signature first, best alternative first)."""

    name: str

    def propose(self, trajectories, view: OntologyView, ctx: EditContext) -> list[list[Candidate]]: ...


@dataclass(frozen=True)
class LoopConfig:
    """Loop settings: ``rounds`` (budget), ``patience`` (K consecutive rejections/invalids to stop),
    ``batch_size`` (signatures bundled into one candidate; rejected batches are bisected),
    ``gate`` (:class:`GateConfig`; ``enabled=False`` is the no-gate ablation)."""

    rounds: int = 10
    patience: int = 4
    batch_size: int = 8
    gate: GateConfig = field(default_factory=GateConfig)


@dataclass
class RoundRecord:
    """What happened in one round: the candidate's signature/intervention/level/fingerprint, the
    decision (``accepted``/``rejected``/``invalid``), scores (None when invalid), the resulting
    workspace version, and the reason line."""

    round: int
    signature: str
    intervention: str
    level: str
    fingerprint: str
    decision: str
    parent_score: float | None
    candidate_score: float | None
    version: int
    reason: str
    edits: int = 1


@dataclass
class EvolutionResult:
    """All rounds, the stop reason (``patience``, ``no-candidates``, ``rounds``) and final version."""

    rounds: list[RoundRecord] = field(default_factory=list)
    stop_reason: str = ""
    final_version: int = 0
    evolver: str = ""

    def count(self, decision: str) -> int:
        return sum(1 for r in self.rounds if r.decision == decision)

    @property
    def accepted(self) -> int:
        return self.count("accepted")

    @property
    def rejected(self) -> int:
        return self.count("rejected")

    @property
    def invalid(self) -> int:
        return self.count("invalid")


def known_fingerprints(ontology) -> set[str]:
    """Fingerprints of every patch already in the history graph (accepted, rejected or invalid)."""
    from evoonto.namespaces import EVO

    try:
        history = ontology.graph("history")
    except Exception:  # pragma: no cover - an ontology without history
        return set()
    return {str(o) for o in history.objects(None, EVO.fingerprint)}


def base_iri_of(workspace, view: OntologyView) -> str:
    """The workspace's base IRI (``workspace.base_iri`` / config), else derived from a source IRI."""
    for attr in ("base_iri", "base"):
        value = getattr(workspace, attr, None)
        if isinstance(value, str) and value:
            return value
    config = getattr(workspace, "config", None)
    if isinstance(config, dict) and config.get("base_iri"):
        return config["base_iri"]
    for iri in view.sources.values():
        text = str(iri)
        if "/source/" in text:
            return text.split("/source/")[0] + "/"
    return "https://example.org/evoonto/workspace/"


def stable_fingerprint(candidate: Candidate, ctx: EditContext) -> str:
    """Fingerprint over the compiled triples, ignoring time stamps (so re-proposals match)."""
    from rdflib.namespace import PROV

    skip = {PROV.generatedAtTime, PROV.startedAtTime, PROV.endedAtTime}
    adds, rems = candidate.graphs(ctx)
    h = hashlib.sha256(candidate.level.encode())
    for sign, graphs in (("+", adds), ("-", rems)):
        for target in sorted(graphs):
            lines = sorted(" ".join(t.n3() for t in tr) for tr in graphs[target] if tr[1] not in skip)
            for line in lines:
                h.update(f"{sign}{target} {line}\n".encode())
    return h.hexdigest()[:16]


def to_patch(candidate: Candidate, ctx: EditContext, fingerprint: str):
    """Compile a candidate into an :class:`evoonto.patch.Patch` (one level)."""
    from evoonto.patch import Patch

    adds, rems = candidate.graphs(ctx)
    return Patch.from_graphs(candidate.level, additions=adds, removals=rems,
                             signature=candidate.signature[:2000], intervention=candidate.intervention[:2000])


def validate_candidate(parent, patch, focus) -> tuple[object | None, str | None]:
    """(candidate ontology, None) when the patched version passes SHACL on ``focus`` nodes, else
    (None, one-line reason). Uses :func:`evoonto.validation.validate` (pyshacl)."""
    from evoonto.validation import validate

    try:
        candidate = parent.with_patch(patch)
    except Exception as exc:  # a patch that cannot even be applied is invalid, not a crash
        return None, f"patch does not apply: {exc}"
    report = validate(candidate, focus_nodes=focus)
    if not report.conforms:
        first = report.violations[0].text() if report.violations else "does not conform"
        return None, f"SHACL: {len(report.violations)} violation(s), first: {first}"[:500]
    return candidate, None


def evolve(workspace, *, backbone: Backbone, trajectory_questions, validation_questions,
           evolver: Evolver, config: LoopConfig | None = None,
           on_round: Callable[[RoundRecord], None] | None = None) -> EvolutionResult:
    """Run the loop on ``workspace`` until the stop rule fires.

    Args:
        workspace: an open :class:`evoonto.workspace.Workspace` (``ontology``, ``version``,
            ``commit(patch, metadata=)``, ``record_rejected(patch, metadata=)``).
        backbone: scores versions and produces trajectories (see :class:`Backbone`).
        trajectory_questions: questions whose trajectories are diagnosed (construction pool).
        validation_questions: the gate's validation set V (disjoint from the above).
        evolver: the proposer (offline heuristics or Claude).
        config: :class:`LoopConfig`.
        on_round: called after every round (progress bars, logging).
    Returns:
        An :class:`EvolutionResult`. The workspace holds every decision in its history.
    Raises:
        KeyboardInterrupt: propagated untouched; the workspace stays at its last committed version.
    """
    config = config or LoopConfig()
    result = EvolutionResult(evolver=getattr(evolver, "name", "?"))
    val_questions = list(validation_questions)
    traj_questions = list(trajectory_questions)
    gate = Gate(lambda onto: backbone.run(onto, val_questions)[0], backbone_key=backbone.key,
                config=config.gate)
    seen = known_fingerprints(workspace.ontology)
    pending: list[Candidate] = []  # bisection halves of rejected batches, tried first
    traj_cache: dict[Hashable, list] = {}
    consecutive = 0
    for round_no in range(1, config.rounds + 1):
        parent = workspace.ontology
        parent_key = (workspace.version, len(seen))
        view = OntologyView(parent)
        ctx = EditContext(view, _iris(workspace, view))
        candidate = None
        while pending and candidate is None:
            c = pending.pop(0)
            try:
                if stable_fingerprint(c, ctx) not in seen:
                    candidate = c
            except (EditError, CandidateError):
                continue
        if candidate is None:
            version_key = (workspace.version, backbone.key)
            if version_key not in traj_cache:
                traj_cache.clear()
                traj_cache[version_key] = backbone.run(parent, traj_questions)[1]
            proposals = evolver.propose(traj_cache[version_key], view, ctx)
            candidate = _batch(proposals, ctx, seen, config.batch_size)
        if candidate is None:
            result.stop_reason = "no-candidates"
            break
        try:
            fingerprint = stable_fingerprint(candidate, ctx)
            patch = to_patch(candidate, ctx, fingerprint)
            focus = sorted(patch.touched_nodes(), key=str)
        except (EditError, CandidateError) as exc:
            seen.add(candidate.fingerprint())
            record = RoundRecord(round_no, candidate.signature, candidate.intervention, candidate.level,
                                 candidate.fingerprint(), "invalid", None, None, workspace.version, str(exc),
                                 len(candidate.edits))
            result.rounds.append(record)
            consecutive += 1
            if on_round:
                on_round(record)
            if consecutive >= config.patience:
                result.stop_reason = "patience"
                break
            continue
        meta = {"signature": candidate.signature, "intervention": candidate.intervention,
                "fingerprint": fingerprint, "level": candidate.level, "reason": candidate.reason,
                "evolver": result.evolver, "parent_version": workspace.version, "round": round_no}
        seen.add(fingerprint)
        candidate_onto, invalid = validate_candidate(parent, patch, focus)
        if invalid is not None:
            meta.update(decision="invalid", reason=invalid)
            workspace.record_rejected(patch, metadata=meta)
            record = RoundRecord(round_no, candidate.signature, candidate.intervention, candidate.level,
                                 fingerprint, "invalid", None, None, workspace.version, invalid,
                                 len(candidate.edits))
            consecutive += 1
        else:
            decision: GateDecision = gate.evaluate(parent_key, parent, candidate_onto)
            meta.update(decision.metadata())
            if decision.accepted:
                version = workspace.commit(patch, metadata=meta)
                consecutive = 0
            else:
                workspace.record_rejected(patch, metadata=meta)
                version = workspace.version
                consecutive += 1
                halves = candidate.split()
                if halves:
                    pending[:0] = list(halves)
            record = RoundRecord(round_no, candidate.signature, candidate.intervention, candidate.level,
                                 fingerprint, decision.decision, decision.parent_score,
                                 decision.candidate_score, int(version), decision.reason, len(candidate.edits))
        result.rounds.append(record)
        if on_round:
            on_round(record)
        if consecutive >= config.patience:
            result.stop_reason = "patience"
            break
    else:
        result.stop_reason = "rounds"
    result.final_version = workspace.version
    return result


def _iris(workspace, view):
    from evoonto.iris import IriFactory

    return IriFactory(base_iri_of(workspace, view))


def _batch(proposals: Iterable[list[Candidate]], ctx: EditContext, seen: set[str],
           batch_size: int) -> Candidate | None:
    """The first untried alternative of the top signatures, bundled (same level as the first)."""
    chosen: list[Candidate] = []
    level = None
    for alternatives in proposals:
        for alt in alternatives:
            if level is not None and alt.level != level:
                break
            try:
                fp = stable_fingerprint(alt, ctx)
            except (EditError, CandidateError):
                continue
            if fp in seen:
                continue
            chosen.append(alt)
            level = alt.level
            break
        if len(chosen) >= batch_size:
            break
    if not chosen:
        return None
    merged = merge(chosen)
    try:
        if stable_fingerprint(merged, ctx) in seen and len(chosen) > 1:
            return chosen[0]
    except (EditError, CandidateError):
        return chosen[0]
    return merged
