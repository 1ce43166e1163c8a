"""The semantic query compiler (issue 32): shapes of SQL, ambiguity as a question, coverage that says no."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from evoonto.errors import ToolArgumentError

PACKAGED = Path(__file__).resolve().parents[1] / "evoonto" / "data" / "concert_singer" / "concert_singer.sqlite"


def _build(path: Path):
    from evoonto.builder import build
    from evoonto.ontology import Ontology
    from evoonto.tools.resolve import IdCodec

    result = build([path], None, validate=False)
    return Ontology.from_graphs(result.graphs), IdCodec(result.base_iri)


@pytest.fixture(scope="module")
def concert():
    return _build(PACKAGED)


def _rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as con:
        return con.execute(sql).fetchall()


def _compile(onto_codec, query, **kw):
    from evoonto.tools.semantic import compile_semantic

    onto, codec = onto_codec
    return compile_semantic(onto, query, codec=codec, **kw)


def test_metric_by_dimension_across_a_many_to_one_join(concert):
    answer = _compile(concert, {
        "metrics": [{"aggregate": "count", "of": "term/concert_singer/concert"}],
        "dimensions": ["term/concert_singer/stadium.Name"],
        "order": [{"metric": {"aggregate": "count", "of": "term/concert_singer/concert"}, "desc": True}],
        "limit": 3})
    assert answer["status"] == "ok", answer
    gold = _rows(PACKAGED, "SELECT s.Name, count(*) FROM concert c JOIN stadium s ON c.Stadium_ID = s.Stadium_ID "
                          "GROUP BY s.Name ORDER BY count(*) DESC LIMIT 3")
    assert [r[1] for r in _rows(PACKAGED, answer["sql"])] == [r[1] for r in gold]
    [hop] = answer["joins"]
    assert hop["cardinality"] in ("N:1", "1:N") and hop["evidence"], hop
    assert answer["grain"][0]["fan_out"] == []


def test_unknown_record_is_unavailable_and_names_it(concert):
    answer = _compile(concert, {"dimensions": ["term/concert_singer/nothing.here"]})
    assert answer["status"] == "unavailable"
    assert "nothing.here" in answer["missing"]


def test_a_term_that_is_no_metric_is_unavailable(concert):
    answer = _compile(concert, {"metrics": ["term/concert_singer/singer.Name"]})
    assert answer == {"status": "unavailable", "missing": "no metric 'term/concert_singer/singer.Name'",
                      "detail": "the record has no aggregation; give {term, aggregate}"}


@pytest.mark.parametrize("query, message", [
    ({"metrics": [{"term": "term/concert_singer/singer.Age", "aggregate": "median"}]}, "aggregate must be"),
    ({"dimensions": ["term/concert_singer/singer.Name"], "bogus": 1}, "unknown field"),
    ({"dimensions": ["term/concert_singer/singer.Name"],
      "filters": [{"term": "term/concert_singer/singer.Age", "op": "~", "value": 1}]}, "op must be"),
    ({}, "at least one metric or dimension"),
    ("{not json", "not JSON"),
])
def test_malformed_queries_raise_one_line_errors(concert, query, message):
    with pytest.raises(ToolArgumentError, match=message):
        _compile(concert, query)


def test_value_checks_say_how_a_value_was_observed(concert):
    from evoonto.sources import open_source

    src = open_source(str(PACKAGED))
    try:
        answer = _compile(concert, {
            "dimensions": ["term/concert_singer/singer.Name"],
            "filters": [{"term": "term/concert_singer/singer.Country", "op": "=", "value": "France"},
                        {"term": "term/concert_singer/singer.Name", "op": "=", "value": "Nobody At All"}]},
            probe=lambda _sid, sql: bool(src.run(sql, limit=1).rows))
    finally:
        src.close()
    checks = {c["value"]: c["observed"] for c in answer["value_checks"]}
    assert checks["France"] == "in the column's Evidence"
    assert checks["Nobody At All"].startswith("no row holds it")


# -- fan traps --------------------------------------------------------------------------------------


def _fan_db(path: Path) -> Path:
    """customers 1:N orders 1:N lines; orders carry an amount, lines a quantity."""
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, region TEXT);
            CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id),
                                 amount REAL, status TEXT);
            CREATE TABLE lines (line_id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders(order_id),
                                product TEXT, quantity INTEGER);
            INSERT INTO customers VALUES (1, 'Ann', 'north'), (2, 'Bob', 'south'), (3, 'Cy', 'north');
            INSERT INTO orders VALUES (10, 1, 100.0, 'paid'), (11, 1, 50.0, 'open'), (12, 2, 70.0, 'paid'),
                                      (13, 3, 20.0, 'paid'), (14, 2, 30.0, 'open');
            INSERT INTO lines VALUES (100, 10, 'pen', 1), (101, 10, 'pen', 2), (102, 10, 'ink', 3),
                                     (103, 10, 'pad', 1), (104, 10, 'pad', 4), (105, 11, 'pen', 1),
                                     (106, 12, 'ink', 5), (107, 12, 'ink', 1), (108, 13, 'pad', 2),
                                     (109, 14, 'ink', 1), (110, 11, 'pad', 1);
        """)
    return path


@pytest.fixture(scope="module")
def fan(tmp_path_factory):
    path = _fan_db(tmp_path_factory.mktemp("fan") / "shop.sqlite")
    return path, _build(path)


def _term(table: str, column: str | None = None) -> str:
    return f"term/shop/{table}" + (f".{column}" if column else "")


#: (semantic query, the right SQL, the naive join-then-aggregate SQL that double counts)
FAN_TRAPS = [
    ({"metrics": [{"term": _term("orders", "amount"), "aggregate": agg}], "dimensions": [_term("customers", "name")],
      "filters": [{"term": _term("lines", "product"), "op": "=", "value": product}]},
     f"SELECT c.name, {agg}(o.amount) FROM customers c JOIN orders o ON o.customer_id = c.customer_id "
     f"WHERE o.order_id IN (SELECT order_id FROM lines WHERE product = '{product}') GROUP BY c.name",
     f"SELECT c.name, {agg}(o.amount) FROM customers c JOIN orders o ON o.customer_id = c.customer_id "
     f"JOIN lines l ON l.order_id = o.order_id WHERE l.product = '{product}' GROUP BY c.name")
    for agg in ("sum", "count", "avg") for product in ("ink", "pen", "pad")
] + [
    ({"metrics": [{"term": _term("orders", "amount"), "aggregate": "sum"}],
      "dimensions": [_term("customers", "region")],
      "filters": [{"term": _term("lines", "product"), "op": "in", "value": [product, "nothing"]}]},
     f"SELECT c.region, sum(o.amount) FROM customers c JOIN orders o ON o.customer_id = c.customer_id "
     f"WHERE o.order_id IN (SELECT order_id FROM lines WHERE product = '{product}') GROUP BY c.region",
     f"SELECT c.region, sum(o.amount) FROM customers c JOIN orders o ON o.customer_id = c.customer_id "
     f"JOIN lines l ON l.order_id = o.order_id WHERE l.product IN ('{product}', 'nothing') GROUP BY c.region")
    for product in ("pen", "pad")
] + [
    ({"metrics": [{"term": _term("orders", "amount"), "aggregate": agg},
                  {"term": _term("lines", "quantity"), "aggregate": "sum"}],
      "dimensions": [_term("customers", dim)]},
     f"SELECT c.{dim}, (SELECT {agg}(o.amount) FROM orders o JOIN customers c2 ON o.customer_id = c2.customer_id "
     f"WHERE c2.{dim} = c.{dim}), (SELECT sum(l.quantity) FROM lines l JOIN orders o ON l.order_id = o.order_id "
     f"JOIN customers c2 ON o.customer_id = c2.customer_id WHERE c2.{dim} = c.{dim}) FROM customers c "
     f"GROUP BY c.{dim}",
     f"SELECT c.{dim}, {agg}(o.amount), sum(l.quantity) FROM customers c JOIN orders o ON o.customer_id = "
     f"c.customer_id JOIN lines l ON l.order_id = o.order_id GROUP BY c.{dim}")
    for agg in ("sum", "count", "avg") for dim in ("name", "region")
] + [
    ({"metrics": [{"term": _term("orders", "amount"), "aggregate": "sum"}], "dimensions": [_term("lines", "product")]},
     "SELECT p.product, sum(o.amount) FROM orders o JOIN (SELECT DISTINCT order_id, product FROM lines) p "
     "ON p.order_id = o.order_id GROUP BY p.product",
     "SELECT l.product, sum(o.amount) FROM orders o JOIN lines l ON l.order_id = o.order_id GROUP BY l.product"),
    ({"metrics": [{"aggregate": "count", "of": _term("customers")}], "dimensions": [_term("lines", "product")]},
     "SELECT p.product, count(*) FROM customers c JOIN (SELECT DISTINCT o.customer_id, l.product FROM orders o "
     "JOIN lines l ON l.order_id = o.order_id) p ON p.customer_id = c.customer_id GROUP BY p.product",
     "SELECT l.product, count(*) FROM customers c JOIN orders o ON o.customer_id = c.customer_id "
     "JOIN lines l ON l.order_id = o.order_id GROUP BY l.product"),
    ({"metrics": [{"term": _term("orders", "amount"), "aggregate": "sum"}],
      "filters": [{"term": _term("lines", "quantity"), "op": ">=", "value": 1}]},
     "SELECT sum(amount) FROM orders WHERE order_id IN (SELECT order_id FROM lines WHERE quantity >= 1)",
     "SELECT sum(o.amount) FROM orders o JOIN lines l ON l.order_id = o.order_id WHERE l.quantity >= 1"),
]


def _norm(rows: list[tuple]) -> list[tuple]:
    return sorted((tuple(round(v, 9) if isinstance(v, float) else v for v in r) for r in rows), key=repr)


def test_there_are_twenty_fan_traps_and_each_naive_query_double_counts(fan):
    path, _ = fan
    assert len(FAN_TRAPS) == 20
    for _query, right, naive in FAN_TRAPS:
        assert sorted(_rows(path, right)) != sorted(_rows(path, naive)), naive


@pytest.mark.parametrize("case", range(20))
def test_fan_trap_compiles_to_the_right_numbers(fan, case):
    path, onto_codec = fan
    query, right, _naive = FAN_TRAPS[case]
    answer = _compile(onto_codec, query)
    assert answer["status"] == "ok", answer
    assert _norm(_rows(path, answer["sql"])) == _norm(_rows(path, right)), answer["sql"]
    # each measure aggregated at its own grain: reduced to distinct keys, or aggregated per table apart
    assert any(g["fan_out"] for g in answer["grain"]) or len(answer["grain"]) > 1, answer["grain"]


def test_naive_fan_trap_sql_is_flagged_by_check_sql(fan):
    from evoonto.tools.sqlcheck import check_sql

    _path, (onto, _codec) = fan
    # COUNT(*) over a fan-out is left out: check_sql's fan-trap rule covers aggregates of columns
    naive_column_aggregates = [naive for _q, _right, naive in FAN_TRAPS if "count(*)" not in naive]
    flagged = [naive for naive in naive_column_aggregates
               if any(f.kind == "fan_trap" for f in check_sql(onto, naive))]
    assert len(naive_column_aggregates) == 19
    assert flagged == naive_column_aggregates


# -- required Constraints, questions, the tool and the CLI -------------------------------------------------

CARDS = Path(__file__).parent / "fixtures" / "sqlcheck_cards.trig"
CARDS_BASE = "https://example.org/evoonto/sqlcheck-test/"


@pytest.fixture(scope="module")
def cards():
    from evoonto.ontology import Ontology
    from evoonto.store import OxigraphStore, parse_rdf_file
    from evoonto.tools.resolve import IdCodec

    store = OxigraphStore()
    store.load_quads(parse_rdf_file(CARDS))
    return Ontology(store, version=1, base_iri=CARDS_BASE), IdCodec(CARDS_BASE)


def test_required_constraint_is_applied_when_its_trigger_is_filtered(cards):
    answer = _compile(cards, {"dimensions": ["term/cards/artist"],
                              "filters": [{"term": "term/cards/legality", "op": "=", "value": "Banned"}]})
    assert answer["status"] == "ok", answer
    assert [c["condition"] for c in answer["constraints"]] == ['"legalities"."format" = \'commander\'']
    assert '"legalities"."format" = \'commander\'' in answer["sql"]
    # not triggered by another value, and not added twice when the query already restricts format
    other = _compile(cards, {"dimensions": ["term/cards/artist"],
                             "filters": [{"term": "term/cards/legality", "op": "=", "value": "Legal"}]})
    assert other["constraints"] == [] and "format" not in other["sql"]
    given = _compile(cards, {"dimensions": ["term/cards/artist"],
                             "filters": [{"term": "term/cards/legality", "op": "=", "value": "Banned"},
                                         {"term": "term/cards/format", "op": "=", "value": "vintage"}]})
    assert given["constraints"] == [] and "'commander'" not in given["sql"]


def test_two_known_joins_between_two_tables_come_back_as_a_question(tmp_path):
    path = tmp_path / "people.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE colour (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE hero (id INTEGER PRIMARY KEY, name TEXT, eye_colour_id INTEGER REFERENCES colour(id),
                               hair_colour_id INTEGER REFERENCES colour(id));
            INSERT INTO colour VALUES (1, 'blue'), (2, 'brown');
            INSERT INTO hero VALUES (1, 'A', 1, 2), (2, 'B', 2, 2), (3, 'C', 1, 1);
        """)
    onto_codec = _build(path)
    query = {"metrics": [{"aggregate": "count", "of": "term/people/hero"}], "dimensions": ["term/people/colour.name"]}
    answer = _compile(onto_codec, query)
    assert answer["status"] == "question"
    assert sorted(answer["choices"]) == ['"hero"."eye_colour_id" = "colour"."id"',
                                         '"hero"."hair_colour_id" = "colour"."id"']
    chosen = _compile(onto_codec, {**query, "joins": ["hero.hair_colour_id = colour.id"]})
    assert chosen["status"] == "ok"
    assert sorted(_rows(path, chosen["sql"])) == [("blue", 1), ("brown", 2)]
    unknown = _compile(onto_codec, {**query, "joins": ["hero.name = colour.name"]})
    assert unknown["status"] == "unavailable" and "a known join" in unknown["missing"]


def test_tool_is_in_the_registry_and_runs_read_only(concert):
    from evoonto.tools.toolkit import OntologyTools

    onto, _codec = concert
    tools = OntologyTools(onto, sources={"concert_singer": str(PACKAGED)}, data_tools=True,
                          base_iri=_codec.base)
    try:
        spec = tools.registry()["semantic_query"]
        assert spec.read_only and spec.input_schema["required"] == ["query"]
        answer = tools.call("semantic_query", {"query": {
            "metrics": [{"aggregate": "count", "of": "term/concert_singer/singer"}],
            "dimensions": ["term/concert_singer/singer.Country"],
            "order": [{"term": "term/concert_singer/singer.Country"}]},
            "run": True, "limit": 10})
        assert answer["result"]["rows"] == [list(r) for r in _rows(
            PACKAGED, "SELECT Country, count(*) FROM singer GROUP BY Country ORDER BY Country")]
        with pytest.raises(ToolArgumentError, match="limit"):
            tools.call("semantic_query", {"query": {"dimensions": ["term/concert_singer/singer.Name"]}, "limit": 0})
    finally:
        tools.close()


@pytest.mark.slow  # a workspace written and opened (about 8 s)
def test_cli_query_semantic(tmp_path, capsys):
    import json

    from evoonto.cli import main
    from evoonto.workspace import Workspace

    onto, _codec = _build(PACKAGED)
    ws = Workspace.init(tmp_path / "ws", base_iri="https://example.org/evoonto/build/")
    ws.replace_base({name: onto.graph(name) for name in ("catalog", "content")})
    wsarg = ["--workspace", str(tmp_path / "ws"), "--source", str(PACKAGED)]
    query = json.dumps({"metrics": [{"term": "term/concert_singer/singer.Age", "aggregate": "max"}]})
    assert main(["query", *wsarg, "--semantic", query, "--run"]) == 0
    out = capsys.readouterr().out
    assert 'SELECT MAX("singer"."Age") FROM "singer"' in out
    assert out.strip().splitlines()[-1] == str(_rows(PACKAGED, "SELECT max(Age) FROM singer")[0][0])
    assert main(["query", *wsarg, "--json", "--semantic", json.dumps({"dimensions": ["term/x/none"]})]) == 1
    assert json.loads(capsys.readouterr().out)["status"] == "unavailable"
    assert main(["query", *wsarg, "--semantic", "{bad"]) == 2


def test_a_label_names_its_term_and_a_shared_label_is_a_question(concert):
    answer = _compile(concert, {"metrics": [{"term": "Singer age", "aggregate": "avg"}],
                                "dimensions": ["Singer country"]})
    assert answer["sql"] == 'SELECT "singer"."Country", AVG("singer"."Age") FROM "singer" GROUP BY "singer"."Country"'
    shared = _compile(concert, {"dimensions": ["name"]})
    assert shared["status"] == "question"
    assert shared["choices"] == ["term/concert_singer/concert.concert_Name", "term/concert_singer/singer.Name",
                                 "term/concert_singer/stadium.Name"]


def test_filtered_and_derived_metrics(concert):
    france = {"aggregate": "count", "of": "term/concert_singer/singer",
              "filters": [{"term": "term/concert_singer/singer.Country", "op": "=", "value": "France"}]}
    answer = _compile(concert, {"metrics": [
        {"formula": "100 * f / n",
         "inputs": {"f": france, "n": {"aggregate": "count", "of": "term/concert_singer/singer"}}},
        france]})
    assert answer["status"] == "ok", answer
    share, count = _rows(PACKAGED, answer["sql"])[0]
    [(want_share, want_count)] = _rows(PACKAGED, "SELECT CAST(SUM(IIF(Country = 'France', 1, 0)) AS REAL) * 100 / "
                                                 "COUNT(*), SUM(Country = 'France') FROM singer")
    assert (share, count) == (pytest.approx(want_share), want_count) and count > 0
    for formula, message in (("f + max(n)", "formulas use"), ("f / x", "not one of its inputs")):
        with pytest.raises(ToolArgumentError, match=message):
            _compile(concert, {"metrics": [{"formula": formula, "inputs": {"f": france, "n": france}}]})


def test_value_term_as_a_metric_counts_only_its_rows(concert):
    """Regression: a value Term (a Mapping with evo:filter, aggregation COUNT) used as a metric counted
    every row of its column, its filter left out."""
    answer = _compile(concert, {"metrics": ["term/concert_singer/singer.Country%3DFrance"]})
    assert _rows(PACKAGED, answer["sql"]) == _rows(PACKAGED, "SELECT count(*) FROM singer WHERE Country = 'France'")
    assert answer["notes"] == ['metric over the rows where "singer"."Country" = \'France\' (its Mapping\'s filter)']


def test_a_distinct_listing_is_not_ordered_by_a_column_it_does_not_show(concert):
    answer = _compile(concert, {"dimensions": ["term/concert_singer/singer.Country"], "distinct": True,
                                "order": [{"term": "term/concert_singer/singer.Age"}]})
    assert answer["status"] == "unavailable" and "distinct listing" in answer["missing"]
    shown = _compile(concert, {"dimensions": ["term/concert_singer/singer.Country"], "distinct": True,
                               "order": [{"term": "term/concert_singer/singer.Country", "desc": True}]})
    assert _rows(PACKAGED, shown["sql"]) == _rows(PACKAGED, "SELECT DISTINCT Country FROM singer ORDER BY Country DESC")


# -- review findings S1-S5 (issue 32) ------------------------------------------------------------------


def _shop_db(path: Path) -> Path:
    """customers 1:N orders, orders 1:N order_items (key order_id, line_no), orders 1:N payments; some orders
    have no payment, no item or several of each."""
    db = path / "shop.sqlite"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE customers(customer_id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE orders(order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(customer_id),
                            status TEXT);
        CREATE TABLE order_items(order_id INTEGER REFERENCES orders(order_id), line_no INTEGER, product TEXT,
                                 PRIMARY KEY (order_id, line_no));
        CREATE TABLE payments(payment_id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders(order_id),
                              method TEXT);""")
    con.executemany("INSERT INTO customers VALUES (?, ?)", [(i, f"c{i}") for i in range(1, 6)])
    con.executemany("INSERT INTO orders VALUES (?, ?, ?)",
                    [(i, 1 + i % 5, ("open", "closed", "shipped")[i % 3]) for i in range(1, 41)])
    con.executemany("INSERT INTO order_items VALUES (?, ?, ?)",
                    [(o, n, "abc"[(o + n) % 3]) for o in range(1, 41) for n in range(1, 1 + o % 4)])
    pays, pid = [], 0
    for o in range(1, 41):
        for k in range(o % 3):  # 0, 1 or 2 payments
            pid += 1
            pays.append((pid, o, ("cash", "card")[(o + k) % 2]))
    con.executemany("INSERT INTO payments VALUES (?, ?, ?)", pays)
    con.commit()
    con.close()
    return db


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    db = _shop_db(tmp_path_factory.mktemp("shop"))
    return db, _build(db)


def _count_orders(onto_codec, *filters):
    return _compile(onto_codec, {"metrics": [{"aggregate": "count", "of": "term/shop/orders"}],
                                 "filters": list(filters)})


def _eq(column: str, value: str) -> dict:
    return {"term": f"term/shop/{column}", "op": "=", "value": value}


def test_s1_any_across_a_one_to_many_hop_is_a_semi_join_on_the_hops_key(shop):
    db, onto = shop
    gold = ("SELECT COUNT(*) FROM orders o WHERE o.status = 'open' OR EXISTS "
            "(SELECT 1 FROM {t} x WHERE x.order_id = o.order_id AND x.{c} = '{v}')")
    cases = [(_eq("payments.method", "cash"), gold.format(t="payments", c="method", v="cash")),
             (_eq("order_items.product", "a"), gold.format(t="order_items", c="product", v="a"))]
    for other, sql in cases:
        # the inner join would drop open orders without a cash payment (a smaller count)
        answer = _count_orders(onto, {"any": [_eq("orders.status", "open"), other]})
        assert answer["status"] == "ok", answer
        assert "EXISTS" in answer["sql"]
        assert _rows(db, answer["sql"]) == _rows(db, sql)
    # both sides of the OR on two different one-to-many tables: two semi-joins, not a join of the two
    answer = _count_orders(onto, {"any": [_eq("order_items.product", "a"), _eq("payments.method", "cash")]})
    assert answer["status"] == "ok", answer
    assert _rows(db, answer["sql"]) == _rows(db, """SELECT COUNT(*) FROM orders o WHERE
        EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = o.order_id AND i.product = 'a') OR
        EXISTS (SELECT 1 FROM payments p WHERE p.order_id = o.order_id AND p.method = 'cash')""")
    # grouped by a dimension of the one side, and beside a measure of the many side
    answer = _compile(onto, {"metrics": [{"aggregate": "count", "of": "term/shop/orders"}],
                             "dimensions": ["term/shop/customers.name"],
                             "filters": [{"any": [_eq("orders.status", "open"), _eq("payments.method", "cash")]}]})
    assert answer["status"] == "ok", answer
    assert _norm(_rows(db, answer["sql"])) == _norm(_rows(db, """SELECT c.name, COUNT(*) FROM orders o
        JOIN customers c ON c.customer_id = o.customer_id WHERE o.status = 'open' OR EXISTS
        (SELECT 1 FROM payments p WHERE p.order_id = o.order_id AND p.method = 'cash') GROUP BY c.name"""))
    # the far table also a dimension: its rows are joined, so the OR is not rewritten and not guessed
    answer = _compile(onto, {"metrics": [{"aggregate": "count", "of": "term/shop/orders"}],
                             "dimensions": ["term/shop/payments.method"],
                             "filters": [{"any": [_eq("orders.status", "open"), _eq("payments.method", "cash")]}]})
    assert answer["status"] == "unavailable", answer
    # a listing is not rewritten either
    answer = _compile(onto, {"dimensions": ["term/shop/orders.order_id"],
                             "filters": [{"any": [_eq("orders.status", "open"), _eq("payments.method", "cash")]}]})
    assert answer["status"] == "unavailable", answer
    # an OR on the measure's own table, and one on the many side alone, compile as before
    answer = _count_orders(onto, {"any": [_eq("orders.status", "open"), _eq("orders.status", "closed")]})
    assert answer["status"] == "ok", answer
    assert _rows(db, answer["sql"]) == _rows(db, "SELECT COUNT(*) FROM orders WHERE status IN ('open', 'closed')")
    answer = _count_orders(onto, {"any": [_eq("payments.method", "cash"), _eq("payments.method", "card")]})
    assert answer["status"] == "ok", answer
    assert _rows(db, answer["sql"]) == _rows(db, "SELECT COUNT(DISTINCT order_id) FROM payments "
                                                 "WHERE method IN ('cash', 'card')")


def test_s1_not_across_a_one_to_many_hop_is_a_question(shop):
    _db, onto = shop
    answer = _count_orders(onto, {"not": _eq("payments.method", "cash")})
    assert answer["status"] == "question", answer
    assert len(answer["choices"]) == 2 and any("NOT EXISTS" in c for c in answer["choices"])
    # NOT on the measure's own table is no question
    assert _count_orders(onto, {"not": _eq("orders.status", "open")})["status"] == "ok"


def test_s1_is_null_across_a_one_to_many_hop_is_unavailable(shop):
    db, onto = shop
    answer = _count_orders(onto, {"term": "term/shop/payments.method", "op": "is null"})
    assert answer["status"] == "unavailable", answer
    assert _rows(db, "SELECT COUNT(*) FROM orders o WHERE NOT EXISTS "
                     "(SELECT 1 FROM payments p WHERE p.order_id = o.order_id)")[0][0] > 0  # what it would miss
    # a plain comparison on the many side keeps its existential reading, counted once per order
    answer = _count_orders(onto, _eq("payments.method", "cash"))
    assert answer["status"] == "ok", answer
    assert _rows(db, answer["sql"]) == _rows(db, "SELECT COUNT(DISTINCT order_id) FROM payments WHERE method = 'cash'")


def test_s2_deep_nesting_is_refused_with_one_line_errors(shop):
    import json
    import time

    _db, onto = shop
    deep: dict = _eq("orders.status", "open")
    for _ in range(600):
        deep = {"not": deep}
    with pytest.raises(ToolArgumentError, match="nest at most"):
        _count_orders(onto, deep)
    with pytest.raises(ToolArgumentError, match="nests too deep"):
        _compile(onto, "[" * 5000)
    metric: dict = {"aggregate": "count", "of": "term/shop/orders"}
    for _ in range(40):
        metric = {"formula": "a", "inputs": {"a": metric}}
    started = time.monotonic()
    with pytest.raises(ToolArgumentError, match="nest at most"):
        _compile(onto, json.dumps({"metrics": [metric]}))
    doubled: dict = {"aggregate": "count", "of": "term/shop/orders"}
    for _ in range(8):  # 2**8 metrics once expanded, in eight levels
        doubled = {"formula": "a + a", "inputs": {"a": doubled}}
    with pytest.raises(ToolArgumentError, match="at most 200 metric and filter nodes"):
        _compile(onto, {"metrics": [doubled]})
    assert time.monotonic() - started < 5  # refused before any exponential work (was 60 s and 3.4 GB)


def test_s3_a_set_operation_over_pre_aggregated_operands_runs(shop):
    db, onto = shop
    count = {"aggregate": "count", "of": "term/shop/orders"}
    answer = _compile(onto, {"set": "union", "queries": [
        {"metrics": [count], "dimensions": ["term/shop/order_items.product"]},
        {"metrics": [count], "dimensions": ["term/shop/payments.method"]}]})
    assert answer["status"] == "ok", answer
    got = sorted(_rows(db, answer["sql"]))
    gold = sorted(_rows(db, "SELECT product, COUNT(DISTINCT order_id) FROM order_items GROUP BY product UNION "
                            "SELECT method, COUNT(DISTINCT order_id) FROM payments GROUP BY method"))
    assert got == gold


@pytest.mark.parametrize("op, value", [("=", None), ("!=", None), ("not in", ["open", None]),
                                       ("between", [None, "x"])])
def test_s4_a_null_value_is_refused_for_is_null(shop, op, value):
    _db, onto = shop
    with pytest.raises(ToolArgumentError, match="use op 'is null'"):
        _count_orders(onto, {"term": "term/shop/orders.status", "op": op, "value": value})


def test_s5_a_non_finite_number_is_refused(shop):
    _db, onto = shop
    text = ('{"metrics": [{"aggregate": "count", "of": "term/shop/orders"}], '
            '"filters": [{"term": "term/shop/orders.order_id", "op": ">", "value": 1e400}]}')
    with pytest.raises(ToolArgumentError, match="finite number"):
        _compile(onto, text)


def test_two_join_routes_guessed(tmp_path):
    """Defect: two tables joined by two routes through different tables (an account's client through the
    shared district, or through the disposition that links them) were joined by the shorter-looking one
    (the shared-key shortcut) without asking; the result answered another question than the gold's."""
    path = _bank(tmp_path)
    onto_codec = _build(path)
    query = {"dimensions": ["term/bank/account.account_id"],
             "filters": [{"term": "term/bank/client.gender", "op": "=", "value": "F"}]}
    answer = _compile(onto_codec, query)
    assert answer["status"] == "question", answer
    assert "account and client join through different tables" in answer["question"]
    routes = sorted(answer["choices"])
    assert routes == [['"account"."account_id" = "disp"."account_id"', '"disp"."client_id" = "client"."client_id"'],
                      ['"account"."district_id" = "district"."district_id"',
                       '"district"."district_id" = "client"."district_id"']]
    by_disp = _compile(onto_codec, {**query, "joins": routes[0]})
    assert by_disp["status"] == "ok", by_disp
    assert sorted(_rows(path, by_disp["sql"])) == [(11,), (12,)]  # the accounts of female clients
    by_district = _compile(onto_codec, {**query, "joins": routes[1]})
    assert by_district["status"] == "ok", by_district
    assert sorted(_rows(path, by_district["sql"])) == [(10,), (11,), (12,)]  # accounts in their districts


@pytest.mark.parametrize("key_table", ["district", "area"])
def test_two_join_routes_guessed_when_the_key_table_is_needed_too(tmp_path, key_table):
    """The same two routes when the query also names the shared key table (ordered by its name): which
    district is meant, the account's or the client's, is the same question, whatever the tables are
    called (the table that sorts first once decided it)."""
    path = _bank(tmp_path, key_table)
    onto_codec = _build(path)
    answer = _compile(onto_codec, {"dimensions": ["term/bank/account.account_id"],
                                   "filters": [{"term": "term/bank/client.gender", "op": "=", "value": "F"}],
                                   "order": [{"term": f"term/bank/{key_table}.name"}]})
    assert answer["status"] == "question", answer
    assert "account and client join through different tables" in answer["question"]


def test_needed_table_joined_from_the_first_joined_table_by_name(tmp_path):
    """Defect: a table the query needs that two joined tables both reach (the district of the account
    or of the client, once the disp joins are chosen) was joined from the one whose name sorts first."""
    path = _bank(tmp_path)
    onto_codec = _build(path)
    query = {"dimensions": ["term/bank/account.account_id"],
             "filters": [{"term": "term/bank/client.gender", "op": "=", "value": "F"}],
             "order": [{"term": "term/bank/district.name"}],
             "joins": ["client.client_id = disp.client_id", "disp.account_id = account.account_id"]}
    answer = _compile(onto_codec, query)
    assert answer["status"] == "question", answer
    assert "district joins account and client in different ways" in answer["question"]
    assert sorted(answer["choices"]) == [['"account"."district_id" = "district"."district_id"'],
                                         ['"client"."district_id" = "district"."district_id"']]
    chosen = _compile(onto_codec, {**query, "joins": query["joins"] + ["client.district_id = district.district_id"]})
    assert chosen["status"] == "ok", chosen
    assert '"client"."district_id" = "district"."district_id"' in chosen["sql"]
    assert '"account"."district_id" = "district"."district_id"' not in chosen["sql"]


def _bank(tmp_path: Path, key_table: str = "district") -> Path:
    """A bank whose account reaches its client two ways: through the shared ``key_table`` (the
    district) or through ``disp``."""
    path = tmp_path / "bank.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript(f"""
            CREATE TABLE {key_table} (district_id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE client (client_id INTEGER PRIMARY KEY, gender TEXT,
                                 district_id INTEGER REFERENCES {key_table}(district_id));
            CREATE TABLE account (account_id INTEGER PRIMARY KEY,
                                  district_id INTEGER REFERENCES {key_table}(district_id));
            CREATE TABLE disp (disp_id INTEGER PRIMARY KEY, client_id INTEGER REFERENCES client(client_id),
                               account_id INTEGER REFERENCES account(account_id));
            INSERT INTO {key_table} VALUES (1, 'north'), (2, 'south');
            INSERT INTO client VALUES (1, 'F', 1), (2, 'M', 1), (3, 'F', 2);
            INSERT INTO account VALUES (10, 1), (11, 1), (12, 2);
            INSERT INTO disp VALUES (1, 1, 11), (2, 2, 10), (3, 3, 12);
        """)
    return path


def test_one_join_route_through_a_shared_key_is_no_question(tmp_path):
    """The shared-key shortcut (city.country = language.country, both keys of country) stands for the
    route through country, so it is the only route and no question is asked."""
    path = tmp_path / "atlas.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE country (code TEXT PRIMARY KEY, name TEXT);
            CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT, country TEXT REFERENCES country(code));
            CREATE TABLE language (country TEXT REFERENCES country(code), language TEXT,
                                   PRIMARY KEY (country, language));
            INSERT INTO country VALUES ('A', 'Aland'), ('B', 'Bland');
            INSERT INTO city VALUES (1, 'x', 'A'), (2, 'y', 'B');
            INSERT INTO language VALUES ('A', 'one'), ('A', 'two'), ('B', 'two');
        """)
    onto_codec = _build(path)
    answer = _compile(onto_codec, {"dimensions": ["term/atlas/city.name"], "distinct": True,
                                   "filters": [{"term": "term/atlas/language.language", "op": "=", "value": "one"}]})
    assert answer["status"] == "ok", answer
    assert _rows(path, answer["sql"]) == [("x",)]
    # city and language joined on their shared country: country from either is the same join
    both = _compile(onto_codec, {"dimensions": ["term/atlas/city.name", "term/atlas/country.name"],
                                 "filters": [{"term": "term/atlas/language.language", "op": "=", "value": "two"}],
                                 "joins": ["city.country = language.country"]})
    assert both["status"] == "ok", both
    assert sorted(_rows(path, both["sql"])) == [("x", "Aland"), ("y", "Bland")]
