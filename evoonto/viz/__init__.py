"""Visual explorer: the ontology and its evolution as one self-contained offline web page.

- :mod:`evoonto.viz.data` extracts a JSON-ready model from the workspace graphs (testable without a
  browser): Content graph nodes and edges, records, version history with per-patch diffs.
- :mod:`evoonto.viz.page` renders the model as one HTML file (inlined JavaScript and CSS under a
  hash-based Content-Security-Policy; no network access).

Typical use::

    from evoonto.viz import load_workspace_model, write_page
    write_page(load_workspace_model(".evoonto"), "explorer.html")

or ``evoonto viz --out explorer.html`` on the command line.
"""

from __future__ import annotations

from evoonto.viz.data import (
    DEFAULT_MAX_DIFF_TRIPLES,
    DEFAULT_MAX_VISIBLE,
    PatchGraphs,
    build_model,
    graphs_from_dataset,
    load_trig,
    load_workspace_model,
)
from evoonto.viz.page import VizOutputError, embed_json, render_page, write_page

__all__ = [
    "DEFAULT_MAX_DIFF_TRIPLES", "DEFAULT_MAX_VISIBLE", "PatchGraphs", "VizOutputError", "build_model",
    "embed_json", "graphs_from_dataset", "load_trig", "load_workspace_model", "render_page", "write_page",
]
