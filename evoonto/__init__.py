"""evoonto: a self-evolving ontology layer for data agents.

Implements "EvoOntology: A Self-Evolving Ontology Layer for Data Agents" (arXiv 2609.15779) on the
semantic-web stack: an OWL vocabulary and SHACL shapes (Schema layer), an RDF graph of Terms,
Mappings, Constraints and Evidence (Content layer), SPARQL-backed browse/resolve tools served over
MCP (Tool layer), an evidence-grounded builder and a gated evolution loop.

The names most programs need are importable from the package itself::

    from evoonto import OntologyTools, Workspace, build, write_workspace

Everything else lives in its module (``docs/architecture.md`` §1 lists them and what each may
import). Importing this package loads the RDF core, the builder and the Tool layer (about a second);
the MCP SDK, the Claude SDK and the evaluation harness load only when used.
"""

from __future__ import annotations

from evoonto.builder import BuildResult, build, write_workspace
from evoonto.builder.pipeline import workspace_base_iri
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
from evoonto.workspace import Workspace

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
    "open_source",
    "validate",
    "workspace_base_iri",
    "write_workspace",
]
