"""Regression (issue 19): a build moved every constructed triple through rdflib's in-memory store
(records → rdflib Graph → Oxigraph for validation and the workspace). Records are now written into
the build's Oxigraph store as pyoxigraph terms made by the same field walk as ``to_triples``, and
``BuildResult.graphs`` copies a graph into rdflib only when it is read."""

from __future__ import annotations

import datetime as dt

from fixtures.sources_support import make_shop_db
from rdflib import URIRef

import evoonto.builder.construct as construct_module
from evoonto.builder import build, write_workspace
from evoonto.builder.pipeline import StoreGraphs
from evoonto.records import (
    Column, Constraint, Evidence, Mapping, ProbeActivity, Relation, Source, Table, Term, VerifiedQuery,
)
from evoonto.store import to_ox
from evoonto.workspace import Workspace

EX = "https://example.org/evoonto/shop/"


def _records() -> list:
    at = dt.datetime(2024, 5, 1, 12, 30, tzinfo=dt.timezone.utc)
    i = lambda n: URIRef(EX + n)  # noqa: E731
    return [
        Term(i("t"), label="Net\x00 revenue\ufffe", kinds=["Metric"], alt_labels=["rev", "sales"],
             hidden_labels=["NET_REV"], definition="déf", scheme=i("s"), mappings=[i("m")], evidence=[i("e")],
             deprecated=False),
        Mapping(i("m"), term=i("t"), source=i("src"), table=i("tb"), column=i("c"), filter="a = 'b'",
                aggregation="SUM", confidence=0.1 + 0.2, evidence=[i("e")], expression="SUM(x)"),
        Constraint(i("k"), constrains=[i("t")], condition="x > 0", trigger_keywords=["positive"],
                   severity="Violation", comment="only positive"),
        Evidence(i("e"), probe=i("p"), generated_at=at, summary="3 rows", rows_observed=3, null_fraction=1e-7,
                 distinct_count=2, min_value="a", max_value="z", sample_values=["a", "\x07z"],
                 value_distribution={"a": 2, "é": 1}, value_pattern="text"),
        ProbeActivity(i("p"), query="SELECT 1", used=i("src"), started_at="2024-05-01T12:30:00Z", ended_at=at),
        Relation(i("r"), type="Derivation", source=i("t"), target=i("t2"), formula="a + b", evidence=[i("e")]),
        VerifiedQuery(i("v"), question="how many?", sql="SELECT COUNT(*) FROM t", verified_by=i("ann"),
                      verifier="Ann", verified_at=at, joins_used=["a.x = b.y"]),
        Source(i("src"), identifier="shop", title="Shop", kind="sqlite"),
        Table(i("tb"), name="orders", source=i("src"), row_count=3, is_view=True, reads=[i("tb2")]),
        Column(i("c"), name="total", table=i("tb"), declared_type="REAL", primary_key=True, ordinal=0),
    ]


def test_build_content_moved_through_rdflib_ox_writer_gives_the_same_triples():
    for record in _records():
        expected = [tuple(to_ox(term) for term in triple) for triple in record.to_triples()]
        assert record.to_ox_triples() == expected, type(record).__name__


def test_build_content_moved_through_rdflib_build_and_write_make_no_rdflib_content(tmp_path, monkeypatch):
    def refuse(*_args, **_kwargs):
        raise AssertionError("the constructed records went through an rdflib graph")

    monkeypatch.setattr(construct_module, "records_to_graph", refuse)
    result = build([make_shop_db(tmp_path)], base_iri=EX)
    assert isinstance(result.graphs, StoreGraphs) and "content" in result.graphs
    ws = write_workspace(result, tmp_path / "ws")
    assert result.graphs.store is None  # handed over to the workspace
    monkeypatch.undo()
    written = Workspace.open(tmp_path / "ws")
    for name in ("catalog", "content"):  # read after the write: the graphs of version 0
        assert set(result.graphs[name]) == set(written.store.triples(name)) == set(ws.store.triples(name))
        assert len(result.graphs[name]) > 10


def test_build_content_moved_through_rdflib_graphs_read_before_write_equal_the_written_ones(tmp_path):
    result = build([make_shop_db(tmp_path)], base_iri=EX)
    content = set(result.graphs["content"])
    ws = write_workspace(result, tmp_path / "ws")
    assert set(ws.store.triples("content")) == content
    assert result.serialize("content").count("\n") == len(content)


def test_build_content_moved_through_rdflib_store_writes_stream_and_stay_atomic():
    """records_to_store and OxigraphStore.add read their input as it comes (no list of every
    triple's Python objects, about 480 MiB on a 10,000-column build), still in one transaction."""
    from rdflib import Literal

    from evoonto.records import records_to_store
    from evoonto.store import OxigraphStore

    store = OxigraphStore()
    records = _records()
    given = records_to_store(iter(records), store, "content")
    assert given == sum(len(r.to_triples()) for r in records)
    assert store.count("content") == len({t for r in records for t in r.to_ox_triples()})

    def bad():
        yield (URIRef(EX + "a"), URIRef(EX + "p"), Literal("x"))
        yield (Literal("not a subject"), URIRef(EX + "p"), Literal("y"))

    try:
        store.add(bad(), "catalog")
    except TypeError:
        pass
    else:  # pragma: no cover
        raise AssertionError("a literal subject was accepted")
    assert store.count("catalog") == 0  # the triple before the bad one was not kept
