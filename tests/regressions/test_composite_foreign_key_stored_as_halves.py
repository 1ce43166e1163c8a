"""Regression (issue 28, C2): a declared composite foreign key became one join candidate per column
(declared_joins, and the builder's proposal), so the workspace stored a Relation joined on half the
key, its Evidence probed on that half. Now one candidate per key, with all its column pairs, and
the inclusion probe matches the whole tuple."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from evoonto.iris import IriFactory
from evoonto.namespaces import EVO
from evoonto.sources import discover_joins, open_source
from evoonto.sources.joins import declared_joins


def _db(path: Path) -> Path:
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE orders (order_id INTEGER PRIMARY KEY, status TEXT);
        CREATE TABLE order_items (order_id INTEGER REFERENCES orders(order_id), line_no INTEGER, product TEXT,
                                  PRIMARY KEY (order_id, line_no));
        CREATE TABLE returns (return_id INTEGER PRIMARY KEY, order_id INTEGER, line_no INTEGER,
                              FOREIGN KEY (order_id, line_no) REFERENCES order_items(order_id, line_no));
        INSERT INTO orders VALUES (1, 'open'), (2, 'open');
        INSERT INTO order_items VALUES (1, 1, 'a'), (2, 2, 'b');
        -- each column alone occurs in order_items, the tuple (1, 2) does not
        INSERT INTO returns VALUES (10, 1, 2), (11, 2, 2);
    """)
    con.commit()
    con.close()
    return path


def test_declared_composite_key_is_one_candidate_probed_on_the_whole_tuple(tmp_path):
    iris = IriFactory("https://example.org/evoonto/c2/")
    with open_source(_db(tmp_path / "shop2.db"), source_id="shop2") as src:
        composite = [j for j in declared_joins(src) if j.child == "returns"]
        assert [(j.child_columns, j.parent, j.parent_columns) for j in composite] == [
            (("order_id", "line_no"), "order_items", ("order_id", "line_no"))]
        [measured] = [j for j in discover_joins(src, iris) if j.child == "returns" and j.declared]
    # per column both values occur in order_items (100 %); as a tuple only (2, 2) does
    assert (measured.child_values, measured.matched, measured.inclusion) == (2, 1, 0.5)
    assert measured.parent_unique is True


def test_built_relation_of_a_composite_key_joins_on_all_its_columns(tmp_path):
    from evoonto.builder import build

    content = build([_db(tmp_path / "shop2.db")], None, validate=False).graphs["content"]
    conditions = {str(o) for _s, _p, o in content.triples((None, EVO.joinCondition, None))
                  if '"returns"' in str(o) and '"order_items"' in str(o)}
    assert conditions, "no Relation between returns and order_items was built"
    for condition in conditions:
        assert '"returns"."order_id" = "order_items"."order_id"' in condition
        assert '"returns"."line_no" = "order_items"."line_no"' in condition
