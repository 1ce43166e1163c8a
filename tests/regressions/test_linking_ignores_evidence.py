"""Regression (issue 19): ``--benchmark bird`` loaded each question's ``evidence`` but the linking
evaluation never used it. With ``LinkingPolicy(evidence=True)`` the evidence text (input knowledge
in the official BIRD protocol, never gold) reaches browse as its ``context`` (searched below the
question's words); without it, it does not."""

from __future__ import annotations

import json

from evoonto.evaluation.benchmarks import load_benchmark
from evoonto.evaluation.conditions import Conditions
from evoonto.evaluation.linking import LinkingPolicy
from evoonto.evaluation.runner import evaluate_linking
from fixtures.retrieval_support import make_region_db

EVIDENCE = "opened refers to the opened date of an account"


def test_evidence_reaches_the_policy_only_when_asked(tmp_path):
    make_region_db(tmp_path / "database" / "regions" / "regions.sqlite")
    rows = [{"question_id": i, "db_id": "regions", "question": q, "evidence": e, "SQL": sql, "difficulty": "simple"}
            for i, (q, e, sql) in enumerate([
                ("Which one came earliest?", EVIDENCE, "SELECT MIN(opened) FROM account"),
                ("How many districts are there?", "", "SELECT COUNT(*) FROM district")])]
    (tmp_path / "dev.json").write_text(json.dumps(rows))
    bench = load_benchmark("bird", tmp_path)
    question = bench.questions[0]
    assert bench.hints[question.id] == EVIDENCE
    context = Conditions().prepare("evoonto", "regions", bench.databases["regions"], bench.questions[1:])
    seen = []
    tools = context.tools
    original = tools.browse

    def spy(q, **kw):
        seen.append((q, kw.get("context")))
        return original(q, **kw)

    tools.browse = spy
    small = dict(budget_chars=250)
    plain = evaluate_linking(context, [question], bench, LinkingPolicy(**small))[0]
    hinted = evaluate_linking(context, [question], bench, LinkingPolicy(evidence=True, **small))[0]
    assert seen == [(question.text, None), (question.text, EVIDENCE)]
    assert hinted.strict and not plain.strict  # the evidence names the column the question does not
