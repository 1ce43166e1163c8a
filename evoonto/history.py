"""Version history in PROV-O: the metadata graph of each patch and the entries read back from it.

For a patch ``P`` deciding version ``n`` from parent ``n-1`` the metadata graph
``evog:patch/P/meta`` holds (docs/architecture.md §3, "History")::

    <B patch/P> a evo:Patch, prov:Entity ; dcterms:identifier "P" ; evo:level "content" ;
        evo:signature "…" ; evo:intervention "…" ; evo:fingerprint "…" ; prov:generatedAtTime … .
    <B gate/P> a evo:Gate, prov:Activity ; prov:used <B version/n-1>, <B patch/P> ;
        evo:decision "accepted" | "rejected" | "invalid" | "proposed" ; evo:parentScore 0.81 ; evo:candidateScore 0.84 ;
        prov:endedAtTime … ; evo:metadata "{…json…}" .
    # accepted only:
    <B gate/P> prov:generated <B version/n> .
    <B version/n> a evo:Version, prov:Entity ; evo:versionNumber n ; prov:wasRevisionOf <B version/n-1> ;
        prov:wasGeneratedBy <B gate/P> ; prov:generatedAtTime … .

The ``history`` graph of a workspace is the base's history (version 0) plus every metadata graph.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

import rdflib
from rdflib import Literal
from rdflib.namespace import DCTERMS, PROV, RDF, XSD

from evoonto.errors import WorkspaceError
from evoonto.iris import IriFactory
from evoonto.namespaces import EVO

if TYPE_CHECKING:
    from evoonto.patch import Patch

#: Gate decisions.
DECISIONS = ("accepted", "rejected", "invalid", "proposed")
_SCORE_KEYS = {"parent_score": EVO.parentScore, "candidate_score": EVO.candidateScore}


def now_utc() -> dt.datetime:
    """The current time, UTC, second precision."""
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def _time(value: dt.datetime) -> Literal:
    return Literal(value.isoformat(), datatype=XSD.dateTime)


@dataclass
class PatchEntry:
    """One patch of the history (accepted, rejected or invalid).

    Attributes: seq (file sequence number), id, level, decision, version (the version it produced,
    None unless accepted), parent_version, signature, intervention, fingerprint, created (ISO time),
    scores ``{"parent_score": float, "candidate_score": float}`` when given, metadata (other caller
    keys), restores (version restored by a rollback, else None), file (path name, set by the workspace).
    """

    seq: int
    id: str
    level: str
    decision: str
    version: int | None
    parent_version: int
    signature: str = ""
    intervention: str = ""
    fingerprint: str = ""
    created: str = ""
    scores: dict[str, float] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    restores: int | None = None
    file: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the entry."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def new_workspace_id() -> str:
    """A new workspace identity: ``"urn:uuid:<random UUID 4>"`` (RFC 9562), unique per ``init``."""
    return f"urn:uuid:{uuid.uuid4()}"


def base_history(iris: IriFactory, created: dt.datetime | None = None, *, identity: str | None = None) -> list[tuple]:
    """History triples of version 0 (the base).

    ``<B version/0> dcterms:identifier "urn:uuid:…"`` is the workspace's identity (``identity``, or a
    new :func:`new_workspace_id`): two workspaces under one base IRI, even made in the same second,
    have different ones (a remote store tells them apart by it, :func:`evoonto.remote.push`).
    """
    v0 = iris.version(0)
    return [
        (v0, RDF.type, EVO.Version), (v0, RDF.type, PROV.Entity),
        (v0, EVO.versionNumber, Literal(0, datatype=XSD.integer)),
        (v0, PROV.generatedAtTime, _time(created or now_utc())),
        (v0, DCTERMS.identifier, Literal(identity or new_workspace_id())),
    ]


def workspace_identity(history: Iterable[tuple], iris: IriFactory) -> str | None:
    """The identity recorded in a ``history`` graph's triples (see :func:`base_history`), or ``None``
    for a workspace made before identities were minted."""
    v0 = iris.version(0)
    for s, p, o in history:
        if s == v0 and p == DCTERMS.identifier:
            return str(o)
    return None


def meta_triples(iris: IriFactory, patch: Patch, *, decision: str, parent_version: int, version: int | None,
                 metadata: dict | None = None, created: dt.datetime | None = None,
                 restores: int | None = None) -> list[tuple]:
    """The metadata-graph triples of ``patch`` (see module docstring).

    Args:
        iris: the workspace's IRI factory.
        patch: the :class:`~evoonto.patch.Patch`.
        decision: ``"accepted" | "rejected" | "invalid" | "proposed"`` (gate-accepted, waiting for a
            person's approval under ``approval: manual``).
        parent_version: the version the patch was evaluated against.
        version: the version it produced (accepted only).
        metadata: caller keys; ``parent_score`` / ``candidate_score`` become PROV-typed scores,
            the rest is kept as a JSON literal (``evo:metadata``).
        restores: for rollbacks, the version restored.

    Raises:
        WorkspaceError: unknown decision, or metadata that is not JSON-serialisable.
    """
    if decision not in DECISIONS:
        raise WorkspaceError(f"unknown gate decision {decision!r}; expected one of {', '.join(DECISIONS)}")
    created = created or now_utc()
    p, gate = iris.patch(patch.id), iris.gate(patch.id)
    parent = iris.version(parent_version)
    out = [
        (p, RDF.type, EVO.Patch), (p, RDF.type, PROV.Entity),
        (p, DCTERMS.identifier, Literal(patch.id)),
        (p, EVO.level, Literal(patch.level)),
        (p, EVO.fingerprint, Literal(patch.fingerprint)),
        (p, PROV.generatedAtTime, _time(created)),
        (gate, RDF.type, EVO.Gate), (gate, RDF.type, PROV.Activity),
        (gate, PROV.used, parent), (gate, PROV.used, p),
        (gate, EVO.decision, Literal(decision)),
        (gate, PROV.endedAtTime, _time(created)),
    ]
    if patch.signature:
        out.append((p, EVO.signature, Literal(patch.signature)))
    if patch.intervention:
        out.append((p, EVO.intervention, Literal(patch.intervention)))
    if restores is not None:
        out.append((p, EVO.restoresVersion, iris.version(restores)))
    extra = {}
    for key, value in (metadata or {}).items():
        if key in _SCORE_KEYS and value is not None:
            out.append((gate, _SCORE_KEYS[key], Literal(float(value), datatype=XSD.double)))
        elif key != "decision":
            extra[key] = value
    if extra:
        try:
            out.append((gate, EVO.metadata, Literal(json.dumps(extra, sort_keys=True, ensure_ascii=False))))
        except (TypeError, ValueError) as exc:
            raise WorkspaceError(f"patch metadata is not JSON-serialisable: {exc}") from None
    if decision == "accepted":
        if version is None:
            raise WorkspaceError("an accepted patch needs the version it produces")
        v = iris.version(version)
        out += [
            (gate, PROV.generated, v),
            (v, RDF.type, EVO.Version), (v, RDF.type, PROV.Entity),
            (v, EVO.versionNumber, Literal(version, datatype=XSD.integer)),
            (v, PROV.wasRevisionOf, parent), (v, PROV.wasGeneratedBy, gate),
            (v, PROV.generatedAtTime, _time(created)),
        ]
    return out


def _version_number(iri, iris: IriFactory) -> int | None:
    text = str(iri)
    prefix = str(iris.version(0))[:-1]
    if text.startswith(prefix) and text[len(prefix):].isdigit():
        return int(text[len(prefix):])
    return None


def entry_from_meta(triples: Iterable[tuple], patch_id: str, iris: IriFactory, *, seq: int, file: str) -> PatchEntry:
    """Read a :class:`PatchEntry` back from the metadata triples of patch ``patch_id``.

    Raises:
        WorkspaceError: required metadata (level, decision, parent version) is missing.
    """
    graph = rdflib.Graph()
    for t in triples:
        graph.add(t)
    p, gate = iris.patch(patch_id), iris.gate(patch_id)

    def text(s, pred, default=""):
        value = graph.value(s, pred)
        return str(value) if value is not None else default

    level, decision = text(p, EVO.level), text(gate, EVO.decision)
    parents = [v for v in (_version_number(o, iris) for o in graph.objects(gate, PROV.used)) if v is not None]
    if not level or not decision or not parents:
        raise WorkspaceError(f"{file}: patch metadata is incomplete (level, decision and parent version are required)")
    produced = [v for v in (_version_number(o, iris) for o in graph.objects(gate, PROV.generated)) if v is not None]
    scores: dict[str, float] = {}
    for key, pred in _SCORE_KEYS.items():
        score = graph.value(gate, pred)
        if score is not None:
            scores[key] = float(str(score))  # an xsd:double literal; float() of its lexical form
    meta_text = graph.value(gate, EVO.metadata)
    restores = graph.value(p, EVO.restoresVersion)
    return PatchEntry(
        seq=seq, id=patch_id, level=level, decision=decision,
        version=produced[0] if produced else None, parent_version=parents[0],
        signature=text(p, EVO.signature), intervention=text(p, EVO.intervention),
        fingerprint=text(p, EVO.fingerprint), created=text(p, PROV.generatedAtTime),
        scores=scores, metadata=json.loads(str(meta_text)) if meta_text is not None else {},
        restores=_version_number(restores, iris) if restores is not None else None, file=file,
    )


__all__ = ["PatchEntry", "DECISIONS", "base_history", "meta_triples", "entry_from_meta", "now_utc"]
