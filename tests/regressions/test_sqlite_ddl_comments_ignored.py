"""Regression (issue 18): the ``-- …`` comments a SQLite ``CREATE TABLE`` keeps after its columns
were dropped by the connector, so the documentation a team wrote into its DDL never reached the
ontology. ``SqliteSource`` now reads them (sqlglot keeps comments on column definitions) into
``ColumnInfo.comment``, and the build turns them into definitions and value meanings."""

from __future__ import annotations

import sqlite3

from rdflib import RDF
from rdflib.namespace import SKOS

from evoonto.builder.pipeline import build
from evoonto.namespaces import EVO
from evoonto.sources import open_source


def test_sqlite_ddl_comments_reach_the_catalog_and_the_terms(tmp_path):
    db = tmp_path / "tickets.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript("""
        CREATE TABLE ticket (
            id INTEGER PRIMARY KEY, -- ticket number
            prio TEXT /* 'H' = urgent; 'L' = can wait */
        );
        INSERT INTO ticket VALUES (1, 'H'), (2, 'L'), (3, 'L');
    """)
    conn.close()
    with open_source(str(db)) as src:
        columns = {c.name: c.comment for c in src.table("ticket").columns}
    assert columns == {"id": "ticket number", "prio": "'H' = urgent; 'L' = can wait"}
    content = build(str(db)).graphs["content"]
    definitions = {str(t).rsplit("/", 1)[-1]: str(content.value(t, SKOS.definition))
                   for t in content.subjects(RDF.type, EVO.Term)}
    assert definitions["ticket.id"].startswith("ticket number")
    urgent = [t for t in content.subjects(RDF.type, EVO.Term) if str(t).endswith("ticket.prio%3DH")]
    assert urgent and "urgent" in {str(a) for a in content.objects(urgent[0], SKOS.altLabel)}
