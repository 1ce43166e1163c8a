"""Catalog harvesting: DCAT/CSVW triples with safe IRIs, keys, documents, SHACL conformance."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from fixtures.sources_support import IRIS, make_hostile_db, sqlite_db
from rdflib import BNode, Literal, URIRef
from rdflib import namespace as ns

from evoonto.namespaces import CSVW, EVO
from evoonto.sources import SourceWarning, harvest, open_source

DOCS = Path(__file__).parent / "fixtures" / "sources_docs"


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    return make_hostile_db(tmp_path)


def test_harvest_describes_source_tables_columns(hostile_db: Path):
    with open_source(hostile_db) as src:
        g = harvest(src, IRIS)
    s = IRIS.source("hostile")
    assert (s, ns.RDF.type, ns.DCAT.Dataset) in g
    assert g.value(s, ns.DCTERMS.identifier) == Literal("hostile")
    assert g.value(s, EVO.sourceKind) == Literal("sqlite")
    t = IRIS.table("hostile", "frpm")
    assert (t, ns.RDF.type, CSVW.Table) in g and (t, ns.DCTERMS.isPartOf, s) in g
    assert g.value(t, EVO.rowCount) == Literal(4, datatype=ns.XSD.integer)
    c = IRIS.column("hostile", "frpm", "Free Meal Count (K-12)")
    assert str(c).endswith("/table/frpm/column/Free%20Meal%20Count%20%28K-12%29")
    assert g.value(c, CSVW.name) == Literal("Free Meal Count (K-12)")
    assert g.value(c, EVO.declaredType) == Literal("REAL")
    assert g.value(c, EVO.primaryKey) == Literal(False)
    assert g.value(c, EVO.ordinal) == Literal(2, datatype=ns.XSD.integer)
    assert g.value(IRIS.column("hostile", "frpm", "CDSCode"), EVO.primaryKey) == Literal(True)
    assert (IRIS.column("hostile", "frpm", "CDSCode"), EVO.references,
            IRIS.column("hostile", "schools", "CDSCode")) in g
    # the awkward names all became IRIs that parse back as IRIs
    for name in ['quo"te', "naïve café", "select", "Percent (%) Eligible Free (K-12)"]:
        assert (IRIS.column("hostile", "frpm", name), ns.RDF.type, CSVW.Column) in g
    assert (IRIS.table("hostile", "empty table"), EVO.rowCount, Literal(0, datatype=ns.XSD.integer)) in g
    assert not any(isinstance(n, BNode) for triple in g for n in triple)
    turtle = g.serialize(format="turtle")
    from rdflib import Graph

    assert len(Graph().parse(data=turtle, format="turtle")) == len(g)


def test_catalog_conforms_to_the_shapes(hostile_db: Path):
    from evoonto.validation import validate

    with open_source(hostile_db) as src:
        g = harvest(src, IRIS)
    report = validate(g)
    assert report.conforms, str(report)


def test_dangling_foreign_key_is_skipped_with_warning(tmp_path: Path):
    path = sqlite_db(
        tmp_path / "dangling.sqlite",
        "CREATE TABLE a (id INTEGER PRIMARY KEY, b_id INTEGER REFERENCES missing(id), "
        "c_id INTEGER REFERENCES c(nope));"
        "CREATE TABLE c (id INTEGER PRIMARY KEY);",
    )
    with open_source(path) as src:
        with pytest.warns(SourceWarning, match="missing table or column"):
            g = harvest(src, IRIS)
    assert not list(g.triples((None, EVO.references, None)))
    assert (IRIS.table("dangling", "a"), ns.RDF.type, CSVW.Table) in g


def test_several_sources_in_one_graph(hostile_db: Path):
    with open_source(hostile_db) as one, open_source(hostile_db, source_id="copy") as two:
        g = harvest(one, IRIS)
        harvest(two, IRIS, graph=g)
    assert len(set(g.subjects(ns.RDF.type, ns.DCAT.Dataset))) == 2


def test_documents_catalog():
    from evoonto.validation import validate

    with open_source(DOCS) as src:
        g = harvest(src, IRIS)
    s = IRIS.source("sources_docs")
    assert g.value(s, EVO.sourceKind) == Literal("documents")
    doc = IRIS.document("sources_docs", "notes/status.txt")
    assert (doc, ns.RDF.type, EVO.Document) in g and (doc, ns.DCTERMS.isPartOf, s) in g
    passage = IRIS.passage(IRIS.document("sources_docs", "guide.md"), 1)
    assert (passage, ns.RDF.type, EVO.Passage) in g
    assert "Free Meal Count (K-12)" in str(g.value(passage, EVO.text))
    assert str(g.value(passage, ns.DCTERMS.title)) == "School Meals Guide > Free Meal Count"
    with open_source(DOCS) as src:
        hit, _ = src.search("free meal count", n=1)[0]
        assert src.passage_iri(IRIS, hit) == passage
    assert validate(g).conforms


@pytest.mark.slow
def test_files_catalog_on_insightbench(shared_data: Path):
    folder = shared_data / "insightbench" / "notebooks" / "csvs"
    with open_source(folder) as src:
        g = harvest(src, IRIS)
    t = IRIS.table("csvs", "flag-1")
    assert g.value(t, EVO.rowCount) == Literal(500, datatype=ns.XSD.integer)
    assert g.value(IRIS.column("csvs", "flag-1", "closed_at"), EVO.declaredType).startswith("TIMESTAMP")


def test_spider_catalogs(spider_dir: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("error", SourceWarning)  # Spider's keys all resolve
        for file in sorted(spider_dir.glob("database/*/*.sqlite")):
            with open_source(file) as src:
                g = harvest(src, IRIS)
                tables = src.tables()
            assert len(set(g.subjects(ns.RDF.type, CSVW.Table))) == len(tables)
            assert len(set(g.subjects(ns.RDF.type, CSVW.Column))) == sum(len(t.columns) for t in tables)
    with open_source(spider_dir / "database/concert_singer/concert_singer.sqlite") as src:
        g = harvest(src, IRIS)
    ref = URIRef(IRIS.column("concert_singer", "singer_in_concert", "Singer_ID"))
    assert g.value(ref, EVO.references) == IRIS.column("concert_singer", "singer", "Singer_ID")
