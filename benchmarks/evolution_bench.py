"""Evolution on the 12 Spider databases (or a BIRD-style set), offline, reciprocal two-fold.

Protocol (DESIGN.md §1 Evaluation; issue 6): the questions of every database are split (seeded) into
folds A and B, each into a construction pool (70%) and a gate validation set V (30%). For each round
(train on A, test on B; then swap) and each database:

* **Baseline**: the raw-schema ontology (bare table/column Terms);
* **Initial**: the builder's ontology from the training fold's construction pool (version 0);
* **Evolved**: Initial after the offline evolution loop (trajectories = the construction pool's
  retrieval runs, gate = V of the training fold, backbone = the schema-linking retrieval policy).
  The 12 per-database workspaces are evolved together (:func:`evoonto.evolution.loop.evolve_group`):
  one candidate may patch several workspaces, and one gate judges it on the pooled V (about 100
  questions per fold instead of 2–13 per database);
* **No gate** (ablation): the same loop with the gate disabled (every valid candidate accepted).

Several gate designs can be compared in one run (``--tests sign bayes``): each is its own gated run
from the same version 0, with the same trajectories and V (shared caches), so the rows differ only
by the gate's decision rule. ``bayes`` is the Beta-binomial posterior with a regression budget
(:func:`evoonto.evolution.gate.bayes_decision`); a candidate that changes no question of V is decided
on its screen evidence (:func:`evoonto.evolution.gate.neutral_decision`); ``sign`` the exact sign test
at α. ``--tests`` with no name runs only the no-gate ablation.

Every round prints its decision and gate statistics (ups / downs on V, regressions per 100
questions of V, and for ``bayes`` the posterior P(net gain | V) and the regression test's p-value).
Reported at the end: held-out strict recall (and column recall, value recall and estimated tokens surfaced) of
each, means over all held-out questions (every question is held out exactly once), rounds accepted /
rejected / invalid, the gate statistics of the decided rounds (mean ups/downs on V, accepted
with a loss, rejected with more ups than downs, V-neutral rounds accepted/rejected), and wall time.
Gold SQL is read only by the scorer (:mod:`evoonto.evaluation.linking`); the builder and the loop
see question texts, tool results and pass/fail only.

Issue 29: the gate and the held-out scorer score each version's **served** answer (the format and
budget of its tools graph, :func:`evoonto.evaluation.backbones.served_policy`), so Tool patches act on
the settings the agent's default answer uses and answer size (tokens) is part of the gate's decision.
``--answer compact:6000`` writes those settings into every version 0 first (the default answer as the
builder is to write it); ``--answer served`` keeps whatever the build wrote. ``--verified N`` replaces
the questions by N verified queries per database (question + SQL a team wrote, here drawn from the
training fold; no other gold): the workspace is built from their questions, the loop diagnoses them
(their SQL is the team's knowledge, so content candidates may use it) and gates each candidate on the
verified queries that did not produce it (leave-the-source-out); held-out recall is measured on the
other fold. Peak RSS (``ru_maxrss``) is printed after every round; accepted patches are counted per
level, and each accepted Content patch is listed with the failed tasks it fixed on its screen.

Usage::

    python benchmarks/evolution_bench.py [--data ../shared/data/spider] [--seed 0] [--rounds 10]
        [--patience 4] [--batch 8] [--tau 0.0] [--alpha 0.25] [--metric strict|column] [--db concert_singer ...]
        [--tests sign bayes] [--regression-budget 0.05] [--benchmark spider|bird] [--answer compact:6000|served]
        [--policy verbose:8000] [--verified 20] [--fold B]
    python benchmarks/evolution_bench.py --data ../shared/data/bird_synth_dev --tests sign bayes   # BIRD layout
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BASE_IRI = "https://example.org/evoonto/eval/"


def _mean(values):
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def _strict(by_question: dict, ids=None) -> float:
    """Mean strict recall of ``{question id: LinkingResult}`` (over ``ids`` when given)."""
    return _mean(float(by_question[i].strict) for i in (by_question if ids is None else ids))


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far, in MiB (``ru_maxrss``, Linux: KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def answer_settings(graphs: dict, answer: str) -> None:
    """Write the served answer's settings (``compact:6000`` → ``evo:answerFormat "compact"``,
    ``evo:answerBudget 6000``) into a build's tools graph; ``served`` leaves the build's own."""
    import rdflib
    from rdflib import RDF, Literal

    from evoonto.iris import IriFactory
    from evoonto.namespaces import EVO

    if answer == "served":
        return
    fmt, _, budget = answer.partition(":")
    tools = graphs.setdefault("tools", rdflib.Graph())
    nodes = sorted(tools.subjects(RDF.type, EVO.BrowseSettings))
    node = nodes[0] if nodes else IriFactory(BASE_IRI).tools("browse")
    tools.add((node, RDF.type, EVO.BrowseSettings))
    for name, value in (("answerFormat", Literal(fmt)), ("answerBudget", Literal(int(budget or 6000)))):
        tools.remove((node, EVO._NS[name], None))
        tools.add((node, EVO._NS[name], value))


class _MeasureCounter:
    """The evolver, counting the distinct ``missing_measure`` candidates it proposes (issue 32 item 4:
    metric Terms and named filters mined from failed tasks' verified SQL) into ``seen``."""

    def __init__(self, inner, seen: set):
        self.inner, self.seen, self.name = inner, seen, inner.name

    def propose(self, trajectories, view, ctx):
        out = self.inner.propose(trajectories, view, ctx)
        self.seen.update((c.signature, c.intervention) for alts in out for c in alts
                         if c.signature.startswith("missing_measure:"))
        return out


def _evolve(experiment, plans, graphs, *, gate_enabled, args, policy, workdir, sources, caches, test="sign",
            verified=None, measures: set | None = None):
    """One workspace per database (version 0 = the build), evolved together with one pooled gate.
    ``verified``: db id → the verified queries (trajectories and V at once, leave-the-source-out);
    ``measures``: collects the distinct ``missing_measure`` candidates proposed."""
    from evoonto.evolution.gate import GateConfig
    from evoonto.evolution.loop import LoopConfig, Member, evolve_group
    from evoonto.experiment import offline_evolver
    from evoonto.workspace import Workspace

    members = []
    for plan in plans:
        ws = Workspace.init(workdir / plan.db_id, base_iri=BASE_IRI)
        ws.replace_base(graphs[plan.db_id])
        members.append((ws, plan))
    backbone = experiment.backbone(metric=args.metric, policy=policy, sources=sources)
    if verified is not None:  # the verified queries' SQL is the team's knowledge: trajectories carry it
        backbone.reveal_sql = True
    evolver = offline_evolver(sources, kinds=tuple(args.kinds))
    if measures is not None:
        evolver = _MeasureCounter(evolver, measures)
    config = LoopConfig(rounds=args.rounds, patience=args.patience, batch_size=args.batch, screen=not args.no_screen,
                        gate=GateConfig(tau=args.tau, alpha=args.alpha, test=test, seed=args.seed,
                                        enabled=gate_enabled, regression_budget=args.regression_budget))

    def on_round(r) -> None:
        print(f"    round {r.round:2d} {r.decision:8s} [{r.level}] {r.edits:2d} edits; {round_statistics(r)}; "
              f"peak RSS {peak_rss_mib():.0f} MiB", flush=True)
        if args.verbose:  # every edit of the candidate (the intervention line names only the first few)
            edits = "".join(f"\n          {change}" for change in r.changes) if len(r.changes) > 1 else ""
            print(f"        {r.intervention}{edits}\n        {r.reason}", flush=True)

    if verified is not None:
        group = [Member(plan.db_id, ws, list(verified[plan.db_id]), list(verified[plan.db_id]),
                        cache=caches.setdefault(plan.db_id, {})) for ws, plan in members]
        result = evolve_group(group, backbone=backbone, evolver=evolver, config=config, on_round=on_round)
    else:
        result = experiment.evolve_group(members, backbone=backbone, evolver=evolver, config=config, caches=caches,
                                         on_round=on_round)
    return {plan.db_id: ws for ws, plan in members}, result


def round_statistics(r) -> str:
    """One round's gate statistics: ups/downs of |V|, regressions per 100, P(net gain) and the
    regression test's p-value (Bayesian gate only), or why the round was not gated."""
    stats = r.statistics
    if not stats:
        return "not gated (invalid)"
    size = stats.get("size", 0)
    text = f"{r.wins} up / {r.losses} down of |V|={size}"
    if size:
        text += f" ({100 * r.losses / size:.1f} regressions per 100)"
    if "posterior" in stats:
        text += f", P(net gain)={stats['posterior']:.3f}, regression p={stats['regression_p']:.3f}"
    else:
        text += f", p={stats.get('p_value', 1.0):.3f}"
    if "parent_tokens" in stats:
        text += f", tokens {stats['parent_tokens']:.0f} -> {stats['candidate_tokens']:.0f}"
    if stats.get("left_out"):
        text += f", {stats['left_out']} source(s) left out"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "spider"))
    parser.add_argument("--seed", type=int, default=0)
    # loop defaults = `evoonto evolve`'s defaults (rounds 10, patience 4, batch 8)
    parser.add_argument("--rounds", type=int, default=10, help="round budget per fold")
    parser.add_argument("--patience", type=int, default=4)
    parser.add_argument("--batch", type=int, default=8, help="signatures bundled per candidate")
    parser.add_argument("--tau", type=float, default=0.0)
    parser.add_argument("--alpha", type=float, default=0.25)
    parser.add_argument("--tests", nargs="*", default=["bayes"], choices=("sign", "bootstrap", "bayes", "none"),
                        help="gate designs, one gated run each (default bayes, the CLI's default gate; "
                             "none given: only the no-gate ablation)")
    parser.add_argument("--regression-budget", type=float, default=0.05,
                        help="bayes: share of questions a patch may make worse; vetoed when V shows at level α "
                             "that it breaks more (default 0.05, GateConfig's)")
    parser.add_argument("--benchmark", default=None, choices=("spider", "bird"),
                        help="layout of --data (default: detected)")
    parser.add_argument("--metric", default="answer", choices=("strict", "column", "answer"),
                        help="per-question outcome the gate compares (held-out reports strict recall)")
    parser.add_argument("--kinds", nargs="+",
                        default=["unused_column", "missing_measure", "unlinked_phrase", "missing_value",
                                 "unnamed_value", "shallow_retrieval", "crowded_retrieval", "guessed_join",
                                 "answer_size"])
    parser.add_argument("--answer", default="compact:6000", metavar="FORMAT:BUDGET|served",
                        help="the served answer written into every version 0's tools graph before evolution "
                             "(default compact:6000); 'served' keeps the build's own settings. The gate and the "
                             "held-out scorer score each version's served answer")
    parser.add_argument("--policy", default=None, metavar="FORMAT:BUDGET",
                        help="score a fixed policy instead of the served one (e.g. verbose:8000; Tool patches of "
                             "the answer settings then do not act on it)")
    parser.add_argument("--verified", type=int, default=None, metavar="N",
                        help="replace the questions by N verified queries per database from the training fold "
                             "(their SQL is the team's knowledge; no other gold reaches evolution)")
    parser.add_argument("--db", nargs="*", default=None, help="only these databases")
    parser.add_argument("--fold", default=None, choices=("A", "B"),
                        help="only the round that holds out this fold")
    parser.add_argument("--no-ablation", action="store_true", help="skip the no-gate ablation")
    parser.add_argument("--no-screen", action="store_true",
                        help="ablation: do not screen alternatives on their own failed tasks (both runs)")
    parser.add_argument("--verbose", "-v", action="store_true", help="print every round")
    args = parser.parse_args(argv)

    from evoonto.evaluation.benchmarks import load_benchmark
    from evoonto.evaluation.linking import LinkingPolicy
    from evoonto.experiment import Experiment
    from evoonto.sources import open_source

    started = time.perf_counter()
    experiment = Experiment(load_benchmark(args.benchmark, args.data), seed=args.seed)  # splits are drawn per database
    bench = experiment.benchmark
    questions = [q for q in bench.questions if not args.db or q.db_id in args.db]
    policy = None
    if args.policy:
        fmt, _, budget = args.policy.partition(":")
        policy = LinkingPolicy(budget_chars=int(budget or 6000), format=fmt)
    # condition -> question id -> LinkingResult (strict, column and value recall, estimated tokens)
    gated_names = [f"gated[{t}]" for t in args.tests]
    names = ["baseline", "initial", *gated_names, "nogate"]
    results: dict = {name: {} for name in names}
    stats: dict = {name: [] for name in [*gated_names, "nogate"]}
    accepted_patches: dict = {name: [] for name in [*gated_names, "nogate"]}
    measure_candidates: dict[str, set] = {}  # run name -> distinct missing_measure candidates proposed
    seen: dict = {name: {"V": {}, "construction": {}} for name in [*gated_names, "nogate"]}  # scored after the run
    tmp = Path(tempfile.mkdtemp(prefix="evoonto-evolution-"))

    sources = {db: open_source(str(bench.databases[db])) for db in sorted({q.db_id for q in questions})}
    scorer = experiment.backbone(metric="strict", policy=policy, sources=sources)

    def score(name, onto, test):
        for q, _, r in scorer.results(onto, list(test)):
            results[name][q.id] = r

    for rnd in experiment.rounds():
        if args.fold and rnd.test_fold != args.fold:
            continue
        t0 = time.perf_counter()
        plans = experiment.plans(rnd, sorted({q.db_id for q in questions}))
        verified = None
        if args.verified:
            import random
            from dataclasses import replace

            verified = {}
            for k, plan in enumerate(plans):
                pool = sorted([*plan.construction, *plan.validation], key=lambda q: q.id)
                random.Random(f"{args.seed}:{plan.db_id}").shuffle(pool)
                verified[plan.db_id] = pool[:args.verified]
                plans[k] = replace(plan, construction=tuple(verified[plan.db_id]), validation=())
        graphs = {plan.db_id: experiment.build(plan, base_iri=BASE_IRI).graphs for plan in plans}
        for g in graphs.values():
            answer_settings(g, args.answer)
        print(f"fold {rnd.test_fold} held out: built {len(plans)} databases in {time.perf_counter() - t0:.1f}s",
              flush=True)
        runs = [(f"gated[{t}]", True, t) for t in args.tests]
        runs += [] if args.no_ablation else [("nogate", False, "none")]
        caches: dict = {}  # version-0 trajectories and V scores, shared by the gated and no-gate runs
        for i, (name, enabled, test_name) in enumerate(runs):
            t1 = time.perf_counter()
            workspaces, result = _evolve(experiment, plans, graphs, gate_enabled=enabled, args=args, policy=policy,
                                         workdir=tmp / f"{rnd.test_fold}-{i}", sources=sources, caches=caches,
                                         test=test_name, verified=verified,
                                         measures=measure_candidates.setdefault(name, set()))
            accepted_patches[name].extend(e for ws in workspaces.values() for e in ws.log()
                                          if e.decision == "accepted")
            stats[name].append(result)
            for plan in plans:
                ws, test = workspaces[plan.db_id], plan.test
                if i == 0:
                    score("baseline", experiment.baseline(plan.db_id), test)
                    score("initial", ws.ontology_at(0), test)
                if ws.version == 0:  # unchanged: the same graphs as Initial
                    for q in test:
                        results[name][q.id] = results["initial"][q.id]
                else:
                    score(name, ws.ontology_at(ws.version), test)  # replayed from files, like version 0
                # the same strict scorer on the questions the loop itself saw (its V, its construction
                # trajectories): how far what the gate saw differs from what held-out questions get
                for part, seen_questions in (("V", plan.validation), ("construction", plan.construction)):
                    if seen_questions:
                        for q, _, r in scorer.results(ws.ontology_at(ws.version), list(seen_questions)):
                            seen[name][part][q.id] = r
            # the run's workspaces (stores, tool indexes) are not needed by the next run: free them first
            del workspaces, ws
            gc.collect()
            ids = [q.id for plan in plans for q in plan.test]
            print(f"  {name:8s} rounds {len(result.rounds):2d}: +{result.accepted} -{result.rejected} "
                  f"!{result.invalid} ({result.stop_reason}); held-out strict initial "
                  f"{_strict(results['initial'], ids):.4f} -> {_strict(results[name], ids):.4f} "
                  f"({time.perf_counter() - t1:.1f}s)", flush=True)
    for src in sources.values():
        src.close()
    elapsed = time.perf_counter() - started

    print()
    print(f"{Path(args.data).name} ({bench.name} layout), {len({q.db_id for q in questions})} databases, "
          f"reciprocal two-fold (seed {args.seed}){'' if not args.fold else f', only fold {args.fold} held out'}; "
          f"{f'{args.verified} verified queries per database; ' if args.verified else ''}"
          f"policy {'served (answer ' + args.answer + ')' if policy is None else policy.to_json()}; "
          f"gates: τ={args.tau}, {', '.join(args.tests)} α={args.alpha}, "
          f"regression budget {args.regression_budget}, "
          f"metric={args.metric}; rounds ≤ {args.rounds}, patience {args.patience}, batch {args.batch}; "
          f"screening {'off' if args.no_screen else 'on'}; diagnosed kinds {', '.join(args.kinds)}")
    print(f"{'condition':14s} {'questions':>9s} {'strict':>8s} {'column':>8s} {'value':>8s} {'avg tokens':>10s}")
    for name in names:
        if results[name]:
            rs = results[name].values()
            print(f"{name:14s} {len(rs):9d} {_strict(results[name]):8.4f} "
                  f"{_mean(r.column_recall for r in rs):8.4f} "
                  f"{_mean(r.value_recall for r in rs if r.value_recall is not None):8.4f} "
                  f"{_mean(r.tokens for r in rs):10.0f}")
    for name, runs in stats.items():
        if runs:
            per_fold = "; ".join(f"fold {i + 1}: +{r.accepted}/-{r.rejected}/!{r.invalid}" for i, r in enumerate(runs))
            print(f"loop {name:14s}: rounds {sum(len(r.rounds) for r in runs)}, accepted "
                  f"{sum(r.accepted for r in runs)}, rejected {sum(r.rejected for r in runs)}, "
                  f"invalid {sum(r.invalid for r in runs)}, screened out before the gate "
                  f"{sum(r.screened_out for r in runs)} ({per_fold})")
            grown = [r for run in runs for r in run.rounds if "missing_measure:" in r.signature]
            count = {d: sum(r.decision == d for r in grown) for d in ("accepted", "rejected", "invalid")}
            print(f"  semantic layer (missing_measure: metric Terms / named filters from verified SQL): "
                  f"{len(measure_candidates.get(name, ()))} distinct candidates proposed, in {len(grown)} round "
                  f"batch(es): " + ", ".join(f"{d} {n}" for d, n in count.items()))
            decided = [r for run in runs for r in run.rounds if r.decision in ("accepted", "rejected")]
            if decided:
                print(f"  gate statistics: mean wins/losses on V per decided round "
                      f"{_mean(r.wins for r in decided):.1f} up / {_mean(r.losses for r in decided):.1f} down; "
                      f"accepted with ≥1 loss: {sum(1 for r in decided if r.decision == 'accepted' and r.losses)}; "
                      f"rejected with more ups than downs: "
                      f"{sum(1 for r in decided if r.decision == 'rejected' and r.wins > r.losses)}; "
                      f"V-neutral (0 up / 0 down) accepted "
                      f"{sum(1 for r in decided if r.decision == 'accepted' and not r.wins and not r.losses)}, "
                      f"rejected {sum(1 for r in decided if r.decision == 'rejected' and not r.wins and not r.losses)}")
    databases = len({q.db_id for q in questions})
    for name, patches in accepted_patches.items():
        if not stats[name]:
            continue
        levels = {level: sum(1 for e in patches if e.level == level) for level in ("content", "tool", "schema")}
        print(f"accepted patches {name}: " + ", ".join(f"{k} {v}" for k, v in levels.items())
              + f" ({levels['content'] / max(databases, 1):.2f} Content per database per run)")
        for e in patches:
            if e.level == "content":
                fixed = e.metadata.get("fixed_tasks") or []
                print(f"    content {e.id}: {e.intervention[:400]}; fixed {len(fixed)}: {', '.join(fixed[:6])}")
    tokens = {name: _mean(r.tokens for r in results[name].values()) for name in names if results[name]}
    for name in gated_names:
        gain = 100 * (_strict(results[name]) - _strict(results["initial"]))
        print(f"{name} tokens vs Initial: {tokens[name]:.0f} vs {tokens['initial']:.0f} "
              f"({100 * (tokens[name] / max(tokens['initial'], 1e-9) - 1):+.1f}%)")
        saving = 1 - tokens[name] / max(tokens["initial"], 1e-9)
        met = (gain >= 5 and saving >= 0) or (gain >= 0 and saving >= 0.25)
        print(f"{name} − Initial (held-out strict recall): {gain:+.2f} points at {100 * saving:.1f}% fewer tokens "
              f"(target: ≥ +5 points at no more tokens, or no loss at ≥ 25% fewer tokens: "
              f"{'met' if met else 'not met'})")
        lost = [(qid, r) for qid, r in sorted(results[name].items())
                if results["initial"][qid].strict and not r.strict]
        if lost:  # which held-out questions the evolved versions lost, and what they miss
            print(f"{name}: {len(lost)} held-out question(s) lost strict recall: " + "; ".join(
                f"{qid} misses {', '.join(map(str, (*r.missing_columns, *r.missing_values))) or 'nothing'}"
                for qid, r in lost[:10]))
        if results["nogate"]:
            diff = 100 * (_strict(results["nogate"]) - _strict(results[name]))
            print(f"No-gate − {name}: {diff:+.2f} points (target ≤ 0)")
    if results["nogate"]:
        gain = 100 * (_strict(results["nogate"]) - _strict(results["initial"]))
        print(f"nogate − Initial (held-out strict recall): {gain:+.2f} points")
    for name, parts in seen.items():
        if parts["V"] or parts["construction"]:
            print(f"{name}, the evolved versions on the questions the loop saw: strict "
                  + ", ".join(f"{part} {_strict(by_id):.4f} ({len(by_id)} questions)"
                              for part, by_id in parts.items() if by_id)
                  + f"; held-out {_strict(results[name]):.4f}")
    print(f"wall time {elapsed:.1f} s; peak RSS {peak_rss_mib():.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
