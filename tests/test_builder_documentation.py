"""Documentation intake (issue 18.1): data dictionaries, DDL comments, dbt, tables.json."""

from __future__ import annotations

import json
import sqlite3
import warnings
from pathlib import Path
from urllib.parse import quote

import pytest
from rdflib.namespace import PROV, RDF, SKOS

from evoonto.builder.pipeline import build
from evoonto.namespaces import EVO
from evoonto.sources.base import SourceWarning
from evoonto.sources.dictionaries import parse_value_description, read_bird_dictionary

HEADER = "original_column_name,column_name,column_description,data_format,value_description\n"


def make_shop(folder: Path, *, comments: bool = False) -> Path:
    """A small shop database: orders with a coded status and channel, customers."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "shop.sqlite"
    conn = sqlite3.connect(path)
    status_comment = " -- 'S' = shipped to the buyer; 'P' = waiting for payment" if comments else ""
    conn.executescript(f"""
        CREATE TABLE customer (cust_id INTEGER PRIMARY KEY, nm TEXT, seg TEXT);
        CREATE TABLE orders (
            ord_id INTEGER PRIMARY KEY,
            cust_id INTEGER REFERENCES customer(cust_id),
            ord_stat TEXT{status_comment}
            , chnl TEXT,
            amt REAL
        );
    """)
    conn.executemany("INSERT INTO customer VALUES (?, ?, ?)",
                     [(i, f"name {i}", "RETAIL" if i % 2 else "WHOLESALE") for i in range(1, 21)])
    conn.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?)",
                     [(i, 1 + i % 20, "S" if i % 3 else "P", "POS" if i % 2 else "WEB", 10.0 * i)
                      for i in range(1, 61)])
    conn.commit()
    conn.close()
    return path


def write_dictionary(folder: Path) -> Path:
    desc = folder / "database_description"
    desc.mkdir()
    (desc / "orders.csv").write_bytes(("\ufeff" + HEADER + (
        'ord_id,order id,the id of the order,integer,\n'
        'ORD_STAT ,order status,state of the order,text,"""S"" stands for shipped\n""P"" stands for pending payment\n'
        '""X"" stands for cancelled by the shop"\n'
        "chnl,sales channel,,text,'POS' = point of sale; 'WEB' = online store\n"
        'amt,amount,order amount,real,Unit: EUR\n'
        'no_such_col,ghost,a column the table lacks,text,\n'
        'cust_id,customer,,integer,,extra field\n')).encode("utf-8"))
    (desc / "Customer.csv").write_bytes((HEADER + 'seg,segment,market segment of the customer,text,'
                                         '"RETAIL: buys for own use; WHOLESALE: buys to resell"\n'
                                         'nm,name,name of the customer – café owner,text,\n').encode("cp1252"))
    (desc / "supplier.csv").write_text(HEADER, encoding="utf-8")
    return desc


@pytest.fixture()
def shop(tmp_path) -> Path:
    db = make_shop(tmp_path / "shop")
    write_dictionary(tmp_path / "shop")
    return db


def _build(db, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = build(str(db), at=None, **kwargs)
    return result, [str(w.message) for w in caught if issubclass(w.category, SourceWarning)]


def _term(result, slug_end: str):
    content = result.graphs["content"]
    found = [t for t in content.subjects(RDF.type, EVO.Term) if str(t).endswith(quote(slug_end, safe="/"))]
    assert found, slug_end
    return content, found[0]


@pytest.mark.parametrize("text, expected", [
    ('"POPLATEK MESICNE" stands for monthly issuance\n"POPLATEK TYDNE" stands for weekly issuance',
     [("POPLATEK MESICNE", "monthly issuance"), ("POPLATEK TYDNE", "weekly issuance")]),
    ("F：female; M：male", [("F", "female"), ("M", "male")]),
    ("'POS' = point of sale", [("POS", "point of sale")]),
    ("0: doesn't have 1: has it", [("0", "doesn't have"), ("1", "has it")]),
    ("1 -> yes, 0 -> no", [("1", "yes"), ("0", "no")]),
    ("· 1 = Magnet - a magnet school\n· 0 = Not Magnet", [("1", "Magnet - a magnet school"), ("0", "Not Magnet")]),
    ('"black", "white", "gold"', [("black", None), ("white", None), ("gold", None)]),
    ('"OWNER" : "USER" : "DISPONENT"', [("OWNER", None), ("USER", None), ("DISPONENT", None)]),
    ('"A" means active', [("A", "active")]),
    ("Unit：USD", []),
    ("in the form YYMMDD", []),
    ("commonsense evidence:\neligible rate = free meals / enrollment", []),
    ("If the weight is NULL or 0, it means the weight is missing.", []),
])
def test_value_descriptions_are_parsed_with_general_patterns(text, expected):
    values, _note = parse_value_description(text)
    assert [(v.code, v.meaning) for v in values] == expected


def test_remarks_are_kept_as_a_note():
    values, note = parse_value_description("Unit：USD")
    assert values == [] and note == "Unit:USD"


def test_hostile_dictionary_files_are_read_and_each_problem_is_one_warning(shop):
    from evoonto.sources import open_source

    with open_source(str(shop)) as src, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        docs = read_bird_dictionary(shop.parent / "database_description", src.tables())
    messages = [str(w.message) for w in caught]
    where = {(d.table, d.column): d for d in docs}
    # BOM, trailing blank and upper case in the column name; cp1252 file with a capitalised table name
    assert ("orders", "ord_stat") in where and ("customer", "seg") in where
    assert where[("customer", "nm")].description == "name of the customer – café owner"
    assert where[("orders", "ord_stat")].label == "order status"
    assert [(v.code, v.meaning) for v in where[("orders", "chnl")].values] == [("POS", "point of sale"),
                                                                              ("WEB", "online store")]
    assert where[("orders", "amt")].note == "Unit: EUR"
    orders = str(shop.parent / "database_description" / "orders.csv")
    assert any(m.startswith(f"{orders}:8:") and "no column 'no_such_col'" in m for m in messages), messages
    assert any(m.startswith(f"{orders}:9:") and "6 fields where the header has 5" in m for m in messages), messages
    assert any("supplier.csv" in m and "no table 'supplier'" in m for m in messages), messages
    assert any("Customer.csv" in m and "cp1252" in m for m in messages), messages


def test_build_turns_the_dictionary_into_evidence_backed_content(shop):
    result, messages = _build(shop)
    content, status = _term(result, "orders.ord_stat")
    assert "order status" in {str(a) for a in content.objects(status, SKOS.altLabel)}
    definition = str(content.value(status, SKOS.definition))
    assert definition.startswith("state of the order")
    assert "X = cancelled by the shop (never seen in the data)" in definition
    # the shipped value Term carries its documented meaning as a label
    _, shipped = _term(result, "orders.ord_stat=S")
    assert "shipped" in {str(a) for a in content.objects(shipped, SKOS.altLabel)}
    # every statement: Evidence generated by a DocumentReading, derived from its passage (file + row)
    readings = set(content.subjects(RDF.type, EVO.DocumentReading))
    documented = [e for e in content.objects(status, PROV.wasDerivedFrom) if content.value(e, PROV.wasGeneratedBy)
                  in readings]
    assert len(documented) == 1
    passage = content.value(documented[0], PROV.wasDerivedFrom)
    catalog = result.graphs["catalog"]
    assert (passage, RDF.type, EVO.Passage) in catalog
    assert "orders.csv line 3" in str(content.value(content.value(documented[0], PROV.wasGeneratedBy), EVO.query))
    # 'X' is documented and never seen: recorded as contradicted, no value Term is made for it
    statuses = {str(content.value(e, EVO.summary)): str(s) for e, s in content.subject_objects(EVO.status)}
    contradicted = [s for s, v in statuses.items() if v == "contradicted"]
    assert len(contradicted) == 1 and "'X'" in contradicted[0] and "orders.ord_stat" in contradicted[0]
    assert not [t for t in content.subjects(RDF.type, EVO.Term) if str(t).endswith("ord_stat=X")]
    assert result.counts["contradicted"] == 1 and result.counts["documentation"] == 6


def test_browse_finds_a_code_by_its_documented_meaning(shop):
    from evoonto.ontology import Ontology
    from evoonto.tools.toolkit import OntologyTools

    def first_hits(documentation: bool) -> list[str]:
        result, _ = _build(shop, documentation=documentation)
        tools = OntologyTools(Ontology.from_graphs(result.graphs, base_iri=result.base_iri))
        return [h["label"] for h in tools.browse("point of sale", n=3)]

    assert "POS" in first_hits(True)[0]
    assert not any("POS" in label for label in first_hits(False))


def test_no_documentation_builds_from_the_data_alone(shop):
    result, _ = _build(shop, documentation=False)
    content = result.graphs["content"]
    assert not list(content.subjects(RDF.type, EVO.DocumentReading))
    assert "documentation" not in result.counts


def test_sqlite_ddl_comments_are_documentation(tmp_path):
    db = make_shop(tmp_path / "commented", comments=True)
    result, _ = _build(db)
    content, status = _term(result, "orders.ord_stat")
    assert str(content.value(status, SKOS.definition)).startswith("'S' = shipped to the buyer")
    _, paid = _term(result, "orders.ord_stat=P")
    assert "waiting for payment" in {str(a) for a in content.objects(paid, SKOS.altLabel)}


DBT = """\
version: 2
models:
  - name: orders
    description: One order placed by a customer
    columns:
      - name: ord_id
        tests: [unique, not_null]
      - name: chnl
        description: Sales channel of the order
        tests:
          - accepted_values:
              values: ['POS', 'WEB']
      - name: ord_stat
        data_tests:
          - accepted_values:
              arguments:
                values: ['S']
      - name: cust_id
        tests:
          - relationships:
              to: ref('customer')
              field: cust_id
      - name: ghost_column
        description: not in the table
"""


def test_dbt_descriptions_and_tests(tmp_path):
    pytest.importorskip("yaml")
    db = make_shop(tmp_path / "dbt")
    (tmp_path / "dbt" / "schema.yml").write_text(DBT, encoding="utf-8")
    result, messages = _build(db)
    assert any("schema.yml:23:" in m and "no column 'ghost_column'" in m for m in messages), messages
    content, orders = _term(result, "shop/orders")
    assert str(content.value(orders, SKOS.definition)).startswith("One order placed by a customer")
    conditions = {str(content.value(c, EVO.condition)): c for c in content.subjects(RDF.type, EVO.Constraint)}
    assert '"ord_id" IS NOT NULL' in conditions and "\"chnl\" IN ('POS', 'WEB')" in conditions
    broken = conditions["\"ord_stat\" IN ('S')"]  # 'P' rows break the documented test
    assert "rows of the data break it" in str(content.value(broken, __import__("rdflib").RDFS.comment))


def test_tables_json_readable_names(tmp_path):
    db = make_shop(tmp_path / "tj")
    (tmp_path / "tj" / "tables.json").write_text(json.dumps([{
        "db_id": "shop", "table_names_original": ["customer", "orders"], "table_names": ["customer", "orders"],
        "column_names_original": [[-1, "*"], [0, "cust_id"], [0, "nm"], [0, "seg"], [1, "ord_id"], [1, "cust_id"],
                                  [1, "ord_stat"], [1, "chnl"], [1, "amt"]],
        "column_names": [[-1, "*"], [0, "customer id"], [0, "customer name"], [0, "market segment"],
                         [1, "order id"], [1, "customer id"], [1, "order status"], [1, "sales channel"],
                         [1, "amount"]]}]), encoding="utf-8")
    result, _ = _build(db)
    content, seg = _term(result, "customer.seg")
    assert "market segment" in {str(a) for a in content.objects(seg, SKOS.altLabel)}


def test_cli_no_documentation(shop, tmp_path, capsys):
    from evoonto.cli import main

    assert main(["build", "--source", str(shop), "-w", str(tmp_path / "a"), "--no-progress"]) == 0
    assert "documentation statements read" in capsys.readouterr().out
    assert main(["build", "--source", str(shop), "-w", str(tmp_path / "b"), "--no-progress",
                 "--no-documentation"]) == 0
    assert "documentation statements" not in capsys.readouterr().out


def test_find_documentation_beside_a_database_and_given_explicitly(shop, tmp_path):
    from evoonto.sources.dictionaries import find_documentation

    assert find_documentation(shop) == [("dictionary", shop.parent / "database_description")]
    assert find_documentation("postgresql://u@h/db") == []
    project = tmp_path / "project"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text("name: p\n", encoding="utf-8")
    (tmp_path / "t.json").write_text("[]", encoding="utf-8")
    assert find_documentation(None, extra=[project, shop.parent / "database_description", tmp_path / "t.json"]) == [
        ("dbt", project / "models"), ("dictionary", shop.parent / "database_description"),
        ("tables.json", tmp_path / "t.json")]
