"""The gate: a candidate version against its parent on the same validation set V.

Paper §"Evolution loop": a patch is accepted only when the candidate, scored on the same validation
set with the same backbone (scorer or agent, model, decoding, budgets), beats its parent by at least
the margin τ. evoonto adds a paired statistical decision on the per-question outcomes: by default
(``test="bayes"``, the library's, the CLI's and the demo's default) the Beta-binomial posterior of a
net gain with a regression budget (:func:`bayes_decision` states the reasoning behind its defaults);
alternatively the exact one-sided sign test or a seeded paired bootstrap at level ``alpha``.

The gate never sees gold answers: it receives per-question outcomes (floats in [0, 1]) produced by a
scorer, which alone reads gold.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Callable, Hashable, Mapping

from evoonto.errors import ConfigurationError

#: Outcomes of one version on V: question id -> score in [0, 1] (1/0 strict hit, or column recall).
Outcomes = Mapping[str, float]

TESTS = ("sign", "bootstrap", "bayes", "none")


@dataclass(frozen=True)
class GateConfig:
    """Settings of the gate.

    Args:
        tau: minimum mean per-question gain (candidate − parent, same units as the outcomes, e.g.
            0.01 = one point of strict recall) for acceptance.
        test: ``"bayes"`` (default: Beta-binomial posterior of a net gain with an explicit
            regression budget; see :func:`bayes_decision`), ``"sign"`` (exact one-sided binomial
            sign test over the questions whose outcome changed), ``"bootstrap"`` (paired bootstrap
            of the mean difference, ``resamples`` draws, seeded) or ``"none"`` (margin only, as in
            the paper).
        alpha: the test supports the gain when its one-sided p-value is ≤ alpha; for ``bayes`` the
            gain is supported when P(net gain | V) ≥ 1 − alpha (the value stored as ``p_value``
            is 1 − that posterior) and alpha is also the level of its regression veto.
        regression_budget: ``bayes`` only: the share of questions a candidate may break (questions
            whose outcome drops), e.g. 0.05 = 5 per 100; a candidate is vetoed when V shows at level
            alpha that its regression rate exceeds it (:func:`bayes_decision` gives the reasoning).
        accept_neutral: ``bayes`` only: when no question of V changes (V holds no evidence either
            way), decide on the candidate's own evidence, the loop's screen
            (:func:`evoonto.evolution.loop.screen`) on the diagnosed failures it was written for:
            accepted on a net fix there (see :func:`neutral_decision`).
            False: a V-neutral candidate is rejected, as by the other tests.
        resamples: bootstrap draws. seed: bootstrap seed (same inputs → same decision).
        enabled: False is the *no-gate ablation*: every valid candidate is accepted (still scored
            and logged, so the ablation's history is comparable).
        token_tolerance: answer size (tokens = characters / 4, mean over V) is part of the decision
            when the backbone measures it: a relative change within ± this share counts as the same
            size (default 0.01 = 1%).
        token_saving: a candidate that changes no outcome of V is accepted when it shrinks the mean
            answer by at least this share (default 0.02: same score, ≥ 2% fewer tokens).
        token_price: a candidate whose answers grow by more than ``token_tolerance`` must buy the
            growth: its mean gain must be ≥ ``token_price`` × the relative growth (default 0.05:
            +20% tokens must buy ≥ 0.01 of mean outcome, one point of recall). With no gain, any
            growth beyond the tolerance is a rejection (equal score, more tokens).

    Raises:
        ConfigurationError: on a test name outside :data:`TESTS`, alpha outside (0, 1], a
            regression budget outside [0, 1), resamples < 1, or a negative token setting.
    """

    tau: float = 0.0
    test: str = "bayes"
    alpha: float = 0.25
    resamples: int = 2000
    seed: int = 0
    enabled: bool = True
    regression_budget: float = 0.05
    accept_neutral: bool = True
    token_tolerance: float = 0.01
    token_saving: float = 0.02
    token_price: float = 0.05

    def __post_init__(self):
        if self.test not in TESTS:
            raise ConfigurationError(f"unknown gate test {self.test!r}; choose one of {', '.join(TESTS)}")
        if not (0.0 < self.alpha <= 1.0):
            raise ConfigurationError(f"gate alpha must be in (0, 1], got {self.alpha}")
        if not (0.0 <= self.regression_budget < 1.0):
            raise ConfigurationError(f"gate regression budget must be in [0, 1), got {self.regression_budget}")
        if self.resamples < 1:
            raise ConfigurationError(f"gate resamples must be ≥ 1, got {self.resamples}")
        for name in ("token_tolerance", "token_saving", "token_price"):
            if not getattr(self, name) >= 0.0:
                raise ConfigurationError(f"gate {name} must be ≥ 0, got {getattr(self, name)}")


@dataclass(frozen=True)
class GateDecision:
    """The outcome of one gate evaluation.

    ``decision`` is ``"accepted"`` or ``"rejected"``; scores are mean outcomes over V (0..1);
    ``wins``/``losses`` count questions that improved/worsened; ``p_value`` is the one-sided p-value
    of the paired test (1.0 when no test ran); ``reason`` is one human-readable line.
    ``parent_outcomes``/``candidate_outcomes`` keep the per-question outcomes; ``size`` is |V|;
    ``posterior`` (P(net gain | V)) and ``regression_p`` (:func:`regression_test`) are set by the
    ``bayes`` test only (None otherwise). ``parent_tokens``/``candidate_tokens`` are the mean answer
    sizes on V in tokens (None when the backbone does not measure them); ``left_out`` counts the
    questions of V left out because they produced the candidate (leave-the-source-out); ``screen``
    is the candidate's ``(fixed, broken, gain)`` on those source tasks (None when not screened).
    """

    decision: str
    parent_score: float
    candidate_score: float
    gain: float
    wins: int
    losses: int
    p_value: float
    reason: str
    parent_outcomes: dict = field(default_factory=dict, repr=False)
    candidate_outcomes: dict = field(default_factory=dict, repr=False)
    size: int = 0
    posterior: float | None = None
    regression_p: float | None = None
    parent_tokens: float | None = None
    candidate_tokens: float | None = None
    left_out: int = 0
    screen: ScreenEvidence | None = None

    @property
    def token_change(self) -> float | None:
        """Relative change of the mean answer size (candidate / parent − 1), None when unmeasured."""
        if self.parent_tokens is None or self.candidate_tokens is None or self.parent_tokens <= 0:
            return None
        return self.candidate_tokens / self.parent_tokens - 1.0

    @property
    def accepted(self) -> bool:
        return self.decision == "accepted"

    def metadata(self) -> dict:
        """Scores and statistics as plain values for the patch metadata / PROV history."""
        return {
            "decision": self.decision, "parent_score": round(self.parent_score, 6),
            "candidate_score": round(self.candidate_score, 6), "gain": round(self.gain, 6),
            "wins": self.wins, "losses": self.losses, "p_value": round(self.p_value, 6),
            "reason": self.reason, "size": self.size,
            **({} if self.posterior is None else {"posterior": round(self.posterior, 6)}),
            **({} if self.regression_p is None else {"regression_p": round(self.regression_p, 6)}),
            **({} if self.parent_tokens is None else {"parent_tokens": round(self.parent_tokens, 1)}),
            **({} if self.candidate_tokens is None else {"candidate_tokens": round(self.candidate_tokens, 1)}),
            **({"left_out": self.left_out} if self.left_out else {}),
            **({} if self.screen is None else {"screen_fixed": self.screen[0], "screen_broken": self.screen[1]}),
        }


def sign_test(wins: int, losses: int) -> float:
    """One-sided exact sign test: P(X ≥ wins) for X ~ Binomial(wins + losses, 1/2).

    Ties (unchanged questions) are dropped, as usual for the sign test. Returns 1.0 when no
    question changed.
    """
    n = wins + losses
    if n == 0:
        return 1.0
    return sum(math.comb(n, k) for k in range(wins, n + 1)) / 2 ** n


def posterior_improves(wins: int, losses: int) -> float:
    """P(θ > 1/2 | wins, losses) for θ = P(a changed question improves), prior Beta(1, 1).

    The posterior is Beta(1 + wins, 1 + losses); for integer parameters its tail equals a binomial
    sum: P(θ ≤ 1/2) = P(Binomial(wins + losses + 1, 1/2) ≥ wins + 1). Returns 0.5 when no question
    changed (no evidence either way).
    """
    n = wins + losses + 1
    return sum(math.comb(n, k) for k in range(0, wins + 1)) / 2 ** n


def regression_test(losses: int, size: int, budget: float) -> float:
    """One-sided exact binomial test that a candidate breaks more than ``budget`` of the questions.

    H0: the regression rate p_down ≤ ``budget``; the p-value is P(X ≥ losses) for X ~
    Binomial(size, budget) (1.0 when nothing got worse). A small value is evidence that the
    candidate breaks more questions than the budget allows.

    Args:
        losses: questions of V that got worse. size: |V|. budget: share in [0, 1).
    Returns:
        The p-value in [0, 1].
    """
    if losses <= 0:
        return 1.0
    if losses > size or budget <= 0.0:
        return 0.0
    # each term in log space: comb(size, k) exceeds a float from |V| ≈ 1,030 on
    log_b, log_rest = math.log(budget), math.log1p(-budget)
    log_all = math.lgamma(size + 1)
    return min(1.0, math.fsum(math.exp(log_all - math.lgamma(k + 1) - math.lgamma(size - k + 1)
                                       + k * log_b + (size - k) * log_rest)
                              for k in range(losses, size + 1)))


@dataclass(frozen=True)
class BayesVerdict:
    """The Bayesian gate rule's statistics: ``supported`` (both conditions hold), ``posterior``
    (P(net gain | V)), ``regression_p`` (:func:`regression_test`), ``regressions_per_100``
    (losses per 100 questions of V) and ``why_not`` (one line, "" when supported)."""

    supported: bool
    posterior: float
    regression_p: float
    regressions_per_100: float
    why_not: str


def bayes_decision(wins: int, losses: int, size: int, *, confidence: float, budget: float) -> BayesVerdict:
    """The Bayesian gate rule on the paired outcomes of V.

    Model: under the candidate each question of V independently improves, gets worse or stays the
    same with probabilities (p_up, p_down, p_same). Two claims must be supported by V:

    1. **Net gain**, p_up > p_down. With a uniform Dirichlet(1, 1, 1) prior the share of improving
       questions among the changed ones, θ = p_up / (p_up + p_down), has the posterior
       Beta(1 + wins, 1 + losses) (Dirichlet aggregation; unchanged questions carry no information
       on θ), and P(net gain | V) = P(θ > 1/2) (:func:`posterior_improves`) must be ≥
       ``confidence``. At the default confidence 0.75 (α = 0.25) a patch is accepted at posterior
       odds of at least 3:1, the Bayes decision when accepting a harmful patch costs three times
       as much as rejecting a helpful one: a rejected candidate is not lost (its batch is bisected
       and later rounds may propose it again), an accepted harmful one becomes the parent of
       every later round, and V is reused by every round, so the best-looking candidate of several
       is optimistic.
    2. **Regression budget**, p_down ≤ ``budget`` (a policy: the share of questions one patch may
       break; 0.05 = 5 per 100). Here the burden of proof is on a violation: the candidate is
       vetoed when V shows at the same level (α = 1 − ``confidence``) that its regression rate
       exceeds the budget, by the exact one-sided binomial test :func:`regression_test`
       (veto iff P(Binomial(|V|, budget) ≥ losses) ≤ α). The reverse burden, showing compliance
       (the earlier rule ``losses ≤ floor(budget × |V|)``), is impossible on a small V: with no
       loss at all the one-sided upper bound of p_down at level α is 1 − α^(1/|V|) ≈ ln(1/α)/|V|,
       which is below 5% only from |V| ≈ 28 on, so such a rule degenerates into "at most 0 or 1
       loss" (at |V| = 26 it rejected 6 up / 2 down). With the test the allowed losses grow like
       budget × |V| plus sampling noise: at α = 0.25 and a 5% budget none at |V| ≤ 5, 1 loss at
       |V| = 6..19, 2 at 20..34, 3 at 35..50, 6 at 100, 12 at 200; on a large V the rule tends to
       the share itself.

    Args:
        wins, losses: questions that improved / worsened on V. size: |V| (≥ wins + losses).
        confidence: required posterior probability in (0, 1] (the gate uses 1 − alpha); its
            complement is also the regression test's level.
        budget: share of questions in [0, 1) a patch may break (0: any loss is a violation).
    Returns:
        A :class:`BayesVerdict`.
    """
    posterior = posterior_improves(wins, losses)
    regression_p = regression_test(losses, size, budget)
    per_100 = 100.0 * losses / size if size else 0.0
    level = 1.0 - confidence
    why = ""
    if losses and regression_p <= level + 1e-12:
        why = (f"{losses} regressions of {size} ({per_100:.1f} per 100) exceed the budget of "
               f"{100 * budget:g} per 100 (binomial p={regression_p:.3f} ≤ {level:.3f})")
    elif posterior + 1e-12 < confidence:
        why = f"P(net gain)={posterior:.3f} < {confidence:.3f}"
    return BayesVerdict(not why, posterior, regression_p, per_100, why)


#: The screen's evidence on a candidate: (diagnosed tasks fixed, tasks broken, summed score change).
ScreenEvidence = tuple[int, int, float]


def neutral_decision(screen: ScreenEvidence | None) -> tuple[bool, str]:
    """The rule for a candidate that changes no question of V (0 up / 0 down).

    V then carries no evidence: it shows no regression and no gain, so a test on it can neither
    support nor refute the candidate, and rejecting would only say that V is too small to see it.
    The remaining evidence is the screen: the candidate re-run on the failed construction tasks it
    was diagnosed from (the loop's step 3; outcomes from the backbone, never gold or V). The
    candidate is accepted iff that re-run shows a net fix (summed score change > 0, the screen's
    own criterion): expected change ≥ 0 where V looked and > 0 on the failures it addresses. No
    second significance test is run on the screen: its tasks are a handful chosen *because* they
    failed, so a count test there measures the selection more than the candidate; the protection
    against harm is V, which saw none. No screen (``None``: screening off, recorded agent runs that
    cannot be replayed, a candidate naming no task) or no net fix → rejected.

    Args:
        screen: ``(fixed, broken, gain)`` over the candidate's diagnosed tasks, or None.
    Returns:
        (accept, one-line reason).
    """
    if screen is None:
        return False, "V-neutral and no screen evidence"
    fixed, broken, gain = screen
    text = f"V-neutral; the screen fixed {fixed} / broke {broken} diagnosed task(s), net {gain:+.3f}"
    if gain <= 1e-12:
        return False, f"{text}: no net fix"
    return True, text


def paired_bootstrap(diffs: list[float], *, resamples: int, seed: int) -> float:
    """One-sided paired bootstrap p-value: the share of resampled mean differences ≤ 0.

    Args:
        diffs: candidate − parent per question. resamples: number of draws. seed: RNG seed.
    Returns 1.0 for an empty list.
    """
    if not diffs:
        return 1.0
    rng = random.Random(seed)
    n = len(diffs)
    not_better = 0
    for _ in range(resamples):
        total = 0.0
        for _ in range(n):
            total += diffs[rng.randrange(n)]
        if total <= 1e-12:
            not_better += 1
    return not_better / resamples


def _mean_cost(costs: Mapping[str, float] | None, ids: list[str]) -> float | None:
    """Mean of ``costs`` over ``ids``, or None when any id has no cost (unmeasured)."""
    if costs is None or not ids or any(costs.get(q) is None for q in ids):
        return None
    return sum(float(costs[q]) for q in ids) / len(ids)


def compare(parent: Outcomes, candidate: Outcomes, config: GateConfig, *,
            screen: ScreenEvidence | None = None, parent_tokens: Mapping[str, float] | None = None,
            candidate_tokens: Mapping[str, float] | None = None, left_out: int = 0) -> GateDecision:
    """Decide on a candidate from the per-question outcomes of parent and candidate on V.

    Args:
        parent, candidate: question id -> outcome; both must cover the same question ids.
        config: margin, test and significance level.
        screen: ``(fixed, broken, gain)`` of the candidate's screen on the diagnosed failures it
            was written for, or None; used only by ``bayes`` with ``accept_neutral`` when no question of V
            changed (:func:`neutral_decision`).
        parent_tokens, candidate_tokens: question id -> answer size in tokens (what the agent read),
            or None (unmeasured: size plays no part). Size rules, applied after the score rules when
            both are given: no outcome changed → rejected when the mean answer grows by more than
            ``token_tolerance``, accepted when it shrinks by ≥ ``token_saving``; an accepted gain
            whose answers grow by more than ``token_tolerance`` must be ≥ ``token_price`` × the growth.
        left_out: questions of V left out of both outcome sets because they produced the candidate
            (reported only).
    Returns:
        A :class:`GateDecision`; accepted iff mean gain ≥ tau and the paired test supports it (p ≤ alpha;
        for ``bayes``: a positive gain, posterior ≥ 1 − alpha and losses within the regression budget,
        or — nothing changed on V, ``accept_neutral`` and τ ≤ 0 — a net fix on the screen)
        (or unconditionally when ``config.enabled`` is False).
    Raises:
        ConfigurationError: when the two outcome sets cover different questions (not the same V),
            or an outcome is not a finite number (NaN, infinity).
    """
    if set(parent) != set(candidate):
        raise ConfigurationError("gate: parent and candidate were scored on different validation sets")
    ids = sorted(parent)
    for scores in (parent, candidate):
        bad = next((q for q in ids if not math.isfinite(float(scores[q]))), None)
        if bad is not None:  # NaN is neither a win nor a loss: V would look silent and the screen decide
            raise ConfigurationError(f"gate: outcome {scores[bad]!r} of question {bad!r} is not a finite number")
    diffs = [float(candidate[q]) - float(parent[q]) for q in ids]
    n = max(len(ids), 1)
    p_mean = sum(float(parent[q]) for q in ids) / n
    c_mean = sum(float(candidate[q]) for q in ids) / n
    gain = c_mean - p_mean
    wins = sum(1 for d in diffs if d > 1e-12)
    losses = sum(1 for d in diffs if d < -1e-12)
    why_not = ""
    posterior: float | None = None
    regression_p: float | None = None
    if config.test == "sign":
        p_value = sign_test(wins, losses)
    elif config.test == "bayes":
        verdict = bayes_decision(wins, losses, len(ids), confidence=1.0 - config.alpha,
                                 budget=config.regression_budget)
        why_not, posterior, regression_p = verdict.why_not, verdict.posterior, verdict.regression_p
        p_value = 1.0 - posterior  # supported (why_not == "") decides, not p ≤ alpha
    elif config.test == "bootstrap":
        p_value = paired_bootstrap(diffs, resamples=config.resamples, seed=config.seed)
    else:
        p_value = 0.0 if gain > 0 else 1.0
    stats = f"gain {gain:+.4f} (τ={config.tau}), {wins} up / {losses} down of {len(ids)}, {config.test} p={p_value:.3f}"
    if posterior is not None:
        stats += f", P(net gain)={posterior:.3f}, regression p={regression_p:.3f}"
    p_tok, c_tok = _mean_cost(parent_tokens, ids), _mean_cost(candidate_tokens, ids)
    change = None if p_tok is None or c_tok is None or p_tok <= 0 else c_tok / p_tok - 1.0
    if change is not None:
        stats += f", tokens {p_tok:.0f} -> {c_tok:.0f} ({100 * change:+.1f}%)"
    if left_out:
        stats += f", {left_out} source question(s) of V left out"
    neutral = wins == 0 and losses == 0
    if not config.enabled:
        decision, reason = "accepted", f"gate disabled (ablation); {stats}"
    elif neutral and change is not None and change > config.token_tolerance:
        decision, reason = "rejected", f"equal score, more tokens: {stats}"
    elif neutral and change is not None and change <= -config.token_saving and config.tau <= 0:
        decision, reason = "accepted", f"equal score, fewer tokens: {stats}"
    elif config.test == "bayes" and config.accept_neutral and neutral and config.tau <= 0:
        supported, why = neutral_decision(screen)
        decision, reason = ("accepted" if supported else "rejected"), f"{why}: {stats}"
    elif gain + 1e-12 < config.tau or (config.test == "bayes" and gain <= 1e-12):
        decision, reason = "rejected", f"below margin: {stats}"
    elif why_not:
        decision, reason = "rejected", f"posterior does not support the gain ({why_not}): {stats}"
    elif config.test != "bayes" and p_value > config.alpha:
        decision, reason = "rejected", f"paired test does not support the gain (α={config.alpha}): {stats}"
    elif change is not None and change > config.token_tolerance and gain + 1e-12 < config.token_price * change:
        decision, reason = "rejected", (f"the gain does not pay for the larger answers (needs ≥ "
                                        f"{config.token_price * change:.4f} at price {config.token_price}): {stats}")
    else:
        decision, reason = "accepted", stats
    return GateDecision(decision, p_mean, c_mean, gain, wins, losses, p_value, reason,
                        dict(parent), dict(candidate), size=len(ids), posterior=posterior,
                        regression_p=regression_p, parent_tokens=p_tok, candidate_tokens=c_tok, left_out=left_out,
                        screen=screen)


class Gate:
    """Scores candidate versions against a cached parent score on one validation set.

    Args:
        score: ``score(ontology) -> {question id: outcome}``; the backbone bound to V (same
            scorer/agent, model, decoding and budgets for every call).
        backbone_key: any hashable describing the backbone and V; the parent cache is keyed on
            (parent key, backbone_key), so changing either rescoring the parent.
        config: :class:`GateConfig`.

    ``parent_scores(key, ontology)`` reuses the cached outcomes while parent and backbone are
    unchanged; ``evaluate(parent_key, parent, candidate)`` returns a :class:`GateDecision`.
    ``scorings`` counts backbone calls (useful in tests and reports).
    """

    def __init__(self, score: Callable[[object], Outcomes], *, backbone_key: Hashable = "default",
                 config: GateConfig | None = None):
        self._score = score
        self.backbone_key = backbone_key
        self.config = config or GateConfig()
        self._cache: dict[tuple, dict] = {}
        self.scorings = 0

    def parent_scores(self, parent_key: Hashable, parent) -> dict:
        """Outcomes of the parent on V, computed once per (parent_key, backbone_key)."""
        key = (parent_key, self.backbone_key)
        if key not in self._cache:
            self._cache.clear()  # only the current parent is ever needed again
            self._cache[key] = dict(self._score(parent))
            self.scorings += 1
        return self._cache[key]

    def evaluate(self, parent_key: Hashable, parent, candidate) -> GateDecision:
        """Score ``candidate`` on V and compare it with the (cached) parent outcomes."""
        parent_outcomes = self.parent_scores(parent_key, parent)
        candidate_outcomes = dict(self._score(candidate))
        self.scorings += 1
        return compare(parent_outcomes, candidate_outcomes, self.config)
