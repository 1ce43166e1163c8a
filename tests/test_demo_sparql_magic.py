"""The ``%%sparql`` cell magic: option parsing, rendering, and a real IPython shell."""

from __future__ import annotations

import pytest
from rdflib import Literal, URIRef

from evoonto.sparql_magic import (
    GraphResult, SparqlMagicError, SparqlResult, _parse_options, compact, run_query, with_standard_prefixes,
)

EVO = "https://w3id.org/evoonto/ns#"


class FakeOntology:
    """Stands in for an Ontology: evaluates the query with rdflib over a tiny graph."""

    def __init__(self):
        from rdflib import Graph

        self.graph = Graph()
        self.graph.parse(data=f"""
            @prefix evo: <{EVO}> . @prefix skos: <http://www.w3.org/2004/02/skos/core#> .
            <https://example.org/t/age> a evo:Term ; skos:prefLabel "Singer age"@en .
            <https://example.org/t/name> a evo:Term ; skos:prefLabel "<b>Name</b> & co"@en .
        """, format="turtle")
        self.queries: list[str] = []

    def query(self, sparql: str):
        self.queries.append(sparql)
        result = self.graph.query(sparql)
        if result.type == "ASK":
            return bool(result.askAnswer)
        if result.type in ("CONSTRUCT", "DESCRIBE"):
            return result.graph
        return [{str(v): row[v] for v in result.vars if row[v] is not None} for row in result]


def test_standard_prefixes_are_added_unless_declared():
    q = with_standard_prefixes("SELECT ?x WHERE { ?x a evo:Term }")
    assert "PREFIX evo: <https://w3id.org/evoonto/ns#>" in q and "PREFIX skos:" in q
    own = with_standard_prefixes("PREFIX evo: <urn:other#>\nSELECT ?x WHERE { ?x a evo:Term }")
    assert own.count("PREFIX evo:") == 1 and "<urn:other#>" in own


def test_compact_shortens_known_iris_and_keeps_literals():
    assert compact(URIRef(EVO + "Term")) == "evo:Term"
    assert compact(URIRef("https://example.org/x y")) == "<https://example.org/x y>"
    assert compact(Literal("Singer age", lang="en")) == "Singer age@en"
    assert compact(Literal(6)) == "6"
    assert compact(None) == ""


def test_run_query_returns_rows_in_projection_order_and_renders():
    onto = FakeOntology()
    result = run_query(onto, "SELECT ?label ?term WHERE { ?term a evo:Term ; skos:prefLabel ?label } ORDER BY ?label")
    assert isinstance(result, SparqlResult) and len(result) == 2
    assert result.variables == ["label", "term"]
    assert result.values("label") == ["<b>Name</b> & co@en", "Singer age@en"]
    text = result.to_text()
    assert text.splitlines()[0].split() == ["label", "|", "term"] and text.endswith("2 rows")
    page = result._repr_html_()
    assert "&lt;b&gt;Name&lt;/b&gt; &amp; co@en" in page and "<b>" not in page  # values are escaped
    with pytest.raises(KeyError):
        result.values("nope")


def test_ask_gives_a_bool_and_construct_a_turtle_graph():
    assert run_query(FakeOntology(), "ASK { ?x a evo:Term }") is True
    graph = run_query(FakeOntology(), "CONSTRUCT { ?x skos:prefLabel ?l } WHERE { ?x skos:prefLabel ?l }")
    assert isinstance(graph, GraphResult) and len(graph) == 2
    assert "skos:prefLabel" in repr(graph) and repr(graph).endswith("# 2 triples")
    assert "&lt;b&gt;" in graph._repr_html_()


def test_display_limit_cuts_the_rendering_not_the_rows():
    result = SparqlResult([{"n": Literal(i)} for i in range(5)], display_limit=2)
    assert len(result) == 5 and "5 rows (first 2 shown)" in result.to_text()
    assert result._repr_html_().count("<tr>") == 3  # header + 2 rows


@pytest.mark.parametrize("line, message", [
    ("--bogus x", "unknown option"),
    ("--workspace", "needs a value"),
    ("--limit 0", "positive integer"),
    ("--workspace a --ontology b", "either"),
    ("--workspace 'unclosed", "cannot parse"),
])
def test_bad_options_are_one_line_errors(line, message):
    with pytest.raises(SparqlMagicError, match=message):
        _parse_options(line)


def test_empty_cell_and_bad_target_are_errors():
    with pytest.raises(SparqlMagicError, match="no SPARQL"):
        run_query(FakeOntology(), "  \n")
    with pytest.raises(SparqlMagicError, match="no query"):
        run_query(object(), "SELECT * WHERE { ?s ?p ?o }")


@pytest.fixture()
def shell():
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_cell("%load_ext evoonto.sparql_magic")
    yield ip
    InteractiveShell.clear_instance()


def test_cell_magic_in_a_real_ipython_shell(shell, capsys):
    shell.user_ns["onto"] = FakeOntology()
    out = shell.run_cell("%%sparql --ontology onto --out rows\nSELECT ?label WHERE { ?t skos:prefLabel ?label }")
    assert out.success and isinstance(out.result, SparqlResult) and len(out.result) == 2
    assert shell.user_ns["rows"] is out.result

    bad = shell.run_cell("%%sparql --ontology missing\nSELECT * WHERE { ?s ?p ?o }")
    assert bad.success and bad.result is None
    assert "sparql: error: no notebook variable named 'missing'" in capsys.readouterr().out


def test_cell_magic_reports_a_missing_workspace_in_one_line(shell, tmp_path, capsys):
    pytest.importorskip("evoonto.workspace")
    out = shell.run_cell(f"%%sparql --workspace {tmp_path / 'nowhere'}\nSELECT * WHERE {{ ?s ?p ?o }}")
    assert out.result is None
    printed = capsys.readouterr().out.strip()
    assert printed.startswith("sparql: error:") and "\n" not in printed


def test_cell_magic_on_a_real_workspace_remembers_it(shell, tmp_path):
    from evoonto.workspace import Workspace

    Workspace.init(tmp_path / "ws")
    first = shell.run_cell(f"%%sparql --workspace {tmp_path / 'ws'}\n"
                           "SELECT (COUNT(*) AS ?n) WHERE { GRAPH evog:vocab { ?s a owl:Class } }")
    assert isinstance(first.result, SparqlResult) and int(first.result[0]["n"]) > 5
    again = shell.run_cell("%%sparql\nASK { GRAPH evog:vocab { evo:Term a owl:Class } }")
    assert again.result is True
