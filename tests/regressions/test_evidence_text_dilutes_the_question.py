"""Regression: the evidence given with a question outweighed the question's own words.

BIRD gives each question external knowledge ("evidence") as input. The linking harness appended it
to the question and browsed one query, so the evidence's many words (every column it names in
passing, "refers to", formulas) counted as much as the question's. On wide BIRD, strict recall
with evidence was no higher than question only (0.888 / 0.888 at 6,000 characters). browse now
takes the evidence as ``context``: searched too, at ``CONTEXT_WEIGHT`` of a question word (wide
BIRD with evidence: 0.903 at 6,000 characters, 0.775 at 1,500, where it was 0.730).
"""

from __future__ import annotations

import sqlite3

import pytest

from evoonto.builder.pipeline import build
from evoonto.errors import ToolArgumentError
from evoonto.evaluation.linking import LinkingPolicy, run_policy
from evoonto.ontology import Ontology
from evoonto.tools.browse import CONTEXT_WEIGHT
from evoonto.tools.toolkit import OntologyTools

QUESTION = "Which customer city has the most customers?"
#: evidence that explains one word of the question and names another table's columns in passing
EVIDENCE = ("customer refers to a person who placed an order; an order line holds the product, "
            "the product price and the product discount; product price refers to list price")


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    db = tmp_path_factory.mktemp("shop") / "shop.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, name TEXT, city TEXT)")
    con.execute("CREATE TABLE order_line (line_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES "
                "customer(customer_id), product TEXT, price REAL, discount REAL)")
    con.executemany("INSERT INTO customer VALUES (?, ?, ?)", [(i, f"n{i}", f"c{i % 7}") for i in range(1, 60)])
    con.executemany("INSERT INTO order_line VALUES (?, ?, ?, ?, ?)",
                    [(i, 1 + i % 59, f"p{i % 11}", i * 1.5, 0.1) for i in range(1, 200)])
    con.commit()
    con.close()
    result = build([str(db)], base_iri="https://example.org/shop/", documentation=False)
    return OntologyTools(Ontology.from_graphs(dict(result.graphs), base_iri=result.base_iri))


def _labels(hits):
    return [h["label"].lower() for h in hits]


def test_evidence_text_dilutes_the_question(tools):
    assert 0 < CONTEXT_WEIGHT < 1
    assert _labels(tools.browse(QUESTION, format="verbose", n=3))[0] == "customer city"
    # one query of question and evidence: the evidence's words decide the ranking
    glued = tools.browse(f"{QUESTION} {EVIDENCE}", format="verbose", n=3)
    assert "customer city" not in _labels(glued)
    # the evidence as context: the question's own words keep their column near the top, and the
    # evidence is still searched (it brings the order lines the question's customers placed)
    hits = _labels(tools.browse(QUESTION, context=EVIDENCE, format="verbose", n=3))
    assert "customer city" in hits[:2]
    assert any(label.startswith("order line") for label in hits)


def test_linking_policy_passes_evidence_as_context(tools):
    policy = LinkingPolicy(format="compact", budget_chars=400)
    hits, _resolved, events = run_policy(tools, QUESTION, policy, context=EVIDENCE)
    assert events[0]["arguments"]["context"] == EVIDENCE
    assert any('"city"' in h["label"] for h in hits)


def test_bad_context_is_refused(tools):
    with pytest.raises(ToolArgumentError, match="context must be a string"):
        tools.browse(QUESTION, context=["not", "text"])  # type: ignore[arg-type]
    with pytest.raises(ToolArgumentError, match="context is"):
        tools.browse(QUESTION, context="x" * 20_001)
    # blank context: the question alone
    assert tools.browse(QUESTION, context="  ") == tools.browse(QUESTION)


def test_long_context_crowded_the_questions_values_out(tmp_path):
    """The value lookup read question and context as one text, cut at 600 phrases: a long context
    pushed the question's own "Legal" out (review of this change)."""
    from fixtures.retrieval_support import tools_with_values

    db = tmp_path / "hr.sqlite"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE employee (employee_id INTEGER PRIMARY KEY, department TEXT)")
    con.executemany("INSERT INTO employee VALUES (?, ?)", [(i, ["Legal", "Sales"][i % 2]) for i in range(1, 40)])
    con.commit()
    con.close()
    with tools_with_values(db, tmp_path) as tools:
        context = " ".join(f"word{i}" for i in range(700))
        named = tools._named_values("How many employees work in Legal?", context)
    assert ("employee.department", "Legal") in {(h.location, h.value) for h in named}


def test_backbone_ignored_the_evidence(tmp_path):
    """LinkingBackbone (the gate's and Experiment.score's scorer) never passed the evidence, even
    with LinkingPolicy(evidence=True), so it scored another answer than evaluate_linking."""
    import json as _json

    from evoonto.evaluation.backbones import LinkingBackbone
    from evoonto.evaluation.benchmarks import load_benchmark
    from fixtures.retrieval_support import make_region_db

    make_region_db(tmp_path / "database" / "regions" / "regions.sqlite")
    evidence = "opened refers to the opened date of an account"
    rows = [{"question_id": 0, "db_id": "regions", "question": "Which one came earliest?", "evidence": evidence,
             "SQL": "SELECT MIN(opened) FROM account", "difficulty": "simple"}]
    (tmp_path / "dev.json").write_text(_json.dumps(rows))
    bench = load_benchmark("bird", tmp_path)
    result = build([str(tmp_path / "database" / "regions" / "regions.sqlite")], base_iri="https://example.org/r/",
                   documentation=False)
    ontology = Ontology.from_graphs(dict(result.graphs), base_iri=result.base_iri)
    seen = []
    backbone = LinkingBackbone(bench, policy=LinkingPolicy(evidence=True, budget_chars=250))
    for _q, surfaced in backbone.surface(ontology, bench.questions):
        seen.extend(e["arguments"].get("context") for e in surfaced.events if e["tool"] == "browse")
    assert seen == [evidence]
