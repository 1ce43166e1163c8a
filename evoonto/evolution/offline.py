"""The offline evolver: deterministic diagnose → attribute → propose, no network.

It is the default ``--evolver offline``. The LLM evolver (:mod:`evoonto.evolution.llm`) implements the
same ``propose`` interface, so the loop, gate and history code are shared.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from evoonto.evolution.attribute import attribute
from evoonto.evolution.candidates import Candidate, propose
from evoonto.evolution.diagnose import KINDS, diagnose
from evoonto.evolution.edits import EditContext
from evoonto.evolution.probes import ValueProber
from evoonto.evolution.view import OntologyView
from evoonto.lexicon import Lexicon


@dataclass
class OfflineEvolver:
    """Heuristic evolver.

    Args:
        prober: read-only value prober over the sources (None: no value probes).
        kinds: signature kinds to diagnose. max_signatures: most frequent signatures considered per
        round. max_alternatives: candidates written per signature. lexicon: cue words and synonym
        sets for the candidate writers (None: the packaged lexicon; a workspace passes
        ``Lexicon.load(workspace.path)``).
    """

    prober: ValueProber | None = None
    kinds: tuple[str, ...] = KINDS
    max_signatures: int = 60
    max_alternatives: int = 3
    lexicon: Lexicon | None = None
    name: str = "offline"
    last_signatures: list = field(default_factory=list, repr=False)

    def propose(self, trajectories, view: OntologyView, ctx: EditContext) -> list[list[Candidate]]:
        """One list of candidate alternatives per signature, most frequent signature first."""
        signatures = diagnose(trajectories, view, prober=self.prober, kinds=self.kinds, lexicon=self.lexicon)
        self.last_signatures = signatures
        out = []
        for sig in signatures[: self.max_signatures]:
            alts = propose(attribute(sig, view), view, prober=self.prober,
                           max_alternatives=self.max_alternatives, lexicon=self.lexicon, iris=ctx.iris, now=ctx.now)
            if alts:  # a saving ranks after every fix (its tasks are the outcomes it must keep)
                out.append([replace(c, frequency=sig.frequency if c.aim == "score" else 0, tasks=sig.tasks)
                            for c in alts])
        return out
