"""evoonto: a self-evolving ontology layer for data agents.

Implements "EvoOntology: A Self-Evolving Ontology Layer for Data Agents" (arXiv 2609.15779) on the
semantic-web stack: an OWL vocabulary and SHACL shapes (Schema layer), an RDF graph of Terms,
Mappings, Constraints and Evidence (Content layer), SPARQL-backed browse/resolve tools served over
MCP (Tool layer), an evidence-grounded builder and a gated evolution loop.

The public API is imported lazily so that ``import evoonto`` stays cheap::

    from evoonto import Workspace, Ontology
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_LAZY = {
    "Ontology": "evoonto.ontology",
    "Workspace": "evoonto.workspace",
    "Term": "evoonto.records",
    "Mapping": "evoonto.records",
    "Constraint": "evoonto.records",
    "Evidence": "evoonto.records",
    "Relation": "evoonto.records",
    "EVO": "evoonto.namespaces",
    "EvoontoError": "evoonto.errors",
}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'evoonto' has no attribute {name!r}")
