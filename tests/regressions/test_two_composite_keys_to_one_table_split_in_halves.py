"""Two composite foreign keys into the same table came back as four half keys.

``flight(origin_code, origin_country) -> airport(code, country)`` and ``flight(dest_code,
dest_country) -> airport(code, country)``: the catalog kept only each column's ``evo:references``,
and the reader could join columns into one key only when they covered the referenced primary key
exactly once. Four references to a two-column key were read as four single-column keys, so the join
graph offered ``flight.origin_code = airport.code`` alone (half a key: it repeats airport rows) as a
declared join. The catalog now records which columns form each declared key (``csvw:ForeignKey``
with ``evo:keyColumn``), and the reader keeps each key whole.
"""

from __future__ import annotations

import sqlite3

import rdflib
from fixtures.keys_support import flights_db

from evoonto.builder import build
from evoonto.catalog import foreign_keys, read_catalog
from evoonto.namespaces import CSVW, EVO
from evoonto.ontology import Ontology
from evoonto.tools.joinpaths import JoinGraph


def _ontology(tmp_path):
    return Ontology.from_graphs(build([flights_db(tmp_path / "flights.sqlite")], None, validate=False).graphs)


def test_two_composite_keys_to_one_table_stay_whole(tmp_path):
    ontology = _ontology(tmp_path)
    schema = read_catalog(ontology).sources[0]
    flight = next(t for t in schema.tables if t.name == "flight")
    assert sorted(foreign_keys(flight, schema.tables)) == [
        (("dest_code", "dest_country"), "airport", ("code", "country")),
        (("origin_code", "origin_country"), "airport", ("code", "country")),
    ]
    graph = JoinGraph.from_ontology(ontology)
    declared = sorted((e.left_columns, e.right_columns) for e in graph.edges if e.origin == "foreign_key")
    assert declared == [(("dest_code", "dest_country"), ("code", "country")),
                        (("origin_code", "origin_country"), ("code", "country"))]
    halves = [e for e in graph.edges if {e.left, e.right} == {"flight", "airport"} and len(e.left_columns) == 1]
    assert halves == []  # no tool may offer half a key


def test_catalog_written_before_keys_were_grouped_reads_as_before(tmp_path):
    """A catalog without csvw:ForeignKey records (an older workspace) still reads its references."""
    ontology = _ontology(tmp_path)
    catalog = rdflib.Graph()
    for triple in ontology.graph("catalog"):
        catalog.add(triple)
    for fk in list(catalog.subjects(rdflib.RDF.type, CSVW.ForeignKey)):
        catalog.remove((fk, None, None))
        catalog.remove((None, CSVW.foreignKey, fk))
    schema = read_catalog(catalog).sources[0]
    flight = next(t for t in schema.tables if t.name == "flight")
    assert flight.key_groups == ()
    assert len(foreign_keys(flight, schema.tables)) == 4  # the references alone, as an older reader saw them
    assert any(EVO.references == p for _s, p, _o in catalog)


def _r2rml_joins(ontology) -> list[list[tuple[str, str]]]:
    """Each join of the ontology's R2RML export as its sorted ``(child, parent)`` column pairs."""
    from evoonto.r2rml import RR, r2rml_graph

    graph, _notes = r2rml_graph(ontology)
    return sorted(sorted((str(graph.value(c, RR.child)), str(graph.value(c, RR.parent)))
                         for c in graph.objects(ref, RR.joinCondition))
                  for ref in graph.subjects(RR.parentTriplesMap, None))


def test_r2rml_joins_each_composite_key_whole(tmp_path):
    assert _r2rml_joins(_ontology(tmp_path)) == [[("dest_code", "code"), ("dest_country", "country")],
                                                 [("origin_code", "code"), ("origin_country", "country")]]


def _paths(path):
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE edge (src TEXT, dst TEXT, w REAL, PRIMARY KEY (src, dst));
            CREATE TABLE path (id INTEGER PRIMARY KEY, n1 TEXT, n2 TEXT, n3 TEXT,
                               FOREIGN KEY (n1, n2) REFERENCES edge (src, dst),
                               FOREIGN KEY (n2, n3) REFERENCES edge (src, dst));
            INSERT INTO edge VALUES ('a', 'b', 1.0), ('b', 'c', 2.0), ('c', 'a', 0.5);
            INSERT INTO path VALUES (1, 'a', 'b', 'c'), (2, 'b', 'c', 'a');
        """)
    return path


def test_two_composite_keys_sharing_a_column_stay_whole(tmp_path):
    """path(n1, n2) and path(n2, n3) both reference edge(src, dst): n2 references two columns of
    edge, and the pairing of each key is the one that gives its columns distinct targets."""
    ontology = Ontology.from_graphs(build([_paths(tmp_path / "paths.sqlite")], None, validate=False).graphs)
    schema = read_catalog(ontology).sources[0]
    path = next(t for t in schema.tables if t.name == "path")
    assert sorted(foreign_keys(path, schema.tables)) == [
        (("n1", "n2"), "edge", ("src", "dst")), (("n2", "n3"), "edge", ("src", "dst"))]
    graph = JoinGraph.from_ontology(ontology)
    assert not [e for e in graph.edges if e.origin == "foreign_key" and len(e.left_columns) == 1]


def _games(path):
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE team_season (team TEXT, season INTEGER, coach TEXT, PRIMARY KEY (team, season));
            CREATE TABLE game (id INTEGER PRIMARY KEY, season INTEGER, home TEXT, away TEXT,
                               FOREIGN KEY (home, season) REFERENCES team_season (team, season),
                               FOREIGN KEY (away, season) REFERENCES team_season (team, season));
            INSERT INTO team_season VALUES ('ajax', 2020, 'x'), ('psv', 2020, 'y'), ('ajax', 2021, 'z'),
                                           ('psv', 2021, 'w');
            INSERT INTO game VALUES (1, 2020, 'ajax', 'psv'), (2, 2021, 'psv', 'ajax');
        """)
    return path


def test_r2rml_joins_both_keys_sharing_a_column(tmp_path):
    """game(home, season) and game(away, season) both reference team_season(team, season): the
    export kept only the first key for the season column they share."""
    ontology = Ontology.from_graphs(build([_games(tmp_path / "games.sqlite")], None, validate=False).graphs)
    assert _r2rml_joins(ontology) == [[("away", "team"), ("season", "season")],
                                      [("home", "team"), ("season", "season")]]
