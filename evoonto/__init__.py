"""evoonto: a self-evolving ontology layer for data agents.

Implements "EvoOntology: A Self-Evolving Ontology Layer for Data Agents" (arXiv 2609.15779) on the
semantic-web stack: an OWL vocabulary and SHACL shapes (Schema layer), an RDF graph of Terms,
Mappings, Constraints and Evidence (Content layer), SPARQL-backed browse/resolve tools served over
MCP (Tool layer), an evidence-grounded builder and a gated evolution loop.

The names most programs need are importable from the package itself::

    from evoonto import OntologyTools, Workspace, create_workspace

    ws = create_workspace("onto", ["concert.sqlite"], "questions.jsonl")   # built, validated, written

Everything else lives in its module (``docs/architecture.md`` §1 lists them and what each may
import). Importing this package is cheap: the names above are loaded from their modules on first
use (PEP 562 module ``__getattr__``), so ``import evoonto`` or ``evoonto --version`` does not load
the RDF core, the builder or the Tool layer until a program asks for one of them.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evoonto.version import __version__

if TYPE_CHECKING:  # the names resolved lazily below, for type checkers and readers
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
    from evoonto.workspace import Workspace, workspace_base_iri

#: Public name -> the module it is loaded from on first use.
_LAZY: dict[str, str] = {
    "BuildResult": "evoonto.builder", "build": "evoonto.builder", "write_workspace": "evoonto.builder",
    "workspace_base_iri": "evoonto.workspace", "EvoontoError": "evoonto.errors",
    "Lexicon": "evoonto.lexicon", "EVO": "evoonto.namespaces", "Ontology": "evoonto.ontology",
    "Patch": "evoonto.patch", "Constraint": "evoonto.records", "Evidence": "evoonto.records",
    "Mapping": "evoonto.records", "Relation": "evoonto.records", "Term": "evoonto.records",
    "open_source": "evoonto.sources", "OntologyTools": "evoonto.tools.toolkit",
    "ValidationReport": "evoonto.validation", "validate": "evoonto.validation", "Workspace": "evoonto.workspace",
}


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use (then it is a plain module attribute).

    Raises:
        AttributeError: ``name`` is not a public name of the package.
    """
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'evoonto' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


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
    from evoonto.builder import build
    from evoonto.workspace import Workspace

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
