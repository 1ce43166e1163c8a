"""A column of a composite foreign key was defined as referencing one column: ``sale_return.store_id``
"references sale_line.store_id", although ``sale_line.store_id`` alone is not unique (about 62,000 rows
per store in the PostgreSQL review) and the key is ``(store_id, sale_no)``. The one-line text an
agent pastes from named half of the key. A column of a composite key now names the whole key."""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sparql import select


def test_composite_reference_names_the_whole_key(tmp_path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE store (store_id INTEGER PRIMARY KEY, city TEXT);
            CREATE TABLE sale_line (store_id INTEGER REFERENCES store(store_id), sale_no INTEGER, amount REAL,
                                    PRIMARY KEY (store_id, sale_no));
            CREATE TABLE sale_return (return_id INTEGER PRIMARY KEY, store_id INTEGER, sale_no INTEGER, reason TEXT,
                                      FOREIGN KEY (store_id, sale_no) REFERENCES sale_line(store_id, sale_no));
            INSERT INTO store VALUES (1, 'north'), (2, 'south');
            INSERT INTO sale_line VALUES (1, 1, 5.0), (1, 2, 6.0), (2, 1, 7.0);
            INSERT INTO sale_return VALUES (1, 1, 1, 'late'), (2, 2, 1, 'broken');
        """)
    onto = Ontology.from_graphs(build([path], None, validate=False).graphs)
    definitions = {row["t"].rsplit("/", 1)[1]: row["d"] for row in select(onto, """
        SELECT ?t ?d WHERE { ?t a evo:Term ; skos:definition ?d }""")}
    for column, other in (("store_id", "sale_no"), ("sale_no", "store_id")):
        text = definitions[f"sale_return.{column}"]
        assert f"references sale_line (store_id, sale_no) together with {other}" in text, text
        assert f"references sale_line.{column}" not in text, text
    assert "references store.store_id" in definitions["sale_line.store_id"]  # a single-column key as before
