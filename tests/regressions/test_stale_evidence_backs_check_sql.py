"""Regression (issue 28, "stale facts stay in force"): after a drift patch marked a column's Evidence
stale (``prov:invalidatedAtTime``), check_sql still trusted its values: a vanished value passed
(it was among the stale sample values, so nothing asked the data). Stale Evidence now backs no
finding: the value is probed in the data and its absence reported; the browse index no longer
lends the stale values to the column's Term."""

from __future__ import annotations

import sqlite3

import rdflib
from rdflib import Literal, URIRef
from rdflib.namespace import PROV, XSD

from evoonto.builder.pipeline import build
from evoonto.ontology import Ontology
from evoonto.tools.sparql import select
from evoonto.tools.sqlcheck import check_facts, check_sql
from evoonto.tools.toolkit import OntologyTools


def _db(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT)")
    con.executemany("INSERT INTO singer VALUES (?, ?, ?)",
                    [(i, f"singer {i}", ("France", "Netherlands", "Peru")[i % 3]) for i in range(1, 13)])
    con.commit()
    con.close()


def test_stale_evidence_backs_no_check_sql_finding(tmp_path):
    db = tmp_path / "singers.sqlite"
    _db(db)
    graphs = dict(build([db], None, validate=False).graphs)
    onto = Ontology.from_graphs(graphs)
    # the data changes: France is renamed
    with sqlite3.connect(db) as con:
        con.execute("UPDATE singer SET country = 'Republic of France' WHERE country = 'France'")
    sql = "SELECT name FROM singer WHERE country = 'France'"
    before = OntologyTools(onto, sources={"singers": db})
    assert check_sql(before, sql) == []  # the Evidence's values still say France: no probe asked
    assert "France" in check_facts(onto).columns[("singers", "singer", "country")].values
    before.close()
    # a drift patch marks the column's Evidence stale (the shape evoonto.drift writes)
    content = rdflib.Graph()
    content += graphs["content"]
    stale = [row["e"] for row in select(onto, """SELECT DISTINCT ?e WHERE {
        ?m a evo:Mapping ; evo:column ?c ; prov:wasDerivedFrom ?e . ?c csvw:name "country" }""")]
    assert stale
    for e in stale:
        content.add((URIRef(e), PROV.invalidatedAtTime, Literal("2026-12-02T21:00:00+00:00", datatype=XSD.dateTime)))
    marked = Ontology.from_graphs({**graphs, "content": content})
    assert ("singers", "singer", "country") not in check_facts(marked).columns
    after = OntologyTools(marked, sources={"singers": db})
    [finding] = check_sql(after, sql)
    assert (finding.kind, finding.severity) == ("unseen_value", "Violation")
    assert check_sql(after, "SELECT name FROM singer WHERE country = 'Republic of France'") == []
    after.close()


def test_stale_evidence_lends_no_values_to_browse_documents(tmp_path):
    from evoonto.tools.index import gather_documents

    db = tmp_path / "singers.sqlite"
    _db(db)
    graphs = dict(build([db], None, validate=False).graphs)
    onto = Ontology.from_graphs(graphs)

    def term_values(ontology):
        return {v for d in gather_documents(ontology) if d.kind == "term" and "country" in d.fields.get("column", ())
                for v in d.fields.get("value", ())}

    assert "France" in term_values(onto)
    content = rdflib.Graph()
    content += graphs["content"]
    for row in select(onto, """SELECT DISTINCT ?e WHERE {
            ?m a evo:Mapping ; evo:column ?c ; prov:wasDerivedFrom ?e . ?c csvw:name "country" }"""):
        content.add((URIRef(row["e"]), PROV.invalidatedAtTime, Literal("2026-12-02T21:00:00+00:00",
                                                                         datatype=XSD.dateTime)))
    assert "France" not in term_values(Ontology.from_graphs({**graphs, "content": content}))


def test_renamed_column_after_drift(tmp_path):
    """Issue 28: after a column rename, check_sql passed the old column and raised a Violation on the
    new, correct one (the catalog is the build's). With the source reachable, the new column is a
    Warning (the catalog is out of date) and the old one, marked stale, a Violation."""
    db = tmp_path / "singers.sqlite"
    _db(db)
    graphs = dict(build([db], None, validate=False).graphs)
    onto = Ontology.from_graphs(graphs)
    with sqlite3.connect(db) as con:
        con.execute("ALTER TABLE singer RENAME COLUMN country TO nation")
    offline = check_sql(onto, "SELECT name FROM singer WHERE nation = 'Peru'")
    assert [(f.kind, f.severity) for f in offline] == [("unknown_column", "Violation")]  # nothing to ask
    content = rdflib.Graph()
    content += graphs["content"]
    for row in select(onto, """SELECT DISTINCT ?m WHERE {
            ?m a evo:Mapping ; evo:column ?c . ?c csvw:name "country" }"""):
        content.add((URIRef(row["m"]), PROV.invalidatedAtTime, Literal("2026-12-02T21:00:00+00:00",
                                                                         datatype=XSD.dateTime)))
    tools = OntologyTools(Ontology.from_graphs({**graphs, "content": content}), sources={"singers": db})
    [new] = check_sql(tools, "SELECT name FROM singer WHERE nation = 'Peru'")
    assert (new.kind, new.severity) == ("unknown_column", "Warning") and "out of date" in new.message
    [old] = check_sql(tools, "SELECT name FROM singer WHERE country = 'Peru'")
    assert (old.kind, old.severity) == ("unknown_column", "Violation") and "gone from the source" in old.message
    tools.close()
