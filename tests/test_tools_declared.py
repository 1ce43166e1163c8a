"""Declared tools: SQL templates bound on the parse tree, SPARQL templates with escaped literals."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import rdflib

from evoonto.errors import ReadOnlyViolation, SourceError, ToolArgumentError
from evoonto.ontology import Ontology
from evoonto.store import OxigraphStore, parse_rdf_file
from evoonto.tools.declared import DeclaredTool, Parameter, bind_sparql, bind_sql, load_declared_tools, run_declared
from evoonto.tools.toolkit import OntologyTools

FIXTURE = Path(__file__).parent / "fixtures" / "tools_concert.trig"
BASE = "https://example.org/evoonto/tools-test/"
EVO = rdflib.Namespace("https://w3id.org/evoonto/ns#")
TOOLS = rdflib.URIRef("https://w3id.org/evoonto/graph/tools")
INJECTION = "x' OR '1'='1'; DROP TABLE singer; --"


def load() -> Ontology:
    store = OxigraphStore()
    store.load_quads(parse_rdf_file(FIXTURE))
    return Ontology(store, version=3, base_iri=BASE)


@pytest.fixture()
def database(tmp_path) -> Path:
    path = tmp_path / "concert_singer.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE singer (Singer_ID INTEGER PRIMARY KEY, Name TEXT, Country TEXT, Age INTEGER, "
                "Status TEXT)")
    con.executemany("INSERT INTO singer VALUES (?, ?, ?, ?, ?)", [
        (1, "Joe Sharp", "Netherlands", 52, "Active"), (2, "Timbaland", "United States", 32, "Banned"),
        (3, "Justin Brown", "France", 29, "Active"), (4, "Rose White", "France", 41, INJECTION),
    ])
    con.commit()
    con.close()
    return path


def test_declarations_are_loaded_from_the_tools_graph():
    tools = {t.name: t for t in load_declared_tools(load())}
    assert set(tools) == {"singers_from_country", "terms_labelled"}
    sql = tools["singers_from_country"]
    assert sql.language == "sql" and sql.parameters == (Parameter("country", "string"),)
    assert sql.source == BASE + "source/cs"
    assert sql.input_schema()["required"] == ["country"]
    assert tools["terms_labelled"].language == "sparql"


def test_bind_sql_keeps_values_literal():
    sql = bind_sql("SELECT Name FROM singer WHERE Country = :country AND Age > :age",
                   {"country": INJECTION, "age": 30}, "sqlite")
    assert sql == "SELECT Name FROM singer WHERE Country = 'x'' OR ''1''=''1''; DROP TABLE singer; --' AND Age > 30"
    with pytest.raises(ToolArgumentError, match="undeclared placeholder"):
        bind_sql("SELECT * FROM t WHERE a = :missing", {}, "sqlite")
    with pytest.raises(ToolArgumentError, match="does not parse"):
        bind_sql("SELECT FROM WHERE (", {}, "sqlite")


def test_bind_sparql_escapes_and_skips_strings_iris_comments():
    template = 'SELECT ?s WHERE { ?s ?p $text . FILTER(?s != <http://x/$text>) } # $text\nLIMIT 3 # "$text"'
    out = bind_sparql(template, {"text": 'a" } ; DROP ALL ; #\n'})
    assert out.startswith('SELECT ?s WHERE { ?s ?p "a\\" } ; DROP ALL ; #\\n" .')
    assert "<http://x/$text>" in out and "# $text" in out
    assert bind_sparql("SELECT * { ?s ?p $n }", {"n": 5}).endswith('"5"^^<http://www.w3.org/2001/XMLSchema#integer> }')
    assert bind_sparql("SELECT ('$text' AS ?x) {}", {"text": "y"}) == "SELECT ('$text' AS ?x) {}"
    with pytest.raises(ToolArgumentError, match="undeclared"):
        bind_sparql("SELECT * { ?s ?p $other }", {})


def test_sql_tool_runs_read_only_with_bound_parameter(database):
    tools = OntologyTools(load(), sources={"concert_singer": str(database)})
    try:
        out = tools.run_declared("singers_from_country", {"country": "France"})
        assert out == {"columns": ["Name"], "rows": [["Justin Brown"], ["Rose White"]], "truncated": False}
        assert tools.run_declared("singers_from_country", {"country": INJECTION})["rows"] == []
        assert tools.call("singers_from_country", {"country": "Netherlands"})["rows"] == [["Joe Sharp"]]
    finally:
        tools.close()
    con = sqlite3.connect(database)
    assert con.execute("SELECT COUNT(*) FROM singer").fetchone()[0] == 4  # nothing was dropped
    con.close()


def test_sparql_tool_and_hostile_arguments():
    tools = OntologyTools(load())
    out = tools.run_declared("terms_labelled", {"text": "AGE"})
    assert out["columns"] == ["label", "term"] and ["Singer age", BASE + "term/cs/singer-age"] in out["rows"]
    assert tools.run_declared("terms_labelled", {"text": '") } DELETE WHERE { ?s ?p ?o } #'})["rows"] == []
    assert tools.browse("singer")  # still there
    for bad, message in [({}, "missing parameter"), ({"text": 5}, "must be of type string"),
                         ({"text": "a", "x": 1}, "unknown parameter"), ({"text": "y" * 100_000}, "longer than"),
                         ("text", "must be an object")]:
        with pytest.raises(ToolArgumentError, match=message):
            tools.run_declared("terms_labelled", bad)
    with pytest.raises(ToolArgumentError, match="unknown tool"):
        tools.run_declared("drop_everything", {})


def test_sql_tool_without_source_is_a_clear_error():
    with pytest.raises(SourceError, match="no data source"):
        OntologyTools(load()).run_declared("singers_from_country", {"country": "France"})


def test_write_statement_in_a_template_is_refused(database):
    onto = load()
    tool = rdflib.URIRef(BASE + "tools/wipe")
    onto.store.add([(tool, rdflib.RDF.type, EVO.DeclaredTool), (tool, EVO.toolName, rdflib.Literal("wipe")),
                    (tool, EVO.sqlTemplate, rdflib.Literal("DELETE FROM singer"))], TOOLS)
    with pytest.warns(UserWarning, match="wipe skipped: SQL template refused: only SELECT/WITH"):
        tools = OntologyTools(onto, sources={"concert_singer": str(database)})
        names = {spec.name for spec in tools.registry().values()}
    try:
        assert "wipe" not in names  # never advertised (issue 30: the guard judges templates at load)
        with pytest.raises(ToolArgumentError, match="unknown tool 'wipe'"):
            tools.run_declared("wipe", {})
        # and the source layer still refuses the statement, were a declaration to get past the load
        wipe = DeclaredTool(name="wipe", description="", language="sql", template="DELETE FROM singer",
                            parameters=(), source=None, iri=str(tool))
        with pytest.raises(ReadOnlyViolation):
            run_declared(wipe, {}, ontology=onto, open_source=lambda _iri: tools.source("concert_singer"))
    finally:
        tools.close()


def test_malformed_declarations_are_skipped():
    onto = load()
    triples = []
    for i, (name, template_pred, ptype) in enumerate([
        ("Bad Name", EVO.sqlTemplate, "string"), ("browse", EVO.sqlTemplate, "string"),
        ("bad_type", EVO.sqlTemplate, "datetime"),
    ]):
        tool, param = rdflib.URIRef(f"{BASE}tools/bad{i}"), rdflib.URIRef(f"{BASE}tools/bad{i}/p")
        triples += [(tool, rdflib.RDF.type, EVO.DeclaredTool), (tool, EVO.toolName, rdflib.Literal(name)),
                    (tool, template_pred, rdflib.Literal("SELECT 1")), (tool, EVO.parameter, param),
                    (param, EVO.parameterName, rdflib.Literal("p")), (param, EVO.parameterType, rdflib.Literal(ptype))]
    onto.store.add(triples, TOOLS)
    with pytest.warns(UserWarning):
        names = [t.name for t in load_declared_tools(onto)]
    assert names == ["singers_from_country", "terms_labelled"]


def test_number_parameters_are_coerced():
    tool = DeclaredTool("t", "d", "sparql", "SELECT * { ?s ?p $x }", (Parameter("x", "number"),))
    assert tool.check_args({"x": 3}) == {"x": 3.0}
    with pytest.raises(ToolArgumentError):
        tool.check_args({"x": True})
    with pytest.raises(ToolArgumentError):
        tool.check_args({"x": float("nan")})
