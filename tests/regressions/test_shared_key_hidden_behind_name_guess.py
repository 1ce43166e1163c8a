"""A join of two declared references stayed a name guess.

``badge.person_id`` and ``employee.person_id`` both declare a key to ``person.id``; ``employee``'s
primary key is its ``person_id``, so the name rule first guessed ``badge.person_id =
employee.person_id`` (origin ``name``). The shared-key rule then found the same two columns joined
through ``person.id`` by two declared keys, saw an edge over those columns already and skipped it:
the join stayed a guess, ranked last, and compact browse's table joins (which leave guesses out)
did not list ``badge``/``employee`` as joined. A shortcut of two known references now upgrades the
guess over the same columns (origin ``shared_key``, with both references' evidence), so the graph
without name guesses (``name_guesses=False``, what compact browse's table joins are read from) has
the same known joins as the whole graph.
"""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.joinpaths import JoinEdge, JoinGraph, TableRef, table_joins


def _graph() -> JoinGraph:
    graph = JoinGraph()
    for table, columns in {"person": ["id", "name"], "employee": ["person_id", "salary"],
                           "badge": ["badge_id", "person_id", "colour"]}.items():
        ref = TableRef("hr", table)
        graph.columns[ref] = columns
        graph.mark_unique(ref, [columns[0]])
        graph.primary_keys[ref] = {frozenset({columns[0].casefold()})}
    for table in ("employee", "badge"):
        graph.add_edge(JoinEdge("hr", table, ("person_id",), "person", ("id",), origin="foreign_key",
                                evidence=(f"fk:{table}",)))
    graph.add_name_edges()
    graph.add_shared_key_edges()
    return graph


def test_shortcut_of_two_declared_keys_upgrades_the_name_guess():
    graph = _graph()
    edge = next(e for e in graph.edges if {e.left, e.right} == {"badge", "employee"})
    assert edge.origin == "shared_key"
    assert set(edge.evidence) == {"fk:employee", "fk:badge"}
    assert "employee" in table_joins(graph)["badge"]


def _hr(path):
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE employee (person_id INTEGER PRIMARY KEY REFERENCES person(id), salary REAL);
            CREATE TABLE badge (badge_id INTEGER PRIMARY KEY, person_id INTEGER REFERENCES person(id),
                                colour TEXT);
            CREATE TABLE visit (visit_id INTEGER PRIMARY KEY, badge_id INTEGER, room TEXT);
            INSERT INTO person VALUES (1, 'Ann'), (2, 'Bo'), (3, 'Cy');
            INSERT INTO employee VALUES (1, 50.0), (2, 60.0);
            INSERT INTO badge VALUES (10, 1, 'red'), (11, 3, 'blue');
            INSERT INTO visit VALUES (1, 10, 'A'), (2, 11, 'B'), (3, 99, 'C');
        """)
    return path


def test_graph_without_name_guesses_has_the_same_table_joins(tmp_path):
    ontology = Ontology.from_graphs(build([_hr(tmp_path / "hr.sqlite")], None, validate=False).graphs)
    whole = JoinGraph.from_ontology(ontology)
    known = JoinGraph.from_ontology(ontology, name_guesses=False)
    assert any(e.origin == "name" for e in whole.edges)  # visit.badge_id is joined by its name only
    assert not any(e.origin in ("name", "shared_name") for e in known.edges)
    assert table_joins(known) == table_joins(whole)
    assert "employee" in table_joins(whole)["badge"]
