"""Join discovery: declared keys, name-suggested candidates measured by inclusion ratio, Evidence."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixtures.sources_support import IRIS, make_hostile_db, sqlite_db

from evoonto.namespaces import EVO
from evoonto.sources import JoinCandidate, discover_joins, harvest, open_source
from evoonto.sources.joins import declared_joins, name_score


@pytest.fixture
def hostile_db(tmp_path: Path) -> Path:
    return make_hostile_db(tmp_path)


def test_declared_and_discovered_joins(hostile_db: Path):
    with open_source(hostile_db) as src:
        joins = discover_joins(src, IRIS)
        by_path = {j.condition(): j for j in joins}
        declared = by_path["frpm.CDSCode = schools.CDSCode"]
        assert declared.declared and declared.inclusion == 1.0 and declared.parent_unique
        # "order"."frpm_CDSCode" is not declared but is named <table>_<key> and every value matches
        found = by_path["order.frpm_CDSCode = frpm.CDSCode"]
        assert not found.declared and found.name_score == 1.0
        assert (found.child_values, found.matched, found.inclusion) == (4, 4, 1.0)
        condition = found.condition(src.dialect, quoted=True)
        assert condition == '"order"."frpm_CDSCode" = "frpm"."CDSCode"'
        assert src.run(f'SELECT COUNT(*) FROM "order" JOIN frpm ON {condition}').scalar() == 5
    assert joins[0].declared
    # views ("big schools") are not join targets of discovery
    assert not any("big schools" in j.condition() for j in joins)


def test_join_evidence_records_the_probe(hostile_db: Path):
    with open_source(hostile_db) as src:
        join = next(j for j in discover_joins(src, IRIS) if not j.declared)
        rerun = src.run(join.probe.query).rows[0]
    assert rerun == (join.child_values, join.matched, join.parent_values, join.parent_rows)
    assert join.evidence.probe == join.probe.iri
    assert join.evidence.summary.startswith("inclusion ")
    assert join.records() == [join.evidence, join.probe]


def test_low_inclusion_candidates_are_dropped_but_declared_kept(tmp_path: Path):
    path = sqlite_db(
        tmp_path / "j.sqlite",
        "CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, name TEXT);"
        "INSERT INTO customer VALUES (1, 'a'), (2, 'b');"
        "CREATE TABLE sale (id INTEGER PRIMARY KEY, customer_id INTEGER, "
        "  shop INTEGER REFERENCES customer(customer_id));"
        "INSERT INTO sale VALUES (1, 7, 1), (2, 8, 9), (3, 9, 9);",
    )
    with open_source(path) as src:
        joins = discover_joins(src, IRIS, min_inclusion=0.5)
    paths = {j.condition(): j for j in joins}
    assert "sale.customer_id = customer.customer_id" not in paths  # 0 of 3 values match
    broken = paths["sale.shop = customer.customer_id"]
    assert broken.declared and broken.inclusion == pytest.approx(0.5)


def test_unmeasured_declared_joins(hostile_db: Path):
    with open_source(hostile_db) as src:
        joins = discover_joins(src, IRIS, measure_declared=False)
        plain = declared_joins(src)
    assert [j for j in joins if j.declared] == plain
    assert all(j.inclusion is None and j.records() == [] for j in plain)
    assert isinstance(plain[0], JoinCandidate)


def test_joins_go_into_the_catalog_as_references(hostile_db: Path):
    with open_source(hostile_db) as src:
        joins = [j for j in discover_joins(src, IRIS) if not j.declared]
        g = harvest(src, IRIS, joins=joins)
    left = IRIS.column("hostile", "order", "frpm_CDSCode")
    assert g.value(left, EVO.references) == IRIS.column("hostile", "frpm", "CDSCode")


@pytest.mark.parametrize("left, table, right, key, score", [
    ("Singer_ID", "singer", "Singer_ID", True, 1.0),
    ("singer_id", "singer", "id", True, 1.0),
    ("current_address_id", "Addresses", "address_id", True, 0.9),
    ("Channel", "TV_Channel", "id", True, 0.85),
    ("name", "people", "name", False, 0.0),
    ("student_enrolment_id", "Students", "student_id", True, 0.0),
])
def test_name_scores(left, table, right, key, score):
    assert name_score(left, table, right, right_is_key=key) == pytest.approx(score)


def test_spider_declared_keys_hold(spider_dir: Path):
    with open_source(spider_dir / "database/world_1/world_1.sqlite") as src:
        joins = discover_joins(src, IRIS)
    paths = {j.condition(): j for j in joins}
    assert paths["city.CountryCode = country.Code"].inclusion == 1.0
    assert paths["countrylanguage.CountryCode = country.Code"].parent_unique


def test_files_source_joins_compare_mixed_types_as_text(tmp_path: Path):
    folder = tmp_path / "csv"
    folder.mkdir()
    (folder / "region.csv").write_text("region_code,name\n001,North\n002,South\n", encoding="utf-8")
    (folder / "store.csv").write_text("store_no,region_code\n1,001\n2,002\n3,002\n", encoding="utf-8")
    with open_source(folder) as src:
        joins = discover_joins(src, IRIS)
    assert [j.condition() for j in joins] == ["store.region_code = region.region_code"]
    assert joins[0].inclusion == 1.0


def test_two_join_candidate_classes_merged(hostile_db: Path):
    """One JoinCandidate type: the builder proposes, verifies and constructs the type discovery returns."""
    import evoonto.builder.propose as propose
    from evoonto.builder.pipeline import _discovered_joins
    from evoonto.sources import joins as source_joins

    assert propose.JoinCandidate is source_joins.JoinCandidate is JoinCandidate
    assert "JoinCandidate" not in propose.__all__  # defined in one place, sources/joins.py
    composite = JoinCandidate("line", ("order_id", "item"), "order item", ("order_id", "item"))
    assert composite.condition() == "line.order_id = order item.order_id AND line.item = order item.item"
    assert composite.condition("sqlite", quoted=True) == \
        '"line"."order_id" = "order item"."order_id" AND "line"."item" = "order item"."item"'
    with open_source(hostile_db) as src:
        found = [j for j in _discovered_joins(src, IRIS).joins if not j.declared]
        measured = discover_joins(src, IRIS)
    assert found and all(isinstance(j, JoinCandidate) and not j.declared and j.origin == "source" for j in found)
    # a measurement is not part of a join's identity: the measured and the bare candidate are one join
    bare = next(j for j in measured if not j.declared)
    assert bare.inclusion is not None and bare in found and len({bare, *found}) == len(found)
