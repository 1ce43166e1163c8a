"""Verified queries (issue 18.2): evo:VerifiedQuery records, mining into content, browse/resolve,
``build(verified=...)``, ``evoonto build --verified`` and ``evoonto verified add|list``.

The Chinook demonstration: ten analyst questions with SQL (examples/chinook/verified.jsonl) →
``browse revenue`` finds the revenue metric with its expression and the queries that use it, and
resolve of the metric lists them as examples."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from rdflib import RDF, Literal
from rdflib.namespace import PROV, SKOS

from evoonto.builder.pipeline import build
from evoonto.cli import main
from evoonto.errors import WorkloadError
from evoonto.namespaces import EVO
from evoonto.ontology import Ontology
from evoonto.resources import vocab_graph
from evoonto.sources.base import SourceWarning
from evoonto.tools.joinpaths import JoinGraph
from evoonto.tools.toolkit import OntologyTools
from evoonto.workspace import Workspace

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples" / "chinook" / "verified.jsonl"
REVENUE = "SUM(InvoiceLine.UnitPrice * InvoiceLine.Quantity)"


@pytest.fixture(scope="module")
def chinook(shared_data: Path) -> Path:
    return shared_data / "chinook" / "Chinook_Sqlite.sqlite"


@pytest.fixture(scope="module")
def built(chinook: Path):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = build([chinook], verified=EXAMPLES)
    assert not [w for w in caught if issubclass(w.category, SourceWarning)], [str(w.message) for w in caught]
    onto = Ontology.from_graphs({**result.graphs, "vocab": vocab_graph()}, base_iri=result.base_iri)
    return result, onto, OntologyTools(onto, base_iri=result.base_iri)


@pytest.mark.slow
def test_example_file_holds_ten_verified_queries():
    lines = [json.loads(line) for line in EXAMPLES.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(lines) == 10 and all(item["question"] and item["sql"] for item in lines)


@pytest.mark.slow
def test_every_verified_query_is_kept_with_who_when_and_what_it_exercises(built):
    result, _onto, _tools = built
    content = result.graphs["content"]
    queries = sorted(content.subjects(RDF.type, EVO.VerifiedQuery))
    assert len(queries) == 10 and result.counts["verified_queries"] == 10
    for q in queries:
        assert content.value(q, EVO.question) is not None and content.value(q, EVO.sql) is not None
        agent = content.value(q, PROV.wasAttributedTo)
        assert (agent, RDF.type, PROV.Agent) in content
        assert content.value(q, PROV.generatedAtTime) is not None
        exercised = set(content.objects(q, EVO.exercises))
        assert any((t, RDF.type, EVO.Term) in content for t in exercised)
        assert any((m, RDF.type, EVO.Mapping) in content for m in exercised)
        run = content.value(q, PROV.wasDerivedFrom)  # the Evidence of its read-only run
        assert (run, RDF.type, EVO.Evidence) in content


@pytest.mark.slow
def test_revenue_metric_has_its_expression_derivations_and_cites_the_queries(built):
    result, _onto, _tools = built
    content = result.graphs["content"]
    metric = next(t for t in content.subjects(RDF.type, EVO.Metric)
                  if str(content.value(t, SKOS.prefLabel)) == "Revenue")
    mapping = content.value(metric, EVO.hasMapping)
    assert str(content.value(mapping, EVO.expression)) == REVENUE
    assert str(content.value(mapping, EVO.aggregation)) == "SUM"
    sources = {str(content.value(r, SKOS.prefLabel)) for r in content.objects(metric, EVO.derivedFrom)}
    assert sources == {"Invoice line unit price", "Invoice line quantity"}
    cited = set(content.objects(metric, PROV.wasDerivedFrom))
    assert len(cited) == 4 and all((q, RDF.type, EVO.VerifiedQuery) in content for q in cited)


@pytest.mark.slow
def test_browse_revenue_finds_the_metric_with_its_expression_and_the_queries(built):
    _result, _onto, tools = built
    hits = tools.browse("revenue", format="verbose")
    assert hits[0]["label"] == "Revenue" and REVENUE in hits[0]["snippet"]
    questions = [h for h in tools.browse("revenue", kind="any", n=8, format="verbose") if h["kind"] == "verified"]
    assert len(questions) == 4 and all("revenue" in h["label"].lower() for h in questions)
    monthly = tools.browse("Show the monthly revenue trend for 2023.", kind="verified", n=1, format="verbose")
    assert monthly[0]["id"].endswith("monthly-revenue-2023")


@pytest.mark.slow
def test_resolve_of_the_metric_lists_the_verified_queries_as_examples(built):
    _result, _onto, tools = built
    record = tools.resolve([tools.browse("revenue", format="verbose")[0]["id"]])["records"][0]
    examples = record["examples"]
    assert examples and all(e["id"].startswith("verified/") and "SUM(il.UnitPrice * il.Quantity)" in e["sql"]
                            for e in examples)
    assert len(examples) + record.get("more_examples", 0) == 4


@pytest.mark.slow
def test_date_grains_named_filter_and_joins_are_mined(built):
    result, onto, tools = built
    content = result.graphs["content"]
    assert tools.browse("monthly", n=1, format="verbose")[0]["label"] == "invoice date by month"
    long_filter = next(c for c in content.subjects(RDF.type, EVO.Constraint)
                       if Literal("long") in set(content.objects(c, EVO.triggerKeyword)))
    assert str(content.value(long_filter, EVO.condition)) == "Track.Milliseconds > 300000"
    graph = JoinGraph.from_ontology(onto)
    edge = next(e for e in graph.edges if {e.left, e.right} == {"Invoice", "InvoiceLine"})
    assert any("/verified/" in ev for ev in edge.evidence)


@pytest.mark.slow
def test_build_takes_a_list_of_question_sql_dicts(chinook: Path):
    result = build([chinook], verified=[{"question": "What is the total revenue per billing country?",
                                         "sql": "SELECT i.BillingCountry, SUM(il.UnitPrice * il.Quantity) "
                                                "FROM InvoiceLine il JOIN Invoice i ON il.InvoiceId = i.InvoiceId "
                                                "GROUP BY i.BillingCountry"}])
    assert result.counts["verified_queries"] == 1 and result.counts["metrics"] == 1


@pytest.mark.slow
def test_bad_verified_queries_warn_with_file_and_line_and_leave_nothing(chinook: Path, tmp_path: Path):
    # a malformed line (not JSON, no SQL) is an error naming file and line, before anything is built
    # (the one verified-query reader's policy, shared with `evoonto evolve`)
    malformed = tmp_path / "malformed.jsonl"
    malformed.write_text("not json\n" + json.dumps({"question": "No SQL"}) + "\n", encoding="utf-8")
    with pytest.raises(WorkloadError, match=f"{malformed}:1: a verified query must be a JSON object"):
        build([chinook], verified=malformed)
    malformed.write_text(json.dumps({"question": "No SQL"}) + "\n", encoding="utf-8")
    with pytest.raises(WorkloadError, match=f"{malformed}:1: malformed verified query: missing or empty 'sql'"):
        build([chinook], verified=malformed)
    # well-formed queries whose SQL does not parse or names a missing column: a warning each, left out
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([
        json.dumps({"question": "Broken", "sql": "SELEC FROM Invoice WHERE"}),
        json.dumps({"question": "Missing column", "sql": "SELECT Totl FROM Invoice"}),
    ]) + "\n", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = build([chinook], verified=bad)
    messages = sorted(str(w.message) for w in caught if issubclass(w.category, SourceWarning))
    assert [m.split(": ", 1)[0] for m in messages] == [f"{bad}:{n}" for n in (1, 2)]
    assert "Totl" in next(m for m in messages if m.startswith(f"{bad}:2"))
    content = result.graphs["content"]
    assert not list(content.subjects(RDF.type, EVO.VerifiedQuery))
    assert not [p for p in content.objects(None, EVO.query) if "Totl" in str(p) or "SELEC " in str(p)]
    assert result.counts.get("verified_queries", 0) == 0


@pytest.mark.slow
def test_cli_build_verified_add_list_log_and_rollback(chinook: Path, tmp_path: Path, capsys):
    ws_path = tmp_path / "ws"
    first = tmp_path / "first.jsonl"
    lines = EXAMPLES.read_text(encoding="utf-8").splitlines()
    first.write_text("\n".join(lines[:5]) + "\n", encoding="utf-8")
    rest = tmp_path / "rest.jsonl"
    rest.write_text("\n".join(lines[5:]) + "\n", encoding="utf-8")
    assert main(["build", "--source", str(chinook), "--verified", str(first), "-w", str(ws_path),
                 "--no-progress"]) == 0
    assert "5 verified queries" in capsys.readouterr().out
    assert main(["verified", "add", str(rest), "-w", str(ws_path)]) == 0
    assert "added 5 verified queries" in capsys.readouterr().out
    ws = Workspace.open(ws_path)
    assert ws.version == 1 and "verified queries" in ws.log()[0].intervention
    assert main(["verified", "list", "-w", str(ws_path)]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 10
    all_bad = tmp_path / "bad.jsonl"
    all_bad.write_text(json.dumps({"question": "x", "sql": "SELECT nope FROM Invoice"}) + "\n", encoding="utf-8")
    assert main(["verified", "add", str(all_bad), "-w", str(ws_path)]) == 1
    assert Workspace.open(ws_path).version == 1
    assert main(["rollback", "0", "-w", str(ws_path)]) == 0
    capsys.readouterr()
    assert main(["verified", "list", "-w", str(ws_path)]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 5


@pytest.mark.slow
def test_same_verified_queries_give_byte_identical_content(chinook: Path, built):
    result, _onto, _tools = built
    again = build([chinook], verified=EXAMPLES, at=result.at)
    assert again.serialize("content") == result.serialize("content")


@pytest.mark.slow
def test_unreadable_verified_file_is_a_usage_error_and_writes_nothing(chinook: Path, tmp_path: Path):
    ws_path = tmp_path / "ws"
    assert main(["build", "--source", str(chinook), "--verified", str(tmp_path / "missing.jsonl"),
                 "-w", str(ws_path), "--no-progress"]) == 2
    assert not ws_path.exists()
    assert main(["verified"]) == 2
