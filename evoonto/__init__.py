"""evoonto: a self-evolving ontology layer for data agents.

Implements "EvoOntology: A Self-Evolving Ontology Layer for Data Agents" (arXiv 2609.15779) on the
semantic-web stack: an OWL vocabulary and SHACL shapes (Schema layer), an RDF graph of Terms,
Mappings, Constraints and Evidence (Content layer), SPARQL-backed browse/resolve tools served over
MCP (Tool layer), an evidence-grounded builder and a gated evolution loop.

The names most programs need are importable from the package itself::

    from evoonto import OntologyTools, Workspace, create_workspace

    ws = create_workspace("onto", ["concert.sqlite"], "questions.jsonl")   # built, validated, written

Everything else lives in its module (``docs/architecture.md`` §1 lists them and what each may
import). Importing this package loads the RDF core, the builder and the Tool layer (about a second);
the MCP SDK, the Claude SDK and the evaluation harness load only when used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evoonto.builder import BuildResult, build, write_workspace
from evoonto.errors import EvoontoError
from evoonto.lexicon import Lexicon
from evoonto.namespaces import EVO
from evoonto.ontology import Ontology
from evoonto.patch import Patch
from evoonto.records import Constraint, Evidence, Mapping, Relation, Term
from evoonto.sources import open_source
from evoonto.tools.toolkit import OntologyTools
from evoonto.validation import ValidationReport, validate
from evoonto.version import __version__
from evoonto.workspace import Workspace, workspace_base_iri


def create_workspace(path: str | Path, sources: Any, workload: Any = None, *, force: bool = False,
                     **options: Any) -> Workspace:
    """Build a workspace at ``path`` from ``sources`` (and an optional question ``workload``) with the
    evoonto builder and write it as version 0: :meth:`Workspace.create` with :func:`build`.

    Args:
        path: the workspace directory; sources: paths/URLs or open sources; workload: a workload
            file or questions; force: replace an existing workspace (moved to ``backups/``);
        **options: :func:`build`'s keyword options (``proposer``, ``verified``, ``documentation`` …).

    Returns:
        The open :class:`Workspace` (``.built``: the :class:`BuildResult`).

    Raises:
        WorkspaceError, SourceError, WorkloadError, ConfigurationError, ShapeViolationError: see
            :meth:`Workspace.create`.
    """
    return Workspace.create(path, sources, workload, force=force, builder=build, **options)

__all__ = [
    "BuildResult",
    "Constraint",
    "EVO",
    "Evidence",
    "EvoontoError",
    "Lexicon",
    "Mapping",
    "Ontology",
    "OntologyTools",
    "Patch",
    "Relation",
    "Term",
    "ValidationReport",
    "Workspace",
    "__version__",
    "build",
    "create_workspace",
    "open_source",
    "validate",
    "workspace_base_iri",
    "write_workspace",
]
