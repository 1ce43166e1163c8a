"""The partial-key and fan-trap warnings said the whole key "changes the answer" and COUNT(DISTINCT)
"gives another answer" as facts, from the key definitions alone, with no probe: on the PostgreSQL
review's data both joins gave 3,000 rows. They now say it can, and the partial-key warning says it
was not checked against the data."""

from __future__ import annotations

import sqlite3

from evoonto.builder import build
from evoonto.ontology import Ontology
from evoonto.tools.sqlcheck import check_sql


def test_partial_key_join_says_the_answer_can_change(tmp_path):
    path = tmp_path / "shop.sqlite"
    with sqlite3.connect(path) as con:
        con.executescript("""
            CREATE TABLE sale_line (store_id INTEGER, sale_no INTEGER, amount REAL, PRIMARY KEY (store_id, sale_no));
            CREATE TABLE sale_return (return_id INTEGER PRIMARY KEY, store_id INTEGER, sale_no INTEGER, reason TEXT,
                                      FOREIGN KEY (store_id, sale_no) REFERENCES sale_line(store_id, sale_no));
            INSERT INTO sale_line VALUES (1, 1, 5.0), (1, 2, 6.0), (2, 3, 7.0);
            INSERT INTO sale_return VALUES (1, 1, 1, 'late'), (2, 2, 3, 'broken');
        """)
    onto = Ontology.from_graphs(build([path], None, validate=False).graphs)
    findings = check_sql(onto, "SELECT COUNT(*) FROM sale_return r JOIN sale_line s USING (sale_no)")
    partial = [f for f in findings if f.kind == "partial_key_join"]
    assert partial, findings
    for f in findings:
        assert "changes the answer" not in f.message and "gives another answer" not in f.message, f.message
    assert "can change the answer" in partial[0].message
    assert partial[0].suggestion is None
