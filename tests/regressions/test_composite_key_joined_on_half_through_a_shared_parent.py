"""A table referencing a composite key it does not declare (``sale_return.(store_id, sale_no)`` →
``sale_line.(store_id, sale_no)``) was joined on ``store_id`` alone: only single-column keys were join
candidates, so the one route left went through ``store``, which both tables reference (the shared-key
shortcut). ``SUM(sale_line.amount)`` by ``sale_return.reason`` then summed every sale of the store
under each reason (seen on PostgreSQL: 1,574,749.22 for every reason, about 28,000 each in truth).
A composite key is now a join candidate for every table holding columns of all its names, probed on
the whole tuple; the half-key shortcut is dropped once the whole key is known."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest


def _shop(path: Path) -> Path:
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE store (store_id INTEGER PRIMARY KEY, city TEXT);
            CREATE TABLE sale_line (store_id INTEGER REFERENCES store(store_id), sale_no INTEGER,
                                    amount REAL, PRIMARY KEY (store_id, sale_no));
            CREATE TABLE sale_return (return_id INTEGER PRIMARY KEY,
                                      store_id INTEGER REFERENCES store(store_id), sale_no INTEGER, reason TEXT);
            -- per-store copies keyed alike: a sibling, not a reference
            CREATE TABLE sale_line_archive (store_id INTEGER, sale_no INTEGER, amount REAL,
                                            PRIMARY KEY (store_id, sale_no));
            INSERT INTO store VALUES (1, 'north'), (2, 'south');
        """)
        lines = [(s, n, float(10 * s + n)) for s in (1, 2) for n in range(1, 21)]
        con.executemany("INSERT INTO sale_line VALUES (?, ?, ?)", lines)
        con.executemany("INSERT INTO sale_line_archive VALUES (?, ?, ?)", [(s, n + 100, a) for s, n, a in lines])
        returns = [(1, 1, 1, "broken"), (2, 1, 2, "late"), (3, 2, 1, "broken"), (4, 2, 5, "late"), (5, 2, 7, "late")]
        con.executemany("INSERT INTO sale_return VALUES (?, ?, ?, ?)", returns)
    return path


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    from evoonto.builder import build
    from evoonto.ontology import Ontology
    from evoonto.tools.resolve import IdCodec

    path = _shop(tmp_path_factory.mktemp("shop") / "shop.sqlite")
    result = build([path], None, validate=False)
    return path, Ontology.from_graphs(result.graphs), IdCodec(result.base_iri)


def _rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as con:
        return con.execute(sql).fetchall()


def test_composite_key_discovered_whole(shop):
    from evoonto.tools.sparql import select

    _path, onto, _codec = shop
    conditions = {row["c"] for row in select(onto, "SELECT ?c WHERE { ?r a evo:Relation ; evo:joinCondition ?c }")}
    whole = [c for c in conditions if '"sale_return".' in c and '"sale_line".' in c]
    assert whole == ['"sale_return"."store_id" = "sale_line"."store_id" AND '
                     '"sale_return"."sale_no" = "sale_line"."sale_no"'], sorted(conditions)
    assert not [c for c in conditions if '"sale_line_archive".' in c and '"sale_line".' in c], sorted(conditions)


def test_metric_by_a_dimension_of_the_referencing_table_joins_on_the_whole_key(shop):
    from evoonto.tools.semantic import compile_semantic

    path, onto, codec = shop
    answer = compile_semantic(onto, {"metrics": [{"term": "term/shop/sale_line.amount", "aggregate": "sum"}],
                                     "dimensions": ["term/shop/sale_return.reason"]}, codec=codec)
    assert answer["status"] == "ok", answer
    got = sorted(_rows(path, answer["sql"]))
    truth = _rows(path, "SELECT r.reason, SUM(l.amount) FROM sale_line l JOIN sale_return r "
                        "ON l.store_id = r.store_id AND l.sale_no = r.sale_no GROUP BY r.reason ORDER BY r.reason")
    assert got == truth, (answer["sql"], got, truth)


def test_no_composite_join_from_a_tables_own_key_or_from_a_copy(tmp_path):
    """Review of the first fix: ``orders.(id, version)`` was joined to ``doc_version.(id, version)``
    (``orders.id`` is the order's own key) and a per-year copy made without a key
    (``CREATE TABLE sale_2018 AS …``) to the copy that has one."""
    from evoonto.sources import open_source
    from evoonto.sources.joins import discover_joins

    path = tmp_path / "docs.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE doc_version (id INTEGER, version INTEGER, body TEXT, PRIMARY KEY (id, version));
            CREATE TABLE orders (id INTEGER PRIMARY KEY, version INTEGER, total REAL);
            CREATE TABLE sale_2019 (store_id INTEGER, sale_no INTEGER, amount REAL, PRIMARY KEY (store_id, sale_no));
            INSERT INTO doc_version VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'c');
            INSERT INTO orders VALUES (1, 1, 5.0), (2, 1, 6.0), (3, 2, 7.0);
            INSERT INTO sale_2019 VALUES (1, 1, 1.0), (1, 2, 2.0);
            CREATE TABLE sale_2018 AS SELECT * FROM sale_2019;
        """)
    source = open_source(path)
    try:
        from evoonto.iris import IriFactory

        joins = discover_joins(source, IriFactory("https://example.org/docs/"))
    finally:
        source.close()
    composite = [j.condition() for j in joins if len(j.child_columns) > 1]
    assert composite == [], composite
