"""Regression (issue 19): at 70,000 columns the build peaked at 8.8 GB. Besides the rdflib graphs
(see test_build_content_moved_through_rdflib), two things were held while the build validated and
wrote: the last source's working data (profiles, proposal, verified candidates, constructed records:
``_build``'s loop variables) and pyshacl's rdflib copy of the graphs, which sits in reference cycles
and lived until some later full garbage collection."""

from __future__ import annotations

import gc

from fixtures.sources_support import make_shop_db
from rdflib.plugins.stores.memory import Memory

import evoonto.builder.pipeline as pipeline
from evoonto.builder import build
from evoonto.builder.construct import Construction


def _alive(kind: type) -> list:
    return [o for o in gc.get_objects() if isinstance(o, kind)]


def test_build_memory_held_twice_validation_runs_without_the_sources_working_data(tmp_path, monkeypatch):
    seen: list[int] = []
    real = pipeline._validate

    def spy(result):
        seen.append(len(_alive(Construction)))
        return real(result)

    monkeypatch.setattr(pipeline, "_validate", spy)
    result = build([make_shop_db(tmp_path)], base_iri="https://example.org/evoonto/shop/")
    assert seen == [0] and result.validation is not None and result.validation.conforms


def test_build_memory_held_twice_validation_copy_freed_after_the_check(tmp_path):
    from evoonto.resources import vocab_graph

    vocab = len(vocab_graph())  # a copy of the vocab is cached (schema cache): the union copy is larger
    gc.collect()
    before = {id(m) for m in _alive(Memory)}
    gc.disable()  # only the build's own collection may free the copy
    try:
        result = build([make_shop_db(tmp_path)], base_iri="https://example.org/evoonto/shop/")
        left = [m for m in _alive(Memory) if id(m) not in before and len(m) > vocab]
    finally:
        gc.enable()
    assert result.validation is not None and result.validation.conforms
    assert left == []  # no rdflib store holding the validated triples outlives the build
