"""Defect (issue 33 item 2): the compact answer brought forward only the keys a constraint declares.
Two tables that join by a column no constraint declares (on wide BIRD, ``transactions_1k`` and
``yearmonth`` both hold ``CustomerID``; the builder's inclusion probe found the join) were listed
without that column when other columns filled the budget, so the agent could not write the join the
question needs (3 of the 23 wide BIRD misses). The columns joining an answer's table to another of
its tables are now keys of that answer (:func:`evoonto.tools.browse.joined_columns`)."""

from __future__ import annotations

from evoonto.evaluation.linking import recognise
from evoonto.tools.browse import browse, joined_columns
from evoonto.tools.index import SearchIndex
from evoonto.tools.settings import BrowseSettings
from fixtures.retrieval_support import column_doc


PURCHASE = ["purchase_id", "purchase_date", "purchase_time", "station", "card", "product", "amount", "unit_price",
            "client_no"]


def _index() -> SearchIndex:
    docs = [column_doc("purchase", c, f"purchase {c}".replace("_", " "), k, key=(c == "purchase_id"))
            for k, c in enumerate(PURCHASE)]
    docs += [column_doc("monthly_usage", "client_no", "client number", 0),
             column_doc("monthly_usage", "month", "month", 1),
             column_doc("monthly_usage", "consumption", "consumption", 2)]
    # weak matches elsewhere that fill a small budget
    docs += [column_doc(f"archive_{k}", f"purchase_note_{j}", f"archived purchase note {j}", j)
             for k in range(40) for j in range(3)]
    docs.sort(key=lambda d: d.iri)
    return SearchIndex(docs)


JOINS = {"purchase": {"monthly_usage": {"client_no"}}, "monthly_usage": {"purchase": {"client_no"}}}
SCHEMA = {"purchase": PURCHASE, "monthly_usage": ["client_no", "month", "consumption"]}
QUESTION = "monthly consumption of the people who made a purchase above a unit price of 29"


def test_the_probed_join_column_is_named_in_a_small_answer():
    index = _index()
    answer = browse(index, BrowseSettings(), QUESTION, format="compact", budget=900, joins=JOINS)
    columns = recognise(answer, SCHEMA)[1]
    assert {("purchase", "client_no"), ("monthly_usage", "client_no"), ("monthly_usage", "consumption"),
            ("purchase", "unit_price")} <= columns, answer
    # joins known only as tables (no columns): the join column is not brought forward
    tables_only = {table: set(others) for table, others in JOINS.items()}
    answer = browse(index, BrowseSettings(), QUESTION, format="compact", budget=900, joins=tables_only)
    assert ("purchase", "client_no") not in recognise(answer, SCHEMA)[1]


def test_join_columns_only_towards_a_table_of_the_answer():
    columns = [f"purchase.{c}" for c in PURCHASE]
    # ranked no earlier than the later of its two tables
    assert joined_columns("purchase", 0.8, columns, {"purchase": 0.8, "monthly_usage": 0.3}, JOINS) == \
        [("purchase.client_no", 0.3)]
    assert joined_columns("purchase", 0.8, columns, {"purchase": 0.8}, JOINS) == []  # partner not ranked
    assert joined_columns("purchase", 0.0, columns, {"purchase": 0.0, "monthly_usage": 0.3}, JOINS) == []
    assert joined_columns("purchase", 0.8, columns, {"monthly_usage": 0.3}, None) == []
