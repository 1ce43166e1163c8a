"""The Tool layer (paper §3, Tool layer R): what a data agent actually touches.

- :class:`OntologyTools` (:mod:`evoonto.tools.toolkit`): browse / resolve / manifest / declared tools
  over one ontology version, with trajectory capture; used by the MCP server and the evaluation.
- :mod:`~evoonto.tools.registry`: :class:`ToolSpec`, the one description of each agent-facing tool
  (schema, handler, read-only flag) that ``OntologyTools.call`` and the MCP server share.
- :mod:`~evoonto.tools.settings` (settings from the ``tools`` graph), :mod:`~evoonto.tools.index`
  (SPARQL-gathered documents, BM25), :mod:`~evoonto.tools.browse`, :mod:`~evoonto.tools.resolve`,
  :mod:`~evoonto.tools.manifest`, :mod:`~evoonto.tools.declared` (SQL/SPARQL template tools),
  :mod:`~evoonto.tools.data` (raw read-only data tools), :mod:`~evoonto.tools.trajectory`
  (JSON Lines call log of :class:`ToolEvent`, the one trajectory event type; schema documented there),
  :mod:`~evoonto.tools.sparql`
  (escaping helpers).
"""

from __future__ import annotations

from evoonto.tools.data import DataTools
from evoonto.tools.declared import DeclaredTool
from evoonto.tools.registry import ToolSpec
from evoonto.tools.toolkit import OntologyTools
from evoonto.tools.trajectory import ToolEvent, TrajectoryLog, read_events

__all__ = ["DataTools", "DeclaredTool", "OntologyTools", "ToolEvent", "ToolSpec", "TrajectoryLog", "read_events"]
