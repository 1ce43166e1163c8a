"""Attribution: which layer a failure signature belongs to, and why.

Paper §"Evolution loop", step *attribute*: each signature is assigned to the Content layer (a missing
or wrong Term, synonym, Mapping, Evidence, Constraint or relation), the Tool layer (the information
exists but the tools did not surface it or the agent did not use it) or the Schema layer (the content
cannot be expressed with the current node/relation types). The candidate writers then edit only that
level.
"""

from __future__ import annotations

from dataclasses import dataclass

from evoonto.evolution.diagnose import Signature
from evoonto.evolution.view import OntologyView

LEVELS = ("content", "tool", "schema")


@dataclass(frozen=True)
class Attribution:
    """A signature with its level (``content``/``tool``/``schema``) and a one-line reason."""

    signature: Signature
    level: str
    reason: str


def attribute(signature: Signature, view: OntologyView | None = None) -> Attribution:
    """Assign one signature to a level.

    Rules (deterministic):

    * ``unlinked_phrase``: Content — no Term carries the phrase as a label or value, so a synonym
      (``skos:altLabel``) or value Evidence is missing.
    * ``missing_value``: Content — a value the source holds has no Evidence.
    * ``guessed_join``: Content when the vocab declares the ``evo:Association`` relation type (a
      relation with its join condition is missing); Schema otherwise (the type must be declared
      first). Without a view the Schema layer is unknown and Content is assumed.
    * ``unnamed_value``: Content — a failed task's verified SQL filters on a value the question names
      in words no label of the value carries.
    * ``unknown_column``: Content — a label led the agent to a column name that does not exist
      (a hidden label / Mapping correction is needed).
    * ``stale_evidence``: Content — a record the agent used was invalidated by a drift check.
    * ``missing_measure``: Content — a failed task's verified SQL computes an aggregate or applies a
      condition that no metric Term or named-filter Constraint records.
    * ``shallow_retrieval``, ``crowded_retrieval``, ``ignored_constraint``, ``repeated_probe``: Tool —
      the content is there
      (every phrase linked / the Constraint exists / the agent kept asking) but the tools did not
      surface it or steer the agent.
    """
    kind = signature.kind
    if kind == "unlinked_phrase":
        return Attribution(signature, "content",
                           f"no Term label, synonym or Evidence value mentions {signature.key!r}")
    if kind == "missing_value":
        return Attribution(signature, "content",
                           f"value {signature.key!r} is in the source but in no Evidence")
    if kind == "unnamed_value":  # the verified SQL filters on a value the question names in other words
        return Attribution(signature, "content", f"the failed tasks' verified SQL uses {signature.key}, a value "
                                                 "no word of the question states and no label names")
    if kind == "unknown_column":
        return Attribution(signature, "content", f"the agent used a non-existent column {signature.key!r}")
    if kind == "missing_measure":  # the team's verified SQL computes it; no record names it
        what = "metric Term" if signature.detail("measure") == "metric" else "named filter (Constraint)"
        return Attribution(signature, "content", f"the failed tasks' verified SQL uses "
                                                 f"{signature.detail('expression')!r}, which no {what} records")
    if kind == "stale_evidence":  # a drift check invalidated it: re-probe, update or deprecate
        return Attribution(signature, "content", f"{signature.key} is stale: {signature.detail('note', '')}")
    if kind == "guessed_join":
        from evoonto.namespaces import EVO

        if view is None or has_relation_type(view, EVO.Association):
            return Attribution(signature, "content", f"join {signature.key} is recorded by no relation")
        return Attribution(signature, "schema", "the schema has no relation type to record a join "
                                                "(evo:Association is not an evo:RelationType of the vocab)")
    if kind == "ignored_constraint":
        return Attribution(signature, "tool", "the Constraint exists but the agent's SQL ignored it")
    if kind == "crowded_retrieval":
        return Attribution(signature, "tool", "browse spent its answer on one column's Terms; the other "
                                              "columns the question names were cut off")
    if kind == "repeated_probe":
        return Attribution(signature, "tool", "the agent repeated the same call; the manifest did not guide it")
    return Attribution(signature, "tool", "every phrase was linked yet the needed items were not surfaced")


def has_relation_type(view: OntologyView, rel_type) -> bool:
    """True when ``rel_type`` is declared an ``evo:RelationType`` in the view's vocab graph (the
    SHACL shapes require exactly that of every relation's ``evo:relationType``)."""
    from rdflib import RDF

    from evoonto.namespaces import EVO

    return (rel_type, RDF.type, EVO.RelationType) in view.vocab
