"""Regression (issue 34 item 2): every process that created or validated a workspace canonicalised
the packaged SHACL shapes to mint IRIs for their blank nodes (about 0.5 CPU s, ~1.2 s under load).
The result now ships as ``shapes/skolemized.nt``, stamped with the SHA-256 of the Turtle it was
made from. This test is the drift check: it fails when the shapes Turtle changed and the file was
not regenerated (``python -m evoonto.resources``).
"""

from __future__ import annotations

from evoonto import resources


def test_shipped_skolemized_shapes_match_the_turtle():
    shipped = resources.resources.files("evoonto.shapes").joinpath(resources.SKOLEMIZED_SHAPES)
    assert shipped.read_text(encoding="utf-8") == resources.skolemized_shapes_text(), (
        "shapes/skolemized.nt is out of date: run `python -m evoonto.resources`")


def test_shapes_graph_loads_the_shipped_file_without_canonicalising(monkeypatch):
    fresh = resources.skolemize_deterministically(resources._parse_package("evoonto.shapes"), resources.SHAPES_GENID)

    def refuse(*args, **kwargs):
        raise AssertionError("the packaged shapes were canonicalised again")

    monkeypatch.setattr(resources, "skolemize_deterministically", refuse)
    resources._shapes_cached.cache_clear()
    try:
        assert set(resources.shapes_graph()) == set(fresh)
    finally:
        resources._shapes_cached.cache_clear()


def test_stale_stamp_falls_back_to_skolemizing(monkeypatch):
    monkeypatch.setattr(resources, "shapes_source_digest", lambda: "0" * 64)  # the Turtle "changed"
    assert resources._skolemized_file() is None
    resources._shapes_cached.cache_clear()
    try:
        graph = resources.shapes_graph()
        assert not any(type(t).__name__ == "BNode" for triple in graph for t in triple)
        assert len(graph) > 100
    finally:
        resources._shapes_cached.cache_clear()
