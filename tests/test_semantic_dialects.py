"""The same semantic query compiles for SQLite, DuckDB and PostgreSQL with equal results (issue 32).

The ontology is built once from a SQLite file; each query is compiled for each dialect
(``compile_semantic(..., dialect=...)``) and run on a copy of the same rows in that engine. The
PostgreSQL test starts its own server (as tests/test_sources_postgres.py does) and is marked slow.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest

TABLES = """
CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, region TEXT);
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id),
                     amount REAL, ordered_on TEXT);
CREATE TABLE lines (line_id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders(order_id),
                    product TEXT, quantity INTEGER);
"""
ROWS = {
    "customers": [(1, "Ann", "north"), (2, "Bob", "south"), (3, "Cy", "north"), (4, "Di", None)],
    "orders": [(10, 1, 100.0, "2024-01-05"), (11, 1, 50.0, "2024-02-11"), (12, 2, 70.0, "2024-02-20"),
               (13, 3, 20.0, "2025-03-01"), (14, 2, 30.0, "2025-03-15")],
    "lines": [(100, 10, "pen", 1), (101, 10, "pen", 2), (102, 10, "ink", 3), (103, 11, "pad", 1),
              (104, 12, "ink", 5), (105, 12, "ink", 1), (106, 13, "pad", 2), (107, 14, "ink", 1)],
}


def T(table: str, column: str | None = None) -> str:
    return f"term/shop/{table}" + (f".{column}" if column else "")


QUERIES = [
    {"metrics": [{"term": T("orders", "amount"), "aggregate": "sum"}], "dimensions": [T("customers", "region")]},
    {"metrics": [{"term": T("orders", "amount"), "aggregate": "sum"}, {"term": T("lines", "quantity"),
                                                                        "aggregate": "sum"}],
     "dimensions": [T("customers", "name")]},
    {"metrics": [{"term": T("orders", "amount"), "aggregate": "avg"}], "dimensions": [T("customers", "name")],
     "filters": [{"term": T("lines", "product"), "op": "in", "value": ["ink", "pen"]}]},
    {"metrics": [{"aggregate": "count", "of": T("orders")}],
     "dimensions": [{"term": T("orders", "ordered_on"), "grain": "month"}],
     "order": [{"term": T("orders", "ordered_on"), "grain": "month", "desc": True}], "limit": 3},
    {"metrics": [{"term": T("orders", "amount"), "aggregate": "max"}],
     "dimensions": [{"term": T("orders", "ordered_on"), "grain": "year"}],
     "filters": [{"term": T("orders", "amount"), "op": "between", "value": [25, 100]}]},
    {"dimensions": [T("customers", "name")], "filters": [
        {"term": T("customers", "customer_id"), "op": "not in",
         "value": {"query": {"dimensions": [T("orders", "customer_id")]}}}]},
    {"dimensions": [T("customers", "name")], "filters": [
        {"any": [{"term": T("customers", "region"), "op": "is null"},
                 {"term": T("customers", "name"), "op": "like", "value": "A%"}]}],
     "order": [{"term": T("customers", "name")}]},
    {"set": "intersect", "queries": [
        {"dimensions": [T("customers", "name")],
         "filters": [{"term": T("lines", "product"), "op": "=", "value": "ink"}], "distinct": True},
        {"dimensions": [T("customers", "name")], "filters": [{"term": T("orders", "amount"), "op": ">", "value": 60}],
         "distinct": True}]},
    {"metrics": [{"formula": "100 * big / n", "inputs": {
        "big": {"aggregate": "count", "of": T("orders"),
                "filters": [{"term": T("orders", "amount"), "op": ">", "value": 40}]},
        "n": {"aggregate": "count", "of": T("orders")}}},
        {"term": T("orders", "amount"), "aggregate": "sum",
         "filters": [{"term": T("orders", "ordered_on"), "grain": "year", "op": "=", "value": "2024"}]}],
     "dimensions": [T("customers", "region")]},
    {"metrics": [{"aggregate": "count", "of": T("customers")}], "dimensions": [T("lines", "product")],
     "filters": [{"metric": {"aggregate": "count", "of": T("customers")}, "op": ">=", "value": 1}]},
    # review S3: operands compiled with their own WITH (pre-aggregated across a fan-out) and a LIMIT
    {"set": "union", "queries": [
        {"metrics": [{"aggregate": "count", "of": T("orders")}], "dimensions": [T("customers", "region")],
         "order": [{"term": T("customers", "region")}], "limit": 2},
        {"metrics": [{"aggregate": "count", "of": T("orders")}], "dimensions": [T("lines", "product")]}]},
]


def _norm(rows) -> list[tuple]:
    def cell(v):
        if isinstance(v, Decimal):
            v = float(v)
        return round(v, 6) if isinstance(v, float) else v
    return sorted((tuple(cell(v) for v in r) for r in rows), key=repr)


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    from evoonto.builder import build
    from evoonto.ontology import Ontology
    from evoonto.tools.resolve import IdCodec

    path = tmp_path_factory.mktemp("dialects") / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(TABLES)
        for table, rows in ROWS.items():
            con.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(rows[0]))})", rows)
    result = build([path], None, validate=False)
    return path, Ontology.from_graphs(result.graphs), IdCodec(result.base_iri)


def _compiled(shop, query, dialect):
    from evoonto.tools.semantic import compile_semantic

    _path, onto, codec = shop
    answer = compile_semantic(onto, query, codec=codec, dialect=dialect)
    assert answer["status"] == "ok", answer
    return answer["sql"]


def _sqlite_rows(shop, query):
    with sqlite3.connect(f"file:{shop[0]}?mode=ro", uri=True) as con:
        rows = _norm(con.execute(_compiled(shop, query, "sqlite")).fetchall())
    assert rows, "every query of the comparison returns rows"
    return rows


@pytest.mark.parametrize("case", range(len(QUERIES)))
def test_duckdb_gives_the_sqlite_rows(shop, case):
    import duckdb

    con = duckdb.connect()
    con.execute(TABLES.replace(" REFERENCES customers(customer_id)", "").replace(" REFERENCES orders(order_id)", ""))
    for table, rows in ROWS.items():
        con.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(rows[0]))})", rows)
    query = QUERIES[case]
    sql = _compiled(shop, query, "duckdb")
    assert _norm(con.execute(sql).fetchall()) == _sqlite_rows(shop, query), sql
    con.close()


@pytest.fixture(scope="module")
def postgres_url(shop) -> Iterator[str]:
    from fixtures.postgres_support import load_sqlite, postgres_binaries, start_postgres

    bindir, reason = postgres_binaries()
    if bindir is None:
        pytest.skip(reason)
    pytest.importorskip("psycopg", reason="the postgres driver: pip install 'evoonto[postgres]'")
    server = start_postgres()
    try:
        load_sqlite(Path(shop[0]), server.url())
        yield server.url()
    finally:
        server.stop()


@pytest.mark.slow
def test_postgres_gives_the_sqlite_rows(shop, postgres_url):
    import sqlalchemy

    engine = sqlalchemy.create_engine(postgres_url)
    try:
        with engine.connect() as con:
            for query in QUERIES:
                sql = _compiled(shop, query, "postgres")
                assert _norm(con.execute(sqlalchemy.text(sql)).fetchall()) == _sqlite_rows(shop, query), sql
    finally:
        engine.dispose()
