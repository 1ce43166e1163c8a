"""Join paths (issue 15 item 1) and the join findings of check_sql (item 2): evoonto.tools.joinpaths."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlglot

from evoonto.errors import ToolArgumentError
from evoonto.tools.joinpaths import JoinEdge, JoinGraph, TableRef, check_joins, written_joins

SHOP = """
CREATE TABLE "Customers" ("CustomerID" TEXT PRIMARY KEY, "Country" TEXT, "Name" TEXT);
CREATE TABLE "Orders" ("OrderID" INTEGER PRIMARY KEY, "CustomerID" TEXT REFERENCES "Customers"("CustomerID"),
                       "Freight" REAL, "Year" INTEGER);
CREATE TABLE "Products" ("ProductID" INTEGER PRIMARY KEY, "ProductName" TEXT);
CREATE TABLE "Order Details" ("OrderID" INTEGER REFERENCES "Orders"("OrderID"),
                              "ProductID" INTEGER REFERENCES "Products"("ProductID"),
                              "Quantity" INTEGER, "Discount" REAL, PRIMARY KEY ("OrderID", "ProductID"));
CREATE VIEW "Invoices" AS SELECT o."OrderID", c."Country", d."Quantity", d."Discount"
  FROM "Orders" o JOIN "Customers" c ON o."CustomerID" = c."CustomerID"
  JOIN "Order Details" d ON d."OrderID" = o."OrderID";
"""


def make_shop(path: Path) -> Path:
    """A small Northwind-like SQLite database (a table name with a space, a composite key, a view)."""
    db = path / "shop.sqlite"
    con = sqlite3.connect(db)
    con.executescript(SHOP)
    countries = ["USA", "Germany", "France", "Brazil", "Mexico", "Spain", "Italy", "UK"]
    con.executemany('INSERT INTO "Customers" VALUES (?, ?, ?)',
                    [(f"C{i:02}", countries[i % len(countries)], f"name {i}") for i in range(40)])
    con.executemany('INSERT INTO "Orders" VALUES (?, ?, ?, ?)',
                    [(i, f"C{i % 40:02}", 1.5 * i, 1996 + i % 3) for i in range(1, 201)])
    con.executemany('INSERT INTO "Products" VALUES (?, ?)', [(i, f"product {i}") for i in range(1, 31)])
    con.executemany('INSERT INTO "Order Details" VALUES (?, ?, ?, ?)',
                    [(o, p, (o * p) % 17 + 1, 0.05 * (p % 3))
                     for o in range(1, 201) for p in (o % 30 + 1, (o + 7) % 30 + 1)])
    con.commit()
    con.close()
    return db


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    from evoonto.builder import build
    from evoonto.ontology import Ontology

    db = make_shop(tmp_path_factory.mktemp("shop"))
    result = build([db], None, validate=False)
    return Ontology.from_graphs(result.graphs), result.base_iri


@pytest.fixture(scope="module")
def graph(shop):
    return JoinGraph.from_ontology(shop[0])


def test_multi_hop_path_is_quoted_with_cardinality_and_evidence(shop, graph):
    path = graph.path("Order Details", "customers")
    assert path is not None and path.tables == ["Order Details", "Orders", "Customers"]
    first, second = path.hops
    assert first.condition("sqlite") == '"Order Details"."OrderID" = "Orders"."OrderID"'
    assert second.condition("sqlite") == '"Orders"."CustomerID" = "Customers"."CustomerID"'
    assert (first.cardinality, second.cardinality) == ("N:1", "N:1")
    assert first.origin == "foreign_key" and first.evidence
    ontology = shop[0]
    assert ontology.query(f"ASK {{ <{first.evidence[0]}> a <https://w3id.org/evoonto/ns#Evidence> }}") is True
    assert path.fan_out == [] and path.warnings() == []
    parsed = sqlglot.parse_one(f"SELECT 1 {path.sql()}", read="sqlite")
    assert {t.name for t in parsed.find_all(sqlglot.exp.Table)} == {"Order Details", "Orders", "Customers"}


def test_reverse_path_warns_about_fan_out(graph):
    path = graph.path("Customers", "Order Details")
    assert [h.cardinality for h in path.hops] == ["1:N", "1:N"]
    assert len(path.fan_out) == 2
    assert "multiplied" in path.warnings()[0]


def test_unknown_table_is_an_argument_error(graph):
    with pytest.raises(ToolArgumentError, match="unknown table"):
        graph.path("Orders", "Shipments")


def test_later_sources_of_joins_add_edges(shop):
    graph = JoinGraph.from_ontology(shop[0])  # a graph of its own: this test adds edges
    edge = graph.add_edge(JoinEdge("shop", "Orders", ("CustomerID",), "Customers", ("CustomerID",),
                                   origin="verified_query", evidence=("urn:example:query-1",)))
    assert edge.origin == "foreign_key"  # the declared key keeps the better origin
    assert "urn:example:query-1" in edge.evidence
    new = graph.add_edge(JoinEdge("shop", "Products", ("ProductName",), "Customers", ("Name",),
                                  origin="verified_query"))
    assert new.origin == "verified_query" and new.cardinality in ("N:M", "N:1", "1:N", "1:1")
    assert any(e.origin == "verified_query" for e in graph.between(graph.table("Products"), graph.table("Customers")))


def _kinds(graph, sql):
    return [(f.kind, f.severity) for f in check_joins(graph, sqlglot.parse_one(sql, read="sqlite"), dialect="sqlite")]


def test_check_joins_accepts_known_joins(graph):
    # orders per customer (grouped by the customer's key): the joined rows are what is counted
    assert _kinds(graph, 'SELECT c.CustomerID, COUNT(*) FROM Customers AS c JOIN Orders AS o '
                         'ON o.CustomerID = c.CustomerID GROUP BY c.CustomerID') == []
    # per customer country the count is ambiguous (orders or customers per country): a Warning naming
    # both readings, without a drop-in fix (tests/regressions/test_count_star_fan_out_grouped_by_attribute.py)
    assert _kinds(graph, 'SELECT c.Country, COUNT(*) FROM Customers AS c JOIN Orders AS o '
                         'ON o.CustomerID = c.CustomerID GROUP BY c.Country') == [("fan_trap", "Warning")]
    assert _kinds(graph, 'SELECT T1.ProductName FROM Products T1, "Order Details" T2 WHERE T1.ProductID = T2.ProductID '
                         'AND T2.OrderID IN (SELECT T1.OrderID FROM Orders T1 WHERE T1.Year = 1997)') == []


def test_check_joins_mismatched_keys_offline_is_a_warning_without_a_drop_in_fix(graph):
    sql = 'SELECT * FROM Orders o JOIN "Order Details" d ON o.OrderID = d.ProductID'
    findings = check_joins(graph, sqlglot.parse_one(sql, read="sqlite"), dialect="sqlite")
    assert [(f.kind, f.severity) for f in findings] == [("mismatched_join_keys", "Warning")]
    # the known join is named, never offered as the fix: it joins other rows
    assert findings[0].suggestion is None and '"o"."OrderID" = "d"."OrderID"' in findings[0].message
    assert "change the answer" in findings[0].message
    assert sql[findings[0].start:findings[0].end] == "o.OrderID = d.ProductID"


def test_mismatched_keys_is_a_violation_only_when_a_probe_finds_no_overlap(graph, tmp_path):
    """A join to another role of a key (the columns share values) is not provably wrong; keys that
    share no value in the data are."""
    from evoonto.sources import open_source
    from evoonto.tools.sqlcheck import DataProbe

    with open_source(make_shop(tmp_path), source_id="shop") as src:
        probe = DataProbe(src, "sqlite")
        overlapping = 'SELECT * FROM Orders o JOIN "Order Details" d ON o.OrderID = d.ProductID'
        [f] = check_joins(graph, sqlglot.parse_one(overlapping, read="sqlite"), dialect="sqlite", probe=probe)
        assert (f.severity, f.suggestion) == ("Warning", None) and "a probe found" in f.message
        assert "Order Details.ProductID references Products.ProductID" in f.message, f.message
        disjoint = "SELECT * FROM Orders o JOIN Customers c ON o.CustomerID = c.Country"
        [f] = check_joins(graph, sqlglot.parse_one(disjoint, read="sqlite"), dialect="sqlite", probe=probe)
        assert (f.kind, f.severity) == ("mismatched_join_keys", "Violation")
        assert f.suggestion is None and '"o"."CustomerID" = "c"."CustomerID"' in f.message


def test_check_joins_cartesian_product(graph):
    findings = check_joins(graph, sqlglot.parse_one("SELECT * FROM Orders, Customers WHERE Freight > 3", read="sqlite"),
                           dialect="sqlite")
    assert [(f.kind, f.severity) for f in findings] == [("unknown_join", "Warning")]
    assert findings[0].suggestion == '"Orders"."CustomerID" = "Customers"."CustomerID"'


def test_check_joins_fan_trap(graph):
    sql = 'SELECT SUM(o.Freight) FROM Orders o JOIN "Order Details" d ON o.OrderID = d.OrderID'
    assert _kinds(graph, sql) == [("fan_trap", "Warning")]
    assert _kinds(graph, 'SELECT SUM(d.Quantity) FROM Orders o JOIN "Order Details" d ON o.OrderID = d.OrderID') == []
    assert _kinds(graph, 'SELECT COUNT(DISTINCT o.OrderID) FROM Orders o '
                         'JOIN "Order Details" d ON o.OrderID = d.OrderID') == []


def test_check_joins_fan_trap_over_many_to_many_join():
    """Neither side's join columns unique (a referenced key whose Evidence shows duplicates): the
    join repeats the rows of both sides, so an aggregate over either is multiplied."""
    sets, cards = TableRef("s", "Sets"), TableRef("s", "Cards")
    g = JoinGraph(columns={sets: ["id", "code", "size"], cards: ["id", "setCode", "power"]})
    g.mark_unique(sets, ["id"])
    g.mark_unique(cards, ["id"])
    g.add_edge(JoinEdge("s", "Cards", ("setCode",), "Sets", ("code",)))
    assert g.between(cards, sets)[0].cardinality == "N:M"
    assert _kinds(g, "SELECT SUM(s.size) FROM Cards c JOIN Sets s ON c.setCode = s.code") == [("fan_trap", "Warning")]
    many = "SELECT COUNT(power) FROM Cards AS c JOIN Sets AS s ON s.code = c.setCode"  # unqualified column
    findings = check_joins(g, sqlglot.parse_one(many, read="sqlite"), dialect="sqlite")
    assert [(f.kind, f.subject) for f in findings] == [("fan_trap", "Cards")]
    # once the referenced key is unique (declared, or by Evidence) the join is N:1: Cards rows are not repeated
    g.mark_unique(sets, ["code"])
    assert _kinds(g, many) == []
    assert _kinds(g, "SELECT SUM(s.size) FROM Cards c JOIN Sets s ON c.setCode = s.code") == [("fan_trap", "Warning")]


def test_check_joins_unrelated_tables(graph):
    assert _kinds(graph, "SELECT * FROM Products p JOIN Customers c ON p.ProductName = c.Country") == [
        ("unknown_join", "Warning")]


def test_join_path_tool_and_resolve_joins_section(shop):
    from evoonto.tools.toolkit import OntologyTools

    ontology, base = shop
    tools = OntologyTools(ontology, base_iri=base)
    spec = tools.registry()["join_path"]
    assert set(spec.input_schema["required"]) == {"from", "to"}
    answer = tools.call("join_path", {"from": "Products", "to": "Customers"})
    assert answer["tables"] == ["Products", "Order Details", "Orders", "Customers"]
    assert answer["hops"][0]["condition"] == '"Products"."ProductID" = "Order Details"."ProductID"'
    assert answer["hops"][0]["cardinality"] == "1:N" and answer["warnings"]
    ids = [h["id"] for h in tools.browse("product name", n=3) if h["id"].endswith("ProductName")][:1]
    ids += [h["id"] for h in tools.browse("customer country", n=5) if h["id"].endswith("Customers.Country")][:1]
    assert len(ids) == 2
    by_id = tools.call("join_path", {"from": ids[0], "to": ids[1]})
    assert by_id["tables"] == answer["tables"]
    resolved = tools.resolve(ids)
    assert [j["condition"] for j in resolved["joins"]] == [h["condition"] for h in answer["hops"]]
    assert "joins" not in tools.resolve(ids[:1])
    with pytest.raises(ToolArgumentError):
        tools.call("join_path", {"from": "Products"})


def test_subquery_conditions_do_not_link_outer_tables(graph):
    sql = ("SELECT T2.Country FROM Orders AS T1, Customers AS T2 WHERE T1.OrderID NOT IN "
           "(SELECT T1.OrderID FROM Orders AS T1 JOIN Customers AS T2 ON T1.CustomerID = T2.CustomerID)")
    assert _kinds(graph, sql) == [("unknown_join", "Warning")]


def test_quoted_and_readable_join_conditions_are_both_read(graph):
    readable = graph._parse_condition("Order Details.OrderID = Orders.OrderID")
    quoted = graph._parse_condition('"Order Details"."OrderID" = "Orders"."OrderID"')
    assert [e.pairs for e in readable] == [e.pairs for e in quoted] != []
    assert graph._parse_condition("Orders.Freight > 3") == []


def test_written_joins_resolve_aliases_per_select(graph):
    from evoonto.tools.joinpaths import written_joins

    sql = ('SELECT T1.Country FROM Customers AS T1 JOIN Orders AS T2 ON T1.CustomerID = T2.CustomerID '
           'WHERE T2.OrderID IN (SELECT T1.OrderID FROM "Order Details" AS T1 '
           'JOIN Orders AS T2 ON T1.OrderID = T2.OrderID)')
    found = written_joins(graph, sqlglot.parse_one(sql, read="sqlite"))
    assert sorted(sorted(t.name for t in w.tables) for w in found) == [
        ["Customers", "Orders"], ["Order Details", "Orders"]]
    for w in found:
        assert w.pairs == frozenset().union(*(h.pairs for h in graph.connect(w.tables)))


def test_natural_join_flagged_unknown_join(graph):
    """NATURAL JOIN and JOIN … USING join on the shared columns: they are read as those equalities,
    not as a Cartesian product (the defect: NATURAL JOIN was reported as ``unknown_join``)."""
    assert _kinds(graph, "SELECT Country, Freight FROM Customers NATURAL JOIN Orders") == []
    assert _kinds(graph, 'SELECT o.Year FROM Orders o NATURAL JOIN "Order Details" d WHERE d.Quantity > 3') == []
    assert _kinds(graph, "SELECT Country FROM Customers JOIN Orders USING (CustomerID)") == []
    # the resolved equalities are checked like written ones: a fan trap over the natural join ...
    assert _kinds(graph, 'SELECT SUM(o.Freight) FROM Orders o NATURAL JOIN "Order Details" d') == [
        ("fan_trap", "Warning")]
    # ... and a natural join whose shared columns relate nothing known
    assert _kinds(graph, "SELECT * FROM Products NATURAL JOIN Customers") == [("unknown_join", "Warning")]
    g = JoinGraph(columns={TableRef("s", "A"): ["id", "name"], TableRef("s", "B"): ["id", "name", "a_id"]})
    g.add_edge(JoinEdge("s", "B", ("a_id",), "A", ("id",)))
    found = check_joins(g, sqlglot.parse_one("SELECT * FROM A NATURAL JOIN B", read="sqlite"), dialect="sqlite")
    # not checked against the data (no probe): a Warning
    assert [(f.kind, f.severity) for f in found] == [("mismatched_join_keys", "Warning")]
    assert found[0].suggestion is None and '"A"."id" = "B"."a_id"' in found[0].message
    natural = sqlglot.parse_one("SELECT 1 FROM Customers NATURAL JOIN Orders", read="sqlite")
    with_sqlcheck = written_joins(graph, natural)
    assert [sorted(t.name for t in w.tables) for w in with_sqlcheck] == [["Customers", "Orders"]]


# -- issue 28: keys whole, fan traps through COUNT(*) and chains of joins ---------------------------------


def _composite_db(path: Path) -> Path:
    """flights/weather: weather's primary key is (origin, time_hour), flights references it whole."""
    db = path / "air.sqlite"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE weather (origin TEXT, time_hour TEXT, temp REAL, PRIMARY KEY (origin, time_hour));
        CREATE TABLE flights (id INTEGER PRIMARY KEY, origin TEXT, time_hour TEXT, dest TEXT, dep_delay REAL,
                              FOREIGN KEY (origin, time_hour) REFERENCES weather (origin, time_hour));
    """)
    hours = [f"2013-01-01 {h:02}" for h in range(24)]
    con.executemany("INSERT INTO weather VALUES (?, ?, ?)",
                    [(o, h, 10.0 + i) for o in ("EWR", "JFK", "LGA") for i, h in enumerate(hours)])
    con.executemany("INSERT INTO flights VALUES (?, ?, ?, ?, ?)",
                    [(i, ("EWR", "JFK", "LGA")[i % 3], hours[i % 24], "ANC", float(i % 7)) for i in range(300)])
    con.commit()
    con.close()
    return db


@pytest.fixture(scope="module")
def air(tmp_path_factory):
    from evoonto.builder import build
    from evoonto.ontology import Ontology

    db = _composite_db(tmp_path_factory.mktemp("air"))
    return Ontology.from_graphs(build([db], None, validate=False).graphs), db


def test_composite_foreign_key_stays_one_join(air):
    """Regression (issue 28, half keys): a two-column key came back from join_path as one column."""
    graph = JoinGraph.from_ontology(air[0])
    path = graph.path("flights", "weather")
    assert path is not None and len(path.hops) == 1
    assert path.hops[0].condition("sqlite") == (
        '"flights"."origin" = "weather"."origin" AND "flights"."time_hour" = "weather"."time_hour"')
    assert path.hops[0].cardinality == "N:1"
    # no edge between the two tables is a part of the key
    assert all(len(e.pairs) == 2 for e in graph.between(graph.table("flights"), graph.table("weather")))
    # the join_path tool's answer and resolve's joins section carry the whole key too
    from evoonto.tools.joinpaths import join_path_tool, joins_section

    answer = join_path_tool(graph, "flights", "weather")
    assert [h["condition"].count(" AND ") for h in answer["hops"]] == [1]
    [hop] = joins_section(graph, [graph.table("flights"), graph.table("weather")])
    assert hop["condition"] == path.hops[0].condition("sqlite")


def test_partial_key_join_offers_no_answer_changing_suggestion(air):
    """Regression (issue 28, C3): the whole key was the partial_key_join's drop-in suggestion, but
    joining on it changes the answer; the key is now named in the message only."""
    graph = JoinGraph.from_ontology(air[0])
    half = "SELECT COUNT(*) FROM flights f JOIN weather w ON f.origin = w.origin"
    [partial] = [f for f in check_joins(graph, sqlglot.parse_one(half, read="sqlite"), dialect="sqlite")
                 if f.kind == "partial_key_join"]
    assert partial.suggestion is None
    assert "time_hour" in partial.message  # the whole key, as information
    assert "can change the answer" in partial.message


def test_half_of_a_composite_key_is_reported(air):
    graph = JoinGraph.from_ontology(air[0])
    half = "SELECT AVG(f.dep_delay) FROM flights f JOIN weather w ON f.origin = w.origin"
    findings = check_joins(graph, sqlglot.parse_one(half, read="sqlite"), dialect="sqlite")
    # half the key, and so the flights rows it aggregates repeat
    assert [f.kind for f in findings] == ["partial_key_join", "fan_trap"]
    assert "AND" in findings[0].message
    whole = ("SELECT AVG(f.dep_delay) FROM flights f JOIN weather w ON f.origin = w.origin "
             "AND f.time_hour = w.time_hour")
    assert check_joins(graph, sqlglot.parse_one(whole, read="sqlite"), dialect="sqlite") == []


def test_verified_query_composite_join_drops_the_partial_edge():
    """A probe edge on one column of a pair that a verified query joins on two is half a key: dropped."""
    a, b = TableRef("s", "a"), TableRef("s", "b")
    g = JoinGraph(columns={a: ["k1", "k2", "x"], b: ["k1", "k2", "y"]})
    g.add_edge(JoinEdge("s", "a", ("k1",), "b", ("k1",), origin="probe"))
    g.add_edge(JoinEdge("s", "a", ("k1", "k2"), "b", ("k1", "k2"), origin="verified_query"))
    assert g.drop_partial_keys() == 1
    assert [e.left_columns for e in g.edges] == [("k1", "k2")]
    assert g.path("a", "b").hops[0].condition() == '"a"."k1" = "b"."k1" AND "a"."k2" = "b"."k2"'


def test_fan_trap_count_star_and_chains_of_joins(graph):
    # two one-to-many branches from Customers: COUNT(*) counts combinations
    chasm = ('SELECT COUNT(*) FROM Customers c JOIN Orders o ON o.CustomerID = c.CustomerID '
             'JOIN Orders o2 ON o2.CustomerID = c.CustomerID')
    found = check_joins(graph, sqlglot.parse_one(chasm, read="sqlite"), dialect="sqlite")
    assert [f.kind for f in found] == ["fan_trap"] and "COUNT(DISTINCT" in found[0].suggestion
    # Customers counted (filtered on) once per order, nothing of Orders used but the join
    counted = ("SELECT COUNT(*) FROM Customers c JOIN Orders o ON o.CustomerID = c.CustomerID "
               "WHERE c.Country = 'USA'")
    found = check_joins(graph, sqlglot.parse_one(counted, read="sqlite"), dialect="sqlite")
    assert [(f.kind, f.subject) for f in found] == [("fan_trap", "Customers")]
    # which count is meant is the question's: both readings are named, no rewrite is offered
    assert "COUNT(DISTINCT" in found[0].message and found[0].suggestion is None
    # the orders themselves are filtered on: the count is of the joined rows, nothing to say
    assert _kinds(graph, "SELECT COUNT(*) FROM Customers c JOIN Orders o ON o.CustomerID = c.CustomerID "
                         "WHERE o.Year = 1997") == []
    # one root (Order Details): COUNT(*) counts its rows, nothing to say
    assert _kinds(graph, 'SELECT COUNT(*) FROM "Order Details" d JOIN Orders o ON d.OrderID = o.OrderID '
                         'JOIN Customers c ON o.CustomerID = c.CustomerID') == []
    # Customers -> Orders (N:1 read from Orders) -> Order Details (1:N): Orders' and Customers' rows repeat
    chain = ('SELECT SUM(c.Name), SUM(o.Freight) FROM Customers c JOIN Orders o ON o.CustomerID = c.CustomerID '
             'JOIN "Order Details" d ON d.OrderID = o.OrderID')
    found = check_joins(graph, sqlglot.parse_one(chain, read="sqlite"), dialect="sqlite")
    assert sorted(f.subject for f in found if f.kind == "fan_trap") == ["Customers", "Orders"]
    # the advice aggregates at the grain first; it never proposes SUM(DISTINCT ...)
    assert all("own grain" in f.suggestion and "not SUM(DISTINCT" in f.suggestion for f in found)


def test_fan_trap_confirmed_by_a_repetition_probe_and_conditional_counts(graph, tmp_path):
    """Regression (issue 28: fan_trap fired on 20% of correct BIRD gold): a join whose filter leaves at
    most one matching row per aggregated row repeats nothing in the data, and a conditional count
    (COUNT(CASE WHEN parent.x THEN 1 END)) counts the join's rows, not the parent's."""
    from evoonto.sources import open_source
    from evoonto.tools.sqlcheck import DataProbe

    conditional = ("SELECT COUNT(CASE WHEN c.Country = 'USA' THEN 1 END) * 100.0 / COUNT(o.OrderID) "
                   "FROM Customers c JOIN Orders o ON o.CustomerID = c.CustomerID")
    assert _kinds(graph, conditional) == []
    # a parent's value passed on by the CASE still counts
    assert _kinds(graph, "SELECT SUM(CASE WHEN d.Quantity > 3 THEN o.Freight ELSE 0 END) FROM Orders o "
                         'JOIN "Order Details" d ON o.OrderID = d.OrderID') == [("fan_trap", "Warning")]
    with open_source(make_shop(tmp_path), source_id="shop") as src:
        probe = DataProbe(src, "sqlite")

        def traps(sql):
            return [f.kind for f in check_joins(graph, sqlglot.parse_one(sql, read="sqlite"), dialect="sqlite",
                                                probe=probe)]

        repeated = 'SELECT SUM(o.Freight) FROM Orders o JOIN "Order Details" d ON o.OrderID = d.OrderID'
        assert traps(repeated) == ["fan_trap"]  # every order has two detail rows
        one_each = repeated + " WHERE d.ProductID = 5"  # (OrderID, ProductID) is the key: one row per order
        assert traps(one_each) == []
