"""The builder on the Spider databases with their dev questions as workload (issue 4 "must hold")."""

from __future__ import annotations

import pytest
from rdflib.namespace import RDF

from evoonto.builder import build, load_workload
from evoonto.namespaces import CSVW, EVO

SOME = ("concert_singer", "pets_1", "world_1")


def _check(result) -> None:
    assert result.validation.conforms
    catalog, content = result.graphs["catalog"], result.graphs["content"]
    columns = set(catalog.subjects(RDF.type, CSVW.Column))
    tables = set(catalog.subjects(RDF.type, CSVW.Table))
    mappings = list(content.subjects(RDF.type, EVO.Mapping))
    assert mappings
    for mapping in mappings:
        assert content.value(mapping, EVO.table) in tables
        column = content.value(mapping, EVO.column)
        assert column is None or column in columns, mapping
    # every column of the catalog is reachable from some Term
    mapped = {content.value(m, EVO.column) for m in mappings}
    assert columns <= mapped


@pytest.mark.slow
@pytest.mark.parametrize("db", SOME)
def test_spider_database_builds_and_validates(spider_dir, db):
    workload = load_workload(spider_dir / "dev.json", db_id=db)
    result = build([spider_dir / "database" / db / f"{db}.sqlite"], workload)
    _check(result)
    assert result.sources[0].questions == len(workload) > 0


def test_spider_build_is_deterministic(spider_dir):
    path = spider_dir / "database" / "pets_1" / "pets_1.sqlite"
    first = build([path], spider_dir / "dev.json", validate=False)
    second = build([path], spider_dir / "dev.json", validate=False)
    assert first.serialize("content") == second.serialize("content")
    assert first.serialize("catalog") == second.serialize("catalog")


@pytest.mark.slow
def test_all_spider_databases(spider_dir):
    dbs = sorted(p.name for p in (spider_dir / "database").iterdir() if (p / f"{p.name}.sqlite").is_file())
    assert len(dbs) == 12
    for db in dbs:
        _check(build([spider_dir / "database" / db / f"{db}.sqlite"], spider_dir / "dev.json"))


def test_poisoned_gold_gives_byte_identical_ontology(spider_dir, tmp_path):
    import json

    entries = json.loads((spider_dir / "dev.json").read_text(encoding="utf-8"))
    for entry in entries:
        entry["query"] = "DELETE FROM Student; garbage ' \" -- " + entry["query"][::-1]
        entry["query_toks"] = entry["query_toks_no_value"] = ["garbage"]
        entry["sql"] = {"poison": True}
    poisoned = tmp_path / "dev.json"
    poisoned.write_text(json.dumps(entries), encoding="utf-8")
    path = spider_dir / "database" / "pets_1" / "pets_1.sqlite"
    clean = build([path], spider_dir / "dev.json", validate=False)
    dirty = build([path], poisoned, validate=False)
    assert clean.serialize("content") == dirty.serialize("content")
