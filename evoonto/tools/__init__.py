"""The Tool layer (paper §3, Tool layer R): what a data agent actually touches.

- :class:`OntologyTools` (:mod:`evoonto.tools.toolkit`): browse / resolve / manifest / declared tools
  over one ontology version, with trajectory capture; used by the MCP server and the evaluation.
- :mod:`~evoonto.tools.registry`: :class:`ToolSpec`, the one description of each agent-facing tool
  (schema, handler, read-only flag) that ``OntologyTools.call`` and the MCP server share.
- :mod:`~evoonto.tools.settings` (settings from the ``tools`` graph), :mod:`~evoonto.tools.index`
  (SPARQL-gathered documents, BM25), :mod:`~evoonto.tools.browse`, :mod:`~evoonto.tools.resolve`,
  :mod:`~evoonto.tools.manifest`, :mod:`~evoonto.tools.declared` (SQL/SPARQL template tools),
  :mod:`~evoonto.tools.data` (raw read-only data tools), :mod:`~evoonto.tools.trajectory`
  (JSON Lines call log of :class:`ToolEvent`, the one trajectory event type; schema documented there), :mod:`~evoonto.tools.sparql`
  (escaping helpers).
"""

from __future__ import annotations

import importlib

_LAZY = {
    "OntologyTools": "evoonto.tools.toolkit",
    "TrajectoryLog": "evoonto.tools.trajectory",
    "ToolEvent": "evoonto.tools.trajectory",
    "ToolSpec": "evoonto.tools.registry",
    "read_events": "evoonto.tools.trajectory",
    "DeclaredTool": "evoonto.tools.declared",
    "DataTools": "evoonto.tools.data",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'evoonto.tools' has no attribute {name!r}")
