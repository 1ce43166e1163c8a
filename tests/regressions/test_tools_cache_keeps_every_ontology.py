"""Regression (issue 29, item 4): an evolution run on six small databases peaked at 7.5 GB, and a
bird_synth_dev run still grew by hundreds of MiB per fold. The tool layer caches what it derives from an
ontology version in a weak-keyed dictionary, but the cached value held the ontology strongly, so no
scored version (the loop scores a candidate copy per alternative) was ever freed: store, browse index
and all. The cached value now holds its ontology weakly."""

from __future__ import annotations

import gc
import weakref

from evoonto.patch import Patch
from evoonto.tools.toolkit import OntologyTools
from fixtures.evolution_toy import toy_ontology


def test_a_scored_candidate_version_is_freed_with_its_tools():
    parent = toy_ontology()
    OntologyTools(parent).browse("singer age")
    candidate = parent.with_patch(Patch.from_graphs("content", {}, {}, signature="s", intervention="i"))
    tools = OntologyTools(candidate)
    assert tools.browse("singer age") and tools.join_path("singer", "concert") is not None
    gone = weakref.ref(candidate)
    del tools, candidate
    gc.collect()
    assert gone() is None
