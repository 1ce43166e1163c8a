"""The evolution loop: diagnose → attribute → patch → gate, round after round.

Paper §"Evolution loop" (Algorithm: rounds over L_t). One round:

1. run the backbone on the trajectory questions (construction pool) with the parent version and
   collect trajectories with pass/fail (no gold);
2. the evolver (offline heuristics, or Claude) diagnoses signatures, attributes them to a level and
   writes candidates; candidates whose fingerprint was rejected before are dropped;
3. each alternative that would enter the round's batch is first **screened** on the failed trajectory
   tasks it was written for (:func:`screen`): applied in memory, the backbone re-runs those tasks
   only, and the alternative is kept iff their summed score rises (an edit that does not even fix
   the failures it addresses is dropped before the gate; the next alternative of the signature takes
   its place). This uses the trajectories' pass/fail and scores, never gold
   or V;
4. the round's candidate (a bisection half of a rejected batch that improved some questions, else a
   batch of the top signatures' first untried alternatives, all of one level — after a rejection,
   another level when one has candidates) is compiled to a Patch and
   validated with SHACL by :func:`evoonto.validation.validate_patch`, the rule the commit uses — an
   invalid candidate is logged ``invalid`` and never scored;
5. the gate scores it on V against the cached parent score; accepted → ``Workspace.commit`` (a new
   version), rejected → ``Workspace.record_rejected``; both carry signature, intervention,
   fingerprint, level, scores, the per-question ups/downs and decision (a rejected candidate that
   patched several workspaces was judged as a whole: it is remembered by its bundle fingerprint,
   never by a workspace's part, so bisection still judges each part alone). With the workspace setting
   ``approval: manual`` an accepted candidate is recorded ``proposed`` instead (no new version;
   ``evoonto review`` / ``approve`` / ``reject`` decide, see :mod:`evoonto.evolution.approval`).

Stop rule (DESIGN.md §6): ``patience`` consecutive rejections, no candidate left, or ``rounds`` spent.

Interruption: the loop holds no state the workspace does not: a KeyboardInterrupt or SIGKILL at any
point leaves the workspace at the last committed (accepted) version, because ``Workspace.commit`` is
an atomic write and nothing else is written.
"""

from __future__ import annotations

import gc
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Hashable, Protocol

from evoonto.errors import EvoontoError
from evoonto.evolution.candidates import Candidate, CandidateError, merge
from evoonto.evolution.edits import Edit, EditContext, EditError, SetFieldWeight, SetToolSetting
from evoonto.evolution.gate import GateConfig, ScreenEvidence, compare
from evoonto.evolution.trajectories import TaskTrajectory
from evoonto.evolution.view import OntologyView
from evoonto.iris import stable_key

if TYPE_CHECKING:
    from evoonto.history import PatchEntry
    from evoonto.ontology import Ontology
    from evoonto.patch import Patch


class Backbone(Protocol):
    """The consumer of the tool layer whose score the gate compares (DESIGN.md §7).

    ``key``: hashable description of scorer/agent, model, decoding and budgets (part of the parent
    cache key). ``run(ontology, questions)`` -> (outcomes {question id: float in [0,1]},
    trajectories [TaskTrajectory]); only the backbone's scorer sees gold.
    """

    @property
    def key(self) -> Hashable: ...

    def run(self, ontology, questions) -> tuple[dict[str, float], list[TaskTrajectory]]: ...


class EvolvingWorkspace(Protocol):
    """What the loop needs of a workspace (:class:`evoonto.workspace.Workspace` implements it):
    the active ``ontology`` and its ``version`` number, its ``base_iri`` (instance IRIs of new
    nodes; ``""`` = derive one from a source IRI), its ``settings`` (config.json ``settings``, e.g.
    ``approval``), its patch ``log()`` (every entry in commit order), ``commit`` of an accepted patch
    (returns the new version; raises EvoontoError when refused) and ``record_rejected`` of a gated one."""

    @property
    def version(self) -> int: ...

    @property
    def ontology(self) -> Ontology: ...

    @property
    def base_iri(self) -> str: ...

    @property
    def settings(self) -> dict: ...

    def log(self) -> list[PatchEntry]: ...

    def commit(self, patch: Patch, *, metadata: dict | None = None) -> int: ...

    def record_rejected(self, patch: Patch, *, metadata: dict | None = None) -> None: ...


class Evolver(Protocol):
    """Proposes candidates from trajectories: ``propose(trajectories, view, ctx) -> list[list[Candidate]]``
    (one list of alternatives per signature, best signature first, best alternative first)."""

    name: str

    def propose(self, trajectories, view: OntologyView, ctx: EditContext) -> list[list[Candidate]]: ...


@dataclass(frozen=True)
class LoopConfig:
    """Loop settings: ``rounds`` (budget), ``patience`` (K consecutive rejections/invalids to stop),
    ``batch_size`` (signatures bundled into one candidate; rejected batches are bisected),
    ``gate`` (:class:`GateConfig`; ``enabled=False`` is the no-gate ablation), ``screen`` (screen
    alternatives on the failed trajectory tasks they address before batching, see :func:`screen`)."""

    rounds: int = 10
    patience: int = 4
    batch_size: int = 8
    gate: GateConfig = field(default_factory=GateConfig)
    screen: bool = True


@dataclass
class RoundRecord:
    """What happened in one round: the candidate's signature/intervention/level/fingerprint, the
    decision (``accepted``/``proposed``/``rejected``/``invalid``), scores (None when invalid), the resulting
    workspace version, and the reason line; ``wins``/``losses`` count questions of V that improved /
    got worse and ``statistics`` holds the gate's numbers (:meth:`GateDecision.metadata`: |V| as
    ``size``, ``p_value``, and for the Bayesian gate ``posterior`` and ``regression_p``), empty when
    the round was invalid. ``changes`` lists every edit of the candidate as ``"member: edit"`` (the
    ``intervention`` line summarises a batch by its first edits)."""

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
    wins: int = 0
    losses: int = 0
    statistics: dict = field(default_factory=dict)
    changes: tuple[str, ...] = ()


@dataclass
class EvolutionResult:
    """All rounds, the stop reason (``patience``, ``no-candidates``, ``rounds``) and final version."""

    rounds: list[RoundRecord] = field(default_factory=list)
    stop_reason: str = ""
    final_version: int = 0
    evolver: str = ""
    screened_out: int = 0  # alternatives dropped by :func:`screen` (never gated, never committed)

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

    @property
    def proposed(self) -> int:
        """Gate-accepted candidates waiting for a person's approval (``approval: manual``)."""
        return self.count("proposed")


#: Question ids listed per direction (ups/downs) in a patch's gate metadata.
MAX_LISTED = 200


def approval_mode(workspace: EvolvingWorkspace) -> str:
    """The workspace setting ``approval``: ``"manual"`` (gate-accepted patches wait for
    ``evoonto approve``) or ``"auto"`` (the default; they are committed at once)."""
    value = workspace.settings.get("approval")
    return "manual" if value == "manual" else "auto"


def known_fingerprints(ontology) -> set[str]:
    """Fingerprints of every patch already in the history graph (accepted, rejected or invalid):
    the Patch fingerprints (``evo:fingerprint``) and the loop's content fingerprints kept in the gate
    metadata (``evo:metadata`` JSON, key ``fingerprint``).

    A patch rejected only as one part of a bundle (gate metadata key ``bundle``, see
    :func:`bundle_fingerprint`) was never judged on its own: the bundle's fingerprint is returned
    instead of the part's, so the part may still be tried alone."""
    import json

    from rdflib.namespace import PROV

    from evoonto.namespaces import EVO

    try:
        history = ontology.graph("history")
    except Exception:  # pragma: no cover - an ontology without history
        return set()
    out: set[str] = set()
    parts = set()  # patches of rejected bundles
    for gate, o in history.subject_objects(EVO.metadata):
        try:
            meta = json.loads(str(o))
        except ValueError:
            continue
        if not isinstance(meta, dict):
            continue
        bundle = meta.get("bundle")
        if isinstance(bundle, str) and bundle:
            out.add(bundle)
            parts.update(history.objects(gate, PROV.used))
            continue
        fp = meta.get("fingerprint")
        if isinstance(fp, str):
            out.add(fp)
    out.update(str(o) for s, o in history.subject_objects(EVO.fingerprint) if s not in parts)
    return out


def bundle_fingerprint(parts: list[tuple[str, str]]) -> str:
    """Identity of a candidate that patches several members at once: :func:`~evoonto.iris.stable_key`
    (SHA-256, 16 hex characters) of the sorted ``(member key, part fingerprint)`` pairs. A rejected
    bundle is remembered by it (in each member's ``seen`` and the parts' gate metadata, key
    ``bundle``) instead of by its parts, which the gate never judged on their own."""
    return stable_key("bundle", *(f"{key}\t{fingerprint}" for key, fingerprint in sorted(parts)))


def base_iri_of(workspace: EvolvingWorkspace, view: OntologyView) -> str:
    """The workspace's base IRI (``workspace.base_iri``, from its config), else derived from a source IRI."""
    if workspace.base_iri:
        return workspace.base_iri
    for iri in view.sources.values():
        text = str(iri)
        if "/source/" in text:
            return text.split("/source/")[0] + "/"
    return "https://example.org/evoonto/workspace/"


def stable_fingerprint(candidate: Candidate, ctx: EditContext) -> str:
    """:meth:`Candidate.fingerprint` over the compiled triples (the one identity of a candidate).

    Raises:
        EditError, CandidateError: the candidate does not compile against the parent.
    """
    return candidate.fingerprint(ctx)


def to_patch(candidate: Candidate, ctx: EditContext, fingerprint: str = ""):
    """Compile a candidate into an :class:`evoonto.patch.Patch` (one level). ``fingerprint`` (the
    loop's content fingerprint) is not part of the Patch; the loop records it in the metadata."""
    from evoonto.patch import Patch

    adds, rems = candidate.graphs(ctx)
    return Patch.from_graphs(candidate.level, additions=adds, removals=rems,
                             signature=candidate.signature[:2000], intervention=candidate.intervention[:2000])


def validate_candidate(parent: Ontology, patch: Patch) -> tuple[Ontology | None, str | None]:
    """(candidate ontology, None) when the patched version passes SHACL, else (None, one-line reason).

    The check is :func:`evoonto.validation.validate_patch`, the exact rule ``Workspace.commit``
    applies (subjects of the patch plus the referrers of subjects that lost triples; everything for
    schema patches), so a candidate that passes here is never refused by the commit's SHACL check.

    Args:
        parent: the parent :class:`~evoonto.ontology.Ontology`.
        patch: the compiled :class:`~evoonto.patch.Patch`.
    Returns:
        ``(candidate, None)`` or ``(None, reason)``; reasons are at most 500 characters.
    """
    from evoonto.validation import validate_patch

    effective = patch.normalized(parent.store.contains)  # as the commit does
    if effective.is_empty():
        return None, "the patch changes nothing on the parent version"
    try:
        candidate = parent.with_patch(patch)
    except Exception as exc:  # a patch that cannot even be applied is invalid, not a crash
        return None, f"patch does not apply: {exc}"
    report = validate_patch(candidate, effective)
    if not report.conforms:
        first = report.violations[0].text() if report.violations else "does not conform"
        return None, f"SHACL: {len(report.violations)} violation(s), first: {first}"[:500]
    return candidate, None


@dataclass
class Member:
    """One workspace evolved by the loop, with its questions.

    ``key``: a name (e.g. the database id); ``workspace``: an open Workspace;
    ``trajectory_questions``: the questions whose trajectories are diagnosed (construction pool);
    ``validation_questions``: its part of the gate validation set V (disjoint from the former);
    ``cache``: backbone results per (kind, version state, backbone key) — pass the same dict to
    members built from the same base to share the version-0 trajectory run and parent scores.
    ``recorded``: trajectories an agent produced on the workspace's *current* version (e.g. the MCP
    server's log with the evaluator's pass/fail, :func:`evoonto.evolution.trajectories.group_events`);
    diagnosis uses them while the workspace is still at that version, and the backbone's runs of
    ``trajectory_questions`` once a patch has been accepted (the log describes the old version).
    ``screened``: the screen's evidence per alternative (``(state(), screen_key(alternative))`` ->
    ``(fixed, broken, gain)`` on its diagnosed tasks, against the version it was screened on), which the gate
    uses when V is silent (:func:`evoonto.evolution.gate.neutral_decision`).
    ``saves_nothing``: the savings (``aim="cost"``) whose screen kept every outcome of this member
    but did not shrink its answers (they fit the smaller budget already, or fill the budget either
    way), keyed like ``screened``; such a member neither takes nor blocks a saving the others move
    to in step (:func:`savings_in_step`).
    """

    key: str
    workspace: EvolvingWorkspace
    trajectory_questions: list
    validation_questions: list
    cache: dict = field(default_factory=dict, repr=False)
    seen: set = field(default_factory=set, repr=False)
    recorded: list | None = field(default=None, repr=False)
    recorded_version: int | None = field(default=None, repr=False)
    screened: dict = field(default_factory=dict, repr=False)
    fixed: dict = field(default_factory=dict, repr=False)
    saves_nothing: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if self.recorded is not None and self.recorded_version is None:
            self.recorded_version = self.workspace.version

    @property
    def diagnoses_recorded(self) -> bool:
        """True while the workspace is at the version the ``recorded`` trajectories were made on."""
        return self.recorded is not None and self.workspace.version == self.recorded_version

    def state(self) -> tuple:
        """Identity of the active version: its number and the fingerprints of the accepted patches
        (so two workspaces with the same base and history share cached scores)."""
        accepted = tuple(e.fingerprint for e in self.workspace.log() if e.decision == "accepted")
        return (self.workspace.version, accepted)


@dataclass
class _Part:
    """The piece of a round's candidate that goes to one member."""

    member: Member
    candidate: Candidate
    ctx: EditContext
    fingerprint: str = ""
    patch: Patch | None = None
    ontology: Ontology | None = None

    def compiled_patch(self) -> Patch:
        """The part's compiled patch; EvoontoError when it was not compiled (a loop defect)."""
        if self.patch is None:
            raise EvoontoError(f"the part of member {self.member.key!r} has no compiled patch")
        return self.patch


def evolve(workspace, *, backbone: Backbone, trajectory_questions, validation_questions,
           evolver: Evolver, config: LoopConfig | None = None,
           on_round: Callable[[RoundRecord], None] | None = None,
           recorded_trajectories: list | None = None) -> EvolutionResult:
    """Run the loop on one workspace until the stop rule fires.

    Args:
        workspace: an open :class:`evoonto.workspace.Workspace` (``ontology``, ``version``,
            ``commit(patch, metadata=)``, ``record_rejected(patch, metadata=)``).
        backbone: scores versions and produces trajectories (see :class:`Backbone`).
        trajectory_questions: questions whose trajectories are diagnosed (construction pool).
        validation_questions: the gate's validation set V (disjoint from the above).
        evolver: the proposer (offline heuristics or Claude).
        config: :class:`LoopConfig`.
        on_round: called after every round (progress bars, logging).
        recorded_trajectories: optional agent trajectories on the current version (see
            :class:`Member` ``recorded``); None = the backbone's runs of ``trajectory_questions``.
    Returns:
        An :class:`EvolutionResult`. The workspace holds every decision in its history.
    Raises:
        KeyboardInterrupt: propagated untouched; the workspace stays at its last committed version.
    """
    member = Member("main", workspace, list(trajectory_questions), list(validation_questions),
                    recorded=None if recorded_trajectories is None else list(recorded_trajectories))
    return evolve_group([member], backbone=backbone, evolver=evolver, config=config, on_round=on_round)


def evolve_group(members: list[Member], *, backbone: Backbone, evolver: Evolver,
                 config: LoopConfig | None = None,
                 on_round: Callable[[RoundRecord], None] | None = None) -> EvolutionResult:
    """Evolve several workspaces (e.g. one per database) with **one** gate over the pooled V.

    Each round bundles the most frequent signatures of all members (one level, at most
    ``batch_size``) into a candidate with one Patch per member concerned. The gate compares the
    pooled per-question outcomes: members without a patch keep their parent outcomes (ties), so a
    candidate is judged on every question it could change, as in the single-workspace loop. Accepted
    → each member's patch is committed to its workspace; rejected → recorded in each. A member part
    that fails SHACL is recorded ``invalid`` and never scored; the rest of the candidate goes on.

    Atomicity holds per workspace (each commit is atomic); an interrupt between two members'
    commits of one accepted candidate leaves the earlier member at its new version and the later
    at its parent, both valid versions.
    """
    config = config or LoopConfig()
    result = EvolutionResult(evolver=evolver.name)
    for m in members:
        m.seen |= known_fingerprints(m.workspace.ontology)
    initial = {m.key: m.state() for m in members}
    pending: list[list[tuple[Member, Candidate]]] = []  # bisection halves, tried first
    consecutive = 0
    avoid_level = None  # after a rejection, the next fresh batch prefers another level
    for round_no in range(1, config.rounds + 1):
        contexts = {}
        gc.collect()  # the last round's candidate stores and indexes hold reference cycles (rdflib graphs)
        for m in members:
            prune(m, keep=(m.state(), initial[m.key]))
            view = OntologyView(m.workspace.ontology)
            contexts[m.key] = EditContext(view, _iris(m.workspace, view))
        chosen = None
        while pending and chosen is None:
            half = [(m, c) for m, c in pending.pop(0) if _untried(c, contexts[m.key], m.seen)]
            chosen = half or None
        if chosen is None:
            proposals = []
            for m in members:
                trajs = _trajectories(m, backbone)
                for rank, alternatives in enumerate(evolver.propose(trajs, contexts[m.key].view, contexts[m.key])):
                    freq = _frequency(alternatives, trajs)
                    proposals.append((*proposal_order(alternatives, freq, rank, m.key), m, alternatives))
            proposals.sort(key=lambda x: x[:4])

            admitted: set[tuple[str, int]] = set()  # (member, id(alternative)) the screen already passed

            def admit(member, candidate, contexts=contexts, admitted=admitted):
                if (member.key, id(candidate)) in admitted:
                    return True
                if not config.screen or screen(member, candidate, contexts[member.key], backbone):
                    admitted.add((member.key, id(candidate)))
                    return True
                result.screened_out += 1
                return False

            proposals = savings_in_step(proposals, contexts, admit,
                                        lambda member, candidate: (member.state(), screen_key(candidate))
                                        in member.saves_nothing)
            chosen = _batch(proposals, contexts, config.batch_size, avoid_level, admit=admit)
        if not chosen:
            result.stop_reason = "no-candidates"
            break
        parts = [_Part(m, merge([c for mm, c in chosen if mm is m]), contexts[m.key])
                 for m in members if any(mm is m for mm, _ in chosen)]
        record = _run_round(round_no, parts, chosen, backbone, config, result)
        if record.decision == "rejected" and len(chosen) > 1 and (record.wins or record.losses):
            # the batch changed some outcomes but was rejected: bisect to separate helpful edits
            # from harmful ones (a batch that changed nothing on V has no better half)
            mid = len(chosen) // 2
            pending[:0] = [chosen[:mid], chosen[mid:]]
        if record.decision not in ("accepted", "proposed"):
            avoid_level = record.level
        else:
            avoid_level = None
        consecutive = 0 if record.decision in ("accepted", "proposed") else consecutive + 1
        result.rounds.append(record)
        if on_round:
            on_round(record)
        if consecutive >= config.patience:
            result.stop_reason = "patience"
            break
    else:
        result.stop_reason = "rounds"
    result.final_version = sum(m.workspace.version for m in members)
    return result


def prune(member: Member, keep: tuple) -> int:
    """Drop the member's cached runs and screen evidence of versions other than ``keep`` (the current
    one and the run's first, which a later run from the same version 0 shares): the caches hold the
    trajectories with every tool answer, so without this they grow by one set per accepted version
    (memory in proportion to the rounds). Returns the number of entries dropped."""
    dropped = 0
    # cache keys are (kind, state, backbone key); screen evidence keys are (state, candidate key)
    for store, at in ((member.cache, 1), (member.screened, 0), (member.fixed, 0), (member.saves_nothing, 0)):
        for key in [k for k in store if isinstance(k, tuple) and len(k) > at and k[at] not in keep]:
            del store[key]
            dropped += 1
    return dropped


def proposal_order(alternatives: list[Candidate], frequency: int, rank: int, member_key: str) -> tuple:
    """Sort key of one proposal (alternatives for one failure signature) among a round's proposals.

    Fixes of failed tasks come first, the signature shown by most failed tasks first, then the
    evolver's rank; savings (``aim="cost"``: a smaller answer for the same outcomes, which every task
    "shows") come once no fix is left to try, so they never crowd out a fix in a short round budget.

    Returns:
        ``(is_saving, -frequency, rank, member_key)``.
    """
    return (all(c.aim == "cost" for c in alternatives), -frequency, rank, member_key)


def savings_in_step(proposals: list[tuple], contexts: dict, admit: Callable[[Member, Candidate], bool],
                    saves_nothing: Callable[[Member, Candidate], bool] = lambda member, candidate: False
                    ) -> list[tuple]:
    """Savings move in step across the members (issue 29): a smaller answer is taken by every
    member that proposes one, at the same step, or by none.

    Why: a saving is accepted when no question the loop sees changes its outcome, so a walk of
    savings stops at the budget the most demanding *seen* question needs. Walked per member, the
    threshold is the largest of that member's few seen questions (a Spider database: about 27), and
    an unseen question needs more than the largest of n seen ones with probability about
    1 / (n + 1) (exchangeable questions; the order-statistic argument behind conformal prediction):
    measured on Spider, every seen question kept its outcome while 2.6% of the held-out questions
    lost theirs. In step, the threshold is the largest over all members' seen questions, so the
    expected loss falls with the group's size instead of each member's.

    A step is one kind of saving at one rank (the first, second, … smaller budget; full lines
    for a question's matches only), in the order the alternatives name them; a member whose
    alternatives hold no such saving (it took it in an earlier round) is not part of that step.
    A member the step saves nothing (``saves_nothing``: its screen kept every outcome, but its
    answers did not shrink: they fit the smaller budget already, or fill the budget with or without
    the full-lines saving) neither takes the step nor blocks it: its seen questions agree with the
    step, and it has nothing to save there. Before, one small schema whose whole answer fit in nine
    tenths of the budget refused the 0.9 step for every member, and on one fold of bird_synth_dev no
    saving was taken at all.

    Args:
        proposals: the round's sorted proposals ``(…, member, alternatives)``; a proposal whose
            alternatives all have ``aim="cost"`` is a saving, its alternatives in the order tried
            (a smaller compact budget: :data:`~evoonto.evolution.candidates.SAVING_STEPS`, the
            largest saving first; fewer verbose results: the mildest first).
        contexts: member key -> the member's EditContext.
        admit: the screen (True when the member may take the alternative).
        saves_nothing: True when the member's screen of the alternative kept every outcome but
            saved nothing (asked after ``admit``, or for an alternative tried before).
    Returns:
        the proposals with every saving cut to the first step that every saving member admits or
        saves nothing by (and at least one admits), or without savings when no step passes.
    """
    savings: list[tuple] = []
    rest: list[tuple] = []
    for p in proposals:
        (savings if p[-1] and all(c.aim == "cost" for c in p[-1]) else rest).append(p)
    if len(savings) < 2:
        return proposals
    # a step is one kind of saving at one rank (the k-th smaller budget, the full-lines flag): a
    # member that proposes no such saving (it took the flag already) neither takes nor blocks it
    steps: dict[tuple, dict[int, Candidate]] = {}
    latest: dict[tuple, int] = defaultdict(int)  # step -> the latest position any member lists it at
    for k, p in enumerate(savings):
        ranks: dict[tuple, int] = defaultdict(int)
        for position, alternative in enumerate(p[-1]):
            kind = tuple(_setting_slot(e) or type(e).__name__ for e in alternative.edits)
            steps.setdefault((kind, ranks[kind]), {})[k] = alternative
            latest[(kind, ranks[kind])] = max(latest[(kind, ranks[kind])], position)
            ranks[kind] += 1
    # in the members' own order: a step no member lists after another comes first
    for _, step in sorted(steps.items(), key=lambda item: latest[item[0]]):
        picked = []
        for k, p in enumerate(savings):
            member, alternative = p[-2], step.get(k)
            if alternative is None:
                continue
            if _untried(alternative, contexts[member.key], member.seen) and admit(member, alternative):
                picked.append((*p[:-1], [alternative]))
            elif not saves_nothing(member, alternative):
                break
        else:
            if picked:
                return rest + picked
    return rest


def _frequency(alternatives: list[Candidate], trajectories) -> int:
    """How many failed tasks the signature of these alternatives covers (for the global ranking)."""
    return max((c.frequency for c in alternatives), default=0)


def _trajectories(m: Member, backbone: Backbone) -> list:
    if m.recorded is not None and m.diagnoses_recorded:
        return m.recorded
    key = ("trajectories", m.state(), backbone.key)
    if key not in m.cache:
        m.cache[key] = backbone.run(m.workspace.ontology, m.trajectory_questions)[1]
    return m.cache[key]


def _parent_outcomes(m: Member, backbone: Backbone) -> tuple[dict, dict | None]:
    """The parent's outcomes on V and its answer sizes in tokens (None when the backbone does not
    measure them), computed once per parent version and backbone."""
    key = ("validation", m.state(), backbone.key)
    if key not in m.cache:
        scored = _same_path_copy(m.workspace.ontology)
        outcomes, trajectories = backbone.run(scored, m.validation_questions)
        m.cache[key] = (dict(outcomes), token_sizes(trajectories))
    return m.cache[key]


def token_sizes(trajectories: list[TaskTrajectory]) -> dict[str, int] | None:
    """``{task id: tokens}`` of backbone trajectories, or None when any of them has no size."""
    out: dict[str, int] = {}
    for traj in trajectories:
        if traj.tokens is None:
            return None
        out[traj.task_id] = int(traj.tokens)
    return out


def sources_in_v(member: Member, candidate: Candidate) -> set[str]:
    """The questions of the member's V that produced ``candidate`` (leave-the-source-out): V ids
    among ``candidate.tasks``, and V questions asking the same question text as one of those tasks
    (a served task answering a verified query). The gate judges the candidate on the rest of V.
    A saving (``aim="cost"``) was produced by no task's failure (its tasks are the outcomes it must
    keep), so nothing is left out for it."""
    from evoonto.text import normalize

    tasks = set(candidate.tasks)
    if not tasks or candidate.aim == "cost":
        return set()
    texts = {normalize(q.text) for q in member.trajectory_questions if q.id in tasks}
    texts |= {normalize(t.question) for t in (member.recorded or ()) if t.task_id in tasks and t.question}
    return {q.id for q in member.validation_questions if q.id in tasks or normalize(q.text) in texts}


def screen(member: Member, candidate: Candidate, ctx: EditContext, backbone: Backbone) -> bool:
    """Does the candidate fix what it was written for? (the loop's step 3)

    Applies the candidate to the member's parent in memory and re-runs the backbone on the failed
    trajectory tasks it addresses (``candidate.tasks``, from its signature). True iff their summed
    score rises (it fixes more of what it was written for than it breaks; the gate then judges it on
    V). True as well when the candidate names no trajectory question (nothing to replay), and while
    the member diagnoses recorded agent trajectories (``Member.recorded``): the backbone cannot
    replay another agent's run, so those candidates go to the gate unscreened. A candidate that
    does not compile or apply is screened out. Parent scores come from the same in-memory copy path
    as the candidate's (see :func:`_same_path_copy`) and are cached per parent version. Screened-out
    candidates are added to ``member.seen`` so they are not proposed again in this run (except a
    saving that kept every outcome and saved nothing, ``Member.saves_nothing``: it is screened again
    at the member's next version); they are not gated and not recorded in the history (they never
    became patches).

    Args:
        member: the workspace and its trajectory questions.
        candidate: a :class:`~evoonto.evolution.candidates.Candidate` with ``tasks``.
        ctx: the parent's :class:`~evoonto.evolution.edits.EditContext`.
        backbone: the loop's backbone (same one the gate uses).
    Returns:
        bool, as above.
    """
    if member.diagnoses_recorded:
        return True  # recorded agent trajectories cannot be replayed by the backbone: the gate decides
    tasks = set(candidate.tasks)
    questions = [q for q in member.trajectory_questions if q.id in tasks]
    if not questions:
        return True
    key = ("screen-parent", member.state(), backbone.key)
    if key not in member.cache:
        outcomes, trajectories = backbone.run(_same_path_copy(member.workspace.ontology), member.trajectory_questions)
        member.cache[key] = (dict(outcomes), token_sizes(trajectories))
    parent, parent_tokens = member.cache[key]
    try:
        fingerprint = stable_fingerprint(candidate, ctx)
    except (EditError, CandidateError):
        return False  # does not compile: counted as tried already (see _untried)
    try:
        patched = member.workspace.ontology.with_patch(to_patch(candidate, ctx))
    except Exception:  # does not apply: the gate would log it invalid; drop it here, once
        member.seen.add(fingerprint)
        return False
    outcomes, trajectories = backbone.run(patched, questions)
    del patched
    diffs = [outcomes[q.id] - parent.get(q.id, 0.0) for q in questions]
    fixed_ids = tuple(q.id for q, d in zip(questions, diffs, strict=True) if d > 1e-12)
    fixed, broken = len(fixed_ids), sum(1 for d in diffs if d < -1e-12)
    member.screened[(member.state(), screen_key(candidate))] = (fixed, broken, sum(diffs))
    member.fixed[(member.state(), screen_key(candidate))] = fixed_ids
    if candidate.aim == "cost":
        # a saving: it must keep every outcome of its tasks and shrink what the agent reads
        sizes = token_sizes(trajectories)
        smaller = (sizes is not None and parent_tokens is not None
                   and sum(sizes.values()) < sum(parent_tokens.get(q, 0) for q in sizes))
        if broken == 0 and smaller:
            return True
        if broken == 0 and sizes is not None and parent_tokens is not None:
            # kept every outcome, saved nothing: recorded for this version only and not marked as
            # tried, so the alternative is screened again once the member's version changes (a
            # fingerprint in ``seen`` outlives the version and would block the step from then on)
            member.saves_nothing[(member.state(), screen_key(candidate))] = True
            return False
    elif sum(diffs) > 1e-12:
        return True
    member.seen.add(fingerprint)
    return False


def screen_key(candidate: Candidate) -> tuple:
    """The key of a candidate's screen evidence in ``Member.screened`` (level and edits)."""
    return (candidate.level, tuple(repr(e) for e in candidate.edits))


def screen_evidence(chosen: list[tuple[Member, Candidate]]) -> ScreenEvidence | None:
    """``(fixed, broken, gain)`` on the diagnosed tasks of a round's alternatives, or None when any
    of them was not screened against the member's current version (no evidence for that part, so
    none for the whole candidate). ``fixed`` counts distinct tasks (two alternatives that fix one
    task, such as two names of one value, fixed one); ``broken`` and ``gain`` are summed."""
    fixed_ids: set[tuple] = set()
    broken = 0
    gain = 0.0
    for member, candidate in chosen:
        key = (member.state(), screen_key(candidate))
        evidence = member.screened.get(key)
        if evidence is None:
            return None
        fixed_ids.update((member.key, task) for task in member.fixed.get(key, ()))
        broken, gain = broken + evidence[1], gain + evidence[2]
    return len(fixed_ids), broken, gain


def _untried(candidate: Candidate, ctx: EditContext, seen: set) -> bool:
    try:
        return stable_fingerprint(candidate, ctx) not in seen
    except (EditError, CandidateError):
        return False


def _run_round(round_no: int, parts: list[_Part], chosen, backbone: Backbone, config: LoopConfig,
               result: EvolutionResult) -> RoundRecord:
    """Compile, validate, gate and commit/record one round's candidate; returns its record."""
    level = parts[0].candidate.level
    signature = " | ".join(dict.fromkeys(c.signature for _, c in chosen))
    intervention = merge([c for _, c in chosen]).intervention if len(chosen) > 1 else chosen[0][1].intervention
    edits = sum(len(c.edits) for _, c in chosen)
    invalid_reasons = []
    valid: list[_Part] = []
    for part in parts:
        m = part.member
        try:
            part.fingerprint = stable_fingerprint(part.candidate, part.ctx)
            part.patch = to_patch(part.candidate, part.ctx, part.fingerprint)
        except (EditError, CandidateError) as exc:
            m.seen.add(part.candidate.fingerprint())
            invalid_reasons.append(f"{m.key}: {exc}")
            continue
        part.ontology, reason = validate_candidate(m.workspace.ontology, part.patch)
        if reason is not None:
            m.seen.update((part.fingerprint, part.patch.fingerprint))
            _record(part, "invalid", {"reason": reason}, round_no, result)
            invalid_reasons.append(f"{m.key}: {reason}")
            continue
        valid.append(part)
    changes = tuple(f"{m.key}: {e.describe()}" for m, c in chosen for e in c.edits)
    if not valid:
        return RoundRecord(round_no, signature, intervention, level, "", "invalid", None, None,
                           _total_version(parts), "; ".join(invalid_reasons)[:500], edits, changes=changes)
    parent_all, candidate_all = {}, {}
    parent_tokens: dict | None = {}
    candidate_tokens: dict | None = {}
    left_out = 0
    for part in valid:
        outcomes, sizes = _parent_outcomes(part.member, backbone)
        sources = sources_in_v(part.member, part.candidate)  # the rest of V judges it
        left_out += len(sources)
        judged = [q for q in part.member.validation_questions if q.id not in sources]
        prefix = f"{part.member.key}::"
        parent_all.update({prefix + q.id: outcomes[q.id] for q in judged})
        cand, trajectories = backbone.run(part.ontology, judged)
        part.ontology = None  # the candidate store is not needed after scoring (memory)
        candidate_all.update({prefix + q: v for q, v in cand.items()})
        cand_sizes = token_sizes(trajectories)
        if parent_tokens is not None and candidate_tokens is not None and sizes is not None and cand_sizes is not None:
            parent_tokens.update({prefix + q.id: sizes[q.id] for q in judged})
            candidate_tokens.update({prefix + q: v for q, v in cand_sizes.items()})
        else:
            parent_tokens = candidate_tokens = None
    decision = compare(parent_all, candidate_all, config.gate, screen=screen_evidence(chosen),
                       parent_tokens=parent_tokens, candidate_tokens=candidate_tokens, left_out=left_out)
    gate_meta = decision.metadata()
    outcome = decision.decision
    manual = [part for part in valid if approval_mode(part.member.workspace) == "manual"]
    if decision.accepted and manual:
        outcome = "proposed"
    # a rejected candidate of several members was judged as a whole: remember the bundle, not its
    # parts, so that bisection and later rounds can still judge each part on its own
    bundle = "" if decision.accepted or len(valid) < 2 else \
        bundle_fingerprint([(part.member.key, part.fingerprint) for part in valid])
    for part in valid:
        part.member.seen.update((bundle,) if bundle else (part.fingerprint, part.compiled_patch().fingerprint))
    for part in valid:
        prefix = f"{part.member.key}::"
        mine = [k for k in parent_all if k.startswith(prefix)]
        ups = sorted(k[len(prefix):] for k in mine if candidate_all[k] > parent_all[k] + 1e-12)
        downs = sorted(k[len(prefix):] for k in mine if candidate_all[k] < parent_all[k] - 1e-12)
        meta = dict(gate_meta, member_parent_score=_mean([parent_all[k] for k in mine]),
                    member_candidate_score=_mean([candidate_all[k] for k in mine]),
                    ups=ups[:MAX_LISTED], downs=downs[:MAX_LISTED],
                    tasks=list(part.candidate.tasks[:MAX_LISTED]),
                    fixed_tasks=list(_fixed_tasks(part.member, chosen)[:MAX_LISTED]))
        if bundle:
            meta["bundle"] = bundle
        if decision.accepted and any(part is m for m in manual):
            _record(part, "proposed", meta, round_no, result)
        elif decision.accepted:
            try:
                part.member.workspace.commit(part.compiled_patch(), metadata=_meta(part, round_no, result, meta))
            except EvoontoError as exc:  # the workspace's own SHACL check or a no-op patch
                _record(part, "invalid", {"reason": f"commit refused: {exc}"}, round_no, result)
                invalid_reasons.append(f"{part.member.key}: commit refused")
        else:
            _record(part, "rejected", meta, round_no, result)
    reason = decision.reason + (f"; invalid parts: {'; '.join(invalid_reasons)}" if invalid_reasons else "")
    return RoundRecord(round_no, signature, intervention, level, valid[0].fingerprint, outcome,
                       decision.parent_score, decision.candidate_score, _total_version(parts),
                       reason[:500], edits, decision.wins, decision.losses,
                       {k: v for k, v in gate_meta.items() if k != "reason"}, changes)


def _fixed_tasks(member: Member, chosen) -> tuple[str, ...]:
    """The failed tasks the member's alternatives of this round fixed on their screen (sorted ids)."""
    out: set[str] = set()
    for m, candidate in chosen:
        if m is member:
            out.update(member.fixed.get((member.state(), screen_key(candidate)), ()))
    return tuple(sorted(out))


def _mean(values: list) -> float:
    return sum(values) / len(values) if values else 0.0


def _total_version(parts: list[_Part]) -> int:
    if len(parts) > 1:
        return sum(p.member.workspace.version for p in parts)
    return parts[0].member.workspace.version


def _meta(part: _Part, round_no: int, result: EvolutionResult, extra: dict) -> dict:
    c = part.candidate
    meta = {"signature": c.signature, "intervention": c.intervention, "fingerprint": part.fingerprint,
            "level": c.level, "reason": c.reason, "evolver": result.evolver,
            "parent_version": part.member.workspace.version, "round": round_no}
    meta.update(extra)
    return meta


def _record(part: _Part, decision: str, extra: dict, round_no: int, result: EvolutionResult) -> None:
    meta = _meta(part, round_no, result, extra)
    meta["decision"] = decision
    if decision == "invalid":
        for key in ("parent_score", "candidate_score"):
            meta.pop(key, None)
    part.member.workspace.record_rejected(part.compiled_patch(), metadata=meta)


def _same_path_copy(parent):
    """The parent as the gate scores it: an in-memory copy made exactly like a candidate
    (``with_patch`` of an empty patch), so parent and candidate stores are built the same way and
    differ only by the patch (the tool index must not see different triple orders)."""
    from evoonto.patch import Patch

    try:
        return parent.with_patch(Patch.from_graphs("content", {}, {}, signature="parent", intervention="none"))
    except Exception:  # an ontology double without with_patch semantics for empty patches
        return parent


def _iris(workspace, view):
    from evoonto.iris import IriFactory

    return IriFactory(base_iri_of(workspace, view))


def _setting_slot(edit: Edit) -> tuple | None:
    """The Tool setting an edit sets (``("setting", name)`` / ``("weight", field)``), None for others."""
    if isinstance(edit, SetToolSetting):
        return ("setting", edit.setting)
    if isinstance(edit, SetFieldWeight):
        return ("weight", edit.field)
    return None


def _batch(proposals, contexts: dict, batch_size: int, avoid_level: str | None = None,
           admit: Callable[[Member, Candidate], bool] | None = None) -> list[tuple[Member, Candidate]]:
    """The first untried alternative of the top signatures (all members), all of one level: the
    level of the best-ranked untried alternative, preferring one other than ``avoid_level`` (the
    level just rejected) when such an alternative exists. A signature whose first untried
    alternative is already in the batch for the same member (e.g. one Tool setting answering several
    signatures) takes no place in the ``batch_size`` signatures. ``admit(member, alternative)``
    (the screen) may refuse an alternative; the signature's next alternative is tried instead. A
    batch is all fixes or all savings (one ``aim``): a saving bundled with a fix of the same level
    would let a larger budget ride on the tokens the saving frees."""
    if avoid_level is not None:
        others = [p for p in proposals
                  if any(a.level != avoid_level and _untried(a, contexts[p[-2].key], p[-2].seen) for a in p[-1])]
        if others:
            proposals = [(*p[:-1], [a for a in p[-1] if a.level != avoid_level]) for p in others]
    chosen: list[tuple[Member, Candidate]] = []
    taken: set[tuple] = set()  # (member, edits) already in the batch: a signature they cover takes no slot
    settings: set[tuple] = set()  # (member, setting) a batched edit sets: one value per setting and batch
    level = aim = None
    for *_, member, alternatives in proposals:
        for alt in alternatives:
            if level is not None and alt.level != level:
                break
            if aim is not None and alt.aim != aim:
                continue
            if not _untried(alt, contexts[member.key], member.seen):
                continue
            key = (member.key, tuple(repr(e) for e in alt.edits))
            if key in taken:
                break
            slots = {(member.key, slot) for slot in map(_setting_slot, alt.edits) if slot is not None}
            if slots & settings:
                continue  # another value of a setting the batch already sets (e.g. budget up and down)
            if admit is not None and not admit(member, alt):
                continue
            taken.add(key)
            settings |= slots
            chosen.append((member, alt))
            level, aim = alt.level, alt.aim
            break
        if len(chosen) >= batch_size:
            break
    if len(chosen) > 1:  # the same candidate was judged before: try its best alternative alone
        by_member: dict[str, list] = {}
        for member, cand in chosen:
            by_member.setdefault(member.key, []).append((member, cand))
        if all(not _untried(merge([c for _, c in pairs]), contexts[key], pairs[0][0].seen)
               for key, pairs in by_member.items()):
            return chosen[:1]
        if len(by_member) > 1:
            try:
                bundle = bundle_fingerprint([(key, stable_fingerprint(merge([c for _, c in pairs]), contexts[key]))
                                             for key, pairs in by_member.items()])
            except (EditError, CandidateError):
                bundle = ""
            if bundle and any(bundle in pairs[0][0].seen for pairs in by_member.values()):
                return chosen[:1]
    return chosen
