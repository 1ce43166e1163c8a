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

from evoonto.builder import build
from evoonto.catalog import foreign_keys, read_catalog
from evoonto.namespaces import CSVW, EVO
from evoonto.ontology import Ontology
from evoonto.tools.joinpaths import JoinGraph


def _flights(path):
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE airport (code TEXT, country TEXT, name TEXT, PRIMARY KEY (code, country));
            CREATE TABLE flight (id INTEGER PRIMARY KEY,
                                 origin_code TEXT, origin_country TEXT, dest_code TEXT, dest_country TEXT,
                                 FOREIGN KEY (origin_code, origin_country) REFERENCES airport (code, country),
                                 FOREIGN KEY (dest_code, dest_country) REFERENCES airport (code, country));
            INSERT INTO airport VALUES ('SFO', 'US', 'San Francisco'), ('SFO', 'ZZ', 'Elsewhere'),
                                       ('CDG', 'FR', 'Paris');
            INSERT INTO flight VALUES (1, 'SFO', 'US', 'CDG', 'FR'), (2, 'CDG', 'FR', 'SFO', 'US');
        """)
    return path


def _ontology(tmp_path):
    return Ontology.from_graphs(build([_flights(tmp_path / "flights.sqlite")], None, validate=False).graphs)


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


def test_r2rml_joins_each_composite_key_whole(tmp_path):
    from evoonto.r2rml import RR, r2rml_graph

    graph, _notes = r2rml_graph(_ontology(tmp_path))
    joins = [sorted((str(graph.value(c, RR.child)), str(graph.value(c, RR.parent)))
                    for c in graph.objects(ref, RR.joinCondition))
             for ref in graph.subjects(RR.parentTriplesMap, None)]
    assert sorted(joins) == [[("dest_code", "code"), ("dest_country", "country")],
                             [("origin_code", "code"), ("origin_country", "country")]]
