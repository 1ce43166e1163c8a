"""R2RML export checked by a real R2RML engine (morph-kgc, PyPI) over Chinook against SQL counts."""

from __future__ import annotations

import logging
import sqlite3
from decimal import Decimal

import pytest
import rdflib
from rdflib.namespace import RDF, XSD

from evoonto.cli import main
from evoonto.r2rml import RR, r2rml_graph, sql_identifier, xsd_type
from evoonto.workspace import Workspace


@pytest.fixture(scope="module")
def chinook(tmp_path_factory, shared_data):
    """(workspace, database path) for Chinook built by the offline builder."""
    path = tmp_path_factory.mktemp("r2rml") / "ws"
    db = shared_data / "chinook" / "Chinook_Sqlite.sqlite"
    assert main(["build", "--source", str(db), "--workspace", str(path), "--no-progress"]) == 0
    return Workspace.open(path), db


def test_sql_types_and_identifiers():
    assert xsd_type("NUMERIC(10,2)") == XSD.decimal
    assert xsd_type("integer") == XSD.integer
    assert xsd_type("NVARCHAR(120)") is None
    assert xsd_type("DATETIME") == XSD.dateTime
    assert sql_identifier("Total") == "Total"
    assert sql_identifier('odd "name"') == '"odd ""name"""'


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")
def test_morph_kgc_materializes_chinook_like_sql(chinook, tmp_path, capsys):
    morph_kgc = pytest.importorskip("morph_kgc", reason="morph-kgc (extra 'r2rml', in '[test]') is not installed")
    ws, db = chinook
    out = tmp_path / "chinook.r2rml.ttl"
    assert main(["export", "--workspace", str(ws.path), "--format", "r2rml", "-o", str(out)]) == 0
    mapping = rdflib.Graph().parse(out, format="turtle")
    maps = set(mapping.subjects(RDF.type, RR.TriplesMap))
    assert len(maps) >= 10
    logging.getLogger().setLevel(logging.WARNING)
    data = morph_kgc.materialize(f"[CONFIGURATION]\nnumber_of_processes=1\n\n[Chinook]\nmappings={out}\n"
                                 f"db_url=sqlite:///{db}\n")
    term = ws.iris.term("Chinook_Sqlite", "Invoice")
    # Invoice.Total's Term is a SUM metric, not a row property; the column's values are under its
    # Direct Mapping property
    metric = ws.iris.term("Chinook_Sqlite", "Invoice.Total")
    assert (None, RR.predicate, metric) not in mapping and not list(data.triples((None, metric, None)))
    total = rdflib.URIRef(f"{ws.ontology.base_iri}data/Chinook_Sqlite/Invoice#Total")
    rows = list(data.query(f"SELECT (COUNT(?i) AS ?n) (SUM(?t) AS ?s) WHERE {{ ?i a <{term}> ; <{total}> ?t }}"))
    count, amount = int(rows[0][0]), Decimal(str(rows[0][1]))
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        sql_count, sql_sum = con.execute("SELECT COUNT(*), SUM(Total) FROM Invoice").fetchone()
        line_joins = con.execute("SELECT COUNT(*) FROM InvoiceLine JOIN Invoice USING (InvoiceId)").fetchone()[0]
        per_table = {t: con.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]
                     for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert (count, amount) == (sql_count, Decimal(str(round(sql_sum, 2)))) == (412, Decimal("2328.6"))
    # every entity class has as many instances as its table has rows
    for tm in maps:
        cls = mapping.value(mapping.value(tm, RR.subjectMap), RR["class"])
        table = str(mapping.value(mapping.value(tm, RR.logicalTable), RR.tableName))
        assert len(set(data.subjects(RDF.type, cls))) == per_table[table], table
    # joins from the join Relations: every invoice line reaches its invoice entity
    link = ws.iris.term("Chinook_Sqlite", "InvoiceLine.InvoiceId")
    joined = list(data.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ ?l <{link}> ?i . ?i a <{term}> }}"))
    assert int(joined[0][0]) == line_joins == 2240


@pytest.mark.slow
def test_composite_keys_and_tables_without_a_key(chinook, tmp_path):
    ws, _ = chinook
    graph, notes = r2rml_graph(ws.ontology)
    assert not [n for n in notes if "no primary key" in n]  # every Chinook table has a primary key
    templates = {str(o) for o in graph.objects(None, RR.template)}
    assert any(t.endswith("/PlaylistTrack/{PlaylistId}/{TrackId}") for t in templates)  # composite key
    db = tmp_path / "small.sqlite"
    with sqlite3.connect(db) as con:
        con.executescript("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price NUMERIC);"
                          "CREATE TABLE audit_log (msg TEXT, at TEXT);"
                          "INSERT INTO item VALUES (1, 'a', 2.5), (2, 'b', 3.0);"
                          "INSERT INTO audit_log VALUES ('x', '2024-01-01'), ('y', '2024-01-02');")
    assert main(["build", "--source", str(db), "--workspace", str(tmp_path / "small"), "--no-progress"]) == 0
    small, notes = r2rml_graph(Workspace.open(tmp_path / "small").ontology)
    assert [n for n in notes if "audit_log" in n and "no primary key" in n]
    assert {str(o) for o in small.objects(None, RR.tableName)} == {"item"}


def test_composite_key_join_is_one_ref_object_map(tmp_path):
    """Regression (issue 28, half keys): a composite foreign key was exported as two RefObjectMaps,
    one per column, each joining every parent row that shares that column."""
    from evoonto.builder import build
    from evoonto.ontology import Ontology

    db = tmp_path / "air.sqlite"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE weather (origin TEXT, time_hour TEXT, temp REAL, PRIMARY KEY (origin, time_hour));
        CREATE TABLE flights (id INTEGER PRIMARY KEY, origin TEXT, time_hour TEXT,
                              FOREIGN KEY (origin, time_hour) REFERENCES weather (origin, time_hour));
        INSERT INTO weather VALUES ('EWR', 'h1', 1.0), ('EWR', 'h2', 2.0), ('JFK', 'h1', 3.0);
        INSERT INTO flights VALUES (1, 'EWR', 'h1'), (2, 'EWR', 'h2'), (3, 'JFK', 'h1');
    """)
    con.commit()
    con.close()
    graph, _notes = r2rml_graph(Ontology.from_graphs(build([db], None, validate=False).graphs))
    refs = list(graph.subjects(RR.parentTriplesMap, None))
    assert len(refs) == 1
    conditions = {(str(graph.value(c, RR.child)), str(graph.value(c, RR.parent)))
                  for c in graph.objects(refs[0], RR.joinCondition)}
    assert conditions == {("origin", "origin"), ("time_hour", "time_hour")}


def _shop_db(path):
    """A small store: customers with a BLOB photo, invoices, a composite-key shelf_slot with a BLOB
    picture, and stock rows referencing shelf_slot's whole (aisle, slot) key."""
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, name TEXT, photo BLOB);
        CREATE TABLE invoice (invoice_id INTEGER PRIMARY KEY,
                              customer_id INTEGER REFERENCES customer (customer_id), total NUMERIC(10,2));
        CREATE TABLE shelf_slot (aisle TEXT, slot INTEGER, label TEXT, picture BLOB, PRIMARY KEY (aisle, slot));
        CREATE TABLE stock (stock_id INTEGER PRIMARY KEY, aisle TEXT, slot INTEGER, qty INTEGER,
                            FOREIGN KEY (aisle, slot) REFERENCES shelf_slot (aisle, slot));
    """)
    con.executemany("INSERT INTO customer VALUES (?, ?, ?)",
                    [(1, "Ann", bytes([0, 1, 2, 255])), (2, "Bo", None), (3, "Cy", b"\x89PNG\r\n")])
    con.executemany("INSERT INTO invoice VALUES (?, ?, ?)", [(1, 1, 2.5), (2, 1, 4.0), (3, 2, 10.25), (4, 3, 1.0)])
    con.executemany("INSERT INTO shelf_slot VALUES (?, ?, ?, ?)",
                    [("A", 1, "top", b"\x00\xff"), ("A", 2, "mid", None), ("B", 1, "low", b"\x10")])
    con.executemany("INSERT INTO stock VALUES (?, ?, ?, ?)", [(1, "A", 1, 5), (2, "A", 2, 7), (3, "B", 1, 9)])
    con.commit()
    con.close()


def _shop_ontology(tmp_path):
    """(ontology, db path) for :func:`_shop_db` built by the offline builder, plus a "lifetime spend" Metric
    (SUM of invoice.total) as a dbt import or an evolution would add it."""
    from evoonto.builder import build
    from evoonto.iris import IriFactory
    from evoonto.ontology import Ontology
    from evoonto.records import Mapping, Term

    db = tmp_path / "shop.sqlite"
    _shop_db(db)
    graphs = build([db], None, validate=False).graphs
    built = Ontology.from_graphs(graphs)
    iris = IriFactory(built.base_iri)
    (where,) = built.query("SELECT ?s ?t ?c WHERE { ?m evo:source ?s ; evo:table ?t ; evo:column ?c . "
                           "?c csvw:name \"total\" }")
    spend, spend_map = iris.term("shop", "lifetime-spend"), iris.mapping("shop", "invoice", "total", 9)
    content = graphs["content"]
    Term(spend, "lifetime spend", kinds=["Metric"], mappings=[spend_map]).to_graph(content)
    Mapping(spend_map, spend, where["s"], where["t"], where["c"], aggregation="SUM").to_graph(content)
    return Ontology.from_graphs(graphs), db


def test_aggregate_metrics_are_not_row_properties(tmp_path):
    """Regression (issue 31 item 6): a Metric whose Mapping aggregates a column (SUM of invoice.total,
    "lifetime spend") was mapped as a per-row property, so every invoice's total became a lifetime spend."""
    ontology, _db = _shop_ontology(tmp_path)
    iris_base = ontology.base_iri
    spend = rdflib.URIRef(f"{iris_base}term/shop/lifetime-spend")
    assert ontology.query(f"ASK {{ <{spend}> evo:hasMapping ?m . ?m evo:column ?c }}") is True
    graph, notes = r2rml_graph(ontology)
    predicates = set(graph.objects(None, RR.predicate))
    assert spend not in predicates
    assert [n for n in notes if str(spend) in n and "SUM" in n and "not mapped as a row property" in n]
    # the column's values are still mapped, once, under a row-level property with its SQL datatype
    total_maps = [pom for pom in graph.subjects(RR.objectMap, None)
                  if graph.value(graph.value(pom, RR.objectMap), RR.column) == rdflib.Literal("total")]
    assert len(total_maps) == 1
    (pom,) = total_maps
    assert graph.value(pom, RR.predicate) == rdflib.URIRef(f"{iris_base}data/shop/invoice#total")
    assert graph.value(graph.value(pom, RR.objectMap), RR.datatype) == XSD.decimal
    # what is not aggregated stays a Term property (the customer's name)
    assert any(str(p).endswith("/term/shop/customer.name") for p in predicates)


def _materialize(mapping, db):
    """morph-kgc's graph of R2RML ``mapping`` over the SQLite file ``db``."""
    morph_kgc = pytest.importorskip("morph_kgc", reason="morph-kgc (extra 'r2rml', in '[test]') is not installed")
    logging.getLogger().setLevel(logging.WARNING)
    return morph_kgc.materialize(f"[CONFIGURATION]\nnumber_of_processes=1\n\n[DB]\nmappings={mapping}\n"
                                 f"db_url=sqlite:///{db}\n")


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")
def test_morph_kgc_materializes_blob_and_composite_key_database(tmp_path):
    """Regression (issue 31 item 6): the pinned morph-kgc stopped on a BLOB column (UnicodeDecodeError);
    binary columns are left out, the rest (a composite key, a join on it) materializes equal to SQL."""
    db = tmp_path / "shop.sqlite"
    _shop_db(db)
    assert main(["build", "--source", str(db), "--workspace", str(tmp_path / "ws"), "--no-progress"]) == 0
    ws = Workspace.open(tmp_path / "ws")
    out = tmp_path / "shop.r2rml.ttl"
    assert main(["export", "--workspace", str(ws.path), "--format", "r2rml", "-o", str(out)]) == 0
    head = out.read_text(encoding="utf-8")
    assert "binary column shop.customer.photo (BLOB) is not mapped" in head
    data = _materialize(out, db)
    assert not [o for o in data.objects() if isinstance(o, rdflib.Literal) and o.datatype == XSD.hexBinary]
    base = f"{ws.ontology.base_iri}data/shop"
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        slots = {(f"{base}/shelf_slot/{a}/{s}", label) for a, s, label in con.execute(
            "SELECT aisle, slot, label FROM shelf_slot")}
        stock_links = {(f"{base}/stock/{i}", f"{base}/shelf_slot/{a}/{s}") for i, a, s in con.execute(
            "SELECT stock_id, aisle, slot FROM stock")}
        names = {(f"{base}/customer/{i}", n) for i, n in con.execute("SELECT customer_id, name FROM customer")}
        total = con.execute("SELECT SUM(total) FROM invoice").fetchone()[0]
    label = ws.iris.term("shop", "shelf_slot.label")
    assert {(str(s), str(o)) for s, o in data.subject_objects(label)} == slots
    link = next(p for p in set(data.predicates()) if str(p).endswith("/term/shop/stock.aisle"))
    assert {(str(s), str(o)) for s, o in data.subject_objects(link)} == stock_links  # the whole key joins
    name = ws.iris.term("shop", "customer.name")
    assert {(str(s), str(o)) for s, o in data.subject_objects(name)} == names
    amounts = [Decimal(str(o)) for o in data.objects(None, rdflib.URIRef(f"{base}/invoice#total"))]
    assert len(amounts) == 4 and sum(amounts) == Decimal(str(total)) == Decimal("17.75")


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")
def test_morph_kgc_materializes_northwind_like_sql(tmp_path, shared_data):
    """Northwind (BLOB image columns, a composite key in Order Details): every mapped table's rows
    become as many instances of its entity class, and Orders' Freight sums as in SQL."""
    db = shared_data / "northwind" / "northwind.sqlite"
    assert main(["build", "--source", str(db), "--workspace", str(tmp_path / "ws"), "--no-progress"]) == 0
    ws = Workspace.open(tmp_path / "ws")
    out = tmp_path / "northwind.r2rml.ttl"
    assert main(["export", "--workspace", str(ws.path), "--format", "r2rml", "-o", str(out)]) == 0
    mapping = rdflib.Graph().parse(out, format="turtle")
    data = _materialize(out, db)
    maps = set(mapping.subjects(RDF.type, RR.TriplesMap))
    assert len(maps) >= 10
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        for tm in maps:
            cls = mapping.value(mapping.value(tm, RR.subjectMap), RR["class"])
            table = str(mapping.value(mapping.value(tm, RR.logicalTable), RR.tableName)).strip('"')
            rows = con.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
            assert len(set(data.subjects(RDF.type, cls))) == rows, table
        freight = con.execute("SELECT COUNT(Freight), SUM(Freight) FROM Orders").fetchone()
    values = [Decimal(str(o)) for o in data.objects(
        None, rdflib.URIRef(f"{ws.ontology.base_iri}data/northwind/Orders#Freight"))]
    assert (len(values), round(sum(values), 2)) == (freight[0], round(Decimal(str(freight[1])), 2))
