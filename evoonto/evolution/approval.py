"""Manual approval of gate-accepted patches (issue 14 item 3).

With the workspace setting ``approval: manual`` (``evoonto review --approval manual`` sets it), the
loop records a gate-accepted candidate as ``proposed`` (its patch file and gate activity are kept,
the active version does not change). A person then decides:

* :func:`approve` commits the proposal as a new version (patch id ``<proposal id>-approved``, with
  the proposal's gate scores and ``approved_by``/``proposal`` in its metadata);
* :func:`reject` records it rejected (patch id ``<proposal id>-rejected``, with ``why``), so the
  loop never proposes it again.

The served version is always base + accepted (approved) patches. None of this is reachable from
the MCP tools: only the command line and this Python API decide, so an agent can neither approve a
patch nor change the approval policy.
"""

from __future__ import annotations

import dataclasses
import getpass
from dataclasses import dataclass
from typing import Any

from evoonto.errors import ConfigurationError, WorkspaceError

APPROVAL_MODES = ("auto", "manual")


@dataclass(frozen=True)
class Proposal:
    """One proposed patch waiting for a decision.

    Attributes:
        number: 1-based position among every proposal the workspace ever recorded, in log order
            (what ``evoonto approve N`` takes). It never changes: deciding proposal 1 leaves
            proposal 2 numbered 2, and a decided proposal's number is not given to another.
        entry: its :class:`~evoonto.history.PatchEntry` (id, level, signature, scores, metadata).
    """

    number: int
    entry: Any

    @property
    def id(self) -> str:
        return str(self.entry.id)

    @property
    def ups(self) -> list[str]:
        """Questions of V whose outcome improved under the patch."""
        return list(self.entry.metadata.get("ups") or [])

    @property
    def downs(self) -> list[str]:
        """Questions of V whose outcome got worse under the patch."""
        return list(self.entry.metadata.get("downs") or [])


def set_approval(workspace: Any, mode: str) -> None:
    """Store the approval policy (``auto`` or ``manual``) in the workspace settings.

    Raises:
        ConfigurationError: another mode. WorkspaceError: the workspace cannot be written.
    """
    if mode not in APPROVAL_MODES:
        raise ConfigurationError(f"unknown approval mode {mode!r}; choose auto or manual")
    workspace.set_setting("approval", mode)


def decisions(workspace: Any) -> dict[str, Any]:
    """Proposal patch id -> the log entry (:class:`~evoonto.history.PatchEntry`) that approved
    (``accepted``) or rejected it, for every decided proposal of the workspace."""
    out: dict[str, Any] = {}
    for entry in workspace.log():
        proposal = entry.metadata.get("proposal")
        if isinstance(proposal, str) and entry.decision in ("accepted", "rejected"):
            out.setdefault(proposal, entry)
    return out


def _all_proposals(workspace: Any) -> list[Proposal]:
    """Every proposal the workspace recorded, open or decided, with its stable number."""
    return [Proposal(i, e) for i, e in enumerate((e for e in workspace.log() if e.decision == "proposed"), 1)]


def proposals(workspace: Any) -> list[Proposal]:
    """The open proposals of a workspace (``proposed`` and not yet approved or rejected), oldest
    first, each with its stable :attr:`Proposal.number`."""
    decided = decisions(workspace)
    return [p for p in _all_proposals(workspace) if p.id not in decided]


def find_proposal(workspace: Any, ref: str) -> Proposal:
    """The open proposal numbered ``ref`` (as ``evoonto review`` lists them) or with patch id ``ref``.

    Raises:
        WorkspaceError: no such open proposal: the message says when ``ref`` was decided already
            and lists the open ones.
    """
    found = proposals(workspace)
    for p in found:
        if ref == str(p.number) or ref == p.id:
            return p
    listed = ", ".join(f"{p.number} ({p.id})" for p in found) or "none"
    decided = decisions(workspace)
    for p in _all_proposals(workspace):
        if (ref == str(p.number) or ref == p.id) and p.id in decided:
            outcome = "approved" if decided[p.id].decision == "accepted" else decided[p.id].decision
            raise WorkspaceError(f"proposal {p.number} ({p.id}) was {outcome} already; open proposals: {listed}")
    raise WorkspaceError(f"no open proposal {ref!r}; open proposals: {listed}")


def _reviewer(by: str | None) -> str:
    if by:
        return by
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name (containers)
        return "unknown"


def approve(workspace: Any, ref: str, *, by: str | None = None) -> int:
    """Commit an open proposal as the next version; returns the new version number.

    The proposal was gated against the version that was active then; when other patches were
    approved since, the commit re-validates it on the active version (SHACL, no-op rows dropped).

    Args:
        workspace: an open :class:`~evoonto.workspace.Workspace`. ref: proposal number or patch id.
        by: who approves (default: the login name).
    Raises:
        WorkspaceError: no such open proposal, or the workspace is locked/changed on disk.
        ShapeViolationError / PatchError: the patch no longer fits the active version (reject it).
    """
    from evoonto.errors import ShapeViolationError
    from evoonto.patch import PatchError

    proposal = find_proposal(workspace, ref)
    patch = workspace.patch(proposal.id)
    meta = {k: v for k, v in proposal.entry.metadata.items() if k != "decision"}
    meta.update(proposal.entry.scores)
    meta.update({"proposal": proposal.id, "approved_by": _reviewer(by), "decision": "accepted"})
    try:
        return int(workspace.commit(dataclasses.replace(patch, id=f"{proposal.id}-approved"), metadata=meta))
    except (ShapeViolationError, PatchError) as exc:
        gated = proposal.entry.parent_version
        if gated is None or gated == workspace.version:
            raise
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        message = (f"proposal {proposal.number} ({proposal.id}) was gated against version {gated}, and the "
                   f"active version {workspace.version} no longer takes it ({first}); reject it "
                   f"(evoonto reject {proposal.number} --why ...) and run evoonto evolve again")
        if isinstance(exc, ShapeViolationError):
            raise ShapeViolationError(message, report=exc.report) from exc
        raise PatchError(message) from exc


def reject(workspace: Any, ref: str, *, why: str, by: str | None = None) -> None:
    """Record an open proposal as rejected by a person (never proposed again).

    Args:
        workspace: an open Workspace. ref: proposal number or patch id. why: the reason (required).
        by: who rejects (default: the login name).
    Raises:
        ConfigurationError: an empty ``why``. WorkspaceError: no such open proposal, or locked.
    """
    if not why or not why.strip():
        raise ConfigurationError("say why the proposal is rejected (--why TEXT)")
    proposal = find_proposal(workspace, ref)
    patch = workspace.patch(proposal.id)
    meta = {k: v for k, v in proposal.entry.metadata.items() if k != "decision"}
    meta.update(proposal.entry.scores)
    meta.update({"proposal": proposal.id, "rejected_by": _reviewer(by), "why": why.strip()[:2000],
                 "decision": "rejected"})
    workspace.record_rejected(dataclasses.replace(patch, id=f"{proposal.id}-rejected"), metadata=meta)


__all__ = ["APPROVAL_MODES", "Proposal", "approve", "find_proposal", "proposals", "reject", "set_approval"]
