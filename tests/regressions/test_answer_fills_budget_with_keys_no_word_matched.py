"""Regression (issue 29): a compact answer gave a full line (type, values, meaning, "references …")
to every candidate while the rest still fit, so on a schema that fits the budget each answer was as
long as the budget allowed, whatever the question matched: on bird_synth_dev the default answer
averaged 1,618 tokens, and the only saving the evolution loop could propose was a smaller budget,
which cuts every answer alike, a long question's matched lines included (one fold took no saving).

``evo:fullLinesMatchedOnly`` (a Tool setting, ``browse.fullLinesMatchedOnly``, false by default)
gives full lines only to the candidates a query word or value matched; keys and columns their table
brought in are named in their table's line. The loop proposes it as a saving (answer_size), and the
gate keeps it only where no outcome it sees changes.
"""

from __future__ import annotations

import json

import pytest

from evoonto.evolution.attribute import attribute
from evoonto.evolution.candidates import propose
from evoonto.evolution.diagnose import Signature
from evoonto.evolution.edits import EditContext, EditError, SetToolSetting
from evoonto.evolution.loop import to_patch, validate_candidate
from evoonto.evolution.view import OntologyView
from evoonto.iris import IriFactory
from evoonto.tools.settings import load_settings
from evoonto.tools.toolkit import OntologyTools
from evoonto.workspace import Workspace

QUESTION = "What is the average age of singers from France?"


def _answer(onto) -> list[dict]:
    return OntologyTools(onto).browse(QUESTION)


def _size(answer: list[dict]) -> int:
    return len(json.dumps(answer, ensure_ascii=False, separators=(",", ":")))


def test_answer_fills_budget_with_keys_no_word_matched(concert_workspace):
    onto = Workspace.open(concert_workspace).ontology
    view = OntologyView(onto)
    assert load_settings(onto).browse.full_lines_matched_only is False
    before = _answer(onto)
    # the saving the loop proposes first for a compact answer
    (flag, *budgets) = propose(attribute(Signature("answer_size", "answer-size", None, ("q1",)), view), view)
    assert flag.aim == "cost" and flag.edits == (SetToolSetting("browse.fullLinesMatchedOnly", 1),)
    assert all(c.edits[0].setting == "browse.answerBudget" for c in budgets)
    ctx = EditContext(view, IriFactory(onto.base_iri))
    patched, why = validate_candidate(onto, to_patch(flag, ctx))  # the shapes accept the xsd:boolean
    assert why is None and patched is not None
    assert load_settings(patched).browse.full_lines_matched_only is True
    after = _answer(patched)

    def full(answer):  # "table"."column" lines (a table's line is "table"("a", "b"))
        return [e["label"].split(" ", 1)[0] for e in answer if '"."' in e["label"].split(" ", 1)[0]]

    # the matched columns keep their full lines, in the same order
    matched = [c for c in full(before) if c in {'"singer"."Age"', '"singer"."Country"'}]
    assert matched and [c for c in full(after) if c in matched] == matched
    # no unmatched candidate has a full line any more: the concert tables' keys are named in their
    # tables' lines, and every column the answer named before is still named
    assert len(full(after)) < len(full(before)) and _size(after) < _size(before)
    named = " ".join(e["label"] for e in after)
    for line in full(before):
        table, column = (part.strip('"') for part in line.split("."))
        assert f'"{column}"' in named, column
    # the loop does not propose it again once taken; budgets only
    again = propose(attribute(Signature("answer_size", "answer-size", None, ("q1",)), OntologyView(patched)),
                    OntologyView(patched))
    assert again and all(c.edits[0].setting == "browse.answerBudget" for c in again)


def test_the_flag_takes_zero_or_one_only(concert_workspace):
    onto = Workspace.open(concert_workspace).ontology
    ctx = EditContext(OntologyView(onto), IriFactory(onto.base_iri))
    with pytest.raises(EditError, match=r"0 \(false\) or 1 \(true\)"):
        SetToolSetting("browse.fullLinesMatchedOnly", 2).compile(ctx)


def test_full_lines_for_matches_keep_a_family_answer_within_budget(tmp_path):
    """With the setting on, a family's column named in each member line the query asks for was taken
    off what was left to name once per line, though it was counted once: what was left went
    negative and full lines were taken past the budget (2,352 characters for a 2,315 budget)."""
    import random
    import sqlite3

    from evoonto import create_workspace

    db = tmp_path / "sales.sqlite"
    con = sqlite3.connect(db)
    rng = random.Random(0)
    columns = ["quantity_sold_in_units", "unit_price_amount_in_euros", "discount_percentage_applied",
               "gross_margin_amount_total", "freight_cost_amount_total", "tax_amount_charged_total",
               "loyalty_points_awarded_count", "return_refund_amount_total", "packaging_weight_in_kilograms",
               "delivery_duration_in_days", "customer_rating_score_value", "promotion_discount_amount_value"]
    for year in range(2019, 2024):  # one table per year: a family
        con.execute(f"CREATE TABLE sales_{year} (sale_number INTEGER, {', '.join(c + ' REAL' for c in columns)})")
        con.executemany(f"INSERT INTO sales_{year} VALUES ({', '.join('?' * (len(columns) + 1))})",
                        [(i, *(rng.random() * 1000 for _ in columns)) for i in range(40)])
    con.execute("CREATE TABLE stores (store_id INTEGER PRIMARY KEY, store_name TEXT, city TEXT)")
    con.executemany("INSERT INTO stores VALUES (?, ?, ?)", [(i, f"Store {i}", ("Paris", "Berlin")[i % 2])
                                                            for i in range(5)])
    con.commit()
    con.close()
    create_workspace(tmp_path / "ws", [str(db)])
    onto = Workspace.open(tmp_path / "ws").ontology
    view = OntologyView(onto)
    flag = propose(attribute(Signature("answer_size", "answer-size", None, ("q1",)), view), view)[0]
    tools = OntologyTools(onto.with_patch(to_patch(flag, EditContext(view, IriFactory(onto.base_iri)))))
    queries = [("delivery 2022 city 2021 2023 packaging city", None), ("2021 name 2023 2022 2020", "freight freight")]
    over = [(q, budget, _size(answer)) for q, context in queries for budget in range(1500, 3200, 11)
            for answer in [tools.browse(q, budget=budget, context=context)]
            if len(answer) > 1 and _size(answer) > budget]
    assert over == []
