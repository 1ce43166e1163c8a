"""Two name-guessed references made a known join.

``orders.customer_id`` and ``payments.customer_id`` are each joined to ``customer.customer_id`` only
by their names (no declared key, no probe). The shared-key rule then added
``orders.customer_id = payments.customer_id`` as a ``shared_key`` edge, ranked above the very name
matches it came from: compact browse's table joins (which leave name guesses out) listed
``orders``/``payments`` as joined by a key while leaving out both joins to ``customer``, and a path
search counted the guess as a whole verified hop. Such a shortcut is now ``shared_name``: ranked
after the name matches, kept out of the table joins, and still a shortcut (not a route of its own).
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.joinpaths import ORIGIN_COST, ORIGIN_RANK, JoinGraph, TableRef, table_joins


def _graph_by_names() -> JoinGraph:
    graph = JoinGraph()
    for table, columns in {"customer": ["customer_id", "name"], "orders": ["order_id", "customer_id", "total"],
                           "payments": ["payment_id", "customer_id", "amount"]}.items():
        ref = TableRef("shop", table)
        graph.columns[ref] = columns
        graph.mark_unique(ref, [columns[0]])
        graph.primary_keys[ref] = {frozenset({columns[0]})}
    graph.add_name_edges()
    graph.add_shared_key_edges()
    return graph


def test_shortcut_from_name_guesses_is_not_a_known_join():
    graph = _graph_by_names()
    origins = {frozenset((e.left, e.right)): e.origin for e in graph.edges}
    assert origins[frozenset(("orders", "customer"))] == "name"
    assert origins[frozenset(("orders", "payments"))] == "shared_name"
    assert ORIGIN_RANK["shared_name"] > ORIGIN_RANK["name"]
    assert ORIGIN_COST["shared_name"] >= ORIGIN_COST["name"]
    assert table_joins(graph) == {}  # no join here is known: all are guessed from names


def _shop(path):
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(customer_id),
                                 total REAL);
            CREATE TABLE payments (payment_id INTEGER PRIMARY KEY,
                                   customer_id INTEGER REFERENCES customer(customer_id), amount REAL);
            INSERT INTO customer VALUES (1, 'Ann'), (2, 'Bo'), (3, 'Cy');
            INSERT INTO orders VALUES (1, 1, 10.0), (2, 1, 5.0), (3, 2, 7.5);
            INSERT INTO payments VALUES (1, 1, 15.0), (2, 2, 7.5);
        """)
    return path


def test_shortcut_between_declared_references_stays_a_shared_key(tmp_path):
    ontology = Ontology.from_graphs(build([_shop(tmp_path / "shop.sqlite")], None, validate=False).graphs)
    graph = JoinGraph.from_ontology(ontology)
    origins = {frozenset((e.left, e.right)): e.origin for e in graph.edges}
    assert origins[frozenset(("orders", "payments"))] == "shared_key"
    assert "payments" in table_joins(graph)["orders"]


def _two_keys_named_alike(path):
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE region (CountryCode TEXT PRIMARY KEY, name TEXT);
            CREATE TABLE a_other (id INTEGER PRIMARY KEY, CountryCode TEXT REFERENCES region(CountryCode));
            CREATE TABLE country (Code TEXT PRIMARY KEY, name TEXT);
            CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT, CountryCode TEXT REFERENCES country(Code));
            CREATE TABLE lang (id INTEGER PRIMARY KEY, language TEXT, CountryCode TEXT REFERENCES country(Code));
            INSERT INTO region VALUES ('NL', 'Europe'), ('DE', 'Europe');  -- no 'FR': no probe to region
            INSERT INTO a_other VALUES (1, 'NL'), (2, 'NL');
            INSERT INTO country VALUES ('NL', 'Netherlands'), ('FR', 'France');
            INSERT INTO city VALUES (1, 'Amsterdam', 'NL'), (2, 'Utrecht', 'NL'), (3, 'Paris', 'FR');
            INSERT INTO lang VALUES (1, 'Dutch', 'NL'), (2, 'Frisian', 'NL'), (3, 'French', 'FR');
        """)
    return path


def test_shortcut_of_two_declared_keys_is_not_hidden_by_a_guessed_one(tmp_path):
    """city.CountryCode and lang.CountryCode both declare a key to country.Code; both are also named
    like region's key, which holds no 'FR' (so only their names join them to it). The shortcut made
    through region (name guesses) came first and kept the shared_key shortcut through country out (a
    pair already linked was skipped)."""
    ontology = Ontology.from_graphs(build([_two_keys_named_alike(tmp_path / "geo.sqlite")], None,
                                          validate=False).graphs)
    graph = JoinGraph.from_ontology(ontology)
    origins = {frozenset((e.left, e.right)): e.origin for e in graph.edges}
    assert origins[frozenset(("city", "lang"))] == "shared_key"
    assert "lang" in table_joins(graph)["city"]
