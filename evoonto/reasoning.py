"""Optional OWL consistency check of the Schema layer with owlready2 + HermiT (needs Java).

The vocabulary stays inside OWL 2 RL and closed-world rules live in SHACL, so this check is a
safety net for schema patches: it loads the ``vocab`` graph into a private owlready2 world, runs
HermiT (bundled with owlready2; runs on Java 17, DESIGN.md §9) and reports whether the ontology is
consistent and which classes are unsatisfiable (equivalent to ``owl:Nothing``).
"""

from __future__ import annotations

import io
import shutil
import time
from dataclasses import dataclass, field
from typing import Any

import rdflib

from evoonto.errors import EvoontoError
from evoonto.optional import require


class ReasoningError(EvoontoError):
    """The OWL reasoner cannot run (Java missing, owlready2 failure)."""


@dataclass
class ConsistencyReport:
    """Outcome of :func:`check_consistency`.

    Attributes: consistent; unsatisfiable: IRIs of classes equivalent to owl:Nothing;
    seconds: reasoner wall time (s); message: reasoner output on inconsistency.
    """

    consistent: bool
    unsatisfiable: list[str] = field(default_factory=list)
    seconds: float = 0.0
    message: str = ""

    @property
    def ok(self) -> bool:
        """Consistent and without unsatisfiable classes."""
        return self.consistent and not self.unsatisfiable

    def text(self) -> str:
        """One readable line."""
        if not self.consistent:
            return f"inconsistent ({self.seconds:.1f} s): {self.message}"
        if self.unsatisfiable:
            return f"consistent, {len(self.unsatisfiable)} unsatisfiable class(es): {', '.join(self.unsatisfiable[:5])}"
        return f"consistent, all classes satisfiable ({self.seconds:.1f} s)"


def java_executable() -> str | None:
    """The Java executable owlready2 will use, or None when there is none."""
    owlready2 = require("owlready2")

    configured = getattr(owlready2, "JAVA_EXE", "java")  # owlready2 is untyped; its setting may be absent
    return shutil.which(configured) or shutil.which("java")


def check_consistency(vocab: rdflib.Graph) -> ConsistencyReport:
    """Run HermiT on an OWL vocabulary graph (e.g. ``ontology.graph("vocab")``).

    Args:
        vocab: the OWL axioms to check (rdflib Graph).

    Returns:
        :class:`ConsistencyReport`.

    Raises:
        ReasoningError: Java is not installed / not on PATH, or owlready2 fails to run HermiT.
    """
    # owlready2 ships no type information: its module is dynamically typed (JAVA_EXE is a plain
    # module global that HermiT's launcher reads).
    owlready2: Any = require("owlready2")

    java = java_executable()
    if java is None:
        raise ReasoningError("the OWL consistency check needs Java (HermiT via owlready2); install a Java runtime "
                             "(e.g. apt-get install default-jre-headless) or set owlready2.JAVA_EXE")
    owlready2.JAVA_EXE = java
    data = vocab.serialize(format="nt", encoding="utf-8")
    world = owlready2.World()
    onto = world.get_ontology("https://w3id.org/evoonto/ns")
    start = time.perf_counter()
    try:
        onto.load(fileobj=io.BytesIO(data), format="ntriples")
        with onto:
            owlready2.sync_reasoner_hermit(world, infer_property_values=False, debug=0)
    except owlready2.OwlReadyInconsistentOntologyError as exc:
        message = str(exc).strip()[:500] or "HermiT found no model (e.g. an individual of disjoint classes)"
        return ConsistencyReport(False, seconds=time.perf_counter() - start, message=message)
    except (OSError, owlready2.OwlReadyError) as exc:
        raise ReasoningError(f"HermiT failed: {str(exc).strip().splitlines()[0] if str(exc).strip() else exc}") from exc
    seconds = time.perf_counter() - start
    nothing = "http://www.w3.org/2002/07/owl#Nothing"
    unsat = sorted(str(c.iri) for c in world.inconsistent_classes() if str(c.iri) != nothing)
    try:
        world.close()
    except Exception:  # noqa: BLE001 - closing an in-memory world is best effort
        pass
    return ConsistencyReport(True, unsat, seconds)


__all__ = ["check_consistency", "ConsistencyReport", "ReasoningError", "java_executable"]
